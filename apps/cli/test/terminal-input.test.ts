/**
 * The prompt in an emulated terminal, in process: TerminalInput reads the
 * bytes a terminal sends and draws through the screen writer onto xterm's
 * headless emulator; the tests read the screen as a user sees it.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Completion } from "../src/modes/interactive/completer.js";
import { type LineResult, TerminalInput } from "../src/modes/interactive/terminal-input.js";
import { useTempDirs } from "./temp-dir.js";
import { keys, VirtualTerminal } from "./virtual-terminal.js";

const tempDir = useTempDirs();

function setup(columns = 40, rows = 10, historyFile: string | null = null) {
  const vt = new VirtualTerminal(columns, rows);
  const input = new TerminalInput(vt.keyboard as unknown as NodeJS.ReadStream, vt.screen, historyFile);
  return { vt, input };
}

describe("the prompt in an emulated terminal", () => {
  it("edits a line: typing, moving, deleting words and line parts", async () => {
    const { vt, input } = setup();
    const read = input.readLine("› ");
    expect(vt.keyboard.rawMode).toBe(true);
    vt.send("hello wrld", keys.left, keys.left, keys.left, "o");
    expect((await vt.visible())[0]).toBe("› hello world");
    expect(await vt.cursor()).toEqual({ row: 0, column: 10 });
    vt.send(keys.end, " again", keys.ctrlW, keys.home, keys.ctrlK, "new text", keys.wordLeft, keys.ctrlU);
    expect((await vt.visible())[0]).toBe("› text");
    vt.send(keys.enter);
    expect(await read).toEqual({ kind: "line", text: "text" });
    // Raw mode and bracketed paste end with the prompt; the next output goes under it.
    expect(vt.keyboard.rawMode).toBe(false);
    expect(vt.screen.raw).toContain("\u001b[?2004h");
    expect(vt.screen.raw.endsWith("\u001b[?2004l")).toBe(true);
    expect(await vt.cursor()).toEqual({ row: 1, column: 0 });
  });

  it("wraps a long line and redraws it in place as it grows and shrinks, and takes several lines with \\ + Enter and Alt+Enter", async () => {
    const { vt, input } = setup(20, 8);
    const read = input.readLine("› ");
    vt.send("a".repeat(18), "bcdefghij");
    expect((await vt.visible()).slice(0, 3)).toEqual(["› " + "a".repeat(18), "bcdefghij", ""]);
    // A line exactly filling its row: the cursor waits on the next row, not over the last character.
    vt.send(...Array.from({ length: 9 }, () => keys.backspace));
    expect((await vt.visible()).slice(0, 2)).toEqual(["› " + "a".repeat(18), ""]);
    expect(await vt.cursor()).toEqual({ row: 1, column: 0 });
    vt.send(keys.ctrlU, "one\\", keys.enter, "two", keys.altEnter, "three");
    expect((await vt.visible()).slice(0, 4)).toEqual(["› one", "  two", "  three", ""]);
    vt.send(keys.up, keys.up, keys.end, "!", keys.enter);
    expect(await read).toEqual({ kind: "line", text: "one!\ntwo\nthree" });
    expect((await vt.all()).slice(-3)).toEqual(["› one!", "  two", "  three"]);
  });

  it("keeps a bracketed paste whole: a large one shown as one marker and sent whole, one split across chunks too", async () => {
    const { vt, input } = setup(60, 10);
    const read = input.readLine("› ");
    const pasted = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n");
    const bytes = keys.paste(pasted);
    vt.send("summarise: ", bytes.slice(0, 7), bytes.slice(7, 500), bytes.slice(500, -3), bytes.slice(-3), " and", keys.paste("a\r\nb"));
    expect((await vt.visible()).slice(0, 3)).toEqual(["› summarise: [pasted 200 lines] anda", "  b", ""]);
    expect((await vt.all()).join("\n")).not.toContain("line 2");
    vt.send(keys.enter);
    expect(await read).toEqual({ kind: "line", text: `summarise: ${pasted} anda\nb` });
  });

  it("browses the history with Up and Down, keeps the draft, and saves lines to the history file", async () => {
    const home = await tempDir();
    const file = path.join(home, "history");
    await writeFile(file, "first\nsecond\\nline\n");
    const { vt, input } = setup(40, 10, file);
    await input.loadHistory();
    const read = input.readLine("› ");
    vt.send("draft", keys.up);
    expect((await vt.visible()).slice(0, 2)).toEqual(["› second", "  line"]);
    vt.send(keys.up, keys.up);
    expect((await vt.visible())[0]).toBe("› first");
    vt.send(keys.down, keys.down, keys.down);
    expect((await vt.visible()).slice(0, 2)).toEqual(["› draft", ""]);
    vt.send(keys.enter);
    expect(await read).toEqual({ kind: "line", text: "draft" });
    await expect.poll(() => readFile(file, "utf8")).toBe("first\nsecond\\nline\ndraft\n");
    // An approval's answer is not remembered, and does not browse the history.
    const answer = input.readLine("approve? ", { remember: false });
    vt.send(keys.up, "y", keys.enter);
    expect(await answer).toEqual({ kind: "line", text: "y" });
    expect(await readFile(file, "utf8")).toBe("first\nsecond\\nline\ndraft\n");
  });

  it("finds earlier lines with Ctrl-R: the query shown, Ctrl-R again for an older match, Esc back to the text before", async () => {
    const { vt, input } = setup(50, 10);
    for (const text of ["git status", "npm test", "git log --oneline"]) {
      const read = input.readLine("› ");
      vt.line(text);
      await read;
    }
    const read = input.readLine("› ");
    vt.send("typed", keys.ctrlR, "git");
    expect((await vt.visible())[3]).toBe("(history search: git)› git log --oneline");
    vt.send(keys.ctrlR);
    expect((await vt.visible())[3]).toBe("(history search: git)› git status");
    vt.send(keys.escape);
    expect((await vt.visible())[3]).toBe("› typed");
    vt.send(keys.ctrlR, "npm", keys.end, " -- --watch");
    expect((await vt.visible())[3]).toBe("› npm test -- --watch");
    vt.send(keys.enter);
    expect(await read).toEqual({ kind: "line", text: "npm test -- --watch" });
  });

  it("completes with Tab: the only candidate, the common start, or the candidates listed above the prompt", async () => {
    const { vt, input } = setup(50, 10);
    const words = ["src/app.ts", "src/apple.ts", "src/lib/"];
    const complete = async (before: string): Promise<Completion | null> => {
      const word = /\S*$/.exec(before)![0];
      const candidates = words.filter((w) => w.startsWith(word));
      return candidates.length ? { from: before.length - word.length, candidates } : null;
    };
    const read = input.readLine("› ", { complete });
    vt.send("open src/l", keys.tab);
    await expect.poll(async () => (await vt.visible())[0]).toBe("› open src/lib/");
    vt.send(keys.ctrlW, "src/a", keys.tab);
    await expect.poll(async () => (await vt.visible())[0]).toBe("› open src/app");
    vt.send(keys.tab);
    await expect.poll(async () => (await vt.visible()).slice(0, 3)).toEqual(["› open src/app", "src/app.ts  src/apple.ts", "› open src/app"]);
    vt.send("l", keys.tab);
    await expect.poll(async () => (await vt.visible())[2]).toBe("› open src/apple.ts ");
    vt.send(keys.enter);
    expect(await read).toEqual({ kind: "line", text: "open src/apple.ts " });
  });

  it("shows what Ctrl-O expands above the prompt, and ends with Ctrl-C (^C when text was typed) and Ctrl-D", async () => {
    const { vt, input } = setup(40, 10);
    const read = input.readLine("› ", { expand: () => "── whole output ──\nline one" });
    vt.send("ab", keys.ctrlO);
    expect((await vt.visible()).slice(0, 4)).toEqual(["› ab", "── whole output ──", "line one", "› ab"]);
    vt.send(keys.ctrlC);
    expect(await read).toEqual<LineResult>({ kind: "interrupt", hadText: true });
    expect((await vt.visible())[3]).toBe("› ab^C");
    const empty = input.readLine("› ");
    vt.send(keys.ctrlC);
    expect(await empty).toEqual({ kind: "interrupt", hadText: false });
    const eof = input.readLine("› ");
    vt.send("xy", keys.left, keys.ctrlD);
    expect((await vt.visible())[5]).toBe("› x");
    vt.send(keys.ctrlU, keys.ctrlD);
    expect(await eof).toEqual({ kind: "eof" });
  });

  it("while a turn runs: type-ahead is shown through typing, Enter queues a line, Esc and Ctrl-C are handed on, and unsent text returns on the next prompt", async () => {
    const { vt, input } = setup(40, 10);
    const events: string[] = [];
    const stop = input.watchTurn({
      interrupt: () => events.push("interrupt"),
      escape: () => void events.push("escape"),
      line: (text) => events.push(`line:${text}`),
      typing: (text) => events.push(`typing:${text}`),
    });
    vt.send("fix it", keys.enter, "and\\", keys.enter, "more", keys.enter, "   ", keys.enter, keys.escape, keys.ctrlC, "later");
    expect(events).toEqual([
      "typing:fix it",
      "line:fix it",
      "typing:",
      "typing:and\\",
      "typing:and\n",
      "typing:and\nmore",
      "line:and\nmore",
      "typing:",
      "typing:   ",
      "typing:",
      "escape",
      "typing:",
      "interrupt",
      "typing:",
      "typing:later",
    ]);
    // Nothing is drawn while a turn runs: its output owns the screen.
    expect(await vt.all()).toEqual([]);
    stop();
    const read = input.readLine("› ");
    expect((await vt.visible())[0]).toBe("› later");
    vt.send(keys.enter);
    expect(await read).toEqual({ kind: "line", text: "later" });
  });

  it("puts a queued line Esc takes back before the text typed ahead, to edit", async () => {
    const { vt, input } = setup(40, 10);
    const queued = ["first queued"];
    const typed: string[] = [];
    const stop = input.watchTurn({ interrupt: () => undefined, escape: () => queued.pop(), line: () => undefined, typing: (text) => typed.push(text) });
    vt.send("typed", keys.escape, keys.escape);
    expect(typed.slice(-2)).toEqual(["first queued\ntyped", "first queued\ntyped"]);
    stop();
    const read = input.readLine("› ");
    expect((await vt.visible()).slice(0, 2)).toEqual(["› first queued", "  typed"]);
    vt.send(keys.enter);
    expect(await read).toEqual({ kind: "line", text: "first queued\ntyped" });
  });

  it("redraws the prompt at the new width after a resize", async () => {
    const { vt, input } = setup(30, 8);
    const read = input.readLine("› ");
    vt.send("x".repeat(40));
    expect((await vt.visible()).slice(0, 2)).toEqual(["› " + "x".repeat(28), "x".repeat(12)]);
    vt.resize(50, 8);
    vt.send("y");
    const screen = await vt.visible();
    expect(screen.filter((row) => row.includes("y"))).toEqual([`› ${"x".repeat(40)}y`]);
    vt.send(keys.enter);
    expect(await read).toEqual({ kind: "line", text: `${"x".repeat(40)}y` });
  });
});
