/**
 * The Markdown renderer loads while the user types at the first prompt, and
 * the first request must not wait behind it: importing it must not load the
 * code highlighter (all of highlight.js) or the emoji table, which it needs
 * only for a fenced code block or an `:emoji:` code; those still work when
 * the answer has them. Run in a fresh `node` (a real process, nothing else
 * loaded), as the CLI loads it.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const cliDir = fileURLToPath(new URL("..", import.meta.url));

/** Runs `code` as an ES module in a fresh node in apps/cli (its dependencies resolvable) and returns its stdout. */
function node(code: string): string {
  return execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: cliDir, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "1" } });
}

/** Whether a module whose path contains `name` has been required (CommonJS) in this process, as a JS expression. */
const loaded = (name: string) => `Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes(${JSON.stringify(name)}))`;

describe("the Markdown renderer's loading", () => {
  it("imports without the highlighter or the emoji table, and loads them for the first code block and emoji", () => {
    const out = node(`
      import { createRequire } from "node:module";
      const { Marked } = await import("marked");
      const { markedTerminal } = await import("marked-terminal");
      const marked = new Marked();
      marked.use(markedTerminal());
      const plain = marked.parse("Just **text**.");
      const before = { highlight: ${loaded("/highlight.js/")}, emoji: ${loaded("/node-emoji/")} };
      const rendered = marked.parse("Hi :smile:\\n\\n\`\`\`js\\nconst a = 1;\\n\`\`\`\\n");
      const after = { highlight: ${loaded("/highlight.js/")}, emoji: ${loaded("/node-emoji/")} };
      process.stdout.write(JSON.stringify({ plain, before, rendered, after }));
    `);
    const { plain, before, rendered, after } = JSON.parse(out) as { plain: string; before: Record<string, boolean>; rendered: string; after: Record<string, boolean> };
    expect(plain).toContain("text");
    expect(before).toEqual({ highlight: false, emoji: false });
    // The code block is still coloured (a keyword in its own colour) and the emoji code still becomes the emoji.
    expect(rendered).toContain("😄");
    expect(rendered).toMatch(/\u001b\[\d+mconst\u001b\[39m/);
    expect(after.highlight).toBe(true);
  });
});
