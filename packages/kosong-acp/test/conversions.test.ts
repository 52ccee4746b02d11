/**
 * The pure conversions: an ACP prompt as turn input, and a stored
 * conversation as the updates `session/load` replays.
 */
import { historyUpdates, promptInput } from "@kosong/acp";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";

describe("promptInput", () => {
  it("keeps plain text as a string, and turns images, embedded resources and links into parts", () => {
    expect(promptInput([{ type: "text", text: "hello" }])).toBe("hello");
    expect(
      promptInput([
        { type: "text", text: "look:" },
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
        { type: "resource", resource: { uri: "file:///w/a.ts", text: "export {}" } },
        { type: "resource_link", uri: "file:///w/b.ts", name: "b.ts" },
      ]),
    ).toEqual([
      { type: "text", text: "look:" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", id: null } },
      { type: "text", text: '<resource uri="file:///w/a.ts">\nexport {}\n</resource>' },
      { type: "text", text: "@file:///w/b.ts" },
    ]);
  });
});

describe("historyUpdates", () => {
  it("replays user and agent chunks, thoughts, tool calls and results in order, without system messages or checkpoint markers", () => {
    const history: Message[] = [
      { role: "system", content: [{ type: "text", text: "You are..." }] },
      { role: "user", content: [{ type: "text", text: "<system>CHECKPOINT 0</system>" }] },
      { role: "user", content: [{ type: "text", text: "list files" }] },
      {
        role: "assistant",
        content: [{ type: "think", think: "use ListDir", encrypted: null }, { type: "text", text: "Listing." }],
        tool_calls: [{ type: "function", id: "c1", function: { name: "ListDir", arguments: '{"path":"."}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "a.ts\nb.ts" }] },
      { role: "assistant", content: [{ type: "text", text: "Two files." }] },
    ];
    expect(historyUpdates(history)).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "list files" } },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "use ListDir" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Listing." } },
      { sessionUpdate: "tool_call", toolCallId: "c1", title: "ListDir", kind: "search", status: "pending", rawInput: { path: "." } },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", content: [{ type: "content", content: { type: "text", text: "a.ts\nb.ts" } }] },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Two files." } },
    ]);
  });
});
