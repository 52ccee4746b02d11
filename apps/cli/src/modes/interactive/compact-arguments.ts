/**
 * The arguments of `/compact`: `[from <checkpoint> [to <checkpoint>]] [instruction]`.
 */
import type { CompactRequest } from "@kosong/soul/recall";

/** The request `/compact <args>` makes; a string when the arguments are not understood (what to print). */
export function compactArguments(args: string): CompactRequest | string {
  const range = /^from\s+(\S+)(?:\s+to\s+(\S+))?(?:\s+([\s\S]*))?$/.exec(args.trim());
  if (range === null) return args.trim() === "" ? {} : { instruction: args.trim() };
  const [, from, to, instruction] = range;
  if (!/^\d{1,9}$/.test(from!) || (to !== undefined && !/^\d{1,9}$/.test(to))) return "Usage: /compact from <checkpoint> [to <checkpoint>] [instruction] (checkpoint ids: see /checkpoints)";
  return { from: Number(from), ...(to !== undefined && { to: Number(to) }), ...(instruction?.trim() && { instruction: instruction.trim() }) };
}
