/**
 * string-width as kosong patches it (`patches/string-width@9.0.0.patch`):
 * the prompt, the banner and the status line are measured without building
 * an `Intl.Segmenter` (tens of milliseconds and a few MB at start-up), with
 * the widths a terminal gives them; text that needs grapheme segmentation
 * (a combining accent, an emoji with a skin tone, Hangul jamo) still gets
 * it. Run in a fresh Node process, where string-width is imported for the
 * first time, as in the binary.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const cliDir = fileURLToPath(new URL("..", import.meta.url));

/** Widths of `texts` (ambiguous characters narrow, then wide) and how many segmenters were built before and after. */
function measure(texts: readonly string[], then: readonly string[]): { widths: number[][]; madeBefore: number; madeAfter: number; thenWidths: number[] } {
  const script = `
    let made = 0;
    const Original = Intl.Segmenter;
    Intl.Segmenter = class extends Original { constructor(...args) { super(...args); made++; } };
    const { default: stringWidth } = await import("string-width");
    const texts = ${JSON.stringify(texts)};
    const then = ${JSON.stringify(then)};
    const widths = texts.map((text) => [stringWidth(text), stringWidth(text, { ambiguousIsNarrow: false })]);
    const madeBefore = made;
    const thenWidths = then.map((text) => stringWidth(text));
    console.log(JSON.stringify({ widths, madeBefore, madeAfter: made, thenWidths }));
  `;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: cliDir, encoding: "utf8" })) as ReturnType<typeof measure>;
}

describe("string-width (patched)", () => {
  it("measures the prompt, banner and status line without a segmenter, and builds one for text that needs it", () => {
    const { widths, madeBefore, madeAfter, thenWidths } = measure(
      ["\u001b[36m› \u001b[39m", "kosong 0.1.0 · ~/project", "▱▱▱▱ 0/128k (0%) · compaction: simple", "✓ done … ─── ← → ✗", "café naïve Ł", "✅ ok"],
      ["e\u0301", "👍🏽", "\u1100\u1161", "a\u200db"],
    );
    expect(madeBefore).toBe(0);
    // East Asian ambiguous characters (·, …, ─, ←, →, ✗, é, ï) are one column unless asked to be two; ✅ is wide either
    // way; the unpatched string-width 9.0.0 gives the same widths.
    expect(widths).toEqual([
      [2, 2],
      [24, 25],
      [37, 38],
      [18, 24],
      [12, 14],
      [5, 5],
    ]);
    expect(thenWidths).toEqual([1, 2, 2, 2]);
    expect(madeAfter).toBe(1);
  });
});
