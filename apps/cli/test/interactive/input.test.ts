/**
 * The prompt's input in the whole interactive mode (in process, on an
 * emulated terminal), against the fake provider server: what the unit tests
 * (terminal-input.test.ts, prompt-state.test.ts) check key by key, here with
 * the session behind it: /help's wrapping, /checkpoints, completion of real
 * paths and @mentions, Ctrl-R with !command and /model, and a line typed
 * while a turn runs queued and steered into the turn (Esc takes a queued
 * line back without aborting the turn).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";
import { gate } from "../e2e/fake-model.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

const usage = { input_other: 1200, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
/** A reply that streams slowly (about 3 s) before it calls ReadFile. */
const slowThenRead = (file: string): Message => ({
  role: "assistant",
  content: Array.from({ length: 60 }, (_, i) => ({ type: "text" as const, text: `word${i} ` })),
  tool_calls: [{ type: "function", id: "r1", function: { name: "ReadFile", arguments: JSON.stringify({ path: file }) } }],
});

async function startKosong(size: { width?: number; env?: Record<string, string> } = {}) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, ...size.env });
  delete env.NO_COLOR;
  const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env, width: size.width ?? 100, height: 30 });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*test-model ·[\s\S]*›\s*$/m);
  return { terminal, cwd };
}

/** The user messages of the `n`th request (OpenAI format). */
function userTexts(n: number): string[] {
  const messages = server.requests[n]!.body!.messages as { role: string; content: string }[];
  return messages.filter((m) => m.role === "user" && !m.content.startsWith("<system>")).map((m) => m.content);
}

describe("the prompt's input on an emulated terminal (in process)", () => {
  it("wraps /help at 80 columns between words, and /checkpoints lists one checkpoint per prompt, each cut to the width", async () => {
    const { terminal } = await startKosong({ width: 80 });
    terminal.line("/help");
    const help = await terminal.waitFor(/Ctrl-C twice, Ctrl-D[\s\S]*›\s*$/, { from: "› /help" });
    const lines = help.split("\n");
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(80);
    // Each help text reads whole when its lines are joined: no word is cut.
    const joined = lines.map((line) => line.trim()).join(" ");
    for (const text of ["rewrite a past user message and rerun from there", "earlier versions kept by reverts, clears, edits and compactions", "make rotation n the conversation again (the current one is kept too)"]) {
      expect(joined).toContain(text);
    }
    const long = `third question, a long one: ${"and more words ".repeat(6)}`.trim();
    server.enqueue({ message: say("One."), usage }, { message: say("Two."), usage }, { message: say("Three."), usage });
    terminal.line("first question here");
    await terminal.waitFor(/One\.[\s\S]*›\s*$/, { from: "› first question here" });
    terminal.line("second question");
    await terminal.waitFor(/Two\.[\s\S]*›\s*$/, { from: "› second question" });
    terminal.line(long);
    await terminal.waitFor(/Three\.[\s\S]*›\s*$/, { from: `› ${long}` });
    // One checkpoint per prompt, with its time and the words a revert to it drops; each on one line of the terminal.
    terminal.line("/checkpoints");
    let checkpoints = await terminal.waitFor(/\/checkpoints all\)\n[\s\S]*›\s*$/, { from: "› /checkpoints" });
    const listed = checkpoints.trim().split("\n").slice(0, -1);
    expect(listed).toHaveLength(4);
    const time = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`;
    expect(listed[0]).toMatch(new RegExp(`^checkpoint 0 · ${time} · 0 messages before it · drops "first q`));
    expect(listed[1]).toMatch(new RegExp(`^checkpoint 2 · ${time} · 2 messages before it · drops "second`));
    expect(listed[2]).toMatch(new RegExp(`^checkpoint 4 · ${time} · 4 messages before it · drops "third`));
    // Cut to the 80 columns, not wrapped.
    for (const line of listed.slice(0, 3)) {
      expect(line.length).toBeLessThan(80);
      expect(line.endsWith("…")).toBe(true);
    }
    expect(listed[3]).toBe("(3 checkpoints before a prompt shown; 3 more between steps: /checkpoints all)");
    // Every one with `all`.
    terminal.line("/checkpoints all");
    checkpoints = await terminal.waitFor(/checkpoint 5 [^\n]*\n[\s\S]*›\s*$/, { from: "› /checkpoints all" });
    expect(checkpoints).toMatch(new RegExp(`\ncheckpoint 1 · ${time} · 1 message before it · drops the answer to`));
    expect(checkpoints).not.toContain("between steps");
  }, 60_000);

  it("attaches an @mentioned image as an image part, and refuses one with a clear error for a model without image input", async () => {
    const png = await sharp({ create: { width: 12, height: 8, channels: 3, background: "#0a0" } }).png().toBuffer();
    const { terminal, cwd } = await startKosong();
    await writeFile(path.join(cwd, "pic.png"), png);
    server.enqueue({ message: say("A green box."), usage });
    terminal.line("what is @pic.png");
    const screen = await terminal.waitFor(/A green box\.[\s\S]*›\s*$/, { from: "› what is @pic.png" });
    expect(screen).toContain("attached: pic.png");
    const sent = (server.requests[0]!.body!.messages as { role: string; content: unknown }[]).at(-1)!.content as { type: string; image_url?: { url: string } }[];
    expect(sent.find((p) => p.type === "image_url")?.image_url?.url).toBe(`data:image/png;base64,${png.toString("base64")}`);

    const textOnly = await startKosong({ env: { KOSONG_IMAGE_INPUT: "0" } });
    await writeFile(path.join(textOnly.cwd, "pic.png"), png);
    textOnly.terminal.line("what is @pic.png");
    await textOnly.terminal.waitFor(/The model test-model does not accept images \(the prompt attaches pic\.png\); nothing was sent\.[\s\S]*›\s*$/, { from: "› what is @pic.png" });
    expect(server.requests).toHaveLength(1);
  }, 60_000);

  it("completes slash commands and paths with Tab, and attaches @mentioned files read inside the working directory only", async () => {
    const { terminal, cwd } = await startKosong();
    await mkdir(path.join(cwd, "src"));
    await writeFile(path.join(cwd, "src/alpha.ts"), "export const alpha = 1;\n");
    await writeFile(path.join(cwd, "src/beta.ts"), "export const beta = 2;\n");
    await writeFile(path.join(cwd, "..", "secret.txt"), "top secret\n");
    terminal.type("/chec");
    terminal.keys("Tab");
    await terminal.waitFor(/› \/checkpoints $/m);
    terminal.keys("C-u");
    terminal.type("compare @sr");
    terminal.keys("Tab");
    await terminal.waitFor(/› compare @src\/$/m);
    terminal.keys("Tab");
    await terminal.waitFor(/@src\/alpha\.ts {2}@src\/beta\.ts\n› compare @src\/$/m);
    terminal.type("a");
    terminal.keys("Tab");
    await terminal.waitFor(/› compare @src\/alpha\.ts $/m);
    server.enqueue({ message: say("They differ."), usage });
    terminal.line("with @src/beta.ts and @../secret.txt");
    const screen = await terminal.waitFor(/They differ\.[\s\S]*›\s*$/, { from: "› compare @src/alpha.ts" });
    expect(screen).toContain("attached: src/alpha.ts, src/beta.ts");
    expect(screen).toMatch(/@\.\.\/secret\.txt not attached: Path `\.\.\/secret\.txt` is outside the working directory/);
    const sent = userTexts(0).at(-1)!;
    expect(sent).toContain('<file path="src/alpha.ts">\nexport const alpha = 1;\n</file>');
    expect(sent).toContain('<file path="src/beta.ts">\nexport const beta = 2;\n</file>');
    expect(sent).not.toContain("top secret");
  }, 60_000);

  it("finds an earlier prompt with Ctrl-R, runs !command without asking approval, lists the provider's models with /model, checks the name and switches", async () => {
    const { terminal, cwd } = await startKosong();
    server.enqueue({ message: say("First."), usage }, { message: say("Second."), usage }, { message: say("First again."), usage });
    terminal.line("alpha question");
    await terminal.waitFor(/First\.[\s\S]*›\s*$/, { from: "› alpha question" });
    terminal.line("beta question");
    await terminal.waitFor(/Second\.[\s\S]*›\s*$/, { from: "› beta question" });
    terminal.keys("C-r");
    terminal.type("alp");
    await terminal.waitFor(/\(history search: alp\)› alpha question$/m);
    terminal.keys("Enter");
    await terminal.waitFor(/First again\.[\s\S]*›\s*$/, { from: "(history search: alp)" });
    expect(userTexts(2).at(-1)).toBe("alpha question");

    // The user's own command runs without an approval prompt: it is shown with its outcome and output.
    terminal.line("!echo made > made.txt; echo oops >&2; exit 4");
    const screen = await terminal.waitFor(/✗ !echo made[^\n]*→ The command exited with code 4\.\noops\n›\s*$/, { from: "› !echo made" });
    expect(screen).not.toContain("approve?");
    expect(await readFile(path.join(cwd, "made.txt"), "utf8")).toBe("made\n");
    // Nothing of it reached the model.
    expect(server.requests).toHaveLength(3);

    // /model alone says which model is in use (without claiming a switch) and lists what the provider's GET /models reports; it refuses a name it does not list, and switches to one it does.
    const model = (id: string) => ({ id, object: "model", created: 0, owned_by: "fake" });
    server.enqueue({ status: 200, body: { object: "list", data: [model("test-model"), model("other-model"), model("other-model-mini")] } });
    terminal.line("/model");
    const listed = await terminal.waitFor(/Using test-model \(openai\); \/model <name> switches to another\.\nThe provider's models: other-model, other-model-mini, test-model\n/, { from: "› /model" });
    expect(listed).not.toMatch(/Model now|Model: /);
    expect(server.requests.at(-1)!.path).toBe("/v1/models");
    terminal.line("/model other");
    await terminal.waitFor(/No model "other" at this provider; the model stays test-model\. Did you mean other-model, other-model-mini\? \/model lists them\./, { from: "› /model other" });
    terminal.line("/model other-model");
    await terminal.waitFor(/Model: other-model\nother-model · /, { from: "› /model other-model" });
    server.enqueue({ message: say("Other here."), usage });
    terminal.line("who are you?");
    await terminal.waitFor(/Other here\.[\s\S]*other-model ·[\s\S]*›\s*$/, { from: "› who are you?" });
    // The list was asked for once.
    expect(server.requests.filter((r) => r.path === "/v1/models")).toHaveLength(1);
    expect(server.requests.at(-1)!.body!.model).toBe("other-model");
    expect(userTexts(server.requests.length - 1)).toEqual(["alpha question", "beta question", "alpha question", "who are you?"]);
  }, 60_000);

  it("queues a line typed during a turn and steers it in after the step's tools; Esc takes a queued line back to edit", async () => {
    const { terminal, cwd } = await startKosong();
    await writeFile(path.join(cwd, "notes.txt"), "the notes\n");
    // The answer holds after word3 until the line is queued: the turn surely runs while it is typed and entered.
    const queued = gate();
    server.enqueue({ message: slowThenRead("notes.txt"), usage, holdAfter: 5, release: queued.opened }, { message: say("Read them, and the tests too."), usage });
    terminal.line("read the notes");
    await terminal.waitFor(/word3/, { from: "› read the notes" });
    // What is typed shows in the footer until it is entered.
    terminal.type("also check the tests");
    const footer = async () => {
      for (let i = 0; i < 50; i++) {
        const last = terminal.visible().trimEnd().split("\n").at(-1)!;
        if (last.includes("› also check the tests")) return last;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return terminal.visible();
    };
    expect(await footer()).toMatch(/^▍ test-model .*› also check the tests$/);
    terminal.keys("Enter");
    await terminal.waitFor(/⧗ queued: also check the tests/, { from: "› read the notes" });
    queued.open();
    const screen = await terminal.waitFor(/Read them, and the tests too\.[\s\S]*›\s*$/, { from: "› read the notes" });
    expect(screen).toContain("» steered: also check the tests");
    expect(server.requests).toHaveLength(2);
    // The steered line follows the tool's result in the same turn.
    const messages = server.requests[1]!.body!.messages as { role: string; content: string }[];
    const roles = messages.filter((m) => !(m.role === "user" && m.content.startsWith("<system>"))).map((m) => `${m.role}${m.role === "user" ? `:${m.content}` : ""}`);
    expect(roles.slice(-4)).toEqual(["user:read the notes", "assistant", "tool", "user:also check the tests"]);
    // Text from the model's stream is rendered once, not repeated by the queued line's note.
    expect(screen.split("word59").length - 1).toBe(1);

    const tookBack = gate();
    server.enqueue({ message: slowThenRead("notes.txt"), usage, holdAfter: 5, release: tookBack.opened }, { message: say("Done again."), usage });
    terminal.line("read them again");
    await terminal.waitFor(/word3/, { from: "› read them again" });
    terminal.line("never mind");
    await terminal.waitFor(/⧗ queued: never mind/, { from: "› read them again" });
    terminal.keys("Escape");
    await terminal.waitFor(/✗ took back to edit: never mind/, { from: "› read them again" });
    tookBack.open();
    // The line taken back is given back for editing: on the prompt once the turn ends.
    const after = await terminal.waitFor(/Done again\.[\s\S]*› never mind\s*$/, { from: "› read them again" });
    expect(after).not.toContain("interrupted");
    expect(JSON.stringify(server.requests.slice(2).map((r) => r.body))).not.toContain("never mind");
    server.enqueue({ message: say("Minded."), usage });
    terminal.type(", or do");
    terminal.keys("Enter");
    await terminal.waitFor(/Minded\.[\s\S]*›\s*$/, { from: "› never mind, or do" });
    expect(userTexts(server.requests.length - 1).at(-1)).toBe("never mind, or do");
  }, 60_000);
});
