import { kosongTsup } from "@kosong/tsup-preset";
import { defineConfig } from "tsup";

export default defineConfig(kosongTsup({
  entry: { kosong: "src/kosong.ts" },
  dts: false,
  treeshake: false,
  banner: { js: "#!/usr/bin/env node" },
}));
