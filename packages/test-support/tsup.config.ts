import { kosongTsup } from "@kosong/tsup-preset";
import { defineConfig } from "tsup";

export default defineConfig(kosongTsup({
  entry: { index: "src/index.ts" },
  external: ["vitest"],
}));
