/**
 * The soul's hooks (`new Soul({ hooks })`) with a scripted provider: a
 * PreToolUse hook denies a call (the model reads why, the tool never runs),
 * allows one without asking, rewrites its arguments; PostToolUse adds to
 * the result; UserPromptSubmit blocks or adds context; Stop keeps the turn
 * going; PreCompact/PostCompact see the real compaction; Notification
 * hears approvals and turn ends; a throwing hook fails open with a warning.
 */
import { defineTool, toolError, toolOk } from "@kosong/core";
import type { Compaction } from "@kosong/soul";
import { HookBlockedError, type NotificationInput, type PostCompactInput, type PreCompactInput, type SoulHooks } from "@kosong/soul/hooks";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { approvingShell, call, collect, ofType, outline, testSoul } from "./helpers.js";

function failingTool() {
  return defineTool({ name: "Fail", description: "Fails.", parameters: z.object({}), execute: async () => toolError({ message: "it broke" }) });
}

describe("soul hooks", () => {
  it("PreToolUse deny: the tool does not run and the model reads the reason", async () => {
    const { shell, ran } = approvingShell();
    const seen: unknown[] = [];
    const hooks: SoulHooks = {
      preToolUse: (input) => {
        seen.push(input);
        return { decision: "deny", reason: "no rm here" };
      },
    };
    const { soul, context } = await testSoul({ hooks, tools: [shell], scripts: [call("c1", "Shell", { command: "rm -rf x" }), "text: ok"] });
    soul.approval.yolo = true;
    const { result } = await collect(soul.run("clean"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ran).toEqual([]);
    expect(seen).toEqual([{ toolName: "Shell", toolInput: { command: "rm -rf x" }, toolCallId: "c1" }]);
    expect(outline(context)[2]).toContain("A PreToolUse hook blocked this call: no rm here");
  });

  it("PreToolUse allow skips the approval; updatedInput changes what runs; additionalContext reaches the model", async () => {
    const { shell, ran } = approvingShell();
    const hooks: SoulHooks = { preToolUse: () => ({ decision: "allow", updatedInput: { command: "ls -a" }, additionalContext: "listing is safe" }) };
    const { soul, context } = await testSoul({ hooks, tools: [shell], scripts: [call("c1", "Shell", { command: "ls" }), "text: ok"] });
    const { events } = await collect(soul.run("list"));
    expect(ofType(events, "ApprovalRequest")).toEqual([]);
    expect(ran).toEqual(["ls -a"]);
    expect(outline(context)[2]).toContain("Hook context: listing is safe");
  });

  it("PostToolUse and PostToolUseFailure add context to the result the model reads", async () => {
    const { shell } = approvingShell();
    const outputs: unknown[] = [];
    const hooks: SoulHooks = {
      postToolUse: ({ output }) => {
        outputs.push(output.output);
        return { additionalContext: "formatted 1 file" };
      },
      postToolUseFailure: ({ error }) => ({ additionalContext: `seen: ${error}` }),
    };
    const { soul, context } = await testSoul({
      hooks,
      tools: [shell, failingTool()],
      scripts: [`${call("c1", "Shell", { command: "fmt" })}\n${call("c2", "Fail")}`, "text: ok"],
    });
    soul.approval.yolo = true;
    await collect(soul.run("go"));
    expect(outputs).toEqual(["ran fmt"]);
    const lines = outline(context);
    expect(lines[2]).toContain("Hook context: formatted 1 file");
    expect(lines[3]).toContain("it broke");
    expect(lines[3]).toContain("Hook context: seen: it broke");
  });

  it("UserPromptSubmit blocks a prompt (nothing written) or adds context to it", async () => {
    const hooks: SoulHooks = { userPromptSubmit: ({ prompt }) => (prompt.includes("secret") ? { block: "no secrets" } : { additionalContext: "branch main" }) };
    const { soul, context, provider } = await testSoul({ hooks, scripts: ["text: hi"] });
    const blocked = await collect(soul.run("tell the secret"));
    expect(blocked.result.stopReason).toBe("error");
    expect(HookBlockedError.isInstance(blocked.result.error)).toBe(true);
    expect(blocked.result.error!.message).toContain("no secrets");
    expect(context.history).toEqual([]);
    expect(provider.calls).toHaveLength(0);
    await collect(soul.run("hello"));
    expect(outline(context)[0]).toBe("user:hello<system>Hook context: branch main</system>");
  });

  it("Stop keeps the turn going once with its reason as the next input", async () => {
    const inputs: unknown[] = [];
    const hooks: SoulHooks = {
      stop: (input) => {
        inputs.push(input);
        return input.stopHookActive ? undefined : { block: "run the tests first" };
      },
    };
    const { soul, context } = await testSoul({ hooks, scripts: ["text: done", "text: tests pass"] });
    const { result } = await collect(soul.run("fix it"));
    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });
    expect(inputs).toEqual([
      { stopReason: "no_tool_calls", stopHookActive: false, steps: 1 },
      { stopReason: "no_tool_calls", stopHookActive: true, steps: 2 },
    ]);
    expect(outline(context)).toEqual(["user:fix it", "assistant:done", "user:Stop hook: run the tests first", "assistant:tests pass"]);
  });

  it("a Stop hook that always blocks keeps the turn going at most 8 times, with a warning", async () => {
    const hooks: SoulHooks = { stop: () => ({ block: "again" }) };
    const { soul } = await testSoul({ hooks, scripts: Array.from({ length: 9 }, (_, i) => `text: answer ${i}`) });
    const { events, result } = await collect(soul.run("go"));
    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 9 });
    expect(ofType(events, "Warning").map((e) => e.payload.message)).toContain("A Stop hook kept the turn going 8 times; the turn ends now.");
  });

  it("PreCompact and PostCompact see the trigger, tokens, strategy, dropped ranges and the rotation", async () => {
    const strategy: Compaction = { name: "keep-last-2", compact: async (history) => ({ messages: history.slice(-2), usage: null }) };
    const pre: PreCompactInput[] = [];
    const post: PostCompactInput[] = [];
    const hooks: SoulHooks = { preCompact: (i) => void pre.push(i), postCompact: (i) => void post.push(i) };
    const { soul, context } = await testSoul({ hooks, compaction: strategy, onDisk: true, scripts: ["text: a\nusage: {\"input_other\": 300, \"output\": 1}", "text: b"] });
    await collect(soul.run("one"));
    await collect(soul.run("two"));
    await collect(soul.compact("keep names"));
    expect(pre).toEqual([{ trigger: "manual", strategy: "keep-last-2", tokensBefore: expect.any(Number), messages: 4, instruction: "keep names" }]);
    expect(pre[0]!.tokensBefore).toBeGreaterThan(0);
    const [done] = post;
    expect(done).toMatchObject({ trigger: "manual", strategy: "keep-last-2", messages: 4, messagesAfter: 2, dropped: [{ from: 0, to: 2 }] });
    expect(done!.tokensAfter).toBeLessThan(done!.tokensBefore);
    expect(done!.rotation?.location).toMatch(/context_1\.jsonl$/);
    const rotations = await context.rotations();
    expect(rotations.map((r) => r.n)).toContain(done!.rotation!.n);
  });

  it("Notification hears an approval request and the end of the turn", async () => {
    const { shell } = approvingShell();
    const heard: NotificationInput[] = [];
    const hooks: SoulHooks = { notification: (n) => void heard.push(n) };
    const { soul } = await testSoul({ hooks, tools: [shell], scripts: [call("c1", "Shell", { command: "make" }), "text: built"] });
    const turn = soul.run("build");
    for await (const event of turn) if (event.type === "ApprovalRequest") soul.approval.respond(event.payload.id, "approve");
    await turn.result;
    expect(heard.map((n) => n.kind)).toEqual(["approval_needed", "turn_done"]);
    expect(heard[0]!.message).toContain("make");
  });

  it("a hook that throws fails open: the loop goes on and a warning says so", async () => {
    const { shell, ran } = approvingShell();
    const hooks: SoulHooks = {
      preToolUse: () => {
        throw new Error("hook crashed");
      },
      postToolUse: async () => ({ warnings: ["formatter timed out"] }),
    };
    const { soul } = await testSoul({ hooks, tools: [shell], scripts: [call("c1", "Shell", { command: "ls" }), "text: ok"] });
    soul.approval.yolo = true;
    const { events, result } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ran).toEqual(["ls"]);
    expect(ofType(events, "Warning").map((e) => e.payload).filter((p) => p.code.startsWith("hook"))).toEqual([
      { code: "hook_failed", message: "The PreToolUse hook failed (ignored): hook crashed" },
      { code: "hook", message: "formatter timed out" },
    ]);
  });
});
