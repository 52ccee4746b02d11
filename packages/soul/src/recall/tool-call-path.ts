/**
 * The file a tool call names, and whether two spellings of a path name the
 * same file (an absolute path in one call and a relative one in another).
 */
import type { ToolCall } from "@kosong/core";

const PATH_KEY = /^(path|file|file_?path|filename|target_file)$/i;
const COMMAND_KEY = /^(command|cmd|script)$/i;
/**
 * A shell command that shows one file and does nothing else: `cat [-n] f`,
 * `nl f`, `head|tail [-n N] f`, `sed -n 'A,Bp' f` (no pipe, no redirection,
 * no second command).
 */
const SHELL_VIEW = /^\s*(?:cat(?:\s+-\w+)*|nl(?:\s+-\w+)*|(?:head|tail)(?:\s+-n\s*\d+|\s+-\d+)?|sed\s+-n\s+(['"]?)\d+(?:,\d+)?p\1)\s+([^\s|;&<>`$()]+)\s*$/;

/**
 * The file `call` names: the first string argument under a path-like key
 * (`path`, `file_path`, ...), else the file a shell command that only shows
 * one file shows (`cat f`, `sed -n '10,40p' f`); null for neither.
 */
export function toolCallPath(call: ToolCall): string | null {
  const named = stringArgument(call, PATH_KEY);
  if (named !== null) return named;
  const command = toolCallCommand(call);
  return command === null ? null : (SHELL_VIEW.exec(command)?.[2] ?? null);
}

/** The command a shell-like tool call runs (its `command`, `cmd` or `script` argument), or null. */
export function toolCallCommand(call: ToolCall): string | null {
  return stringArgument(call, COMMAND_KEY);
}

/** The first non-empty string among the top-level arguments of `call` whose key matches `key`, or null (also for arguments that are not JSON). */
export function stringArgument(call: ToolCall, key: RegExp): string | null {
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments ?? "");
  } catch {
    return null;
  }
  if (args === null || typeof args !== "object") return null;
  const entry = Object.entries(args).find(([name, value]) => key.test(name) && typeof value === "string" && value !== "");
  return entry === undefined ? null : (entry[1] as string);
}

/**
 * True when `a` and `b` name the same file as far as their text tells:
 * equal after normalising (`./`, `\`, repeated `/`), or one ends with `/`
 * followed by the other.
 */
export function samePath(a: string, b: string): boolean {
  const x = normalise(a);
  const y = normalise(b);
  if (x === "" || y === "") return false;
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

function normalise(path: string): string {
  return path.trim().replace(/\\/g, "/").replace(/\/{2,}/g, "/").replace(/^(\.\/)+/, "").replace(/\/$/, "");
}
