/** A shell script that runs the built kosong with a clean environment, for `@moonshot-ai/kimi-agent-sdk`'s `executable`. */
import { chmod, writeFile } from "node:fs/promises";
import path from "node:path";
import { kosongBin } from "./kosong-binary.js";

/** Writes `<home>/kosong-wrapper.sh` pointing kosong at the OpenAI-compatible server `baseUrl`; returns its path. */
export async function wireExecutable(home: string, baseUrl: string): Promise<string> {
  const executable = path.join(home, "kosong-wrapper.sh");
  const vars = [`PATH=${process.env.PATH}`, `HOME=${home}`, `KOSONG_HOME=${home}/.kosong`, "OPENAI_API_KEY=sk-test", `OPENAI_BASE_URL=${baseUrl}`, "NO_COLOR=1"];
  await writeFile(executable, `#!/bin/sh\nexec env -i ${vars.map((v) => `'${v}'`).join(" ")} '${process.execPath}' '${kosongBin}' "$@"\n`);
  await chmod(executable, 0o755);
  return executable;
}
