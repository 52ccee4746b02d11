/**
 * The names the model sees for MCP tools: `mcp__<server>__<tool>`, made of
 * the characters every provider accepts (`[A-Za-z0-9_-]`, at most 64).
 *
 * A name that had to be changed (a character replaced, or cut to fit) ends
 * in `_` and 8 hex digits of a hash of the original server and tool names,
 * so two different tools never end up with one name by the cleaning. If
 * names still collide (server `a` with tool `b__c` and server `a__b` with
 * tool `c`), every tool in the collision gets the hash suffix. The result
 * depends only on the set of tools, not on the order servers answered in.
 */
import { createHash } from "node:crypto";

/** The longest tool name providers accept (OpenAI, Anthropic). */
export const maxToolNameLength = 64;

/** A tool to be named: its server and its own name. */
export interface ToolIdentity {
  server: string;
  tool: string;
}

/** Qualified names for `tools`, in the same order. */
export function qualifiedToolNames(tools: readonly ToolIdentity[]): string[] {
  const names = tools.map(candidateName);
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return names.map((name, i) => ((counts.get(name) ?? 0) > 1 ? hashedName(tools[i]!) : name));
}

function candidateName(identity: ToolIdentity): string {
  const plain = `mcp__${identity.server}__${identity.tool}`;
  const clean = `mcp__${cleanChars(identity.server)}__${cleanChars(identity.tool)}`;
  return clean === plain && plain.length <= maxToolNameLength ? plain : hashedName(identity);
}

function hashedName(identity: ToolIdentity): string {
  const hash = createHash("sha256").update(`${identity.server}\u0000${identity.tool}`).digest("hex").slice(0, 8);
  const base = `mcp__${cleanChars(identity.server)}__${cleanChars(identity.tool)}`;
  return `${base.slice(0, maxToolNameLength - 9)}_${hash}`;
}

function cleanChars(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}
