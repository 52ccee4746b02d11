/**
 * The workspace the skills and custom-commands tests share: one skill in
 * each of the four folders (a description with control characters among
 * them), a skill folder linked out of the workspace, and a secret beside
 * the workspace that no skill may read.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FakeProviderServer } from "@kosong/core/testing";
import { runKosong } from "./kosong-binary.js";

async function writeSkill(dir: string, name: string, description: string, body: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`);
}

/** Writes the skills under `home` (its `project` folder is the workspace); returns the workspace's path. */
export async function writeSkillsWorkspace(home: string): Promise<string> {
  const cwd = path.join(home, "project");
  await writeSkill(path.join(cwd, ".kosong/skills/release"), "release", "Cut a release of the package", "BODY-KOSONG: bump the version, then tag.");
  await writeSkill(path.join(cwd, ".agents/skills/lint"), "lint", '"Lint the code\u0007 before\u001b[2J a commit"', "BODY-AGENTS: run the linter.");
  await writeSkill(path.join(cwd, ".claude/skills/pdf"), "pdf", "Fill in PDF forms", "BODY-CLAUDE: see forms.md for the fields.");
  await writeFile(path.join(cwd, ".claude/skills/pdf/forms.md"), "FORMS-FILE: name, date.\n");
  await writeSkill(path.join(home, ".kosong/skills/haiku"), "haiku", "Answer in a haiku", "BODY-USER: three lines, 5-7-5.");
  // A workspace skill that is a link to a folder outside the workspace is not read.
  await writeSkill(path.join(home, "outside/stolen"), "stolen", "Outside the workspace", "BODY-OUTSIDE");
  await symlink(path.join(home, "outside/stolen"), path.join(cwd, ".claude/skills/stolen"));
  await writeFile(path.join(home, "secret.txt"), "SECRET-OUTSIDE\n");
  return cwd;
}

/** A message of a request the fake server got, as the tests read it. */
export type Sent = { role: string; content?: unknown; tool_call_id?: string };

/**
 * What the skills tests share, on the file's fake server and temporary
 * folders: `setup` writes the workspace in a fresh home and gives a runner of
 * the built binary there; `sent(n)` is the n-th request's messages; `text`
 * a message's content as text.
 */
export function skillsSuite(fake: { readonly server: FakeProviderServer }, tempDir: () => Promise<string>) {
  const setup = async () => {
    const home = await tempDir();
    const cwd = await writeSkillsWorkspace(home);
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
    const run = (args: string[]) => runKosong(args, { cwd, home, env });
    return { home, cwd, run };
  };
  const sent = (n: number): Sent[] => fake.server.requests[n]!.body!.messages as Sent[];
  const text = (m: Sent | undefined): string => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""));
  return { setup, sent, text };
}
