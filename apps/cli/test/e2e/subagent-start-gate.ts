/**
 * Holds every child agent of the binary's runs in `home` at its start until
 * the test opens the gate: a SubagentStart hook in `<home>/.kosong/config.toml`
 * waits for a file. So a background child's first request comes after the
 * parent's turn has ended, whatever the timing.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/** Writes the hook (the gate file in `cwd`); returns the function that lets the children start. */
export async function gateSubagentStart(home: string, cwd: string): Promise<() => Promise<void>> {
  const flag = path.join(cwd, "go");
  await mkdir(path.join(home, ".kosong"), { recursive: true });
  const command = `while [ ! -e '${flag}' ]; do sleep 0.05; done`;
  await writeFile(path.join(home, ".kosong", "config.toml"), `[[hooks]]\nevent = "SubagentStart"\ncommand = ${JSON.stringify(command)}\ntimeout = 60\n`);
  return () => writeFile(flag, "");
}
