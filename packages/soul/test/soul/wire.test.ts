/**
 * The wire form of events: kimi-cli's envelope `{"type", "payload"}`; every
 * event type round-trips; bad input is a typed error.
 */
import { defineTool, toolError, toolOk } from "@kosong/core";
import { parseEvent, serializeEvent, WireParseError, type SoulEvent, type SoulEventType } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, script, testSoul } from "./helpers.js";

const usage = { input_other: 10, output: 2, input_cache_read: 3, input_cache_creation: 0 };

/** One event of every type. */
const samples: { [K in SoulEventType]: Extract<SoulEvent, { type: K }> } = {
  TurnBegin: { type: "TurnBegin", payload: { user_input: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: "data:x", id: null } }] } },
  SteerInput: { type: "SteerInput", payload: { user_input: "also this" } },
  TurnEnd: { type: "TurnEnd", payload: { stop_reason: "tool_rejected", steps: 3, usage, error: null } },
  StepBegin: { type: "StepBegin", payload: { n: 2 } },
  StepRetry: { type: "StepRetry", payload: { n: 1, attempt: 1, delay_ms: 300.5, error: "Slow down", error_type: "APIStatusError" } },
  StepInterrupted: { type: "StepInterrupted", payload: { reason: "error", error: "boom" } },
  CompactionBegin: { type: "CompactionBegin", payload: { reason: "overflow", strategy: "simple" } },
  CompactionEnd: {
    type: "CompactionEnd",
    payload: { tokens_before: 9000, tokens_after: 800, details: { kept: 2, dropped: 10, stubs: 0, filesRecovered: ["/a"], summarized: true, notes: ["n"] } },
  },
  StatusUpdate: { type: "StatusUpdate", payload: { context_usage: 0.25, context_tokens: 2500, max_context_tokens: 10_000, token_usage: usage, message_id: "m1" } },
  TextPart: { type: "TextPart", payload: { type: "text", text: "héllo" } },
  ThinkPart: { type: "ThinkPart", payload: { type: "think", think: "hmm", encrypted: "sig" } },
  ImageURLPart: { type: "ImageURLPart", payload: { type: "image_url", image_url: { url: "https://x/y.png", id: "i1" } } },
  AudioURLPart: { type: "AudioURLPart", payload: { type: "audio_url", audio_url: { url: "https://x/y.mp3", id: null } } },
  VideoURLPart: { type: "VideoURLPart", payload: { type: "video_url", video_url: { url: "https://x/y.mp4", id: null } } },
  ToolCallBegin: { type: "ToolCallBegin", payload: { type: "function", id: "c1", function: { name: "Shell", arguments: '{"command"' }, extras: { k: 1 }, index: 0 } },
  ToolCall: {
    type: "ToolCall",
    payload: { type: "function", id: "c1", function: { name: "Shell", arguments: '{"command": "ls"}' }, extras: { k: 1 }, parsed_arguments: { command: "ls" } },
  },
  ToolCallPart: { type: "ToolCallPart", payload: { type: "tool_call_part", arguments_part: ': "ls"}', index: 0 } },
  Warning: { type: "Warning", payload: { code: "context_window_unknown", message: "set config.maxContextSize" } },
  ToolResult: { type: "ToolResult", payload: { tool_call_id: "c1", return_value: toolOk({ output: "a.py", message: "listed", brief: "1 file" }) } },
  ApprovalRequest: { type: "ApprovalRequest", payload: { id: "approval-1", tool_call_id: "c1", sender: "Shell", action: "run command", description: "ls" } },
  ApprovalResponse: { type: "ApprovalResponse", payload: { request_id: "approval-1", response: "approve_for_session", feedback: "" } },
  CheckpointCreated: { type: "CheckpointCreated", payload: { id: 4, label: "before-refactor" } },
  Reverted: { type: "Reverted", payload: { checkpoint_id: null, reason: "rewrite" } },
  SubagentEvent: {
    type: "SubagentEvent",
    payload: {
      parent_tool_call_id: "c1",
      agent_id: "a1",
      subagent_type: "explore",
      event: { type: "SubagentEvent", payload: { parent_tool_call_id: "c9", agent_id: "a2", subagent_type: "coder", event: { type: "TextPart", payload: { type: "text", text: "deep" } } } },
    },
  },
};

const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("the wire form of events", () => {
  it.each(Object.values(samples))("round-trips $type", (event) => {
    const line = serializeEvent(event);
    expect(JSON.parse(line)).toEqual({ type: event.type, payload: asJson(event.payload) });
    expect(line).not.toContain("\n");
    expect(parseEvent(line)).toEqual(asJson(event));
    expect(parseEvent(JSON.parse(line))).toEqual(asJson(event));
  });

  it("round-trips every event of real turns", async () => {
    const shell = defineTool({
      name: "Shell",
      description: "Runs.",
      parameters: z.object({ command: z.string() }),
      execute: async ({ command }, { approval }) => {
        const answer = await approval!.request("run", command);
        return answer.approved ? toolOk(command) : toolError({ message: "no" });
      },
    });
    const { soul } = await testSoul({
      tools: [shell],
      scripts: ["error: 503 busy", script("think: plan", "text: running", call("c1", "Shell", { command: "ls" }), "usage: input_other=5 output=1"), "text: done"],
    });
    soul.approval.subscribe((e) => e.type === "ApprovalRequest" && queueMicrotask(() => soul.approval.respond(e.payload.id, "approve")));
    const { events } = await collect(soul.run([{ type: "text", text: "list" }]));
    expect(new Set(events.map((e) => e.type)).size).toBeGreaterThan(10);
    for (const event of events) expect(parseEvent(serializeEvent(event))).toEqual(asJson(event));
  });

  it("reads kimi-cli's streamed parts as pydantic writes them (nulls, extra keys)", () => {
    const call = { type: "function", id: "c1", function: { name: "Shell", arguments: null }, extras: null };
    expect(parseEvent({ type: "ToolCall", payload: call })).toEqual({ type: "ToolCall", payload: { ...call, parsed_arguments: null } });
    expect(parseEvent({ type: "ToolCallPart", payload: { arguments_part: "{}" } })).toEqual({
      type: "ToolCallPart",
      payload: { type: "tool_call_part", arguments_part: "{}" },
    });
    const request = { id: "r1", tool_call_id: "c1", sender: "Shell", action: "run", description: "ls", source_kind: null, display: [] };
    expect(parseEvent({ type: "ApprovalRequest", payload: request }).payload).toEqual(request);
  });

  it("reads kimi-cli's older ApprovalRequestResolved as ApprovalResponse", () => {
    expect(parseEvent({ type: "ApprovalRequestResolved", payload: { request_id: "r", response: "reject" } })).toEqual({
      type: "ApprovalResponse",
      payload: { request_id: "r", response: "reject", feedback: "" },
    });
  });

  it("rejects what is not an event with a WireParseError saying why", () => {
    const bad: Array<[unknown, RegExp]> = [
      ["{not json", /not JSON/],
      [42, /expected an object/],
      [{ type: "Nope", payload: {} }, /unknown type "Nope"/],
      [{ type: "StepBegin", payload: { n: "1" } }, /StepBegin/],
      [{ type: "TextPart", payload: { type: "think", think: "x" } }, /expected a text part/],
      [{ type: "ApprovalResponse", payload: { request_id: "r", response: "maybe" } }, /ApprovalResponse/],
    ];
    for (const [input, message] of bad) {
      const thrown = (() => {
        try {
          parseEvent(input);
        } catch (error) {
          return error;
        }
      })();
      expect(WireParseError.isInstance(thrown), String(input)).toBe(true);
      expect((thrown as Error).message).toMatch(message);
    }
  });
});
