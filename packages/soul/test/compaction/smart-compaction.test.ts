import { assistantMessage, extractText, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { MockChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import { FileRegistry } from "@kosong/soul";
import { SmartCompaction, extractiveSummary } from "@kosong/soul/compaction";
import { estimateTokens, o200kTokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { allText, expectValidWithin, prose, toolRound } from "./helpers/histories.js";

function session(): Message[] {
  return [
    userMessage("Add retries to the HTTP client. Constraint: keep the public API unchanged."),
    ...toolRound("c1", "Read", "/repo/src/http-client.ts", prose(800, "src")),
    assistantMessage("", [toolCall("c2", "Shell", { command: "pnpm test" })]),
    toolMessage("c2", "<system>ERROR: Command failed: TypeError: fetch is not a function at http-client.ts:42</system>"),
    assistantMessage("The tests failed because fetch is undefined in Node 16. Fixed by importing undici's fetch."),
    ...toolRound("c3", "Edit", "/repo/src/http-client.ts", "ok"),
    assistantMessage("I decided to use p-retry instead of a hand-written loop. The tests pass now."),
    userMessage("Also log every retry."),
    ...toolRound("c4", "Write", "/repo/src/retry-log.ts", "written"),
    assistantMessage("Retries are logged."),
  ];
}

describe("extractiveSummary", () => {
  it("keeps requests verbatim, files read and written, errors with how they ended, and decisions", () => {
    const files = new FileRegistry();
    files.recordRead("/repo/README.md");
    const summary = extractiveSummary(session(), { maxTokens: 2000, tokenizer: o200kTokenizer, files: files.recent() });
    expect(summary).toContain("- Add retries to the HTTP client. Constraint: keep the public API unchanged.");
    expect(summary).toContain("- Also log every retry.");
    expect(summary).toMatch(/## Files written\n- \/repo\/src\/http-client.ts\n- \/repo\/src\/retry-log.ts/);
    expect(summary).toMatch(/## Files read\n- \/repo\/README.md/);
    expect(summary).toContain("Shell: Command failed: TypeError: fetch is not a function at http-client.ts:42");
    expect(summary).toContain("Fixed by importing undici's fetch.");
    expect(summary).toContain("- I decided to use p-retry instead of a hand-written loop.");
    expect(summary).not.toContain("src0 src1");
  });

  it("stays within its budget by cutting long items first", () => {
    const messages = [userMessage(prose(3000, "req")), userMessage("short constraint: use tabs")];
    const summary = extractiveSummary(messages, { maxTokens: 300, tokenizer: o200kTokenizer });
    expect(o200kTokenizer.count(summary)).toBeLessThanOrEqual(300);
    expect(summary).toContain("short constraint: use tabs");
  });
});

describe("SmartCompaction", () => {
  it("without a provider: recent messages verbatim plus an extractive summary, within budget", async () => {
    const input = session();
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const result = await new SmartCompaction({ maxTokens }).compact(input);
    expectValidWithin(result, maxTokens);
    const [summary, ...tail] = result.messages;
    expect(summary!.role).toBe("user");
    expect(extractText(summary!)).toContain("Previous context has been compacted");
    expect(extractText(summary!)).toContain("keep the public API unchanged");
    expect(tail).toEqual(input.slice(-tail.length));
    expect(result.details).toMatchObject({ summarized: true, kept: tail.length, dropped: input.length - tail.length });
    expect(result.usage).toBeNull();
  });

  it("with a provider: the LLM writes the summary", async () => {
    const provider = new ScriptedChatProvider(['usage: {"input_other": 900, "output": 40}\ntext: LLM summary: retries via p-retry.']);
    const input = session();
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const result = await new SmartCompaction({ maxTokens }).compact(input, { provider, instruction: "focus on retries" });
    expectValidWithin(result, maxTokens);
    expect(extractText(result.messages[0]!)).toContain("LLM summary: retries via p-retry.");
    expect(result.usage?.output).toBe(40);
    expect(extractText(provider.calls[0]!.history[0]!)).toContain("focus on retries");
  });

  it("with a provider: the user's requests follow the model's summary verbatim", async () => {
    const provider = new ScriptedChatProvider(["text: The user wants retries; work is in progress."]);
    const input = [...session(), ...toolRound("c9", "Read", "/repo/src/retry_policy.ts", prose(600, "policy"))];
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const result = await new SmartCompaction({ maxTokens }).compact(input, { provider });
    expectValidWithin(result, maxTokens);
    const summary = extractText(result.messages[0]!);
    expect(summary).toContain("The user wants retries; work is in progress.");
    expect(summary).toContain("- Add retries to the HTTP client. Constraint: keep the public API unchanged.");

  });

  it("refuses an LLM summary longer than the messages it replaces: the extractive summary instead, and a note says so", async () => {
    const provider = new MockChatProvider([{ type: "text", text: prose(5000, "verbose") }]);
    const input = session();
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const result = await new SmartCompaction({ maxTokens }).compact(input, { provider });
    expectValidWithin(result, maxTokens);
    expect(allText(result.messages)).not.toContain("verbose0");
    expect(allText(result.messages)).toContain("## User requests and constraints");
    expect(result.details!.notes.join("\n")).toMatch(/longer than the \d+ tokens of the messages it replaces; used the extractive summary/);
  });

  it("cuts an LLM summary that runs over its share of the budget", async () => {
    const input = session();
    const provider = new MockChatProvider([{ type: "text", text: prose(Math.floor(estimateTokens(input) / 3), "verbose") }]);
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const result = await new SmartCompaction({ maxTokens }).compact(input, { provider });
    expectValidWithin(result, maxTokens);
    expect(allText(result.messages)).toContain("tokens cut ...]");
  });

  it("fits a single huge tool output and a conversation shorter than the recent count", async () => {
    const huge = [userMessage("read the log"), ...toolRound("c1", "Read", "/var/log/big.log", prose(30_000, "line"))];
    const result = await new SmartCompaction({ maxTokens: 400 }).compact(huge);
    expectValidWithin(result, 400);
    expect(allText(result.messages)).toContain("read the log");
  });

  it("returns a conversation that fits unchanged", async () => {
    const input = session();
    const result = await new SmartCompaction({ maxTokens: 100_000 }).compact(input);
    expect(result.messages).toEqual(input);
    expect(result.details).toMatchObject({ dropped: 0, summarized: false });
  });
});

describe("extractiveSummary of a shell agent's steps", () => {
  it("lists files from commands, commands run more than once, failing tests, and an index of identifiers", () => {
    const shell = (id: string, command: string, output: string): Message[] => [assistantMessage("", [toolCall(id, "bash", { command })]), toolMessage(id, output)];
    const messages = [
      userMessage("Make test_memoryview pass."),
      ...shell("a", "cat django/http/response.py", "class HttpResponse(HttpResponseBase):\n    streaming = False"),
      ...shell("b", "python -m pytest tests/responses/tests.py", "FAILED tests/responses/tests.py::HttpResponseTests::test_memoryview - AssertionError"),
      ...shell("c", "sed -i 's/bytes(value)/bytes(memoryview(value))/' django/http/response.py", ""),
      ...shell("d", "python -m pytest tests/responses/tests.py", "1 passed"),
      ...shell("e", "flake8 django/http/response.py", "django/http/response.py:12:80: E501 line too long (88 > 79 characters)"),
    ];
    const summary = extractiveSummary(messages, { maxTokens: 1500, tokenizer: o200kTokenizer });
    expect(summary).toMatch(/## Files written\n- django\/http\/response.py/);
    expect(summary).toMatch(/## Files read\n(- .*\n)*- tests\/responses\/tests.py/);
    expect(summary).toContain("`python -m pytest tests/responses/tests.py` (2×)");
    expect(summary).toContain("FAILED tests/responses/tests.py::HttpResponseTests::test_memoryview - AssertionError");
    expect(summary).toContain("django/http/response.py:12:80: E501 line too long");
    expect(summary).toMatch(/## Identifiers in the removed messages[\s\S]*HttpResponseBase/);
  });

  it("caps each section so that a flood of one kind leaves room for the others", () => {
    const messages = [userMessage(prose(4000, "task")), ...Array.from({ length: 200 }, (_, i) => toolRound(`r${i}`, "Read", `/repo/src/module_${i}.ts`, "ok")).flat(), assistantMessage("I decided to use zod.")];
    const summary = extractiveSummary(messages, { maxTokens: 800, tokenizer: o200kTokenizer });
    expect(o200kTokenizer.count(summary)).toBeLessThanOrEqual(800);
    expect(summary).toContain("task0 task1");
    expect(summary).toContain("/repo/src/module_199.ts");
    expect(summary).toContain("- I decided to use zod.");
  });
});

describe("extractiveSummary excerpts the agent's own scripts", () => {
  it("keeps the lines of an old script that name what the kept messages work on, not only the outputs", () => {
    const script = [
      "cat > reproduce.py << 'EOF'",
      "import django",
      "from django.conf import settings",
      "settings.configure(INSTALLED_APPS=['django.contrib.contenttypes'], USE_TZ=True)",
      ...Array.from({ length: 30 }, (_, i) => `unrelated_value_${i} = ${i}`),
      "print(parse_header(b'a; b; c'))",
      "EOF",
      "python reproduce.py",
    ].join("\n");
    const messages = [
      userMessage("Fix the header parsing."),
      assistantMessage("Let me reproduce it.", [toolCall("a", "bash", { command: script })]),
      toolMessage("a", "['a', 'b']"),
    ];
    const kept = [assistantMessage("parse_header drops the last field; settings.configure is needed for the script.")];
    const summary = extractiveSummary(messages, { maxTokens: 1200, tokenizer: o200kTokenizer, kept });
    expect(summary).toContain("## Excerpts of the working files");
    expect(summary).toContain("print(parse_header(b'a; b; c'))");
    expect(summary).toContain("settings.configure(INSTALLED_APPS=['django.contrib.contenttypes'], USE_TZ=True)");
  });
});

describe("SmartCompaction's verbatim tail", () => {
  it("summarises all but the last 10 rounds first, so excerpts of older outputs about the working file come before more verbatim rounds", async () => {
    // 100 rounds of grep -n over the file the agent works on, each printing three line numbers it may go back to.
    const rounds = Array.from({ length: 100 }, (_, k) => [
      assistantMessage(`Looking at use ${k} of compute_total.`, [toolCall(`g${k}`, "Shell", { command: `grep -n 'compute_total' src/totals_${k}.py` })]),
      toolMessage(`g${k}`, [0, 1, 2].map((j) => `${1000 + 10 * k + j}:    value_${k}_${j} = compute_total(items_${k}_${j}) + padding_${k}_${j}`).join("\n")),
    ]).flat();
    const input: Message[] = [
      userMessage("Fix compute_total in src/totals.py: it drops the last item."),
      ...rounds,
      assistantMessage("compute_total drops the last item; next I edit it."),
    ];
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const linesKept = (messages: readonly Message[]): number => new Set(allText(messages).match(/\b1\d\d\d(?=:)/g) ?? []).size;
    const result = await new SmartCompaction({ maxTokens }).compact(input);
    expectValidWithin(result, maxTokens);
    const everyRoundThatFits = await new SmartCompaction({ maxTokens, keepRecent: Number.POSITIVE_INFINITY }).compact(input);
    expect(linesKept(result.messages)).toBeGreaterThan(linesKept(everyRoundThatFits.messages));
  });
});
