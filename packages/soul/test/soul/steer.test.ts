/**
 * Steering: input given while a turn runs is appended after the current step
 * and the turn goes on with it; with no turn running nothing starts.
 */
import { defineTool, extractText, toolOk, type Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Soul } from "@kosong/soul";
import { call, collect, ofType, outline, script, testSoul } from "./helpers.js";

describe("soul.steer", () => {
  it("appends the input after the current step and the turn goes on", async () => {
    let soul!: Soul;
    const { soul: made, context } = await testSoul({
      scripts: [
        () => {
          expect(soul.steer("also mention the weather")).toBe(true);
          return "text: here is the answer";
        },
        (history: readonly Message[]) => `text: and about "${extractText(history.at(-1)!)}": sunny`,
      ],
    });
    soul = made;
    const { events, result } = await collect(soul.run("answer me"));
    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });
    expect(outline(context)).toEqual([
      "user:answer me",
      "assistant:here is the answer",
      "user:also mention the weather",
      'assistant:and about "also mention the weather": sunny',
    ]);
    expect(ofType(events, "SteerInput").map((e) => e.payload)).toEqual([{ user_input: "also mention the weather" }]);
    const order = events.map((e) => e.type);
    expect(order.indexOf("SteerInput")).toBeLessThan(order.lastIndexOf("StepBegin"));
  });

  it("waits for the running tools before appending", async () => {
    let soul!: Soul;
    const tool = defineTool({
      name: "work",
      description: "Works.",
      parameters: z.object({}),
      execute: () => {
        soul.steer([{ type: "text", text: "stop after this" }]);
        return toolOk("worked");
      },
    });
    const { soul: made, context } = await testSoul({ tools: [tool], scripts: [script("text: working", call("c1", "work")), "text: stopping"] });
    soul = made;
    await collect(soul.run("go"));
    expect(outline(context)).toEqual(["user:go", "assistant:working+calls(c1)", "tool[c1]:worked", "user:stop after this", "assistant:stopping"]);
  });

  it("never drops input it accepted, even when the turn is about to end", async () => {
    for (const trigger of ["StatusUpdate", "TextPart", "StepBegin"] as const) {
      const { soul, context } = await testSoul({ scripts: ["text: first answer", "text: answer to more"] });
      const turn = soul.run("go");
      let accepted: boolean | null = null;
      for await (const event of turn) if (event.type === trigger && accepted === null) accepted = soul.steer("more");
      const result = await turn.result;
      expect(accepted, trigger).toBe(true);
      expect(result.steps).toBe(2);
      expect(outline(context)).toEqual(["user:go", "assistant:first answer", "user:more", "assistant:answer to more"]);
      expect(soul.steer("after the end")).toBe(false);
    }
  });

  it("keeps input steered into the last allowed step in the context", async () => {
    let soul!: Soul;
    const { soul: made, context } = await testSoul({
      config: { maxStepsPerTurn: 1 },
      scripts: [
        () => {
          soul.steer("for later");
          return script("text: busy", call("c1", "missing"));
        },
      ],
    });
    soul = made;
    const { result } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("max_steps");
    expect(outline(context).at(-1)).toBe("user:for later");
  });

  it("starts nothing and says so when no turn runs", async () => {
    const { soul, context, provider } = await testSoul({ scripts: ["text: hi"] });
    expect(soul.steer("hello?")).toBe(false);
    await collect(soul.run("go"));
    expect(soul.steer("late")).toBe(false);
    expect(outline(context)).toEqual(["user:go", "assistant:hi"]);
    expect(provider.calls).toHaveLength(1);
  });
});
