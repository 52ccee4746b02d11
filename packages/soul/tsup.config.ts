import { kosongTsup } from "@kosong/tsup-preset";
import { defineConfig } from "tsup";

export default defineConfig(kosongTsup({
  entry: {
    index: "src/index.ts",
    "compaction/index": "src/compaction/index.ts",
    "tokens/index": "src/tokens/index.ts",
    "conversation/index": "src/conversation/index.ts",
    "internal/index": "src/internal/index.ts",
    "files/index": "src/files.ts",
    "recall/index": "src/recall/index.ts",
    "hooks/index": "src/hooks/index.ts",
    "wire-server/index": "src/wire-server/index.ts",
    "subagent/index": "src/subagent/index.ts",
  },
}));
