import { assistantMessage, toolCall, userMessage } from "@kosong/core";
import { estimateTokens } from "@kosong/soul";
import { describe, expect, it } from "vitest";

describe("estimateTokens", () => {
  it("grows with text and tool-call arguments", () => {
    const short = estimateTokens([userMessage("hi")]);
    const long = estimateTokens([userMessage("hi ".repeat(400))]);
    expect(long).toBeGreaterThan(short + 250);
    const withCall = estimateTokens([assistantMessage("", [toolCall("c1", "Shell", { command: "x".repeat(400) })])]);
    expect(withCall).toBeGreaterThan(100);
  });
  it("is zero for no messages", () => {
    expect(estimateTokens([])).toBe(0);
  });
});
