import { assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { extractiveSummary } from "@kosong/soul/compaction";
import { o200kTokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

const shell = (id: string, command: string, output: string): Message[] => [assistantMessage("", [toolCall(id, "bash", { command })]), toolMessage(id, output)];

/** The items of one `## title` section of a summary. */
function section(summary: string, title: string): string[] {
  const body = summary.split(`## ${title}\n`)[1]?.split("\n\n")[0] ?? "";
  return body.split("\n").filter((line) => line.startsWith("- ")).map((line) => line.slice(2));
}

describe("the files a summary lists as written", () => {
  it("are the files a shell command writes, not the names in the script it carries", () => {
    const script = [
      "cat > check_response.py << 'EOF'",
      "import django",
      "django.setup()",
      "with open('django/http/response.py') as f:",
      "    source = f.read()",
      "print(self.name, content.split())",
      "EOF",
    ].join("\n");
    const messages = [
      userMessage("Make HttpResponse accept memoryview."),
      ...shell("a", script, ""),
      ...shell("b", 'python -c "\nimport sys\nprint(sys.version_info)\nopen(\'notes.txt\', \'w\').write(\'x\')\n"', "3.11"),
      ...shell("c", "sed -i '317s/isinstance(value, bytes)/isinstance(value, (bytes, memoryview))/' django/http/response.py", ""),
      ...shell("d", "cp django/http/response.py django/http/response.py.backup && grep -n 'django.http' setup.cfg | tee hits.txt > /dev/null 2>&1", ""),
    ];
    const summary = extractiveSummary(messages, { maxTokens: 2000, tokenizer: o200kTokenizer });
    const written = section(summary, "Files written");
    expect(written.sort()).toEqual(["check_response.py", "django/http/response.py", "django/http/response.py.backup", "hits.txt"]);
    const read = section(summary, "Files read");
    expect(read).toContain("setup.cfg");
    expect(read).not.toContain("django.http");
    expect(read).not.toContain("317s/isinstance");
    for (const name of ["f.read", "self.name", "django.setup", "content.split", "sys.version_info"]) expect([...written, ...read]).not.toContain(name);
  });
});

describe("the files of a hostile shell command", () => {
  // A double quote that never closes, then many lines (a model's `echo "` of a pasted file): the multi-line-quote match
  // tried every newline as the split of the quoted text, from every position: 40,000 lines took 9 s, 120,000 over a minute.
  it("are read in one pass when a quote never closes", () => {
    const command = `echo "${"line of a pasted file\n".repeat(40_000)}" > pasted.txt; python -c "\nopen('notes.txt')\n" > out.log; echo "unclosed\n${"x\n".repeat(120_000)}`;
    const messages = [userMessage("Paste the file."), ...shell("a", command, "")];
    const summary = extractiveSummary(messages, { maxTokens: 2000, tokenizer: o200kTokenizer });
    expect(section(summary, "Files written").sort()).toEqual(["out.log", "pasted.txt"]);
  });

  // Escaped quotes after an opening one that never closes: the quoted-part and word patterns scanned to the text's end
  // again from each later quote (100,000 characters took 28 s).
  it("are read in one pass when a quote never closes before many escaped quotes", () => {
    const command = `echo done > kept.txt; echo "${'\\"'.repeat(100_000)}`;
    const messages = [userMessage("Echo it."), ...shell("a", command, "")];
    const summary = extractiveSummary(messages, { maxTokens: 2000, tokenizer: o200kTokenizer });
    expect(section(summary, "Files written")).toEqual(["kept.txt"]);
  });
});
