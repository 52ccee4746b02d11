import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { cutToWidth } from "../src/render/cut-to-width.js";

describe("cutToWidth", () => {
  it("cuts in columns, never half a wide character, and keeps a line that fits", () => {
    expect(cutToWidth("short", 10)).toBe("short");
    expect(cutToWidth("漢字漢字漢字", 7)).toBe("漢字漢…");
    expect(cutToWidth("abcdefghij", 5)).toBe("abcd…");
  });

  it("cuts a tool output line of 12,000 zero-width characters at once (the terminal does not freeze)", () => {
    const line = `${"\u200b".repeat(12_000)}${"x".repeat(100)}`;
    const cut = cutToWidth(line, 80);
    expect(stringWidth(cut)).toBe(80);
    expect(cut).toBe(`${"\u200b".repeat(12_000)}${"x".repeat(79)}…`);
  });
});
