/**
 * End to end, through each real SDK provider and the fake provider server,
 * with a real `context.jsonl`: the model's D-Mail (SendDMail) and the host's
 * rewrite (`soul.rewrite`). Both go back in the history, keep what they
 * dropped as a rotation, and continue the turn from there.
 */
import { assistantMessage, defineTool, extractText, textPart, tokenUsage, toolCall, toolOk } from "@kosong/core";
import { Context, SendDMail } from "@kosong/soul";
import { dmailMessage } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { useFakeProviderServer } from "./helpers/fake-server.js";
import { families, sentToolResults, sentUserTexts } from "./helpers/providers.js";
import { collect, ofType, outline, reopen, soulOnDisk } from "./helpers/soul-on-disk.js";

const server = useFakeProviderServer();

const usage = tokenUsage({ input_other: 20, output: 5 });

const lookup = defineTool({
  name: "lookup",
  description: "Looks a city's weather up.",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => toolOk(`${city}: sunny`),
});

describe.each(families)("time travel end to end with $name", ({ make }) => {
  it("the model's D-Mail reverts to its checkpoint, the turn goes on from there, and the file restores to that", async () => {
    const advice = "Approach A fails: use approach B.";
    server.enqueue(
      { message: assistantMessage("hello"), usage },
      { message: assistantMessage([textPart("That went badly.")], [toolCall("call_dmail", "SendDMail", { message: advice, checkpoint_id: 2 })]), usage },
      { message: assistantMessage("Using approach B."), usage },
    );
    const { soul, context, file } = await soulOnDisk(make(server.url), [SendDMail]);
    await collect(soul.run("hi"));
    const { events, result } = await collect(soul.run("do the thing"));

    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });
    expect(ofType(events, "Reverted").map((e) => e.payload)).toEqual([{ checkpoint_id: 2, reason: "dmail" }]);
    expect(ofType(events, "CheckpointCreated").map((e) => e.payload.id)).toEqual([2, 3, 2, 3]);
    const dmail = extractText(dmailMessage({ checkpoint_id: 2, message: advice }));
    // The turn's checkpoint (0) has no visible message: a D-Mail to it would drop the user's message.
    const expected = [
      "user:hi",
      "user:<system>CHECKPOINT 1</system>",
      "assistant:hello",
      "user:<system>CHECKPOINT 2</system>",
      `user:${dmail}`,
      "user:<system>CHECKPOINT 3</system>",
      "assistant:Using approach B.",
    ];
    expect(outline(context.history)).toEqual(expected);

    // The past self was asked with the D-Mail and without what it undid.
    const third = server.requests[2]!;
    expect(sentUserTexts(third).join("\n")).toContain(advice);
    expect(third.rawBody).not.toContain("do the thing");
    expect(third.rawBody).not.toContain("That went badly.");

    // The undone attempt is a rotation; the file restores to the new history.
    const rotations = await context.rotations();
    expect(rotations).toHaveLength(1);
    expect(outline((await reopen(context)).history)).toEqual(expected);
    const old = new Context(rotations[0]!.location, { file: { lock: false } });
    await old.restore();
    expect(outline(old.history)).toContain("user:do the thing");
    await old.close();
    expect(file).toBe(context.location);
  });

  it("the host's rewrite of one result of a parallel call keeps the other result and runs again from there", async () => {
    server.enqueue(
      { message: assistantMessage([textPart("Looking both up.")], [toolCall("call_a", "lookup", { city: "Paris" }), toolCall("call_b", "lookup", { city: "Oslo" })]), usage },
      { message: assistantMessage("Both sunny."), usage },
      { message: assistantMessage("Paris is rainy after all, Oslo sunny."), usage },
    );
    const { soul, context } = await soulOnDisk(make(server.url), [lookup]);
    await collect(soul.run("Weather in Paris and Oslo?"));
    expect(outline(context.history)).toEqual([
      "user:Weather in Paris and Oslo?",
      "assistant:Looking both up.+calls(call_a,call_b)",
      "tool[call_a]:Paris: sunny",
      "tool[call_b]:Oslo: sunny",
      "assistant:Both sunny.",
    ]);

    const { events, result } = await collect(soul.rewrite(2, "Paris: rainy"));
    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 1 });
    expect(ofType(events, "Reverted").map((e) => e.payload.reason)).toEqual(["rewrite"]);
    const expected = [
      "user:Weather in Paris and Oslo?",
      "assistant:Looking both up.+calls(call_a,call_b)",
      "tool[call_a]:Paris: rainy",
      "tool[call_b]:Oslo: sunny",
      "assistant:Paris is rainy after all, Oslo sunny.",
    ];
    expect(outline(context.history)).toEqual(expected);
    // The model was asked again with the edited result and the other one.
    expect(server.requests).toHaveLength(3);
    expect(sentToolResults(server.requests[2]!)).toEqual({ call_a: "Paris: rainy", call_b: "Oslo: sunny" });
    expect(server.requests[2]!.rawBody).not.toContain("Both sunny.");

    // The file restores to the rewritten history, and the rotation undoes the rewrite.
    const history = context.history.map((m) => structuredClone(m));
    const rotations = await context.rotations();
    expect(rotations.length).toBeGreaterThan(0);
    await context.restoreRotation(rotations.at(-1)!.n);
    expect(outline(context.history).at(-1)).toBe("assistant:Both sunny.");
    await context.restoreRotation((await context.rotations()).at(-1)!.n);
    expect(context.history).toEqual(history);
    expect((await reopen(context)).history).toEqual(history);
  });

  it("the host's rewrite of a user message drops the rest of the turn and answers the new message", async () => {
    server.enqueue({ message: assistantMessage("Bonjour."), usage }, { message: assistantMessage("Hallo."), usage });
    const { soul, context } = await soulOnDisk(make(server.url));
    await collect(soul.run("Say hello in French."));
    const { result } = await collect(soul.rewrite(0, "Say hello in German."));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(sentUserTexts(server.requests[1]!)).toEqual(["Say hello in German."]);
    expect(outline((await reopen(context)).history)).toEqual(["user:Say hello in German.", "assistant:Hallo."]);
  });
});
