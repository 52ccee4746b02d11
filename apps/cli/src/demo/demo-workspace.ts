/** The demo's temporary workspace: a tiny project with a bug and some long meeting notes. */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** The buggy function the demo's agent fixes. */
export const buggyMath = `export function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

export function average(values: number[]): number {
  return sum(values) / 2;
}
`;

/** Creates the workspace (and a `.kosong` home inside it for the demo's session); returns its path. */
export async function createDemoWorkspace(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), "kosong-demo-"));
  await mkdir(path.join(root, "src"));
  await mkdir(path.join(root, "notes"));
  await writeFile(path.join(root, "src/math.ts"), buggyMath);
  await writeFile(path.join(root, "README.md"), "# stats\n\nSmall statistics helpers.\n");
  await writeFile(path.join(root, "AGENTS.md"), "Keep functions pure. Explain every fix in one sentence.\n");
  const filler = Array.from({ length: 60 }, (_, i) => `- item ${i + 1}: discussed the dashboard colours, the CSV export and the on-call rota again; no change.`);
  const notes = ["# Weekly meeting", "", ...filler.slice(0, 30), "- release: the release moves from March 7 to **March 14**; Dana decided, to finish the CSV export.", ...filler.slice(30), ""];
  await writeFile(path.join(root, "notes/meeting.md"), notes.join("\n"));
  return root;
}
