import { describe, expect, it } from "vitest";
import { MessageParseError, assistantMessage, thinkPart, textPart, toolCall, userMessage } from "@kosong/core";
import { InvalidRecordError } from "@kosong/context";
import { checkpointRecord, decodeRecordLine, encodeRecord, messageRecord, otherRecord, systemPromptRecord, usageRecord } from "@kosong/context/records";

describe("encodeRecord", () => {
  it("writes internal records in kimi-cli's style (Python json.dumps defaults)", () => {
    expect(encodeRecord(usageRecord(150))).toBe('{"role": "_usage", "token_count": 150}');
    expect(encodeRecord(checkpointRecord(0))).toBe('{"role": "_checkpoint", "id": 0}');
    expect(encodeRecord(systemPromptRecord("You are Kimi, a coding agent. 你好。"))).toBe(
      '{"role": "_system_prompt", "content": "You are Kimi, a coding agent. \\u4f60\\u597d\\u3002"}',
    );
  });

  it("stores a checkpoint's label as an extra key, escaped like Python (kimi-cli reads only the id)", () => {
    expect(encodeRecord(checkpointRecord(3, "x"))).toBe('{"role": "_checkpoint", "id": 3, "label": "x"}');
    expect(encodeRecord(checkpointRecord(4, "before \"refactor\" é"))).toBe('{"role": "_checkpoint", "id": 4, "label": "before \\"refactor\\" \\u00e9"}');
    expect(() => encodeRecord(checkpointRecord(5, 7 as unknown as string))).toThrow(InvalidRecordError);
  });

  it("escapes like Python: DEL, astral characters as surrogate pairs, control characters", () => {
    expect(encodeRecord(systemPromptRecord("a\u007fb😀\n\t\u0001\"\\/"))).toBe(
      '{"role": "_system_prompt", "content": "a\\u007fb\\ud83d\\ude00\\n\\t\\u0001\\"\\\\/"}',
    );
  });

  it("writes messages compactly, exactly as kosong does", () => {
    const message = assistantMessage([thinkPart("hmm"), textPart("Hi")], [toolCall("c1", "Shell", { command: "ls" })]);
    expect(encodeRecord(messageRecord(message))).toBe(
      '{"role":"assistant","content":[{"type":"think","think":"hmm","encrypted":null},{"type":"text","text":"Hi"}],' +
        '"tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\\"command\\":\\"ls\\"}"}}]}',
    );
    expect(encodeRecord(messageRecord(userMessage("你好")))).toBe('{"role":"user","content":"你好"}');
  });

  it("writes other internal records in the same style, role first", () => {
    expect(encodeRecord(otherRecord({ note: "é", role: "_note", list: [1, true, null, { a: "b" }] }))).toBe(
      '{"role": "_note", "note": "\\u00e9", "list": [1, true, null, {"a": "b"}]}',
    );
  });

  it("rejects invalid records with typed errors", () => {
    expect(() => encodeRecord(usageRecord(-1))).toThrow(InvalidRecordError);
    expect(() => encodeRecord(usageRecord(1.5))).toThrow(InvalidRecordError);
    expect(() => encodeRecord(checkpointRecord(Number.NaN))).toThrow(InvalidRecordError);
    expect(() => encodeRecord(systemPromptRecord(42 as unknown as string))).toThrow(InvalidRecordError);
    expect(() => encodeRecord(otherRecord({ role: "note" }))).toThrow(/starting with "_"/);
    expect(() => encodeRecord(otherRecord({ role: "_usage", token_count: 1 }))).toThrow(/own record kind/);
    expect(() => encodeRecord(otherRecord({ role: "_x", n: Number.POSITIVE_INFINITY }))).toThrow(InvalidRecordError);
    const bad = { role: "robot", content: [] } as unknown as Parameters<typeof messageRecord>[0];
    expect(() => encodeRecord(messageRecord(bad))).toThrow(MessageParseError);
  });
});

describe("decodeRecordLine", () => {
  it("reads both the spaced and the compact style of internal records", () => {
    expect(decodeRecordLine('{"role": "_usage", "token_count": 150}')).toEqual({ ok: true, record: usageRecord(150) });
    expect(decodeRecordLine('{"role":"_usage","token_count":128}')).toEqual({ ok: true, record: usageRecord(128) });
    expect(decodeRecordLine('{"role":"_checkpoint","id":3}')).toEqual({ ok: true, record: checkpointRecord(3) });
    expect(decodeRecordLine('{"role": "_checkpoint", "id": 3, "label": "x"}')).toEqual({ ok: true, record: checkpointRecord(3, "x") });
    // A label that is not a string is ignored; the checkpoint stays.
    expect(decodeRecordLine('{"role": "_checkpoint", "id": 3, "label": 42}')).toEqual({ ok: true, record: checkpointRecord(3) });
    expect(decodeRecordLine('{"role": "_system_prompt", "content": "\\u4f60"}')).toEqual({
      ok: true,
      record: systemPromptRecord("你"),
    });
  });

  it("round-trips every record kind", () => {
    const records = [
      messageRecord(userMessage("hi")),
      usageRecord(7),
      checkpointRecord(2),
      checkpointRecord(3, "label 😀"),
      systemPromptRecord("p 😀"),
      otherRecord({ role: "_meta", x: [1, "two"] }),
    ];
    for (const record of records) expect(decodeRecordLine(encodeRecord(record))).toEqual({ ok: true, record });
  });

  it("classifies bad lines", () => {
    const kind = (line: string) => {
      const decoded = decodeRecordLine(line);
      return decoded.ok ? "ok" : decoded.kind;
    };
    expect(kind('{"role": "user", "content": "trunc')).toBe("invalid-json");
    expect(kind("[1,2,3]")).toBe("not-object");
    expect(kind('"text"')).toBe("not-object");
    expect(kind('{"content": "no role"}')).toBe("no-role");
    expect(kind('{"role": 5}')).toBe("no-role");
    expect(kind('{"role": "_usage", "token_count": "many"}')).toBe("invalid-record");
    expect(kind('{"role": "_checkpoint", "id": -1}')).toBe("invalid-record");
    expect(kind('{"role": "_system_prompt", "content": null}')).toBe("invalid-record");
    expect(kind('{"role": "robot", "content": "x"}')).toBe("invalid-message");
    expect(kind('{"role": "user", "content": [{"type": "sound"}]}')).toBe("invalid-message");
    expect(kind('{"role": "_future_feature", "anything": 1}')).toBe("ok");
  });
});
