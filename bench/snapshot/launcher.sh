#!/bin/sh
# The launcher a snapshot would need (prototype, measured by bench/src/benchmarks/cli-snapshot.ts). Node cannot switch
# to a snapshot once started and refuses (exit 1) a blob another Node binary built, so a shell script picks, before
# Node starts, the blob built by the `node` on the PATH (its path, recorded next to the blob, and the blob newer than
# the binary) on this machine, and falls back to the ordinary bundle when there is none, or when NODE_OPTIONS may
# carry V8 flags the blob was not built with. Cheapest form: no process is started before Node (`node --version`
# would cost a start of its own, and still not tell two builds of one version apart, nor see through version shims).
#   KOSONG_SNAPSHOT_DIR     where kosong.blob and kosong.blob.node (the node path and host it was built by) are
#   KOSONG_SNAPSHOT_BUNDLE  the snapshot's CommonJS bundle      KOSONG_BUNDLE  the ordinary bundle
node=$(command -v node) || { echo "kosong: node not found" >&2; exit 127; }
blob=$KOSONG_SNAPSHOT_DIR/kosong.blob
host=
[ -r /proc/sys/kernel/hostname ] && read -r host < /proc/sys/kernel/hostname
if [ -z "${NODE_OPTIONS-}" ] && [ -f "$blob" ] && [ "$blob" -nt "$node" ] && { read -r built_by && read -r built_on; } < "$blob.node" && [ "$built_by" = "$node" ] && [ "$built_on" = "$host" ]; then
  exec "$node" --snapshot-blob "$blob" "$KOSONG_SNAPSHOT_BUNDLE" "$@"
fi
exec "$node" "$KOSONG_BUNDLE" "$@"
