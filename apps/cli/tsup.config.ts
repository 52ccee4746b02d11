import { defineConfig } from "tsup";

export default defineConfig({
  entry: { kosong: "src/kosong.ts" },
  format: ["esm"],
  target: "node22",
  platform: "node",
  dts: false,
  sourcemap: true,
  clean: true,
  banner: { js: "#!/usr/bin/env node" },
  external: [/^@kosong\//],
});
