/**
 * Which workspaces the user trusts to run their hooks: a workspace's own
 * files (`.claude/settings.json`) name commands that a cloned repository
 * brings, so they run only after the user said yes once, for exactly those
 * hooks. The answer is kept in `$KOSONG_HOME/trusted-workspaces.json` by the
 * workspace's path and a hash of its hooks: when the hooks change, the user
 * is asked again.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { HookDefinition } from "./hook-definition.js";

const storeSchema = z.object({ workspaces: z.record(z.string(), z.string()) });

/** The trust file of `home`. */
export function trustFile(home: string): string {
  return path.join(home, "trusted-workspaces.json");
}

/** The hash that trust is given to: the hooks' events, commands, matchers and timeouts. */
export function hooksHash(hooks: readonly HookDefinition[]): string {
  const canonical = hooks.map((h) => [h.event, h.command, h.matcher, h.matchWhole, h.timeoutSeconds, h.source]);
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/** True when the user trusted `workspace` with exactly these hooks. A missing or damaged trust file trusts nothing. */
export async function isTrusted(home: string, workspace: string, hooks: readonly HookDefinition[]): Promise<boolean> {
  return (await readStore(home))[workspace] === hooksHash(hooks);
}

/** Remembers that the user trusts `workspace` with these hooks (replacing an earlier answer for it). */
export async function trustWorkspace(home: string, workspace: string, hooks: readonly HookDefinition[]): Promise<void> {
  const workspaces = { ...(await readStore(home)), [workspace]: hooksHash(hooks) };
  await mkdir(home, { recursive: true, mode: 0o700 });
  const file = trustFile(home);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify({ workspaces }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}

async function readStore(home: string): Promise<Record<string, string>> {
  try {
    const parsed = storeSchema.safeParse(JSON.parse(await readFile(trustFile(home), "utf8")));
    return parsed.success ? parsed.data.workspaces : {};
  } catch {
    return {};
  }
}
