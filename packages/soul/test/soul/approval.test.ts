/**
 * Approval as a tool and a host use it: the tool asks through its
 * ToolContext, the host answers the ApprovalRequest event; session-wide
 * approval, yolo, rejection with and without feedback. Also the session the
 * tool sees.
 */
import { defineTool, type ToolContext } from "@kosong/core";
import { Approval, ApprovalRequestNotFoundError, ToolRejectedError, type ApprovalKind, type ApprovalRequestInfo, type Soul, type SoulEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TOOL_INTERRUPTED_BEFORE_RUN_MESSAGE, TOOL_INTERRUPTED_MESSAGE } from "@kosong/soul/conversation";
import { approvingShell, call, collect, ofType, outline, script, testSoul } from "./helpers.js";

const { shell, ran } = approvingShell();

/** Iterates a turn, answering each approval request with the next answer. */
async function answering(soul: Soul, input: string, answers: Array<[ApprovalKind, string?]>) {
  const turn = soul.run(input);
  const events: SoulEvent[] = [];
  for await (const event of turn) {
    events.push(event);
    if (event.type === "ApprovalRequest") {
      const [kind, feedback] = answers.shift()!;
      soul.approval.respond(event.payload.id, kind, feedback);
    }
  }
  return { events, result: await turn.result };
}

describe("approval", () => {
  it("runs the tool once approved, and says so in events", async () => {
    ran.length = 0;
    const { soul, context } = await testSoul({ tools: [shell], scripts: [call("c1", "Shell", { command: "ls" }), "text: listed"] });
    const { events, result } = await answering(soul, "list", [["approve"]]);
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ran).toEqual(["ls"]);
    const request = ofType(events, "ApprovalRequest")[0]!.payload;
    expect(request).toEqual({ id: request.id, tool_call_id: "c1", sender: "Shell", action: "run command", description: "ls" });
    expect(ofType(events, "ApprovalResponse").map((e) => e.payload)).toEqual([{ request_id: request.id, response: "approve", feedback: "" }]);
    expect(outline(context)).toContain("tool[c1]:ran ls");
  });

  it("ends the turn when a call is rejected without feedback", async () => {
    ran.length = 0;
    const { soul, context, provider } = await testSoul({ tools: [shell], scripts: [call("c1", "Shell", { command: "rm -rf /" }), "text: never"] });
    const { result } = await answering(soul, "clean up", [["reject"]]);
    expect(result.stopReason).toBe("tool_rejected");
    expect(ran).toEqual([]);
    expect(provider.calls).toHaveLength(1);
    const last = context.history.at(-1)!;
    expect(last.role).toBe("tool");
    expect(last.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("rejected by the user") });
  });

  it("lets the model read the feedback of a rejection and go on", async () => {
    ran.length = 0;
    const { soul, provider } = await testSoul({ tools: [shell], scripts: [call("c1", "Shell", { command: "rm -rf /" }), "text: understood"] });
    const { result } = await answering(soul, "clean up", [["reject", "only delete the build folder"]]);
    expect(result.stopReason).toBe("no_tool_calls");
    const seen = provider.calls[1]!.history.at(-1)!;
    expect(seen.content[0]).toMatchObject({ text: expect.stringContaining("only delete the build folder") });
  });

  it("approves an action for the rest of the session", async () => {
    ran.length = 0;
    const { soul } = await testSoul({
      tools: [shell],
      scripts: [call("c1", "Shell", { command: "a" }), script(call("c2", "Shell", { command: "b" }), call("c3", "Shell", { command: "c" })), "text: done"],
    });
    const { events, result } = await answering(soul, "go", [["approve_for_session"]]);
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ran.sort()).toEqual(["a", "b", "c"]);
    expect(ofType(events, "ApprovalRequest")).toHaveLength(1);
    expect(soul.approval.sessionApproved).toEqual(new Set(["run command"]));
  });

  it("approving an action for the session also answers the requests of that action already waiting", async () => {
    const approval = new Approval();
    const asked: string[] = [];
    approval.subscribe((event) => event.type === "ApprovalRequest" && asked.push(event.payload.id));
    const first = approval.forCall("c1", "Shell").request("run command", "a");
    const second = approval.forCall("c2", "Shell").request("run command", "b");
    const other = approval.forCall("c3", "Write").request("write file", "c");
    approval.respond(asked[0]!, "approve_for_session");
    expect(await first).toEqual({ approved: true });
    expect(await second).toEqual({ approved: true });
    expect(approval.pending().map((p) => p.action)).toEqual(["write file"]);
    approval.respond(asked[2]!, "approve");
    expect(await other).toEqual({ approved: true });
  });

  it("asks nothing in yolo mode", async () => {
    ran.length = 0;
    const { soul } = await testSoul({ tools: [shell], approval: new Approval({ yolo: true }), scripts: [call("c1", "Shell", { command: "x" }), "text: ok"] });
    const { events } = await collect(soul.run("go"));
    expect(ran).toEqual(["x"]);
    expect(ofType(events, "ApprovalRequest")).toEqual([]);
  });

  it("cancels a pending request when the turn is aborted", async () => {
    // Asks after a macrotask, when the model's (in-memory) stream has ended: the abort then lands while tools run.
    const later = defineTool({
      name: "later",
      description: "Asks a little later.",
      parameters: z.object({}),
      async execute(_params, { approval }) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const answer = await approval!.request("act", "later");
        return answer.approved ? "done" : answer.rejection;
      },
    });
    const { soul, context } = await testSoul({ tools: [later], scripts: [call("c1", "later")] });
    const controller = new AbortController();
    const turn = soul.run("go", { signal: controller.signal });
    for await (const event of turn) if (event.type === "ApprovalRequest") controller.abort();
    expect((await turn.result).stopReason).toBe("aborted");
    expect(soul.approval.pending()).toEqual([]);
    expect(context.history.at(-1)).toMatchObject({ role: "tool", tool_call_id: "c1" });
    expect(outline(context).at(-1)).toContain("interrupted");
  });

  it("shows every request before its answer when a host answers synchronously from a listener", async () => {
    ran.length = 0;
    const { soul } = await testSoul({ tools: [shell], scripts: [call("c1", "Shell", { command: "ls" }), "text: listed"] });
    const seenByHost: string[] = [];
    // Subscribed before the soul's own listener (which the soul adds when the turn starts).
    soul.approval.subscribe((event) => {
      seenByHost.push(event.type);
      if (event.type === "ApprovalRequest") soul.approval.respond(event.payload.id, "approve");
    });
    const turn = soul.run("list");
    const types: string[] = [];
    for await (const event of turn) types.push(event.type);
    expect((await turn.result).stopReason).toBe("no_tool_calls");
    expect(ran).toEqual(["ls"]);
    expect(seenByHost).toEqual(["ApprovalRequest", "ApprovalResponse"]);
    expect(types.filter((t) => t.startsWith("Approval"))).toEqual(["ApprovalRequest", "ApprovalResponse"]);
  });

  it("rejects an answer to an unknown request with a typed error", () => {
    const approval = new Approval();
    expect(() => approval.respond("nope", "approve")).toThrowError(ApprovalRequestNotFoundError);
  });

  it("gives every request a unique id: an answer to a request of another session (or from before a restart) is refused and approves nothing", async () => {
    ran.length = 0;
    // Two sessions (or one session before and after a restart), each with a request waiting.
    const waiting = async (command: string) => {
      const { soul } = await testSoul({ tools: [shell], scripts: [call("c1", "Shell", { command }), "text: done"] });
      const turn = soul.run("run it");
      const iterator = turn[Symbol.asyncIterator]();
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        if (next.value.type === "ApprovalRequest") return { soul, turn, iterator, id: next.value.payload.id };
      }
      throw new Error("no approval request");
    };
    const before = await waiting("ls");
    const after = await waiting("rm -rf /");
    expect(after.id).not.toBe(before.id);
    expect(after.id).toMatch(/^approval-[0-9a-f-]{36}$/);
    // A client still holding the old request's id answers it on the new session.
    expect(() => after.soul.approval.respond(before.id, "approve")).toThrowError(ApprovalRequestNotFoundError);
    expect(after.soul.approval.pending().map((p) => p.id)).toEqual([after.id]);
    after.soul.approval.respond(after.id, "reject");
    before.soul.approval.respond(before.id, "approve");
    for (const { iterator } of [before, after]) while (!(await iterator.next()).done);
    expect((await after.turn.result).stopReason).toBe("tool_rejected");
    expect(ran).toEqual(["ls"]);
  });

  it("fails closed: an answer that is not an approval kind is a TypeError, approves nothing and leaves the request pending", async () => {
    const approval = new Approval();
    const asked: string[] = [];
    approval.subscribe((event) => event.type === "ApprovalRequest" && asked.push(event.payload.id));
    let settled: unknown = "not yet";
    const answer = approval.forCall("c1", "Shell").request("Shell: rm", "Run: rm -rf build");
    void answer.then((value) => (settled = value));
    for (const bad of ["deny", "no", "", "yes", "APPROVE", "approve ", null, undefined, 0, 1, true, {}, ["approve"]]) {
      expect(() => approval.respond(asked[0]!, bad as never), JSON.stringify(bad)).toThrowError(TypeError);
    }
    expect(() => approval.respond(asked[0]!, "reject", null as never)).toThrowError(TypeError);
    await Promise.resolve();
    expect(settled).toBe("not yet");
    expect(approval.sessionApproved.size).toBe(0);
    expect(approval.pending().map((p) => p.id)).toEqual(asked);
    approval.respond(asked[0]!, "reject");
    expect((await answer).approved).toBe(false);
  });

  it("a session approval covers exactly the action it was given; the request carries the scope in words", async () => {
    const approval = new Approval();
    const requests: ApprovalRequestInfo[] = [];
    approval.subscribe((event) => event.type === "ApprovalRequest" && requests.push(event.payload));
    const first = approval.forCall("c1", "Shell").request("Shell: git status", "Run: git status", "`git status` commands");
    expect(requests[0]).toMatchObject({ action: "Shell: git status", scope: "`git status` commands" });
    approval.respond(requests[0]!.id, "approve_for_session");
    expect(await first).toEqual({ approved: true });
    expect(await approval.forCall("c2", "Shell").request("Shell: git status", "Run: git status --short", "`git status` commands")).toEqual({ approved: true });
    expect(requests).toHaveLength(1);
    const other = approval.forCall("c3", "Shell").request("Shell: git push", "Run: git push --force", "`git push` commands");
    expect(requests.map((r) => r.action)).toEqual(["Shell: git status", "Shell: git push"]);
    approval.respond(requests[1]!.id, "reject");
    expect((await other).approved).toBe(false);
    // Without a scope the payload is as before (kimi-cli's five fields).
    void approval.forCall("c4", "WriteFile").request("WriteFile", "Write a.txt");
    expect(Object.keys(requests[2]!)).toEqual(["id", "tool_call_id", "sender", "action", "description"]);
  });

  it("a request approved once only says so (once: true), and approve_for_session approves it alone: the next request of its action asks again", async () => {
    const approval = new Approval();
    const events: Array<{ type: string; payload: unknown }> = [];
    approval.subscribe((event) => events.push(event));
    const requests = () => events.filter((e) => e.type === "ApprovalRequest").map((e) => e.payload as ApprovalRequestInfo);
    const first = approval.forCall("p1", "ExitPlanMode").request("ExitPlanMode", "Carry out plan A", undefined, { once: true });
    const waiting = approval.forCall("p2", "ExitPlanMode").request("ExitPlanMode", "Carry out plan B", undefined, { once: true });
    expect(requests().map((r) => r.once)).toEqual([true, true]);
    approval.respond(requests()[0]!.id, "approve_for_session");
    expect(await first).toEqual({ approved: true });
    // Reported as the approval it was, nothing remembered, the other plan still waits.
    expect(events.find((e) => e.type === "ApprovalResponse")?.payload).toMatchObject({ response: "approve" });
    expect(approval.sessionApproved.has("ExitPlanMode")).toBe(false);
    expect(approval.pending().map((p) => p.description)).toEqual(["Carry out plan B"]);
    approval.respond(requests()[1]!.id, "reject");
    expect((await waiting).approved).toBe(false);
    void approval.forCall("p3", "ExitPlanMode").request("ExitPlanMode", "Carry out plan C", undefined, { once: true });
    expect(requests()).toHaveLength(3);
  });

  it("gives the rejection as a ToolRejectedError carrying the feedback", async () => {
    const approval = new Approval();
    approval.subscribe((event) => {
      if (event.type === "ApprovalRequest") approval.respond(event.payload.id, "reject", "no");
    });
    const answer = await approval.forCall("c1", "Shell").request("act", "desc");
    expect(answer.approved).toBe(false);
    if (!answer.approved) {
      expect(ToolRejectedError.isInstance(answer.rejection)).toBe(true);
      expect(answer.rejection.feedback).toBe("no");
    }
  });
});

describe("the session a tool sees", () => {
  it("has the session id, working dir and file registry", async () => {
    const seen: unknown[] = [];
    const probe = defineTool({
      name: "probe",
      description: "Looks at its session.",
      parameters: z.object({}),
      execute: (_params, { session }) => {
        session!.files.recordRead("/work/a.txt");
        seen.push({ id: session!.id, workDir: session!.workDir });
        return "ok";
      },
    });
    const { soul } = await testSoul({ tools: [probe], session: { id: "s-42", workDir: "/work" }, scripts: [call("c1", "probe"), "text: ok"] });
    await soul.run("look").result;
    expect(seen).toEqual([{ id: "s-42", workDir: "/work" }]);
    expect(soul.session.files.recent().map((f) => f.path)).toEqual(["/work/a.txt"]);
  });
});

describe("interrupting a call at its approval prompt", () => {
  /** Asks approval, then runs until cancelled. */
  const asking = defineTool({
    name: "Asking",
    description: "Asks, then runs until cancelled.",
    parameters: z.object({}),
    execute: async (_params, context: ToolContext) => {
      const answer = await context.approval!.request("run", "a long job");
      if (!answer.approved) return answer.rejection;
      return new Promise<string>((_resolve, reject) => context.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true }));
    },
  });

  async function interrupted(approveFirst: boolean) {
    const { soul, context } = await testSoul({ tools: [asking], scripts: [call("c1", "Asking"), "text: next"] });
    const controller = new AbortController();
    const turn = soul.run("go", { signal: controller.signal });
    let shown = "";
    for await (const event of turn) {
      if (event.type === "ApprovalRequest") {
        if (approveFirst) {
          soul.approval.respond(event.payload.id, "approve");
          setTimeout(() => controller.abort(), 20);
        } else controller.abort();
      }
      if (event.type === "ToolResult") shown = event.payload.return_value.message;
    }
    expect((await turn.result).stopReason).toBe("aborted");
    return { shown, read: outline(context).at(-1) };
  }

  it("tells the model the call never ran when the user interrupts before approving it", async () => {
    const { shown, read } = await interrupted(false);
    expect(shown).toBe(TOOL_INTERRUPTED_BEFORE_RUN_MESSAGE);
    expect(read).toBe(`tool[c1]:<system>ERROR: ${TOOL_INTERRUPTED_BEFORE_RUN_MESSAGE}</system>`);
  });

  it("still says it may have run partly when the interrupt comes after approval, while it runs", async () => {
    const { shown, read } = await interrupted(true);
    expect(shown).toBe(TOOL_INTERRUPTED_MESSAGE);
    expect(read).toBe(`tool[c1]:<system>ERROR: ${TOOL_INTERRUPTED_MESSAGE}</system>`);
  });
});
