/**
 * How much of what a compaction keeps is noise, and whether the next steps
 * use it: on the content bench's cuts (`trajectory-content.ts`) at 30 % of
 * the tokens, the tool-output characters of the history before the cut (the
 * candidates) and of preserve-important's and smart's outputs (what is
 * kept), split into kinds of noise a user would not miss, each with the
 * values, edit anchors and identifiers the next 10 steps use that occur only
 * in lines of that kind (if used content lives there, a rule that condenses
 * it is wrong):
 *
 * - passing-test verdicts (`... ok`, `PASSED`), test-runner chatter
 *   (separators, `Ran N tests`, test-database set-up), package-installer
 *   logs, warnings;
 * - runs of 4 or more lines of the same shape (digits aside): the lines
 *   between the first and the last;
 * - characters past 500 on one line; ANSI and other control sequences;
 * - lines a newer output shows again, loosely (each adjacent pair of lines,
 *   line-number prefixes removed, occurs in some newer output: an upper
 *   bound on what any rule could condense).
 *
 * Then what the rule that ships (`repeated-lines.ts` in @kosong/soul)
 * condensed in preserve-important's outputs, in provider tokens, against
 * the budgets. The time column is one preserve-important compaction against
 * the keep-newest baseline.
 */
import type { Message } from "@kosong/core";
import { PreserveImportantCompaction, SmartCompaction } from "@kosong/soul/compaction";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { rowFromSamples } from "../measure.ts";
import { containsValue, keptContentText, needsAfter, normalise } from "../real-trajectories/content.ts";
import { containsIdentifier, identifiersIn, messageText } from "../real-trajectories/identifiers.ts";
import { type Case, options, realTrajectoryCases, suffixBaseline } from "./real-trajectories.ts";

/** Kinds recognised line by line. */
const LINE_KINDS: ReadonlyArray<[string, RegExp]> = [
  ["passing tests", /(?:\.\.\. ok|\bPASSED\b(?:\s+\[\s*\d+%\])?|\.\.\. skipped.*|\bok)\s*$/],
  [
    "test-runner chatter",
    /^(?:Creating test database|Destroying test database|Cloning test database|System check identified|Ran \d+ tests? in|OK(?: \(.*\))?$|-{20,}$|={20,}$|Testing against Django|Importing application|Operations to perform|Synchroniz|Apply all migrations|Running migrations|\s+Applying .*\.\.\.|\s+Creating table|\s+Running deferred|Found \d+ test|platform \w+ -- Python|cachedir:|rootdir:|plugins:|collect(?:ed|ing) \d+ items?|Using existing test database)/,
  ],
  [
    "installer logs",
    /^(?:Requirement already satisfied|Collecting |\s*Downloading |Installing collected|Successfully (?:installed|built)|Obtaining |\s*Preparing metadata|\s*Building wheel|\s*Created wheel|\s*Stored in|WARNING: Running pip|Looking in indexes|\s*Attempting uninstall|\s*Found existing installation|\s*Uninstalling|\s*Successfully uninstalled|\s*Installing build dependencies|\s*Getting requirements)/,
  ],
  ["warnings", /Warning:|warnings\.warn\(|^\s*warn\(/],
];
const SAME_SHAPE = "runs of same-shape lines";
const LONG = "characters past 500 on a line";
const CONTROL = "control sequences";
const SHOWN_AGAIN = "lines a newer output shows again (loose)";
const KINDS = [...LINE_KINDS.map(([k]) => k), SAME_SHAPE, LONG, CONTROL, SHOWN_AGAIN];

const shape = (line: string): string => line.replace(/0x[0-9a-f]+/gi, "0x").replace(/\d+/g, "0").replace(/\s+/g, " ").trim();
const withoutNumber = (line: string): string => line.replace(/^\s*\d+(?:\t|→| {2,})|^(?:[\w./-]+[:-])?\d+[:-]/, "").trim();
const CONTROL_SEQUENCE = /\u001b\[[0-9;?]*[A-Za-z]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const textOf = (m: Message): string => m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");

/** The kind of each line of one tool output (null: none), given the adjacent-line pairs of the newer outputs. */
function lineKinds(lines: readonly string[], newer: ReadonlySet<string>): Array<string | null> {
  const kinds = lines.map((line) => LINE_KINDS.find(([, re]) => re.test(line))?.[0] ?? null);
  for (let i = 0; i < lines.length; ) {
    const s = shape(lines[i]!);
    let j = i + 1;
    while (j < lines.length && s !== "" && shape(lines[j]!) === s) j++;
    if (j - i >= 4) for (let k = i + 1; k < j - 1; k++) kinds[k] ??= SAME_SHAPE;
    i = j;
  }
  const bare = lines.map(withoutNumber);
  for (let a = 0; a < lines.length - 1; ) {
    let b = a;
    while (b + 1 < lines.length && newer.has(`${bare[b]}\n${bare[b + 1]}`)) b++;
    if (b - a + 1 >= 3) for (let k = a; k <= b; k++) kinds[k] ??= SHOWN_AGAIN;
    a = Math.max(b, a + 1);
  }
  return kinds;
}

/** Characters per kind and used items found only in lines of a kind, summed over cuts. */
type Tally = { chars: number; byKind: Map<string, number>; items: Map<string, number>; onlyThere: Map<string, Map<string, number>> };
const emptyTally = (): Tally => ({ chars: 0, byKind: new Map(), items: new Map(), onlyThere: new Map() });
const bump = <K>(map: Map<K, number>, key: K, by = 1): void => {
  map.set(key, (map.get(key) ?? 0) + by);
};

/** Tallies `messages` (a history or a compacted context) of case `c` into `tally`. */
function survey(tally: Tally, messages: readonly Message[], c: Case): void {
  const needs = needsAfter(c.trajectory.messages, c.cut, 10);
  const used = new Set<string>();
  for (const m of c.trajectory.messages.slice(c.cut).filter((m) => m.role === "assistant").slice(0, 10)) for (const id of identifiersIn(messageText(m))) used.add(id);
  const before = c.history.map(messageText).join("\n");
  const identifiers = [...used].filter((id) => containsIdentifier(before, id));
  // Each tool output's lines with their kinds, newest first so that "a newer output shows again" is known.
  const newer = new Set<string>();
  const kinds = new Map<number, { lines: string[]; kinds: Array<string | null> }>();
  for (let k = messages.length - 1; k >= 0; k--) {
    if (messages[k]!.role !== "tool") continue;
    const lines = textOf(messages[k]!).split("\n");
    kinds.set(k, { lines, kinds: lineKinds(lines, newer) });
    const bare = lines.map(withoutNumber);
    for (let i = 1; i < bare.length; i++) newer.add(`${bare[i - 1]}\n${bare[i]}`);
  }
  for (const { lines, kinds: each } of kinds.values()) {
    lines.forEach((line, i) => {
      tally.chars += line.length + 1;
      const kind = each[i];
      if (kind != null) bump(tally.byKind, kind, line.length + 1);
      else if (line.length > 500) bump(tally.byKind, LONG, line.length - 500);
      for (const [control] of line.matchAll(CONTROL_SEQUENCE)) bump(tally.byKind, CONTROL, control.length);
    });
  }
  // The kept text, and the kept text with the lines of one kind taken out.
  const text = (without: string | null): string =>
    messages
      .map((m, k) => {
        const found = kinds.get(k);
        if (found === undefined || without === null) return keptContentText(m);
        return found.lines
          .map((line, i) => {
            if (without === LONG) return found.kinds[i] == null && line.length > 500 ? line.slice(0, 500) : line;
            if (without === CONTROL) return line.replace(CONTROL_SEQUENCE, "");
            return found.kinds[i] === without ? "" : line;
          })
          .join("\n");
      })
      .join("\n");
  const full = text(null);
  const stripped = new Map(KINDS.map((k) => [k, text(k)]));
  const check = (type: string, present: (t: string) => boolean): void => {
    if (!present(full)) return;
    bump(tally.items, type);
    for (const kind of KINDS) {
      if (present(stripped.get(kind)!)) continue;
      let byType = tally.onlyThere.get(kind);
      if (byType === undefined) tally.onlyThere.set(kind, (byType = new Map()));
      bump(byType, type);
    }
  };
  for (const value of needs.values) check("values", (t) => containsValue(t, value));
  for (const anchor of needs.anchors) check("anchors", (t) => normalise(t).includes(anchor));
  for (const id of identifiers) check("identifiers", (t) => containsIdentifier(t, id));
}

/** One line per kind: share of tool-output characters, and the used items only there. */
function describe(t: Tally): string {
  const items = ["values", "anchors", "identifiers"].map((type) => `${type} ${t.items.get(type) ?? 0}`).join(", ");
  const kinds = KINDS.map((kind) => {
    const share = (100 * (t.byKind.get(kind) ?? 0)) / Math.max(1, t.chars);
    const only = ["values", "anchors", "identifiers"].map((type) => t.onlyThere.get(kind)?.get(type) ?? 0).join("/");
    return `${kind} ${share.toFixed(2)} % (used only there: ${only})`;
  });
  return `tool-output characters ${t.chars}; used items present: ${items}; by kind (values/anchors/identifiers only there): ${kinds.join("; ")}`;
}

const benchmark: Benchmark = {
  name: "trajectory-noise",
  async run({ quick }) {
    const cases = realTrajectoryCases(quick).filter((c) => c.share === 0.3);
    if (cases.length === 0) throw new Error("trajectory-noise: no trajectories found (set KOSONG_FIXTURES to the fixtures folder)");
    const history = emptyTally();
    const important = emptyTally();
    const smart = emptyTally();
    const times: number[] = [];
    const baselineTimes: number[] = [];
    let saved = 0;
    let budgets = 0;
    let condensed = 0;
    for (const c of cases) {
      const begin = performance.now();
      suffixBaseline(c.history, c.maxTokens, (m) => c.provider.count(m));
      baselineTimes.push(performance.now() - begin);
      const start = performance.now();
      const result = await new PreserveImportantCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c));
      times.push(performance.now() - start);
      survey(history, c.history, c);
      survey(important, result.messages, c);
      survey(smart, (await new SmartCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c))).messages, c);
      // What the shipped rule condensed: each condensed output against its original, by the provider's count.
      budgets += c.maxTokens;
      condensed += result.details?.condensed ?? 0;
      for (const m of result.messages) {
        if (m.role !== "tool" || !/^\[\.\.\. \d+ (?:lines shown again in a later output|more identical lines) \.\.\.\]$/m.test(textOf(m))) continue;
        const original = c.history.find((h) => h.role === "tool" && h.tool_call_id === m.tool_call_id);
        if (original !== undefined) saved += c.provider.count([original]) - c.provider.count([m]);
      }
    }
    const label = `at 30 % of ${cases.length} cuts`;
    const rows: BenchRow[] = [
      rowFromSamples(`history before the cut ${label}`, times, "keep-newest baseline", baselineTimes, { note: describe(history) }),
      rowFromSamples(`preserve-important's output ${label}`, times, "keep-newest baseline", baselineTimes, { note: describe(important) }),
      rowFromSamples(`smart's output (no model) ${label}`, times, "keep-newest baseline", baselineTimes, { note: describe(smart) }),
      rowFromSamples(`condensed by the shipped rule in preserve-important's output ${label}`, times, "keep-newest baseline", baselineTimes, {
        note: `${condensed} outputs, ${saved} provider tokens saved of ${budgets} budget tokens (${((100 * saved) / budgets).toFixed(1)} %)`,
      }),
    ];
    return rows;
  },
};

export default benchmark;
