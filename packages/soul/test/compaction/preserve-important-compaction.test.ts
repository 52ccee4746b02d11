import { assistantMessage, systemMessage, toolMessage, toolCall, userMessage, type Message } from "@kosong/core";
import { type CompactionResult, droppedNotice, isImportantMessage, isToolOutputStub, PreserveImportantCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { allText, expectValidWithin, prose, toolRound } from "./helpers/histories.js";

/** True when the output of call `id` is in the result as `input` gave it (not dropped, not a stub, not condensed). */
const outputKept = (result: CompactionResult, input: readonly Message[], id: string): boolean => {
  const given = input.find((m) => m.role === "tool" && m.tool_call_id === id);
  return given !== undefined && result.messages.some((m) => m.tool_call_id === id && !isToolOutputStub(m) && allText([m]) === allText([given]));
};

/** Three user turns, each with a bulky tool round and a plain answer; an error and a decision in between. */
function history(): Message[] {
  return [
    systemMessage("Project rules: tabs, never commit."),
    userMessage("Use pnpm, never npm."),
    ...toolRound("c1", "Read", "/src/a.ts", prose(900, "alpha")),
    assistantMessage("I looked at the tissue of the code and the terrorist module."),
    userMessage("Now fix the build."),
    ...toolRound("c2", "Shell", "/", "<system>ERROR: tsc exited with 2: TS2304 cannot find name 'foo'</system>"),
    assistantMessage("The build failed because foo is undefined. I decided to import it from util."),
    ...toolRound("c3", "Read", "/src/b.ts", prose(900, "beta")),
    assistantMessage("Chatty filler without anything notable."),
    userMessage("Run the tests."),
    ...toolRound("c4", "Shell", "/", prose(60, "test")),
    assistantMessage("All tests pass."),
  ];
}

describe("isImportantMessage", () => {
  it("matches whole words only, and only what the user typed", () => {
    expect(isImportantMessage(assistantMessage("The build failed."))).toBe(true);
    expect(isImportantMessage(assistantMessage("Warning: deprecated API"))).toBe(true);
    expect(isImportantMessage(assistantMessage("We decided on zod."))).toBe(true);
    expect(isImportantMessage(assistantMessage("errorless terrorist tissue"))).toBe(false);
    expect(isImportantMessage(userMessage("anything"))).toBe(true);
    expect(isImportantMessage(userMessage("<system>CHECKPOINT 3</system>"))).toBe(false);
    expect(isImportantMessage(toolMessage("c", "error everywhere"))).toBe(false);
    expect(isImportantMessage(systemMessage("rules"))).toBe(true);
  });
});

describe("PreserveImportantCompaction", () => {
  it("stubs bulky old tool outputs before dropping any message", async () => {
    const input = history();
    const maxTokens = estimateTokens(input) - 800;
    const result = await new PreserveImportantCompaction({ maxTokens }).compact(input);
    expectValidWithin(result, maxTokens);
    expect(result.details).toMatchObject({ dropped: 0, stubs: 1 });
    expect(result.messages).toHaveLength(input.length);
    expect(isToolOutputStub(result.messages[3]!)).toBe(true);
    expect(result.messages[3]!.tool_call_id).toBe("c1");
  });

  it("then drops unimportant messages first, keeping user messages, errors, decisions and the system prompt", async () => {
    const input = history();
    const [system, user1, , , tissue, user2, c2, c2Result, decided, , , chatty, user3, c4, c4Result, pass] = input;
    const expected = [system!, droppedNotice(6), user1!, user2!, c2!, c2Result!, decided!, user3!, c4!, c4Result!, pass!];
    // The strategy leaves 5 % of the budget free for its own text (excerpts, the notice).
    const maxTokens = Math.ceil(estimateTokens(expected) / 0.95);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0 }).compact(input);
    expectValidWithin(result, maxTokens);
    expect(result.messages).toEqual(expected);
    expect([tissue, chatty].some((m) => result.messages.includes(m!))).toBe(false);
    const text = allText(result.messages);
    for (const kept of ["Project rules", "Use pnpm, never npm.", "Now fix the build.", "TS2304", "decided to import it from util", "Run the tests.", "All tests pass."]) {
      expect(text).toContain(kept);
    }
    expect(text).not.toContain("terrorist");
    expect(text).not.toContain("Chatty filler");
    expect(text).toMatch(/<system>\d+ earlier messages were removed/);
    expect(result.messages[0]!.role).toBe("system");
    expect(result.messages[1]!.role).toBe("user");
    expect(result.details!.dropped).toBeGreaterThan(0);
  });

  it("stubs a bulky recent tool output before dropping recent messages", async () => {
    const input = [
      userMessage("Fix the failing build. Keep the public API unchanged."),
      ...toolRound("c1", "Read", "src/parser.ts", prose(3000, "code")),
      assistantMessage("The build failed because parse() returned undefined; fixed it."),
    ];
    const result = await new PreserveImportantCompaction({ maxTokens: 1000 }).compact(input);
    expectValidWithin(result, 1000);
    expect(result.details).toMatchObject({ kept: 3, dropped: 0, stubs: 1 });
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("keeps a tool pair together when its call is kept and its bulky output is stubbed (the pair across the cut)", async () => {
    const input = [userMessage("read both"), assistantMessage("", [toolCall("a", "Read", { path: "/a" }), toolCall("b", "Read", { path: "/b" })]), toolMessage("b", prose(2000)), toolMessage("a", prose(2000)), assistantMessage("I read both files."), userMessage("thanks")];
    const result = await new PreserveImportantCompaction({ maxTokens: 200, keepRecent: 2 }).compact(input);
    expectValidWithin(result, 200);
  });

  it("fits a history of only tool rounds, and one with fewer messages than keepRecent", async () => {
    const rounds = [userMessage("go"), ...Array.from({ length: 15 }, (_, i) => toolRound(`c${i}`, "Shell", "/", prose(100, `r${i}`))).flat()];
    const result = await new PreserveImportantCompaction({ maxTokens: 400 }).compact(rounds);
    expectValidWithin(result, 400);
    expect(allText(result.messages)).toContain("go");

    const short = [userMessage(prose(2000, "huge")), assistantMessage("ok")];
    const shortResult = await new PreserveImportantCompaction({ maxTokens: 300, keepRecent: 50 }).compact(short);
    expectValidWithin(shortResult, 300);
  });

  it("keeps a CJK-only conversation within a budget in real tokens", async () => {
    const input: Message[] = [];
    for (let i = 0; i < 30; i++) input.push(userMessage(`请修复第${i}个错误并保持代码风格。`), ...toolRound(`c${i}`, "Read", `/源码/${i}.ts`, "函数定义和注释内容。".repeat(80)), assistantMessage("已经完成修复。"));
    const result = await new PreserveImportantCompaction({ maxTokens: 1500 }).compact(input);
    expectValidWithin(result, 1500);
    expect(allText(result.messages)).toContain("请修复第29个错误");
  });
});

/** A shell agent's session: old file reads and chatter, then recent work on one of the files read long ago. */
function shellSession(): Message[] {
  const shell = (id: string, command: string, output: string, text = ""): Message[] => [
    assistantMessage(text, [toolCall(id, "bash", { command })]),
    toolMessage(id, output),
  ];
  return [
    userMessage("Fix the memoryview handling in HttpResponse."),
    ...shell("s1", "cat django/http/response.py", `class HttpResponseBase:\n    def make_bytes(self, value):\n${prose(700, "body")}`),
    ...shell("s2", "cat django/utils/encoding.py", `def force_bytes(s):\n${prose(700, "enc")}`),
    ...Array.from({ length: 8 }, (_, i) => shell(`t${i}`, `ls tests/dir_${i}`, prose(120, `list${i}x`), "Let me look around.")).flat(),
    ...shell("s3", "python reproduce_issue.py", "Traceback (most recent call last):\nTypeError: memoryview is not bytes", "Reproducing the bug."),
    ...shell("s4", "sed -n 300,320p django/http/response.py", "    def make_bytes(self, value):", "Back to the response module."),
    ...shell("s5", "grep -n make_bytes django/http/response.py", "312:    def make_bytes(self, value):"),
    ...shell("s6", "git diff", "no changes yet"),
  ];
}

describe("PreserveImportantCompaction on a shell agent's session", () => {
  it("keeps the task, stubs a file the recent part uses again only after the other old outputs, and indexes what it removed", async () => {
    const input = shellSession();
    const maxTokens = Math.floor(estimateTokens(input) * 0.45);
    const result = await new PreserveImportantCompaction({ maxTokens }).compact(input);
    expectValidWithin(result, maxTokens);
    const text = allText(result.messages);
    expect(text).toContain("Fix the memoryview handling in HttpResponse.");
    // The response module, which the recent steps read again, keeps its content; the encoding module was stubbed first.
    expect(text).toContain("body0 body1");
    expect(text).not.toContain("enc0 enc1");
    // What was elided is indexed in the notice at the start.
    expect(allText([result.messages[0]!])).toMatch(/^<system>Some tool outputs were elided[\s\S]*Identifiers in the removed messages[\s\S]*force_bytes/);
  });

  it("refills: every message it gave up that still fits comes back (the budget is filled)", async () => {
    const input = shellSession();
    const maxTokens = Math.floor(estimateTokens(input) * 0.6);
    const withRefill = await new PreserveImportantCompaction({ maxTokens }).compact(input);
    expectValidWithin(withRefill, maxTokens);
    expect(estimateTokens(withRefill.messages)).toBeGreaterThan(maxTokens * 0.9);
  });
});

describe("PreserveImportantCompaction chooses by what a block adds", () => {
  const shell = (id: string, command: string, output: string, text = ""): Message[] => [
    assistantMessage(text, [toolCall(id, "Shell", { command })]),
    toolMessage(id, output),
  ];
  const lines = (from: number, to: number, name: string): string =>
    Array.from({ length: to - from + 1 }, (_, i) => `def ${name}_${from + i}(value): return value + ${from + i}`).join("\n");
  /** `input` compacted to a budget with room for all but about one 40-line view (its first round), checked valid and within it. */
  const withoutRoomForOneView = async (input: Message[]): Promise<CompactionResult> => {
    const view = estimateTokens(input.slice(1, 3));
    const maxTokens = Math.ceil((estimateTokens(input) - view + 40) / 0.9);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 10_000 }).compact(input);
    expectValidWithin(result, maxTokens);
    return result;
  };

  it("gives up a view whose lines a newer kept view shows again before an older view of other lines of the working file", async () => {
    const input: Message[] = [
      userMessage("Fix the header parsing in src/headers.py."),
      ...shell("c1", "sed -n '1,40p' src/headers.py", lines(1, 40, "split_field")),
      ...shell("c2", "sed -n '41,80p' src/headers.py", lines(41, 80, "parse_header")),
      ...shell("c3", "sed -n '41,80p' src/headers.py", lines(41, 80, "parse_header")),
      ...shell("c4", "python -m pytest tests/test_headers.py", "FAILED tests/test_headers.py::test_last_field", "The bug is in src/headers.py: parse_header drops the last field."),
      assistantMessage("Let me edit src/headers.py."),
    ];
    const result = await withoutRoomForOneView(input);
    const text = allText(result.messages);
    // Lines 1-40 are only in the oldest view; lines 41-80 stay in the newest one.
    expect(text).toContain("def split_field_20(value)");
    expect(text).toContain("def parse_header_60(value)");
    expect(outputKept(result, input, "c2")).toBe(false);
  });

  it("keeps an older view whose lines newer views show only in pieces over one a newer view repeats whole (the old text of an edit spans the join)", async () => {
    const input: Message[] = [
      userMessage("Fix the header parsing in src/headers.py."),
      ...shell("c1", "sed -n '1,40p' src/headers.py", lines(1, 40, "split_field")),
      ...shell("c2", "sed -n '41,80p' src/headers.py", lines(41, 80, "parse_header")),
      ...shell("c3", "sed -n '1,10p' src/headers.py", lines(1, 10, "split_field")),
      ...shell("c4", "sed -n '11,20p' src/headers.py", lines(11, 20, "split_field")),
      ...shell("c5", "sed -n '21,30p' src/headers.py", lines(21, 30, "split_field")),
      ...shell("c6", "sed -n '31,40p' src/headers.py", lines(31, 40, "split_field")),
      ...shell("c7", "sed -n '41,80p' src/headers.py", lines(41, 80, "parse_header")),
      ...shell("c8", "python -m pytest tests/test_headers.py", "FAILED tests/test_headers.py::test_last_field", "The bug is in src/headers.py between split_field and parse_header."),
      assistantMessage("Let me edit src/headers.py."),
    ];
    const result = await withoutRoomForOneView(input);
    // Lines 10 and 11, 20 and 21, 30 and 31 are together only in the oldest view: an edit across them needs it.
    expect(allText(result.messages)).toContain(lines(19, 22, "split_field"));
    expect(outputKept(result, input, "c2")).toBe(false);
  });
});

describe("PreserveImportantCompaction excerpts the agent's own bulky calls", () => {
  it("cuts an old heredoc script to its command line, its last lines and the lines about the working set, keeping the call valid", async () => {
    const script = [
      "cat > reproduce.py << 'EOF'",
      ...Array.from({ length: 60 }, (_, i) => `filler_step_${i} = compute_something(${i})  # unrelated setup line ${i}`),
      "result = parse_header(raw_bytes)",
      "print(result)",
      "EOF",
      "python reproduce.py",
    ].join("\n");
    const input: Message[] = [
      userMessage("Fix the header parsing in src/headers.py."),
      assistantMessage("Let me reproduce it.", [toolCall("c1", "Shell", { command: script })]),
      toolMessage("c1", "Traceback: parse_header dropped the last field"),
      assistantMessage("The bug is in parse_header.", [toolCall("c2", "Shell", { command: "sed -n '1,20p' src/headers.py" })]),
      toolMessage("c2", "def parse_header(raw_bytes):\n    return raw_bytes.split(b';')[:-1]"),
      assistantMessage("Let me fix parse_header."),
    ];
    const maxTokens = Math.floor(estimateTokens(input) * 0.6);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 100 }).compact(input);
    expectValidWithin(result, maxTokens);
    const call = result.messages.find((m) => m.tool_calls?.[0]?.id === "c1");
    expect(call).toBeDefined();
    const command = (JSON.parse(call!.tool_calls![0]!.function.arguments!) as { command: string }).command;
    expect(command).toMatch(/^\[excerpt: \d+ of 65 lines/);
    expect(command).toContain("cat > reproduce.py << 'EOF'");
    expect(command).toContain("result = parse_header(raw_bytes)");
    expect(command).toContain("python reproduce.py");
    expect(command).not.toContain("filler_step_30 ");
    expect(allText(result.messages)).toContain("Let me reproduce it.");
  });
});

describe("PreserveImportantCompaction excerpts keep contiguous lines", () => {
  it("fills a gap of a line or two between the chosen lines of an excerpt, so a span of the file stays whole", async () => {
    const file = Array.from({ length: 120 }, (_, i) =>
      i === 39 || i === 45 ? `  v = parse_header(r${i + 1})` : `  a${i + 1} = 0`,
    ).join("\n");
    const input: Message[] = [
      userMessage("Fix the header parsing in src/headers.py."),
      assistantMessage("", [toolCall("c1", "Shell", { command: "cat src/headers.py" })]),
      toolMessage("c1", file),
      assistantMessage("", [toolCall("c2", "Shell", { command: "python -m pytest tests/test_headers.py" })]),
      toolMessage("c2", "FAILED tests/test_headers.py::test_last_field"),
      assistantMessage("parse_header drops the last field; let me edit it."),
    ];
    const output = estimateTokens([input[2]!]);
    const maxTokens = Math.ceil((estimateTokens(input) - output + 260) / 0.9);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 100 }).compact(input);
    expectValidWithin(result, maxTokens);
    const excerpt = allText(result.messages.filter((m) => m.tool_call_id === "c1"));
    expect(excerpt).toMatch(/^\[excerpt: /);
    // Lines 38-42 and 44-48 are chosen (each hit with 2 lines of context); line 43 between them comes too.
    const span = file.split("\n").slice(39, 46).map((line, i) => `${40 + i}\t${line}`).join("\n");
    expect(excerpt).toContain(span);
  });
});

describe("PreserveImportantCompaction excerpts keep whole paragraphs of a file view", () => {
  it("keeps the block around the line the agent works on whole, not that line with two neighbours", async () => {
    // A view of 12 blocks of 9 lines, blank lines between; only the first line of block 5 names what the agent works on.
    const block = (b: number): string[] =>
      Array.from({ length: 9 }, (_, i) => (b === 5 && i === 0 ? "        olds = {tuple(f) for f in old_unique_together}" : `        step_${b}_${i} = apply(rule_${b}_${i}, target)`));
    const view = Array.from({ length: 12 }, (_, b) => [...block(b), ""]).flat().join("\n");
    const input: Message[] = [
      userMessage(`Fix how unique_together changes are applied in src/schema.py.\n\n${prose(2400)}`),
      assistantMessage("", [toolCall("c1", "Shell", { command: "sed -n '500,620p' src/schema.py" })]),
      toolMessage("c1", view),
      assistantMessage("", [toolCall("c2", "Shell", { command: "python -m pytest tests/test_schema.py" })]),
      toolMessage("c2", "FAILED tests/test_schema.py::test_unique_together_change"),
      assistantMessage("The loop over old_unique_together deletes the wrong index; let me edit it."),
    ];
    const output = estimateTokens([input[2]!]);
    const maxTokens = Math.ceil((estimateTokens(input) - output + 300) / 0.9);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 100 }).compact(input);
    expectValidWithin(result, maxTokens);
    const excerpt = allText(result.messages.filter((m) => m.tool_call_id === "c1"));
    expect(excerpt).toMatch(/^\[excerpt: /);
    // Block 5 is lines 550-558 of the file: all nine, in a row, with their line numbers.
    const whole = block(5).map((line, i) => `${550 + i}\t${line}`).join("\n");
    expect(excerpt).toContain(whole);
  });
});

describe("PreserveImportantCompaction keeps the values a tool printed", () => {
  it("keeps an older output with grep -n line numbers over a newer one of the same size that printed none", async () => {
    const shell = (id: string, command: string, output: string): Message[] => [
      assistantMessage("", [toolCall(id, "Shell", { command })]),
      toolMessage(id, output),
    ];
    const hits = Array.from({ length: 12 }, (_, i) => `${812 + 37 * i}:    value = value + one`).join("\n");
    const plain = Array.from({ length: 12 }, () => "    value = value + one and two").join("\n");
    const input: Message[] = [
      userMessage("Find where the totals go wrong."),
      ...shell("c1", "grep -n 'value = value' lib", hits),
      ...shell("c2", "tail lib", plain),
      ...shell("c3", "python run.py", "total: 41, expected 42"),
      assistantMessage("The total is off by one."),
    ];
    const one = estimateTokens(input.slice(3, 5));
    const maxTokens = Math.ceil((estimateTokens(input) - one + 30) / 0.9);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 10_000 }).compact(input);
    expectValidWithin(result, maxTokens);
    expect(outputKept(result, input, "c1")).toBe(true);
    expect(outputKept(result, input, "c2")).toBe(false);
  });
});

describe("PreserveImportantCompaction gives up what the agent saw before what it wrote", () => {
  it("stubs an older round's output and keeps the agent's own script (its names are what it writes again), paired with the stub", async () => {
    const script = ["cat > check_headers.py << 'EOF'", "from headers_lib import parse_header_strict", "raw = load_fixture_bytes('crlf_case')", "print(parse_header_strict(raw))", "EOF", "python check_headers.py"].join("\n");
    const input: Message[] = [
      userMessage("Fix the header parsing in src/headers.py."),
      assistantMessage("Let me check the strict parser.", [toolCall("c1", "Shell", { command: script })]),
      toolMessage("c1", prose(150, "trace")),
      assistantMessage("", [toolCall("c2", "Shell", { command: "ls tests" })]),
      toolMessage("c2", prose(150, "listing")),
      assistantMessage("The bug is in src/headers.py.", [toolCall("c3", "Shell", { command: "sed -n '1,20p' src/headers.py" })]),
      toolMessage("c3", "def parse_header(raw):\n    return raw.split(b';')[:-1]"),
      assistantMessage("Let me fix parse_header."),
    ];
    const maxTokens = Math.ceil((estimateTokens(input) - estimateTokens(input.slice(2, 3)) + 20) / 0.9);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 10_000 }).compact(input);
    expectValidWithin(result, maxTokens);
    const call = result.messages.find((m) => m.tool_calls?.[0]?.id === "c1")?.tool_calls?.[0]?.function.arguments ?? "";
    expect(call).toContain("parse_header_strict");
    expect(call).toContain("load_fixture_bytes");
    expect(result.messages.some((m) => m.tool_call_id === "c1" && isToolOutputStub(m))).toBe(true);
  });
});

