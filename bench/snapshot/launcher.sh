#!/bin/sh
# The launcher a snapshot would need (prototype, measured by bench/src/benchmarks/cli-snapshot.ts): Node cannot
# switch to a snapshot once started, and refuses (exit 1) a blob another Node binary built, so a shell script picks,
# before Node starts, the blob built by this very Node (its version, path, the machine) for this bundle, and falls
# back to the ordinary bundle when there is none or NODE_OPTIONS may carry V8 flags the blob was not built with.
#   KOSONG_SNAPSHOT_DIR  where the blobs are     KOSONG_SNAPSHOT_BUNDLE  the snapshot's CommonJS bundle
#   KOSONG_BUNDLE        the ordinary bundle     KOSONG_SNAPSHOT_KEY_ONLY=1  print the blob's name and exit
node=$(command -v node) || { echo "kosong: node not found" >&2; exit 127; }
if [ -n "${NODE_OPTIONS-}" ]; then exec "$node" "$KOSONG_BUNDLE" "$@"; fi
key=$(printf '%s\n' "$("$node" --version)" "$node" "$(uname -snm)" "$KOSONG_SNAPSHOT_BUNDLE" | cksum)
blob="$KOSONG_SNAPSHOT_DIR/kosong-${key%% *}.blob"
if [ "${KOSONG_SNAPSHOT_KEY_ONLY-}" = 1 ]; then printf '%s\n' "$blob"; exit 0; fi
if [ -f "$blob" ]; then exec "$node" --snapshot-blob "$blob" "$KOSONG_SNAPSHOT_BUNDLE" "$@"; fi
exec "$node" "$KOSONG_BUNDLE" "$@"
