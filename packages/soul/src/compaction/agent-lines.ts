/**
 * The lines the agent wrote that nothing newer repeats: of each of its own
 * messages (its prose, and the string arguments of its tool calls: a
 * command, a script in a heredoc, a file's contents), the lines that name
 * an identifier (a path, a symbol) that no kept message and no newer message
 * of the agent names. An agent goes on to write what it wrote before (the
 * next test script sets up the models, imports the modules and calls the
 * methods the last ones did); the line is where a name is used, with its
 * arguments, which an index of bare names does not keep. Read newest first,
 * each name is kept once, in its newest line: older messages hold only what
 * the agent has not written since.
 */
import type { Message, ToolCall } from "@kosong/core";
import { identifiersOf } from "./identifier-index.js";
import { visitStrings } from "./tool-call-excerpt.js";
import { pathKeys, type WorkingSet } from "./working-set.js";

/** The lines of one message that name something new, and those names. */
export interface AgentLines {
  /** Its prose lines that name something new. */
  prose: string[];
  /** Per tool call (by id), per argument string: the lines that name something new (empty arrays when none). */
  calls: Map<string, string[][]>;
  /** The names only these lines hold (keys as {@link nameKeys} gives them). */
  names: Set<string>;
  /** How many lines the message has in all (prose and arguments). */
  total: number;
}

/** A line longer than this is not kept (a minified or generated line is no definition). */
const MAX_LINE = 300;

/** The keys of the names in `text`: a path by its normalised suffix, a symbol as it is (error lines left out). */
export function nameKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const [id, kind] of identifiersOf(text)) {
    if (kind === "error") continue;
    keys.add(kind === "path" ? (pathKeys(id)[0] ?? id) : id);
  }
  return keys;
}

/**
 * For each assistant message of `messages` at the positions `at` (read
 * newest first), the lines that name something that neither `covered` nor a
 * newer message among them names, and the lines `about` holds (what the kept
 * messages work on) that no newer message among them keeps already. A message
 * with no such line is left out.
 */
export function agentLines(
  messages: readonly Message[],
  at: readonly number[],
  covered: ReadonlySet<string>,
  about: (line: string) => boolean = () => false,
): Map<number, AgentLines> {
  const seen = new Set(covered);
  const shown = new Set<string>();
  const found = new Map<number, AgentLines>();
  for (const position of [...at].sort((a, b) => b - a)) {
    const message = messages[position];
    if (message?.role !== "assistant") continue;
    const names = new Set<string>();
    let total = 0;
    const pick = (text: string): string[] => {
      const lines = text.split("\n");
      total += lines.length;
      const kept: string[] = [];
      for (const line of lines) {
        if (line.length > MAX_LINE) continue;
        let fresh = false;
        for (const key of nameKeys(line)) {
          if (seen.has(key)) continue;
          seen.add(key);
          names.add(key);
          fresh = true;
        }
        // A line about what the kept messages work on stays too, once (the newest copy of it).
        const trimmed = line.trim();
        if (fresh || (!shown.has(trimmed) && about(line))) {
          kept.push(line);
          shown.add(trimmed);
        }
      }
      return kept;
    };
    const prose = message.content.flatMap((part) => (part.type === "text" ? pick(part.text) : []));
    const calls = new Map<string, string[][]>();
    for (const call of message.tool_calls ?? []) calls.set(call.id, argumentStrings(call).map(pick));
    const lines = { prose, calls, names, total };
    if (keptLines(lines).length > 0) found.set(position, lines);
  }
  return found;
}

/** A line that defines a name: `def`, `class`, `function`, a declaration, an export, or an assignment `name = …`; the name. */
const DEFINITION = /^\s*(?:export\s+)?(?:(?:async\s+)?def|class|(?:async\s+)?function\*?|const|let|var|type|interface|enum|fn|func|struct|trait|impl)\s+([A-Za-z_$][\w$]*)|^\s*([A-Za-z_$][\w$.]*)\s*(?::[^=]+)?=(?!=)/;

/** The name `line` defines (see {@link DEFINITION}), or null. */
export function definedName(line: string): string | null {
  const match = DEFINITION.exec(line);
  return match?.[1] ?? match?.[2] ?? null;
}

/** Every line `lines` keeps: its prose, then its calls' arguments, in order. */
export function keptLines(lines: AgentLines): string[] {
  return [...lines.prose, ...[...lines.calls.values()].flat(2)];
}

/**
 * `message` (an assistant message) cut to `lines`: its prose to the lines
 * kept, each string argument of its calls to its lines kept under an
 * `[excerpt: k of n lines, …]` line (an argument with none kept becomes
 * `[…]`); the calls' ids and names stay, so every tool output keeps its call.
 */
export function agentLinesMessage(message: Message, lines: AgentLines): Message {
  const calls = (message.tool_calls ?? []).map((call): ToolCall => {
    const kept = lines.calls.get(call.id) ?? [];
    let index = 0;
    const parsed = parse(call);
    const args = visitStrings(parsed.value, (value) => {
      const chosen = kept[index++] ?? [];
      const all = value.split("\n").length;
      if (chosen.length === all) return value;
      return chosen.length === 0 ? "[…]" : `[excerpt: ${chosen.length} of ${all} lines, the names not written since]\n${chosen.join("\n")}`;
    });
    // Arguments that were not JSON stay plain text.
    return { ...call, function: { ...call.function, arguments: parsed.json ? JSON.stringify(args) : String(args) } };
  });
  const content = lines.prose.length === 0 ? [] : [{ type: "text" as const, text: lines.prose.join("\n") }];
  return { ...message, content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

/** The string values of a call's JSON arguments in order (the raw arguments when not JSON). */
function argumentStrings(call: ToolCall): string[] {
  const strings: string[] = [];
  visitStrings(parse(call).value, (value) => {
    strings.push(value);
    return value;
  });
  return strings;
}

/** A call's arguments: parsed when they are JSON, else the raw text. */
function parse(call: ToolCall): { value: unknown; json: boolean } {
  try {
    return { value: JSON.parse(call.function.arguments ?? ""), json: true };
  } catch {
    return { value: call.function.arguments ?? "", json: false };
  }
}

/**
 * The lines that define a name the kept messages work on (see
 * {@link definedName}): `def parse_header(`, `class Widget`,
 * `qs_case = …` where the working set holds the name (or a part of a
 * dotted one). Such a line is what the next steps use of a name a dropped
 * call defined, whether or not a newer message names it too.
 */
export function definesWorkingName(working: WorkingSet): (line: string) => boolean {
  return (line) => {
    const name = definedName(line);
    return name !== null && name.split(".").some((part) => working.weightOf(part, "symbol") > 0);
  };
}
