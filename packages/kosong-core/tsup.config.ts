import { kosongTsup } from "@kosong/tsup-preset";
import { defineConfig } from "tsup";

export default defineConfig(kosongTsup({
  entry: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    "openai/index": "src/openai/index.ts",
    "anthropic/index": "src/anthropic/index.ts",
  },
  external: ["openai", "@anthropic-ai/sdk"],
}));
