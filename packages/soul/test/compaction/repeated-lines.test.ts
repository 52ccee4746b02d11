/**
 * Repeated lines at compaction time: an older tool output whose lines a
 * newer kept output shows again (the same test run re-run, the same part of
 * a file re-read) is condensed to its ends and a marker, and so is a run of
 * identical lines; the room goes to the rest of the conversation, the result
 * says so, and lines that report a failure stay whole.
 */
import { assistantMessage, extractText, imageURLPart, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { type CompactionResult, isToolOutputStub, PreserveImportantCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { condensedNewestFirst, condensedNote, condensedOutput, condensedRepeats, ShownLines } from "../../src/compaction/repeated-lines.js";
import { budgetOf } from "../../src/compaction/budget-options.js";
import { toolOutputStub } from "../../src/compaction/compaction-notice.js";
import { summarisedConversation } from "../../src/compaction/summarised-conversation.js";
import { summaryMessage } from "../../src/compaction/summary-request.js";
import { expectValidWithin } from "./helpers/histories.js";

/** A shell round: the command and its output in mini-swe-agent's frame. */
function shell(id: string, command: string, output: string, text = ""): Message[] {
  return [assistantMessage(text, [toolCall(id, "bash", { command })]), toolMessage(id, `<returncode>0</returncode>\n<output>\n${output}\n</output>`)];
}

/** A verbose test run: 60 passing tests, one failure, a timing line that differs between runs. */
function testRun(seconds: string): string {
  const passing = Array.from({ length: 60 }, (_, i) => `tests/test_orders.py::test_order_case_${i} PASSED`);
  return [...passing.slice(0, 30), "tests/test_orders.py::test_total FAILED", ...passing.slice(30), "FAILED tests/test_orders.py::test_total - AssertionError: 9000 != 9001", `1 failed, 60 passed in ${seconds}s`].join("\n");
}

const outputOf = (result: CompactionResult, id: string): string => extractText(result.messages.find((m) => m.role === "tool" && m.tool_call_id === id)!);

/** A task, an old test run, a search with a line number, noise printed 30 times, small rounds, the same test run again. */
function history(): Message[] {
  return [
    userMessage("Fix the failing total in app/orders.py."),
    ...shell("run1", "python -m pytest tests/test_orders.py -v", testRun("0.31")),
    ...shell("grep", "grep -n TOTAL_LIMIT app/orders.py", "12:TOTAL_LIMIT = 9000\n48:    if total > TOTAL_LIMIT:"),
    ...shell("find", "find / -name orders.py | grep app", [...Array.from({ length: 30 }, () => "find: 'grep' terminated by signal 13"), "/srv/app/orders.py"].join("\n")),
    ...Array.from({ length: 4 }, (_, k) => shell(`s${k}`, `sed -n '${k * 5 + 1},${k * 5 + 5}p' app/orders.py`, `line ${k} of the orders module`)).flat(),
    ...shell("run2", "python -m pytest tests/test_orders.py -v", testRun("0.29"), "Running the tests again."),
    assistantMessage("The total is off by one at line 48."),
  ];
}

describe("preserve-important condenses what a newer output shows again", () => {
  it("keeps the old test run's failure and ends around a marker, a line of noise once, and everything else verbatim", async () => {
    const input = history();
    const full = estimateTokens(input);
    // Over budget by about a quarter of one test run: without condensing, a test run or rounds would have to go.
    const maxTokens = full - Math.floor(estimateTokens([toolMessage("x", testRun("0.31"))]) / 4);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2 }).compact(input);
    expectValidWithin(result, maxTokens);
    const old = outputOf(result, "run1");
    expect(old).toMatch(/\[\.\.\. \d+ lines shown again in a later output \.\.\.\]/);
    expect(old).toContain("tests/test_orders.py::test_total FAILED");
    expect(old).toContain("FAILED tests/test_orders.py::test_total - AssertionError: 9000 != 9001");
    expect(old).toContain("1 failed, 60 passed in 0.31s");
    expect(outputOf(result, "find")).toBe(
      "<returncode>0</returncode>\n<output>\nfind: 'grep' terminated by signal 13\n[... 29 more identical lines ...]\n/srv/app/orders.py\n</output>",
    );
    // The newest run is shown whole; nothing else was dropped, stubbed or cut.
    expect(outputOf(result, "run2")).toBe(extractText(input.find((m) => m.role === "tool" && m.tool_call_id === "run2")!));
    expect(outputOf(result, "grep")).toContain("12:TOTAL_LIMIT = 9000");
    expect(result.messages.some(isToolOutputStub)).toBe(false);
    expect(result.details).toMatchObject({ dropped: 0, stubs: 0, condensed: 2 });
    expect(result.details!.notes.join("\n")).toMatch(/2 tool outputs condensed/);
  });

  it.each([
    ["inside it", 18, 27],
    ["at its end", 18, 40],
  ])("leaves an older wider view whole when a newer narrower view shows part of it (%s: an edit's old text may span its edge)", async (_, from, to) => {
    const file = Array.from({ length: 40 }, (_, i) => `    total_${100 + i} = order.line_total(${100 + i}) + tax_${i}`);
    const input = [
      userMessage("Fix the tax in app/orders.py."),
      ...shell("wide", "sed -n '100,139p' app/orders.py", file.join("\n")),
      ...Array.from({ length: 6 }, (_, k) => shell(`p${k}`, `python -c 'print(${k})'`, `${k}`)).flat(),
      ...shell("narrow", `sed -n '${100 + from},${99 + to}p' app/orders.py`, file.slice(from, to).join("\n")),
      assistantMessage("Editing lines 115-121 next."),
    ];
    const maxTokens = estimateTokens(input) - 20;
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2 }).compact(input);
    expectValidWithin(result, maxTokens);
    expect(outputOf(result, "wide")).toContain(file.slice(14, 22).join("\n"));
    expect(result.details?.condensed).toBeUndefined();
  });
});

describe("smart condenses its verbatim tail", () => {
  it("gives the tail's older test run a marker and counts it, with a note", async () => {
    const input: Message[] = [
      userMessage("Fix the failing total in app/orders.py."),
      ...Array.from({ length: 30 }, (_, k) => shell(`o${k}`, `cat notes_${k}.txt`, `note ${k}: ${"the orders module computes totals ".repeat(12)}`)).flat(),
      ...shell("run1", "python -m pytest tests/test_orders.py -v", testRun("0.31")),
      ...shell("edit", "sed -i 's/> TOTAL_LIMIT/>= TOTAL_LIMIT/' app/orders.py", ""),
      ...shell("run2", "python -m pytest tests/test_orders.py -v", testRun("0.29")),
      assistantMessage("Still failing: the limit is compared in the wrong place."),
    ];
    const maxTokens = Math.floor(estimateTokens(input) * 0.5);
    const result = await new SmartCompaction({ maxTokens }).compact(input);
    expectValidWithin(result, maxTokens);
    const old = outputOf(result, "run1");
    expect(old).toMatch(/\[\.\.\. \d+ lines shown again in a later output \.\.\.\]/);
    expect(old).toContain("FAILED tests/test_orders.py::test_total - AssertionError: 9000 != 9001");
    expect(result.details?.condensed).toBe(1);
    expect(result.details!.notes.join("\n")).toMatch(/1 tool output condensed/);
  });
});

/** A `ShownLines` holding `texts` as the newer kept tool outputs. */
function shownLater(...texts: string[]): ShownLines {
  const later = new ShownLines();
  for (const text of texts) later.add(text);
  return later;
}

/** Twenty distinct lines of a file, long enough to start a run. */
const fileLines = Array.from({ length: 20 }, (_, i) => `    subtotal_${i} = order.line_total(${i}) * quantity_${i}`);

describe("condensedRepeats", () => {
  it.each([
    ["starts and ends inside it", 5, 15],
    ["starts inside it and runs to its end", 5, 20],
    ["starts at its start and ends inside it", 0, 15],
  ])("leaves the run whole when a narrower newer view %s (the older copy holds the only context beyond that edge)", (_, from, to) => {
    const old = fileLines.join("\n");
    expect(condensedRepeats(old, shownLater(fileLines.slice(from, to).join("\n")))).toBeNull();
  });

  it("condenses the same run when the newer output goes on with other content at both its ends", () => {
    const newer = ["@@ edit applied @@", ...fileLines.slice(5, 15), "Ran 3 checks."].join("\n");
    expect(condensedRepeats(fileLines.join("\n"), shownLater(newer))).toBe(
      [...fileLines.slice(0, 7), "[... 6 lines shown again in a later output ...]", ...fileLines.slice(13)].join("\n"),
    );
  });

  it("never grows: a run whose marker would be longer than its lines stays as it is", () => {
    const short = Array.from({ length: 10 }, (_, i) => `x${String(i).padStart(3, "0")}`);
    const newer = ["before", ...short, "after"].join("\n");
    expect(condensedRepeats(short.join("\n"), shownLater(newer))).toBeNull();
    // Nine identical short lines are shorter than their marker; nineteen are not.
    expect(condensedRepeats(Array(10).fill("ok").join("\n"), shownLater())).toBeNull();
    const many = condensedRepeats(Array(20).fill("ok").join("\n"), shownLater())!;
    expect(many).toBe("ok\n[... 19 more identical lines ...]");
    expect(many.length).toBeLessThan(Array(20).fill("ok").join("\n").length);
  });

  it("condenses a run of identical lines on its own to its first line and a marker, and leaves three alone", () => {
    const noise = "npm WARN deprecated inflight@1.0.6: not supported";
    const text = ["$ npm install", ...Array(5).fill(noise), "added 312 packages in 4s"].join("\n");
    expect(condensedRepeats(text, shownLater())).toBe(["$ npm install", noise, "[... 4 more identical lines ...]", "added 312 packages in 4s"].join("\n"));
    expect(condensedRepeats(["$ npm install", ...Array(3).fill(noise), "added 312 packages in 4s"].join("\n"), shownLater())).toBeNull();
  });

  it("keeps every line that reports a failure whole, inside a shown-again run and among identical lines", () => {
    const passing = (i: number): string => `tests/test_cart.py::test_cart_case_${i} PASSED`;
    const failures = ["tests/test_cart.py::test_discount FAILED", "Error: connection refused (db:5432)", "E       AssertionError: 90 != 100"];
    const run = [...Array.from({ length: 8 }, (_, i) => passing(i)), failures[0]!, ...Array.from({ length: 8 }, (_, i) => passing(8 + i)), failures[1]!, failures[2]!, passing(16), passing(17), passing(18)];
    const newer = ["$ pytest -v", ...run, "1 failed, 19 passed"].join("\n");
    const short = condensedRepeats(run.join("\n"), shownLater(newer))!;
    expect(short).toMatch(/lines shown again in a later output/);
    for (const line of failures) expect(short.split("\n")).toContain(line);
    // Identical lines that report a failure are not identical noise.
    const errors = ["Retrying...", ...Array(6).fill("Error: ECONNRESET while fetching https://registry.npmjs.org/left-pad"), "gave up"].join("\n");
    expect(condensedRepeats(errors, shownLater())).toBeNull();
  });
});

describe("condensedOutput and condensedNewestFirst", () => {
  const count = (message: Message): number => estimateTokens([message]);
  const noisy = ["$ make", ...Array(30).fill("cc1: warning: command-line option '-Wno-foo' is valid for C++ but not for C"), "done"].join("\n");

  it("skips a tool output that is not text only (an image beside the text), and condenses the same text alone", () => {
    expect(condensedOutput(toolMessage("t", noisy), shownLater(), count)).not.toBeNull();
    const mixed = toolMessage("t", [{ type: "text", text: noisy }, imageURLPart("data:image/png;base64,iVBORw0KGgo=")]);
    expect(condensedOutput(mixed, shownLater(), count)).toBeNull();
    expect(condensedOutput(userMessage(noisy), shownLater(), count)).toBeNull();
  });

  it("condenses exactly the outputs that repeat a newer one or themselves, newest first", () => {
    const run = Array.from({ length: 12 }, (_, i) => `tests/test_api.py::test_endpoint_${i} PASSED`);
    const framed = (lines: string[]): string => `<output>\n${lines.join("\n")}\n</output>`;
    const messages = [
      toolMessage("a", framed(["collected 12 items", ...run, "12 passed in 0.50s"])),
      toolMessage("b", "README.md\nsetup.py\nsrc"),
      toolMessage("c", noisy),
      toolMessage("d", framed(["collected 12 items", ...run, "12 passed in 0.48s"])),
    ];
    const out = condensedNewestFirst(messages, new ShownLines(), count);
    expect(out.map((message, k) => message !== messages[k])).toEqual([true, false, true, false]);
    expect(extractText(out[0]!)).toMatch(/\[\.\.\. \d+ lines shown again in a later output \.\.\.\]/);
    expect(condensedNote(2)).toMatch(/^2 tool outputs condensed/);
    expect(condensedNote(1)).toMatch(/^1 tool output condensed/);
  });
});

describe("summarised conversation: condensing the verbatim tail", () => {
  const budget = budgetOf("test", { maxTokens: 1 });
  const { counter } = budget;
  const summaryText = "The task: fix the failing total in app/orders.py; the tests were run twice.";
  /** A task, a round to summarise, then one block that runs the suite twice (the newer run with a warnings summary more). */
  function twoRuns(): Message[] {
    const warnings = Array.from({ length: 12 }, (_, i) => `app/orders.py:${40 + i}: DeprecationWarning: float totals are deprecated (case ${i})`);
    return [
      userMessage("Fix the failing total in app/orders.py."),
      ...shell("ls", "ls app", "orders.py\ncart.py"),
      assistantMessage("Running the suite, then again with warnings.", [
        toolCall("run1", "bash", { command: "python -m pytest tests/test_orders.py -v" }),
        toolCall("run2", "bash", { command: "python -m pytest tests/test_orders.py -v -W default" }),
      ]),
      toolMessage("run1", `<returncode>1</returncode>\n<output>\n${testRun("0.31")}\n</output>`),
      toolMessage("run2", `<returncode>1</returncode>\n<output>\n${testRun("0.29")}\n${warnings.join("\n")}\n</output>`),
    ];
  }

  it("never keeps a marker that points at an output the fitting then stubbed: the older run stays whole", () => {
    const history = twoRuns();
    const [ask, run1, run2] = history.slice(3) as [Message, Message, Message];
    const summary = summaryMessage([{ type: "text", text: summaryText }]);
    const stubbed = toolOutputStub(run2, counter.message(run2));
    const maxTokens = counter.count([summary, ask, run1, stubbed]) + 4;
    // The tail with the older run condensed does not fit: the fitting must stub an output, the newer run (the largest).
    const condensed = condensedOutput(run1, shownLater(extractText(run2, "\n")), (m) => counter.message(m))!;
    expect(counter.count([summary, ask, condensed, run2])).toBeGreaterThan(maxTokens);
    const fit = summarisedConversation(history, 3, summaryText, { ...budget, maxTokens }, []);
    expect(fit.tokens).toBeLessThanOrEqual(maxTokens);
    const texts = fit.messages.filter((m) => m.role === "tool").map((m) => extractText(m, "\n"));
    expect(texts.join("\n")).not.toMatch(/lines shown again in a later output/);
    // The lines are not lost: the older run is kept whole beside the stub of the newer one.
    expect(texts).toContain(extractText(run1, "\n"));
    expect(fit.details.condensed).toBeUndefined();
  });

  it("counts only the outputs it condensed, not one that holds a marker-shaped line of its own", () => {
    const history = twoRuns();
    // An output that prints a marker-shaped line of its own (a log of an earlier compaction): kept as it is, never condensed.
    const log = ["[... 12 more identical lines ...]", ...Array.from({ length: 40 }, (_, i) => `compaction log entry ${i}: kept ${i * 3} messages`)].join("\n");
    const withLog: Message[] = [
      ...history.slice(0, 3),
      ...shell("log", "cat .kosong/compaction.log", log),
      ...history.slice(3),
    ];
    const fit = summarisedConversation(withLog, 5, summaryText, { ...budget, maxTokens: counter.count(withLog.slice(3)) + 200 }, []);
    const kept = fit.messages.filter((m) => m.role === "tool").map((m) => extractText(m, "\n"));
    expect(kept.some((text) => text.includes("lines shown again in a later output"))).toBe(true);
    expect(fit.messages).toContain(withLog[4]);
    expect(fit.details.condensed).toBe(1);
    expect(fit.details.notes.join("\n")).toMatch(/1 tool output condensed/);
  });
});
