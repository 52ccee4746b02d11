import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { useTempDirs } from "../temp-dir.js";
import { ensureBuilt, runKosong } from "./kosong-binary.js";

const tempDir = useTempDirs();

beforeAll(() => ensureBuilt(), 300_000);

describe("kosong demo (the built binary, no key, no network)", { timeout: 120_000 }, () => {
  it("runs the whole tour on the real agent loop and session files", async () => {
    const home = await tempDir();
    const result = await runKosong(["demo", "--fast"], { cwd: home, home });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = result.stdout;
    // A multi-step tool turn with parallel tools and two approvals.
    expect(out).toMatch(/✓ ListDir\(\.\)[\s\S]*✓ Grep\(export function\)[\s\S]*✓ ReadFile\(src\/math\.ts\)/);
    expect(out).toMatch(/EditFile wants to: Edit src\/math\.ts[\s\S]*approve\? y\n✓ EditFile/);
    // The edit's approval shows its diff; a line typed during the turn is queued, then steered in.
    expect(out).toMatch(/│ -  return sum\(values\) \/ 2;\n.*│ \+  return sum\(values\) \/ values\.length;/);
    expect(out).toMatch(/⧗ queued: Also tell me where average is used\.[\s\S]*» steered: Also tell me where average is used\.[\s\S]*you asked while I worked/);
    expect(out.split("Let me look at the project first.").length - 1).toBe(1);
    expect(out).toMatch(/Shell wants to: Run: grep[\s\S]*approve\? a\n✓ Shell/);
    // Checkpoints, the model's D-Mail shrinking the context, the host's rewrite.
    expect(out).toMatch(/checkpoint 0 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · 0 messages before it/);
    const dmail = /⟲ D-Mail: back to checkpoint \d+ · context ([\d.]+)k? → ([\d.]+k?) tokens/.exec(out);
    expect(dmail).not.toBeNull();
    expect(out).toMatch(/The release moved from March 7 to (\*\*)?March 14/);
    expect(out).toMatch(/edit› Who decided the release date, and why\?\n⟲ rewrite: back to checkpoint \d+/);
    // The chosen strategy compacts and the bar drops.
    const compacted = /compacted: ([\d.]+k?) → ([\d.]+k?) tokens/.exec(out);
    const tokens = (shown: string) => (shown.endsWith("k") ? Number(shown.slice(0, -1)) * 1000 : Number(shown));
    expect(tokens(compacted![2]!)).toBeLessThan(tokens(compacted![1]!));
    // Saved and resumed.
    const workspace = /Workspace: (\S+)/.exec(out)![1]!;
    const id = /Resumed (\S+): \d+ messages\./.exec(out)![1]!;
    expect(out).toContain("In this session we:");
    // The resumed session keeps the strategy taught with /strategy; a pasted log is shown collapsed and sent whole.
    expect(out.slice(out.indexOf("Resumed"))).toMatch(/compaction: simple/);
    expect(out).toContain("› What does this build log say? [pasted 12 lines]\nThe log has 12 lines:");
    const saved = await readFile(path.join(workspace, ".kosong/sessions", id, "context.jsonl"), "utf8");
    expect(saved).toContain("What did we do in this session?");
    expect(await readFile(path.join(workspace, "src/math.ts"), "utf8")).toContain("sum(values) / values.length");
    expect(out).toContain("Demo done.");
    await rm(workspace, { recursive: true, force: true });
  });
});

describe("kosong --help and --version", () => {
  it("prints the version", async () => {
    const home = await tempDir();
    const result = await runKosong(["--version"], { cwd: home, home });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`kosong ${packageJson.version}\n`);
  });

  it("documents every flag, command, environment variable and exit code", async () => {
    const home = await tempDir();
    const result = await runKosong(["--help"], { cwd: home, home });
    expect(result.code).toBe(0);
    const flags = ["--print", "--output-format", "--provider", "--model", "--base-url", "--max-context-size", "--thinking", "--compaction", "--compact-model", "--script", "--yolo", "--dmail", "--continue", "--resume", "--resume-file", "--no-project-context", "--version", "--help"];
    const env = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "KIMI_API_KEY", "KOSONG_HOME", "KOSONG_PROVIDER", "KOSONG_MODEL", "KOSONG_BASE_URL", "KOSONG_API_KEY", "KOSONG_MAX_CONTEXT_SIZE", "KOSONG_THINKING", "KOSONG_COMPACTION", "KOSONG_COMPACT_MODEL", "KOSONG_YOLO", "KOSONG_DMAIL", "NO_COLOR"];
    for (const word of [...flags, ...env, "demo", "sessions", "config.toml", "130"]) expect(result.stdout, word).toContain(word);
    for (const provider of ["openai", "openai-responses", "anthropic", "kimi", "scripted"]) expect(result.stdout).toContain(provider);
    for (const mcp of ["--mcp-config-file", "mcpServers"]) expect(result.stdout).toContain(mcp);
  });
});
