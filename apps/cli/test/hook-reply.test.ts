/**
 * What a hook command's exit code and output mean (Claude Code's and
 * kimi-cli's rules), with hostile output: control characters never reach
 * the model or the terminal raw, JSON of the wrong shape is a notice.
 */
import { describe, expect, it } from "vitest";
import type { HookDefinition } from "../src/hooks/hook-definition.js";
import { matchesTarget } from "../src/hooks/hook-definition.js";
import { hookReply, mergeReplies } from "../src/hooks/hook-reply.js";

const hook = (event: HookDefinition["event"], extra: Partial<HookDefinition> = {}): HookDefinition => ({
  event,
  command: "check",
  matcher: null,
  matchWhole: false,
  timeoutSeconds: 5,
  scope: "user",
  source: "config.toml",
  ...extra,
});
const exited = (exitCode: number, stdout = "", stderr = "") => ({ kind: "exited" as const, exitCode, signal: null, stdout, stderr, truncated: false });

describe("hook replies", () => {
  it("exit 2 blocks with stderr (control characters removed) for PreToolUse, and only warns for SessionStart", () => {
    expect(hookReply(hook("PreToolUse"), exited(2, "", "no\u001b[2K rm\r\n")).block).toBe("no[2K rm");
    const start = hookReply(hook("SessionStart"), exited(2, "", "bad\u0007"));
    expect(start.block).toBeNull();
    expect(start.warnings[0]).toContain("exited with code 2: bad␇");
  });

  it("reads Claude Code's JSON: permissionDecision, updatedInput, additionalContext, legacy decision block, systemMessage", () => {
    const deny = hookReply(hook("PreToolUse"), exited(0, JSON.stringify({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "not here" } })));
    expect(deny.block).toBe("not here");
    const allow = hookReply(hook("PreToolUse"), exited(0, JSON.stringify({ hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: "ls" }, additionalContext: "fine" } })));
    expect(allow).toMatchObject({ block: null, allow: true, updatedInput: { command: "ls" }, context: ["fine"] });
    expect(hookReply(hook("Stop"), exited(0, JSON.stringify({ decision: "block", reason: "tests first" }))).block).toBe("tests first");
    expect(hookReply(hook("Notification"), exited(0, JSON.stringify({ systemMessage: "hi\u001b]0;x\u0007" }))).warnings).toEqual(["hi␛]0;x␇"]);
  });

  it("garbage JSON, JSON of another shape and other exit codes are notices; plain stdout is context only where Claude Code makes it so", () => {
    expect(hookReply(hook("PreToolUse"), exited(0, "{oops")).warnings[0]).toContain("not valid JSON");
    expect(hookReply(hook("PreToolUse"), exited(0, '{"hookSpecificOutput": 3}')).warnings[0]).toContain("not a hook reply");
    expect(hookReply(hook("PreToolUse"), exited(1, "", "boom")).warnings[0]).toContain("exited with code 1; going on: boom");
    expect(hookReply(hook("UserPromptSubmit"), exited(0, "branch main")).context).toEqual(["branch main"]);
    expect(hookReply(hook("PreToolUse"), exited(0, "branch main")).context).toEqual([]);
  });

  it("merges: any block wins over allow", () => {
    const merged = mergeReplies([hookReply(hook("PreToolUse"), exited(0, '{"decision":"approve"}')), hookReply(hook("PreToolUse"), exited(2, "", "no"))]);
    expect(merged).toMatchObject({ block: "no", allow: false });
  });

  it("matchers: kimi-cli's search anywhere, Claude Code's match the whole name; * and empty match all", () => {
    expect(matchesTarget(hook("PreToolUse", { matcher: "File" }), ["WriteFile"])).toBe(true);
    expect(matchesTarget(hook("PreToolUse", { matcher: "Write", matchWhole: true }), ["WriteFile", "Write"])).toBe(true);
    expect(matchesTarget(hook("PreToolUse", { matcher: "Writ", matchWhole: true }), ["WriteFile", "Write"])).toBe(false);
    expect(matchesTarget(hook("PreToolUse", { matcher: "*", matchWhole: true }), ["Shell"])).toBe(true);
  });
});
