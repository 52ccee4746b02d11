/** What a Shell approval for the session covers. */
import { describe, expect, it } from "vitest";
import { shellApproval } from "../src/tools/shell-approval.js";

describe("shellApproval", () => {
  it("covers a program and its subcommand for plain commands of programs with subcommands", () => {
    expect(shellApproval("git status")).toEqual({ action: "Shell: git status", scope: "`git status` commands without options" });
    expect(shellApproval("git  log  main src/app.ts").action).toBe("Shell: git log");
    expect(shellApproval("  pnpm test  ").action).toBe("Shell: pnpm test");
    expect(shellApproval("cargo build")).toEqual({ action: "Shell: cargo build", scope: "`cargo build` commands without options" });
  });

  it("covers the script or binary a runner subcommand names, not every one", () => {
    expect(shellApproval("npm run build")).toEqual({ action: "Shell: npm run build", scope: "`npm run build` commands without options" });
    expect(shellApproval("pnpm exec tsc").action).toBe("Shell: pnpm exec tsc");
    expect(shellApproval("npm run build").action).not.toBe(shellApproval("npm run deploy").action);
    expect(shellApproval("npx --yes x").scope).toBe("this exact command");
  });

  it("matches any command with shell syntax exactly, so an approved prefix never lets more through", () => {
    const base = shellApproval("git status").action;
    for (const command of [
      "git status; rm -rf ~",
      "git status && touch pwned",
      "git status || touch pwned",
      "git status | sh",
      "git status $(touch pwned)",
      "git status `touch pwned`",
      "git status > ~/.bashrc",
      "git status < /etc/passwd",
      "git status & touch pwned",
      "git status\ntouch pwned",
      "git status 'x'",
      'git status "$HOME"',
      "git status *",
      "git status ~/x",
      "git status #\r\u001b[2K",
      "git status \\; touch x",
      "git status {a,b}",
      "git status (x)",
    ]) {
      const approval = shellApproval(command);
      expect(approval.action, JSON.stringify(command)).not.toBe(base);
      expect(approval, JSON.stringify(command)).toEqual({ action: `Shell: exactly ${command}`, scope: "this exact command" });
    }
  });

  it("matches a command with an option or an assignment after the subcommand exactly: options write files and run programs", () => {
    const approved = new Set(["git log", "git diff", "make build", "npm run build", "docker run", "git status"].map((command) => shellApproval(command).action));
    for (const command of [
      "git log -1 --output=/tmp/outside.txt",
      "git log -1 --output /tmp/outside.txt",
      "git diff --output=../x HEAD",
      "git diff --ext-diff HEAD",
      "git log -p --textconv",
      "git status --short",
      "make build SHELL=/tmp/evil",
      "make build -f /tmp/evil.mk",
      "npm run build --script-shell=/tmp/evil",
      "npm run build -- --watch",
      "docker run -v /:/host image",
      "git log HEAD=x",
    ]) {
      const approval = shellApproval(command);
      expect(approved.has(approval.action), command).toBe(false);
      expect(approval, command).toEqual({ action: `Shell: exactly ${command}`, scope: "this exact command" });
    }
  });

  it("matches subcommands that set or run programs with plain words exactly", () => {
    for (const command of ["git config core.fsmonitor ./x", "git config user.name", "gh alias set co pr", "git bisect run ./x", "git submodule foreach ./x", "npm config set script-shell ./x"]) {
      const approval = shellApproval(command);
      expect(approval, command).toEqual({ action: `Shell: exactly ${command}`, scope: "this exact command" });
    }
  });

  it("covers only the same command for other programs, options before a subcommand, and env assignments", () => {
    for (const command of ["ls -la", "rm notes.txt", "git -C .. status", "FOO=1 git status", "bash script.sh", "sudo git status", "git", "./git status"]) {
      expect(shellApproval(command), command).toEqual({ action: `Shell: exactly ${command}`, scope: "this exact command" });
    }
    expect(shellApproval("rm notes.txt").action).not.toBe(shellApproval("rm -rf notes.txt").action);
  });
});
