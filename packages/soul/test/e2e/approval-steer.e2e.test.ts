/**
 * End to end, through each real SDK provider and the fake provider server,
 * with a real `context.jsonl`: an approval rejected without feedback (the
 * turn ends), with feedback (the model reads it and goes on), and steering
 * while the model streams.
 */
import { assistantMessage, defineTool, textPart, tokenUsage, toolCall, toolOk } from "@kosong/core";
import { ToolRejectedError, type ApprovalKind, type Soul, type SoulEvent, type UserInput } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { useFakeProviderServer } from "./helpers/fake-server.js";
import { families, sentToolResults, sentUserTexts } from "./helpers/providers.js";
import { collect, ofType, outline, reopen, soulOnDisk } from "./helpers/soul-on-disk.js";

const server = useFakeProviderServer();

const usage = tokenUsage({ input_other: 20, output: 5 });
const ran: string[] = [];

/** Asks for approval before "running" the command. */
const shell = defineTool({
  name: "Shell",
  description: "Runs a shell command.",
  parameters: z.object({ command: z.string() }),
  async execute({ command }, { approval }) {
    const answer = await approval!.request("run shell command", command);
    if (!answer.approved) return answer.rejection;
    ran.push(command);
    return toolOk(`ran ${command}`);
  },
});

/** Runs a turn, answering its approval request with `kind` and `feedback`. */
async function answering(soul: Soul, input: UserInput, kind: ApprovalKind, feedback?: string) {
  const turn = soul.run(input);
  const events: SoulEvent[] = [];
  for await (const event of turn) {
    events.push(event);
    if (event.type === "ApprovalRequest") soul.approval.respond(event.payload.id, kind, feedback);
  }
  return { events, result: await turn.result };
}

describe.each(families)("approval and steering end to end with $name", ({ make }) => {
  it("a rejection without feedback ends the turn; the call keeps its rejection result in the file", async () => {
    ran.length = 0;
    server.enqueue({ message: assistantMessage([textPart("Cleaning.")], [toolCall("call_rm", "Shell", { command: "rm -rf build" })]), usage });
    const { soul, context } = await soulOnDisk(make(server.url), [shell]);
    const { events, result } = await answering(soul, "clean up", "reject");

    expect(result).toMatchObject({ stopReason: "tool_rejected", steps: 1 });
    expect(ran).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(ofType(events, "ApprovalRequest").map((e) => e.payload)).toMatchObject([{ tool_call_id: "call_rm", sender: "Shell", action: "run shell command", description: "rm -rf build" }]);
    expect(ofType(events, "ApprovalResponse").map((e) => e.payload.response)).toEqual(["reject"]);
    expect(events.at(-1)).toMatchObject({ type: "TurnEnd", payload: { stop_reason: "tool_rejected" } });
    const rejection = new ToolRejectedError().message;
    expect(outline((await reopen(context)).history)).toEqual(["user:clean up", "assistant:Cleaning.+calls(call_rm)", `tool[call_rm]:<system>ERROR: ${rejection}</system>`]);
  });

  it("a rejection with feedback is the tool's error result: the model reads it and the turn goes on", async () => {
    ran.length = 0;
    server.enqueue(
      { message: assistantMessage([textPart("Cleaning.")], [toolCall("call_rm", "Shell", { command: "rm -rf build" })]), usage },
      { message: assistantMessage("Understood, I will keep build/."), usage },
    );
    const { soul, context } = await soulOnDisk(make(server.url), [shell]);
    const { result } = await answering(soul, "clean up", "reject", "keep the build folder");

    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });
    expect(ran).toEqual([]);
    expect(sentToolResults(server.requests[1]!).call_rm).toContain("keep the build folder");
    const restored = outline((await reopen(context)).history);
    expect(restored[2]).toContain("keep the build folder");
    expect(restored.at(-1)).toBe("assistant:Understood, I will keep build/.");
  });

  it("steering while the model streams appends the input after the step, and the turn goes on with it", async () => {
    server.enqueue(
      { message: assistantMessage(["Here ", "is ", "the ", "answer."].map((t) => textPart(t))), usage, chunkDelayMs: 60 },
      { message: assistantMessage("And the weather is sunny."), usage },
    );
    const { soul, context } = await soulOnDisk(make(server.url));
    const turn = soul.run("answer me");
    const events: SoulEvent[] = [];
    let steered: boolean | null = null;
    for await (const event of turn) {
      events.push(event);
      if (event.type === "TextPart" && steered === null) steered = soul.steer("also mention the weather");
    }
    const result = await turn.result;

    expect(steered).toBe(true);
    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });
    expect(ofType(events, "SteerInput").map((e) => e.payload)).toEqual([{ user_input: "also mention the weather" }]);
    const types = events.map((e) => e.type);
    expect(types.indexOf("SteerInput")).toBeGreaterThan(types.indexOf("StatusUpdate"));
    expect(types.indexOf("SteerInput")).toBeLessThan(types.lastIndexOf("StepBegin"));
    // The first request never saw it; the second ends with it.
    expect(server.requests[0]!.rawBody).not.toContain("also mention the weather");
    expect(sentUserTexts(server.requests[1]!).at(-1)).toBe("also mention the weather");
    expect(outline((await reopen(context)).history)).toEqual([
      "user:answer me",
      "assistant:Here is the answer.",
      "user:also mention the weather",
      "assistant:And the weather is sunny.",
    ]);
    expect(soul.steer("too late")).toBe(false);
  });
});
