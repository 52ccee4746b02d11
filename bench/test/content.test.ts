import { assistantMessage, toolCall, toolMessage, userMessage } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { containsValue, editAnchors, keptContentText, needsAfter, normalise, valuesIn } from "../src/real-trajectories/content.ts";

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
