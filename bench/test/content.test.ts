import { assistantMessage, type Message, toolCall, toolMessage, userMessage } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { containsValue, editAnchors, keptContentText, needsAfter, normalise, valuesIn } from "../src/real-trajectories/content.ts";
import { messageText } from "../src/real-trajectories/identifiers.ts";
import { anchorMiss, formatMisses, identifierMiss, outputKind, summariseIdentifierMisses, valueMiss } from "../src/real-trajectories/misses.ts";
import { categoryTable } from "../src/real-trajectories/miss-categories.ts";

describe("the content bench's measures", () => {
  it("normalises line-number prefixes, indentation and empty lines away", () => {
    expect(normalise("   12\tdef f():\n\n    13→    return 1\n14:x = 2")).toBe("def f():\nreturn 1\nx = 2");
  });

  it("finds numbers, test names, error texts and quoted strings, and matches numbers with boundaries", () => {
    const values = valuesIn(`see line 312 of version 3.2.1: test_memoryview fails with AttributeError: 'NoneType' object has no attribute 'x' and "a quoted value"`).map((v) => v.text);
    expect(values).toEqual(expect.arrayContaining(["312", "3.2.1", "test_memoryview", "a quoted value"]));
    expect(values.some((v) => v.startsWith("AttributeError: 'NoneType' object has no attribute 'x'"))).toBe(true);
    expect(containsValue("line 3120", { text: "312", number: true })).toBe(false);
    expect(containsValue("line 312.", { text: "312", number: true })).toBe(true);
  });

  it("reads the old text of edits: old_str arguments, sed -i patterns, diff hunks", () => {
    const edit = assistantMessage("", [toolCall("e", "Edit", { path: "a.py", old_str: "    return x\n", new_str: "return y" })]);
    expect(editAnchors(edit)).toEqual(["return x"]);
    const sed = assistantMessage("", [toolCall("s", "bash", { command: "sed -i 's/self\\.value = None/self.value = 0/' a.py" })]);
    expect(editAnchors(sed)).toEqual(["self.value = None"]);
    const diff = assistantMessage("", [toolCall("d", "bash", { command: "cat > p.patch <<'EOF'\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n def f():\n-    return 1\n+    return 2\n     pass\nEOF" })]);
    expect(editAnchors(diff)).toEqual(["def f():\nreturn 1\npass"]);
  });

  it("counts what the next steps need only when the history before the cut holds it", () => {
    const messages = [
      userMessage("Fix f."),
      assistantMessage("", [toolCall("c1", "bash", { command: "grep -n 'return 1' x.py" })]),
      toolMessage("c1", "2:    return 1"),
      assistantMessage("", [toolCall("c2", "bash", { command: "sed -i 's/return 1/return 2/' x.py && sed -n 100,120p x.py" })]),
    ];
    const needs = needsAfter(messages, 3, 10);
    expect(needs.anchors).toEqual(["return 1"]);
    expect(needs.values.map((v) => v.text)).not.toContain("100");
    expect(needs.requests).toEqual(["Fix f."]);
  });

  it("does not count an identifier index as kept content", () => {
    const notice = userMessage("<system>3 earlier messages were removed.\n\n## Identifiers in the removed messages (paths, symbols, errors)\nPaths: src/a.py</system>");
    expect(keptContentText(notice)).not.toContain("src/a.py");
    expect(keptContentText(notice)).toContain("earlier messages were removed");
  });
});

describe("the content bench's misses (--misses)", () => {
  const history = [
    userMessage("Fix f."),
    assistantMessage("", [toolCall("c1", "bash", { command: "sed -n '1,4p' x.py" })]),
    toolMessage("c1", "def f():\n    return 1\n\n    pass"),
    assistantMessage("", [toolCall("c2", "bash", { command: "grep -n 'return' x.py" })]),
    toolMessage("c2", "2:    return 1\n312:    return 3"),
  ];
  const count = (m: Message): number => messageText(m).length;

  it("names the newest message that held a missed anchor, its tool call and what the compaction did with it", () => {
    const output = [history[0]!, history[3]!, toolMessage("c2", "[excerpt]\n312:    return 3")];
    const miss = anchorMiss("t1", history, output, "def f():\nreturn 1", count);
    expect(miss).toMatchObject({ kind: "anchor", trajectory: "t1", cut: 5 });
    expect(miss.source).toContain(`#2 of 5 tool (bash: {"command":"sed -n '1,4p' x.py"})`);
    expect(miss.source).toContain("dropped; 0/2 lines in the output");
    const value = valueMiss("t1", history, [history[0]!, history[3]!, toolMessage("c2", "[excerpt]")], { text: "312", number: true }, count);
    expect(value.source).toMatch(/^#4 of 5 tool \(bash: .*grep -n.*\), \d+ tokens, 2 lines: cut to \d+ tokens, 1 lines$/);
    expect(formatMisses("s at 30 %", [miss])[0]).toMatch(/^ {2}miss s at 30 % \| anchor "def f\(\): return 1" \| t1 cut 5 \| #2/);
  });

  it("says where a missed identifier was (the agent's call, its prose, a kind of tool output) and what happened to that message", () => {
    const calls = [...history, assistantMessage("I will patch make_bytes next.", [toolCall("c3", "bash", { command: "python reproduce_issue.py" })]), toolMessage("c3", "Traceback\nHttpResponseBase failed")];
    const stubbed = [calls[0]!, calls[3]!, toolMessage("c2", "[tool output elided: 40 tokens]"), calls[5]!, calls[6]!];
    expect(identifierMiss("t1", calls, stubbed, "reproduce_issue.py", count)).toMatchObject({ kind: "identifier", where: "agent's tool-call arguments", fate: "kept whole" });
    expect(identifierMiss("t1", calls, [calls[0]!], "make_bytes", count)).toMatchObject({ where: "agent prose", fate: "dropped" });
    expect(identifierMiss("t1", calls, [calls[0]!, calls[5]!, toolMessage("c3", "[excerpt]")], "HttpResponseBase", count)).toMatchObject({ where: "tool output: run/test", fate: "excerpted" });
    const grep = [...history.slice(0, 3), assistantMessage("", [toolCall("c2", "bash", { command: "grep -n return x.py" })]), toolMessage("c2", "2: return ok_value")];
    expect(identifierMiss("t1", grep, [grep[0]!, grep[3]!, toolMessage("c2", "[tool output elided: 40 tokens]")], "ok_value", count)).toMatchObject({ where: "tool output: search/listing", fate: "stub" });
    const table = summariseIdentifierMisses("s", [identifierMiss("t1", calls, [calls[0]!], "make_bytes", count), identifierMiss("t1", calls, [calls[0]!], "reproduce_issue.py", count)]);
    expect(table[0]).toContain("identifier misses of s: 2");
    expect(table.slice(1).sort()).toEqual(["  agent prose | 0 | 0 | 0 | 1 | 1 (50 %)", "  agent's tool-call arguments | 0 | 0 | 0 | 1 | 1 (50 %)"]);
  });

  it("reads what a shell call did from its command", () => {
    expect(outputKind("cd /testbed && sed -n '10,20p' a.py")).toBe("file view");
    expect(outputKind("sed -i 's/a/b/' a.py")).toBe("edit");
    expect(outputKind("cat > fix.py <<'EOF'\nx\nEOF")).toBe("write file");
    expect(outputKind("grep -rn foo .")).toBe("search/listing");
    expect(outputKind("python -m pytest tests")).toBe("run/test");
    expect(outputKind("git diff")).toBe("git");
  });
});

describe("the content bench's value-miss categories (--misses)", () => {
  const shell = (id: string, command: string, output: string): Message[] => [
    assistantMessage("", [toolCall(id, "bash", { command })]),
    toolMessage(id, output),
  ];
  const history = [
    userMessage("Fix the totals."),
    ...shell("c1", "cd /testbed && grep -n 'def total' lib.py", "312:def total(xs):"),
    ...shell("c2", "python reproduce.py", 'got "totals differ by one"'),
    ...shell("c3", "pip install -e .", "Successfully installed wrapt-1.13.3"),
    ...shell("c4", "python reproduce.py", "still wrong"),
    assistantMessage("Next."),
  ];
  const count = (m: Message): number => messageText(m).length;
  const missed = (text: string, number: boolean) => valueMiss("t1", history, [history[0]!], { text, number }, count).category;

  it("says what kind of value was missed, from what kind of command, how old it was and whether the command ran again", () => {
    expect(missed("312", true)).toEqual({ value: "line number", tool: "grep -n", age: 8, newer: false });
    expect(missed("totals differ by one", false)).toEqual({ value: "quoted string", tool: "script run", age: 6, newer: true });
    expect(missed("1.13.3", true)).toMatchObject({ value: "version (dotted)", tool: "pip", newer: false });
    const table = categoryTable("s at 30 %", [missed("312", true)!, missed("totals differ by one", false)!]);
    expect(table[0]).toBe("  value misses of s at 30 %: 2");
    expect(table).toContain("    by age at the cut (messages): <= 10 2");
    expect(table).toContain("    by newer output of the same command: yes 1, no 1");
  });
});
