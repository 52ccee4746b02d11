/**
 * A summary's fact sections list what the agent stated as an outcome or a
 * decision, not its narration ("Let me fix this:"), and no script's first
 * line as a command run again: that room goes to the excerpts.
 */
import { assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { extractiveSummary } from "@kosong/soul/compaction";
import { o200kTokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

const shell = (id: string, command: string, output: string, prose = ""): Message[] => [assistantMessage(prose, [toolCall(id, "bash", { command })]), toolMessage(id, output)];

describe("the agent's prose in a summary's fact sections", () => {
  it("lists stated outcomes and decisions, not narration", () => {
    const messages: Message[] = [
      userMessage("Make HttpResponse accept memoryview."),
      ...shell("a", "python repro.py", "b'<memory at 0x7f>'", "Let me fix this: I need to fix the make_bytes method."),
      ...shell("b", "python repro.py", "b'My Content'", "The error comes from str(value). Fixed by converting buffers with bytes(value)."),
      assistantMessage("I decided to keep the fallback to str(value).encode(self.charset)."),
    ];
    const summary = extractiveSummary(messages, { maxTokens: 2000, tokenizer: o200kTokenizer });
    const facts = summary.split("## Excerpts")[0]!;
    expect(facts).toContain("- Fixed by converting buffers with bytes(value).");
    expect(facts).toContain("- I decided to keep the fallback to str(value).encode(self.charset).");
    expect(facts).not.toContain("Let me fix this");
    expect(facts).not.toContain("The error comes from str(value).");
  });

  it("does not list a script's first line as a command run more than once", () => {
    const script = (id: string, body: string): Message[] => shell(id, `python -c "\n${body}\n"`, "ok");
    const messages: Message[] = [userMessage("Check the encoder."), ...script("a", "print(1)"), ...script("b", "print(2)"), ...shell("c", "python -m pytest -q", "1 failed"), ...shell("d", "python -m pytest -q", "1 passed")];
    const summary = extractiveSummary(messages, { maxTokens: 2000, tokenizer: o200kTokenizer });
    expect(summary).toContain("- `python -m pytest -q` (2×)");
    expect(summary).not.toContain('`python -c "`');
  });
});
