/**
 * The interactive CLI warms the Markdown renderer up while the user types
 * at the first prompt (so the first answer does not pay for compiling
 * marked's rules). The warm-up must not load what the idle prompt does not
 * need (the code highlighter, all of highlight.js, and the emoji table), and
 * an answer rendered after it still gets them. A turn already started when
 * the warm-up's turn comes (Enter typed while the SDK loaded) loads marked
 * itself, after its request: the warm-up then loads nothing.
 */
import { createRequire } from "node:module";
import pc from "picocolors";
import { describe, expect, it } from "vitest";

/** Whether a CommonJS module whose path contains `name` is loaded in this test's process. */
const loaded = (name: string): boolean => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes(name));

// Colours as in a terminal (marked-terminal's chalk reads this when the renderer loads it).
process.env.FORCE_COLOR = "1";
const { MarkdownStream, warmMarkdownRenderer } = await import("../src/render/markdown-stream.js");

describe("the Markdown renderer's warm-up", () => {
  // Enter pressed while the SDK still loaded: the warm-up comes after the turn started, whose request must not wait for marked's modules.
  it("loads nothing once the prompt no longer waits", async () => {
    await warmMarkdownRenderer(80, () => false);
    expect(loaded("/cli-table3/")).toBe(false);
  });

  it("leaves the highlighter and the emoji table unloaded, and the first answer after it still has both", async () => {
    expect([loaded("/highlight.js/"), loaded("/node-emoji/")]).toEqual([false, false]);
    await warmMarkdownRenderer(80);
    expect([loaded("/highlight.js/"), loaded("/node-emoji/")]).toEqual([false, false]);
    let out = "";
    const stream = new MarkdownStream({ write: (text) => (out += text), style: pc.createColors(true), columns: 80, rows: 24 });
    await stream.push("Hi :smile: **there**\n\n```js\nconst a = 1;\n```\n");
    await stream.end();
    expect(out).toContain("😄");
    expect(out).toMatch(/\u001b\[\d+mconst\u001b\[39m/);
    expect(loaded("/highlight.js/")).toBe(true);
  });
});
