import { assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { isToolOutputStub, PreserveImportantCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { expectValidWithin, keptContent, prose } from "./helpers/histories.js";

const script = (file: string, body: string[]): string => [`cat > ${file} << 'EOF'`, ...body, "EOF", `python ${file}`].join("\n");

/**
 * A shell agent's session: an old test script whose names only it holds, a newer script that repeats some of its
 * lines, bulky views of a file, then the recent steps (which name none of the script's names).
 */
function session(): Message[] {
  const first = script("check_widgets.py", [
    "import django",
    "from shop.models import Widget",
    "django.setup()",
    "qs_widgets = Widget.objects.filter(archived_flag=True)",
    "print(qs_widgets.count_archived())",
    ...Array.from({ length: 60 }, (_, i) => `print('step ${i}')`),
  ]);
  const second = script("check_again.py", ["import django", "django.setup()", "from shop.models import Widget", ...Array.from({ length: 12 }, (_, i) => `print('again ${i}')`)]);
  return [
    userMessage("Archived widgets are counted twice in shop/models.py; fix it."),
    assistantMessage("Let me write a check.", [toolCall("c1", "Shell", { command: first })]),
    toolMessage("c1", prose(300, "trace")),
    assistantMessage("", [toolCall("c2", "Shell", { command: "sed -n '1,200p' shop/views.py" })]),
    toolMessage("c2", prose(500, "view")),
    assistantMessage("Again, shorter.", [toolCall("c3", "Shell", { command: second })]),
    toolMessage("c3", prose(300, "again")),
    assistantMessage("", [toolCall("c4", "Shell", { command: "sed -n '200,400p' shop/views.py" })]),
    toolMessage("c4", prose(500, "more")),
    assistantMessage("Let me look at the manager in shop/models.py.", [toolCall("c5", "Shell", { command: "grep -n 'class WidgetManager' shop/models.py" })]),
    toolMessage("c5", "12:class WidgetManager(models.Manager):"),
    assistantMessage("The manager is at line 12 of shop/models.py."),
  ];
}

describe("the lines the agent wrote outlast its rounds", () => {
  it("preserve-important keeps an old script's lines that name what nothing newer names, paired with a stub, when the round itself does not fit", async () => {
    const input = session();
    const maxTokens = Math.floor(estimateTokens(input) * 0.12);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2 }).compact(input);
    expectValidWithin(result, maxTokens);
    const text = keptContent(result.messages);
    // The names only the first script wrote, in the line that uses them.
    expect(text).toContain("qs_widgets = Widget.objects.filter(archived_flag=True)");
    expect(text).toContain("print(qs_widgets.count_archived())");
    // Not the lines the newer script wrote again, nor its filler.
    const call = result.messages.find((m) => m.tool_calls?.[0]?.id === "c1")!;
    const command = (JSON.parse(call.tool_calls![0]!.function.arguments!) as { command: string }).command;
    expect(command).toMatch(/^\[excerpt: \d+ of 68 lines, the names not written since\]/);
    expect(command).not.toContain("django.setup()");
    expect(command).not.toContain("print('step 3')");
    expect(result.messages.some((m) => m.tool_call_id === "c1" && isToolOutputStub(m))).toBe(true);
  });

  it("smart's summary keeps them for each of many old scripts, where whole excerpts of the scripts would not fit", async () => {
    const rounds = Array.from({ length: 6 }, (_, k) => [
      assistantMessage(`Check ${k}.`, [
        toolCall(`s${k}`, "Shell", {
          command: script(`check_${k}.py`, [
            "import django",
            "django.setup()",
            "from shop.models import Widget",
            `qs_case_${k} = Widget.objects.filter(flag_case_${k}=True)`,
            ...Array.from({ length: 30 }, (_, i) => `print('step ${i}')`),
          ]),
        }),
      ]),
      toolMessage(`s${k}`, prose(200, `run${k}`)),
    ]);
    const input: Message[] = [
      userMessage("Archived widgets are counted twice in shop/models.py; fix it."),
      ...rounds.flat(),
      assistantMessage("Let me look at the manager in shop/models.py.", [toolCall("c5", "Shell", { command: "grep -n 'class WidgetManager' shop/models.py" })]),
      toolMessage("c5", "12:class WidgetManager(models.Manager):"),
      assistantMessage("The manager is at line 12 of shop/models.py."),
    ];
    const maxTokens = Math.floor(estimateTokens(input) * 0.15);
    const result = await new SmartCompaction({ maxTokens, keepRecent: 2 }).compact(input);
    expectValidWithin(result, maxTokens);
    const text = keptContent(result.messages);
    for (let k = 0; k < 6; k++) expect(text).toContain(`qs_case_${k} = Widget.objects.filter(flag_case_${k}=True)`);
  });

  it("preserve-important's excerpt of an old script shows first its lines that name what nothing newer names", async () => {
    // helper_alpha_N are written again by newer commands (likelier to be used, by count); legacy_total only here.
    const body = [
      ...Array.from({ length: 40 }, (_, i) => `total += helper_alpha_${i % 8}(value_${i % 8})`),
      "legacy_total = compute_legacy_total(archived_rows)",
      ...Array.from({ length: 20 }, () => "print(total)"),
    ];
    const again = Array.from({ length: 4 }, (_, k) => [
      assistantMessage(`Check ${k}.`, [toolCall(`h${k}`, "Shell", { command: `python -c 'import helpers; print(${Array.from({ length: 8 }, (_, j) => `helpers.helper_alpha_${j}(value_${j})`).join(", ")})'` })]),
      toolMessage(`h${k}`, "ok"),
    ]);
    const input: Message[] = [
      userMessage("Fix the totals in shop/totals.py."),
      assistantMessage("Let me reproduce it.", [toolCall("c1", "Shell", { command: script("reproduce.py", body) })]),
      toolMessage("c1", prose(200, "trace")),
      ...again.flat(),
      assistantMessage("", [toolCall("c2", "Shell", { command: "sed -n '1,20p' shop/totals.py" })]),
      toolMessage("c2", "def total(rows):\n    return sum(r.amount for r in rows[:-1])"),
      assistantMessage("The bug is in total() of shop/totals.py."),
    ];
    const maxTokens = Math.floor(estimateTokens(input) * 0.6);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 100 }).compact(input);
    expectValidWithin(result, maxTokens);
    const call = result.messages.find((m) => m.tool_calls?.[0]?.id === "c1")!;
    const command = (JSON.parse(call.tool_calls![0]!.function.arguments!) as { command: string }).command;
    expect(command).toMatch(/^\[excerpt: \d+ of 64 lines/);
    expect(command).toContain("legacy_total = compute_legacy_total(archived_rows)");
  });

  it("keeps arguments that are not JSON as plain text in the lines' form", async () => {
    const input = session();
    // A model may send arguments that are not JSON: the lines' form cuts the raw text and leaves it raw.
    const raw = ["patch_widgets --apply", "qs_widgets = Widget.objects.filter(archived_flag=True)", ...Array.from({ length: 60 }, (_, i) => `step ${i}`)].join("\n");
    input[1] = assistantMessage("Let me patch it.", [toolCall("c1", "Shell", raw)]);
    const maxTokens = Math.floor(estimateTokens(input) * 0.12);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2 }).compact(input);
    expectValidWithin(result, maxTokens);
    const args = result.messages.find((m) => m.tool_calls?.[0]?.id === "c1")!.tool_calls![0]!.function.arguments!;
    expect(args).toMatch(/^\[excerpt: \d+ of 62 lines, the names not written since\]\n/);
    expect(args).toContain("qs_widgets = Widget.objects.filter(archived_flag=True)");
  });
});
