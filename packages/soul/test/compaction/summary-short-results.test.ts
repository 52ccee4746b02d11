/**
 * A short output of a run is the result the agent saw ("Test passed!", the
 * strings its script printed): it rarely names the files the recent
 * messages work on, yet the next steps quote it. Cheap to keep whole, it
 * competes for the summary's excerpts by the values it printed.
 */
import { assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { extractiveSummary } from "@kosong/soul/compaction";
import { o200kTokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

const shell = (id: string, command: string, output: string): Message[] => [assistantMessage("", [toolCall(id, "bash", { command })]), toolMessage(id, output)];

describe("short results in a summary", () => {
  it("keeps a short run output that names nothing the kept messages work on", () => {
    const view = Array.from({ length: 30 }, (_, i) => `${100 + i}    def step_${i}(self): return self.order_total(${i})`).join("\n");
    const messages: Message[] = [
      userMessage("Fix the rounding of order_total() in shop/orders.py."),
      ...shell("a", "cat -n shop/orders.py", view),
      ...shell("b", "python check_rounding.py", "Order saved: 1999 cents\nTest passed: 'rounding half up'"),
      ...shell("c", "grep -n order_total shop/orders.py", "112:    def order_total(self, n):"),
    ];
    const kept = [assistantMessage("Next I edit order_total in shop/orders.py.")];
    const summary = extractiveSummary(messages, { maxTokens: 1200, tokenizer: o200kTokenizer, kept });
    expect(summary).toContain("$ python check_rounding.py\nOrder saved: 1999 cents\nTest passed: 'rounding half up'");
  });

  it("does not keep a long output that names nothing the kept messages work on", () => {
    const log = Array.from({ length: 80 }, (_, i) => `Downloading package_${i} (${1000 + i} kB)`).join("\n");
    const messages: Message[] = [userMessage("Fix the rounding of order_total() in shop/orders.py."), ...shell("a", "pip install -r requirements.txt", log)];
    const kept = [assistantMessage("Next I edit order_total in shop/orders.py.")];
    const summary = extractiveSummary(messages, { maxTokens: 1200, tokenizer: o200kTokenizer, kept });
    expect(summary).not.toContain("Downloading package_");
  });
});
