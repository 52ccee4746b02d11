/**
 * Which workspaces the user trusts: a workspace's own files name hook
 * commands, MCP servers and permission rules that a cloned repository
 * brings (see `workspace-offer.ts`), so none of them acts until the user
 * said yes once, for exactly those. The answer is kept in
 * `$KOSONG_HOME/trusted-workspaces.json` by the workspace's path and a hash
 * of what it brings: when that changes, the user is asked again (a change
 * kosong makes itself, at the user's word, is remembered as trusted).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { lazySchema } from "@kosong/core";
import * as z from "zod";
import { withFileLock } from "../files/locked-update.js";
import { replaceFile } from "../files/replace-file.js";
import type { WorkspaceOffer } from "../project/workspace-offer.js";
import { isEmptyOffer, offeredRuleCount } from "../project/workspace-offer.js";

const storeSchema = lazySchema(() => z.object({ workspaces: z.record(z.string(), z.string()) }));

/** Asks the user whether to trust the workspace with what it brings; true for yes. */
export type AskWorkspaceTrust = (offer: WorkspaceOffer) => Promise<boolean>;

/** The trust file of `home`. */
export function trustFile(home: string): string {
  return path.join(home, "trusted-workspaces.json");
}

/** The hash that trust is given to: the hooks' events, commands, matchers and timeouts, then (when there are any) the servers and the rules. */
export function offerHash(offer: WorkspaceOffer): string {
  const hooks = offer.hooks.map((h) => [h.event, h.command, h.matcher, h.matchWhole, h.timeoutSeconds, h.source]);
  // A workspace with hooks only keeps the hash it had before servers and rules were covered.
  const canonical = offer.mcpServers.length === 0 && offeredRuleCount(offer) === 0 ? hooks : { hooks, mcpServers: offer.mcpServers, rules: offer.rules };
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/** True when the user trusted `workspace` with exactly `offer`. A missing or damaged trust file trusts nothing. */
export async function isTrusted(home: string, workspace: string, offer: WorkspaceOffer): Promise<boolean> {
  return (await readStore(home))[workspace] === offerHash(offer);
}

/**
 * Remembers that the user trusts `workspace` with `offer` (replacing an
 * earlier answer for it). The store is re-read and replaced under its lock,
 * so another kosong process remembering another workspace at the same
 * moment keeps its answer too.
 * @throws SessionLockedError (from `@kosong/context`) when another live process held the store's lock for the whole wait.
 */
export async function trustWorkspace(home: string, workspace: string, offer: WorkspaceOffer): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const file = trustFile(home);
  await withFileLock(file, async () => {
    const workspaces = { ...(await readStore(home)), [workspace]: offerHash(offer) };
    await replaceFile(file, `${JSON.stringify({ workspaces }, null, 2)}\n`);
  });
}

/** Whether the workspace is trusted, and whether that is remembered (so a later change made at the user's word is remembered too). */
export interface WorkspaceTrust {
  trusted: boolean;
  /** Trusted beyond this run: remembered, answered yes now, or bringing nothing (not with `--trust-workspace` alone). */
  remembered: boolean;
}

/**
 * Decides whether `workspace` is trusted with `offer`: it brings nothing,
 * `flag` (`--trust-workspace`) says so, the user said yes before to exactly
 * this, or `ask` (interactive mode) gets a yes now (then remembered).
 */
export async function decideWorkspaceTrust(home: string, workspace: string, offer: WorkspaceOffer, flag: boolean, ask?: AskWorkspaceTrust): Promise<WorkspaceTrust> {
  if (isEmptyOffer(offer)) return { trusted: true, remembered: true };
  if (await isTrusted(home, workspace, offer)) return { trusted: true, remembered: true };
  if (flag) return { trusted: true, remembered: false };
  if (ask && (await ask(offer))) {
    await trustWorkspace(home, workspace, offer);
    return { trusted: true, remembered: true };
  }
  return { trusted: false, remembered: false };
}

async function readStore(home: string): Promise<Record<string, string>> {
  try {
    const parsed = storeSchema().safeParse(JSON.parse(await readFile(trustFile(home), "utf8")));
    return parsed.success ? parsed.data.workspaces : {};
  } catch {
    return {};
  }
}
