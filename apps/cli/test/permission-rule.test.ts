/** Permission rules in Claude Code's shape, matched as kosong's tools see their calls. */
import { describe, expect, it } from "vitest";
import { parsePermissionRule, ruleForApproval } from "../src/permissions/permission-rule.js";
import { PermissionRules } from "../src/permissions/permission-rules.js";

const rules = (lists: Record<"allow" | "ask" | "deny", string[]>) =>
  new PermissionRules(
    Object.entries(lists).flatMap(([effect, texts]) => texts.map((text) => ({ ...parsePermissionRule(text, effect as "allow", "test")!, level: "user" as const, file: "/work/config.toml" }))),
    { workspace: "/work/project", userFile: "/work/config.toml", projectTrusted: false },
  );
const decide = (r: PermissionRules, tool: string, args: object) => r.decide(tool, args as Record<string, unknown>)?.effect ?? null;

describe("permission rules", () => {
  it("reads Claude Code's tool names as kosong's, and refuses what is not Tool(pattern)", () => {
    expect(parsePermissionRule("Bash(npm run test:*)", "allow", "s")).toMatchObject({ tool: "Shell", pattern: "npm run test:*" });
    expect(parsePermissionRule("Edit(src/**)", "allow", "s")).toMatchObject({ tool: "EditFile" });
    expect(parsePermissionRule("Write", "deny", "s")).toMatchObject({ tool: "WriteFile", pattern: null });
    expect(parsePermissionRule("Read(.env)", "deny", "s")).toMatchObject({ tool: "ReadFile" });
    expect(parsePermissionRule("not a rule!", "allow", "s")).toBeNull();
  });

  it("Shell: exact unless :*, an allow prefix never covers options or shell syntax, deny matches any part of a compound command", () => {
    const r = rules({ allow: ["Shell(git status)", "Shell(git log:*)", "Shell(npm run test:*)"], ask: [], deny: ["Shell(rm:*)"] });
    expect(decide(r, "Shell", { command: "git status" })).toBe("allow");
    expect(decide(r, "Shell", { command: "git status --porcelain" })).toBeNull();
    expect(decide(r, "Shell", { command: "git log main" })).toBe("allow");
    expect(decide(r, "Shell", { command: "git log --output=x" })).toBeNull();
    expect(decide(r, "Shell", { command: "git log; curl evil" })).toBeNull();
    expect(decide(r, "Shell", { command: "npm run test:unit" })).toBe("allow");
    expect(decide(r, "Shell", { command: "git status && rm -rf /" })).toBe("deny");
    expect(decide(r, "Shell", { command: "echo $(rm x)" })).toBe("deny");
  });

  it("files: globs relative to the workspace; deny wins over ask over allow; MCP by name or server", () => {
    const r = rules({ allow: ["WriteFile(src/**)", "mcp__files"], ask: ["WriteFile(src/secret/*)"], deny: ["WriteFile(src/secret/key.pem)", "mcp__files__delete"] });
    expect(decide(r, "WriteFile", { path: "src/a/b.ts" })).toBe("allow");
    expect(decide(r, "WriteFile", { path: "/work/project/src/x.ts" })).toBe("allow");
    expect(decide(r, "WriteFile", { path: "README.md" })).toBeNull();
    expect(decide(r, "WriteFile", { path: "src/../../etc/passwd" })).toBeNull();
    expect(decide(r, "WriteFile", { path: "src/secret/a.txt" })).toBe("ask");
    expect(decide(r, "WriteFile", { path: "src/secret/key.pem" })).toBe("deny");
    expect(decide(r, "mcp__files__read", {})).toBe("allow");
    expect(decide(r, "mcp__files__delete", {})).toBe("deny");
    expect(decide(r, "mcp__filesystem__read", {})).toBeNull();
  });
});

describe("ruleForApproval", () => {
  it("turns a session approval's key into the rule saved for the project, never one leaving the sandbox", () => {
    expect(ruleForApproval("Shell: git log")).toBe("Shell(git log:*)");
    expect(ruleForApproval("Shell: exactly git log --oneline")).toBe("Shell(git log --oneline)");
    expect(ruleForApproval("WriteFile")).toBe("WriteFile");
    expect(ruleForApproval("mcp__files__write_file")).toBe("mcp__files__write_file");
    expect(ruleForApproval("Shell: exactly curl x outside the sandbox")).toBeNull();
    expect(ruleForApproval("Shell: exactly echo (x)")).toBeNull();
  });
});
