/**
 * The build step that makes the bundle's chunks ASCII (`build/ascii-source.ts`):
 * characters above U+007F in comments and regexp literals become `\uXXXX`
 * escapes, the code means the same, and a tagged template's raw text is
 * left alone. The built chunks are checked in `e2e/bundle-ascii.e2e.test.ts`.
 */
import { describe, expect, it } from "vitest";
import { asciiSource } from "../build/ascii-source.js";

const isAscii = (text: string) => !/[^\x00-\x7f]/.test(text);

describe("asciiSource", () => {
  it("escapes comments and regexps, and the code matches as before", () => {
    const code = [
      "// a dash — and an arrow →",
      "/** ✓ done · ok */",
      "export const failing = /^(?:✗|✕|×|FAIL)\\s/;",
      "export const sentences = /(?<=[.!?。！？])\\s+/u;",
      "export const wave = /👋+/u;",
      "export const pair = /👋/;",
      "export const identity = /\\→x/;",
      "export const evenSlashes = /\\\\→/;",
      'export const text = "\\u2192";',
      "export const half = 10 / 2 / 5; // → 1",
    ].join("\n");
    const escaped = asciiSource(code);
    expect(isAscii(escaped)).toBe(true);
    const load = (source: string) => new Function(`${source.replaceAll("export ", "")}\nreturn { failing, sentences, wave, pair, identity, evenSlashes, text, half };`)() as Record<string, RegExp | string | number>;
    const [before, after] = [load(code), load(escaped)];
    const samples = ["✗ x", "× y", "FAIL z", "ok", "a。 b", "a! b", "👋👋", "👋", "→x", "\\→", "\\x"];
    for (const name of ["failing", "sentences", "wave", "pair", "identity", "evenSlashes"]) {
      const [a, b] = [before[name] as RegExp, after[name] as RegExp];
      expect(b.flags).toBe(a.flags);
      for (const sample of samples) expect([name, sample, b.test(sample)]).toEqual([name, sample, a.test(sample)]);
    }
    expect(after.text).toBe("→");
    expect(after.half).toBe(1);
  });

  it("leaves ASCII code and a tagged template's raw text as they are, and code it cannot read unchanged", () => {
    expect(asciiSource("export const a = 1; // plain\n")).toBe("export const a = 1; // plain\n");
    const tagged = "export const raw = String.raw`→ ${1}`; // →";
    expect(asciiSource(tagged)).toBe("export const raw = String.raw`→ ${1}`; // \\u2192");
    const broken = "export const = /→";
    expect(asciiSource(broken)).toBe(broken);
  });
});
