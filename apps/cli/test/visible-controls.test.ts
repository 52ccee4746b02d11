/**
 * The one sanitiser between hostile text and the terminal, and the renderer
 * that applies it: nothing a model, tool or server sends can reach the
 * terminal as a control sequence.
 */
import type { SoulEvent } from "@kosong/soul";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { type ApprovalQuestion, TurnRenderer } from "../src/render/turn-renderer.js";
import { oneLine, visibleControls } from "../src/render/visible-controls.js";

/** Every character a terminal interprets, or that hides or reorders text. */
const interpreted = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\u{e0001}|[\u{e0020}-\u{e007f}]/u;

describe("visibleControls", () => {
  it("shows C0 controls and DEL as Control Pictures, keeping newlines and tabs", () => {
    expect(visibleControls("touch pwned #\r\u001b[2K? Shell wants to: Run: ls -la")).toBe("touch pwned #␍␛[2K? Shell wants to: Run: ls -la");
    expect(visibleControls("a\u0000b\u0007c\u0008d\u007fe")).toBe("a␀b␇c␈d␡e");
    expect(visibleControls("line one\n\tindented\r\nwindows line")).toBe("line one\n\tindented\nwindows line");
    expect(visibleControls("a\u000bb\u000cc")).toBe("a␋b␌c");
  });

  it("shows newlines and tabs too on one line", () => {
    expect(visibleControls("a\nb\tc\r\nd", { oneLine: true })).toBe("a␊b␉c␍␊d");
  });

  it("shows C1 controls (an 8-bit CSI too), bidi overrides and isolates, zero-width and tag characters, separators", () => {
    expect(visibleControls("x\u009b2Jy\u0085z")).toBe("x<U+009B>2Jy<U+0085>z");
    // "Run: ls # \u202Edm- fr mr" displays as "Run: ls # rm -rf md" reversed: both directions shown literally.
    expect(visibleControls("ls #\u202Ehello\u202C")).toBe("ls #<U+202E>hello<U+202C>");
    for (const c of ["\u202a", "\u202b", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\u061c"]) expect(visibleControls(`a${c}b`)).toMatch(/^a<U\+[0-9A-F]{4}>b$/);
    expect(visibleControls("r\u200bm \ufeff")).toBe("r<U+200B>m <U+FEFF>");
    expect(visibleControls("ok\u{e0041}\u{e0042}")).toBe("ok<U+E0041><U+E0042>");
    expect(visibleControls("a\u2028b\u2029c")).toBe("a<U+2028>b<U+2029>c");
    expect(visibleControls("soft\u00adhyphen")).toBe("soft<U+00AD>hyphen");
  });

  it("leaves printable text alone: accents, CJK, emoji and their joiner sequences", () => {
    const text = "Café 中文 — “quotes” 👩‍💻 👍🏽 ✓ ␛ literal";
    expect(visibleControls(text)).toBe(text);
  });

  it("leaves nothing interpreted, for any string", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pool = [..."ab \n\t\r\u001b\u009b\u202e\u2066\u200b\u0000\u007f\u0085\ufeff\u2028é中", "\u{e0041}", "👩‍💻"];
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 20) }, () => pool[Math.floor(random() * pool.length)]).join("");
      const shown = visibleControls(text);
      expect(shown.replace(/[\n\t]/g, ""), JSON.stringify(text)).not.toMatch(interpreted);
      expect(shown, JSON.stringify(text)).not.toContain("\r");
      expect(visibleControls(text, { oneLine: true })).not.toMatch(/[\n\t\r]/);
    }
  });

  it("oneLine collapses white space, shows controls and shortens", () => {
    expect(oneLine("  a\n\n b\u001b[31m  ", 20)).toBe("a b␛[31m");
    expect(oneLine("x".repeat(30), 10)).toBe(`${"x".repeat(9)}…`);
  });
});

describe("the renderer shows, never obeys, what the model, tools and servers send", () => {
  const hostile = "ok\r\u001b[2K\u001b]0;title\u0007\u009b2J\u202eevil";
  const events: SoulEvent[] = [
    { type: "StepBegin", payload: { n: 1 } },
    { type: "ThinkPart", payload: { type: "think", think: hostile } },
    { type: "TextPart", payload: { type: "text", text: hostile } },
    { type: "ToolCall", payload: { type: "function", id: "c1", function: { name: `Shell${hostile}`, arguments: JSON.stringify({ command: hostile }) }, parsed_arguments: { command: hostile } } },
    { type: "ToolResult", payload: { tool_call_id: "c1", return_value: { is_error: false, output: hostile, message: "", display: [] } } },
    { type: "ToolResult", payload: { tool_call_id: hostile, return_value: { is_error: true, output: "", message: hostile, display: [{ type: "brief", text: hostile }] } } },
    { type: "ApprovalRequest", payload: { id: "approval-1", tool_call_id: "c1", sender: hostile, action: hostile, description: hostile, scope: hostile } },
    { type: "StepRetry", payload: { n: 2, attempt: 1, delay_ms: 100, error: hostile, error_type: "APIStatusError" } },
    { type: "SteerInput", payload: { user_input: hostile } },
    { type: "TurnEnd", payload: { stop_reason: "error", steps: 2, usage: { input_other: 0, output: 0, input_cache_read: 0, input_cache_creation: 0 }, error: hostile } },
  ];

  for (const colours of [false, true]) {
    it(`in every event, ${colours ? "with" : "without"} colours`, async () => {
      let out = "";
      const questions: ApprovalQuestion[] = [];
      const r = new TurnRenderer({
        out: { write: (chunk: string) => ((out += chunk), true) } as unknown as NodeJS.WritableStream,
        style: pc.createColors(colours),
        columns: 80,
        rows: 24,
        showThinking: () => true,
        spinner: false,
        askApproval: async (question) => (questions.push(question), { kind: "reject" }),
        respond: () => undefined,
        contextTokens: () => 0,
      });
      for (const event of events) await r.render(event);
      await r.finish();
      // The renderer's own styling (SGR colours, and the preview's erase: CR, cursor up, delete lines) is all the escapes left.
      const own = out.replace(/\u001b\[[0-9;]*m/g, "").replace(/\r(\u001b\[\d+A)?\u001b\[\d+M/g, "");
      expect(own).not.toMatch(interpreted);
      expect(own).toContain("ok␍␛[2K␛]0;title␇<U+009B>2J<U+202E>evil");
      expect(questions).toHaveLength(1);
      for (const field of ["sender", "action", "description", "scope"] as const) expect(questions[0]![field]).toBe("ok␍␛[2K␛]0;title␇<U+009B>2J<U+202E>evil");
      expect(questions[0]!.id).toBe("approval-1");
    });
  }
});
