/**
 * The identifiers an agent uses: what the real-trajectory benchmark looks
 * for in a compacted context. Plain regular expressions over text, on
 * purpose, so anyone can check what counts:
 *
 * - **paths**: a run of path characters with a `/` in it (`django/http/response.py`,
 *   `tests/test_x.py::TestY::test_z`), or a file name with a known source or
 *   data extension (`setup.cfg`, `response.py`); a leading `./`, quotes and a
 *   trailing `:line` are dropped;
 * - **dotted names**: two or more identifiers joined by dots (`django.http.response`,
 *   `self.assertEqual`, `os.path.join`);
 * - **code identifiers**: a word with an underscore (`make_bytes`, `test_memoryview`,
 *   `__init__`) or in CamelCase (`HttpResponse`, `AttributeError`), at least 4 characters;
 * - **error lines**: the text after `SomethingError:` or `SomethingException:` on
 *   a line (`'NoneType' object has no attribute 'x'`), trimmed, 8 to 120 characters.
 *
 * Everything above applies to the text of any message; for the agent's own
 * steps that is its prose and its tool calls' arguments (the command of a
 * shell call). Identifiers are matched later with identifier boundaries
 * (see {@link containsIdentifier}), so `HttpResponse` is not found inside
 * `StreamingHttpResponse`.
 */
import type { Message } from "@kosong/core";

const EXTENSIONS = "py|pyi|js|mjs|cjs|ts|tsx|jsx|json|toml|cfg|ini|ya?ml|md|rst|txt|html|css|c|h|cc|cpp|hpp|rs|go|java|rb|sh|sql|lock|csv";
const PATH = new RegExp(String.raw`(?:[\w.-]*\/[\w./:-]*[\w]|\b[\w-]+\.(?:${EXTENSIONS})\b)`, "g");
const DOTTED = /\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b/g;
const WORD = /\b[A-Za-z_]\w{3,}\b/g;
const ERROR_LINE = /\b\w*(?:Error|Exception):[ \t]*([^\n]{8,120})$/gm;

/** Strips what surrounds a path in prose and commands: `./`, a trailing `:123` line number, trailing dots and colons. */
function cleanPath(raw: string): string | null {
  let path = raw.replace(/^(?:\.\/)+/, "").replace(/(?::\d+)+$/, "").replace(/[.:]+$/, "");
  if (path.startsWith("/") && path.length < 3) return null;
  path = path.replace(/\/+$/, "");
  if (path.length < 4 || !/[A-Za-z]/.test(path) || /^\d/.test(path)) return null;
  return path;
}

function isCodeWord(word: string): boolean {
  return word.includes("_") ? /[A-Za-z]/.test(word) && word.replace(/_/g, "").length >= 2 : /[a-z][A-Z]|^[A-Z][a-z]+[A-Z]/.test(word);
}

/** The identifiers in `text` (see the module comment), deduplicated. */
export function identifiersIn(text: string): Set<string> {
  const found = new Set<string>();
  for (const [raw] of text.matchAll(PATH)) {
    const path = cleanPath(raw);
    if (path !== null && !path.includes("//")) found.add(path);
  }
  for (const [name] of text.matchAll(DOTTED)) if (!/^\d/.test(name) && name.length >= 5) found.add(name);
  for (const [word] of text.matchAll(WORD)) if (isCodeWord(word)) found.add(word);
  for (const match of text.matchAll(ERROR_LINE)) found.add(match[1]!.trim());
  return found;
}

/** The text an identifier is looked for in: every text part and every tool call's name and arguments (JSON strings decoded). */
export function messageText(message: Message): string {
  const parts: string[] = [];
  for (const part of message.content) if (part.type === "text") parts.push(part.text);
  for (const call of message.tool_calls ?? []) {
    parts.push(call.function.name);
    parts.push(...argumentStrings(call.function.arguments));
  }
  return parts.join("\n");
}

/** The string values of a tool call's JSON arguments (the raw text when it is not JSON). */
function argumentStrings(args: string | null): string[] {
  if (args === null || args === "") return [];
  try {
    const strings: string[] = [];
    const visit = (node: unknown): void => {
      if (typeof node === "string") strings.push(node);
      else if (Array.isArray(node)) node.forEach(visit);
      else if (node !== null && typeof node === "object") Object.values(node).forEach(visit);
    };
    visit(JSON.parse(args));
    return strings;
  } catch {
    return [args];
  }
}

/** True when `identifier` occurs in `text` with no identifier character right before or after it. */
export function containsIdentifier(text: string, identifier: string): boolean {
  let at = text.indexOf(identifier);
  while (at >= 0) {
    const before = text[at - 1];
    const after = text[at + identifier.length];
    if ((before === undefined || !/[\w]/.test(before)) && (after === undefined || !/[\w]/.test(after))) return true;
    at = text.indexOf(identifier, at + 1);
  }
  return false;
}
