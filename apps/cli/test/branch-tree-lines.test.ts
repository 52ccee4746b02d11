/**
 * `/tree`'s lines: each branch on one row of the terminal, its first prompt
 * cut to what the row has left (in columns: CJK text counts double).
 */
import type { ContextBranch } from "@kosong/soul/conversation";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { branchTreeLines } from "../src/render/branch-tree-lines.js";
import { styleFor } from "../src/render/terminal-style.js";

const plain = styleFor({ isTTY: false } as unknown as NodeJS.WritableStream, { NO_COLOR: "1" });

const branch = (fields: Partial<ContextBranch>): ContextBranch => ({ rotation: null, kind: "current", checkpoint: null, sharedMessages: 0, messages: 4, firstPrompt: null, size: null, mtimeMs: null, location: "x", ...fields });

describe("/tree lines", () => {
  it("keeps each branch on one row of the terminal, cutting a long or wide first prompt to fit", () => {
    const branches = [
      branch({ firstPrompt: "explain the structure of this repository and every module in it, with examples" }),
      branch({ rotation: 1, parent: null, kind: "rewrite", checkpoint: 0, size: 1229, mtimeMs: Date.UTC(2026, 0, 1), firstPrompt: `请解释这个项目的结构 ${"和它的模块 ".repeat(10)}` }),
      branch({ rotation: 2, parent: null, kind: "btw", checkpoint: 9, size: 4180, mtimeMs: Date.UTC(2026, 0, 1), firstPrompt: "short" }),
    ];
    const lines = branchTreeLines(branches, plain, "byte", 100);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThan(100);
    expect(lines[0]).toMatch(/^● current · 4 messages "explain the structure .*…"$/);
    expect(lines[1]).toMatch(/^├─ 1 {2}rewrite at checkpoint 0 · .* "请解释这个项目.*…"$/);
    expect(lines[2]).toMatch(/"short"$/);
    // A row with no room left for the prompt leaves it out rather than wrap with it.
    const narrow = branchTreeLines(branches, plain, "byte", 80);
    expect(narrow[0]).toMatch(/^● current · 4 messages "explain the .*…"$/);
    expect(stringWidth(narrow[0]!)).toBeLessThan(80);
    expect(narrow[1]).toMatch(/4 messages · 1229 bytes$/);
  });
});
