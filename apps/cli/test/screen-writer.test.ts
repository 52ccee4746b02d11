/**
 * The screen writer in an emulated terminal: the footer kept on the last
 * row while output scrolls above it (and across a resize), the spinner
 * under the output, and the prompt drawn in place.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { TurnRenderer } from "../src/render/turn-renderer.js";
import { ScreenWriter } from "../src/render/screen-writer.js";
import { VirtualTerminal } from "./virtual-terminal.js";

describe("the screen writer", () => {
  it("is one per stream", () => {
    const vt = new VirtualTerminal();
    expect(ScreenWriter.for(vt.screen)).toBe(ScreenWriter.for(vt.screen));
    expect(ScreenWriter.for(new VirtualTerminal().screen)).not.toBe(ScreenWriter.for(vt.screen));
  });

  it("keeps the footer on the last row while the output scrolls above it, redraws it, and gives the row back", async () => {
    const vt = new VirtualTerminal(30, 6);
    const screen = ScreenWriter.for(vt.screen);
    let tokens = 0;
    screen.write("› question\r\n");
    screen.reserveFooter(() => `footer · ${tokens} tokens`);
    expect(screen.outputRows).toBe(5);
    for (let i = 1; i <= 12; i++) screen.write(`output ${i}\r\n`);
    tokens = 1200;
    screen.drawFooter();
    expect(await vt.visible()).toEqual(["output 9", "output 10", "output 11", "output 12", "", "footer · 1200 tokens"]);
    // What scrolled off the region went to the scrollback, the footer never did.
    const all = await vt.all();
    expect(all.filter((line) => line.startsWith("footer"))).toEqual(["footer · 1200 tokens"]);
    expect(all.slice(0, 3)).toEqual(["› question", "output 1", "output 2"]);
    screen.releaseFooter();
    expect(screen.outputRows).toBe(6);
    screen.write("after\r\nmore\r\nrows\r\n");
    expect(await vt.visible()).toEqual(["output 11", "output 12", "after", "more", "rows", ""]);
  });

  it("cuts a footer wider than the screen, and moves it to the new last row on a resize", async () => {
    const vt = new VirtualTerminal(20, 6);
    const screen = ScreenWriter.for(vt.screen);
    screen.reserveFooter(() => "a footer longer than twenty columns");
    expect((await vt.visible())[5]).toBe("a footer longer tha");
    vt.resize(40, 8);
    screen.write("1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\r\n9\r\n");
    const rows = await vt.visible();
    expect(rows[7]).toBe("a footer longer than twenty columns");
    expect(rows.filter((row) => row.startsWith("a footer"))).toHaveLength(1);
    // Each output line once, in order (the row the footer left when the screen grew is cleared: footer-grow.test.ts).
    expect(rows.slice(0, 7).map((row) => row.slice(0, 1))).toEqual(["4", "5", "6", "7", "8", "9", ""]);
    screen.releaseFooter();
    vt.resize(40, 6);
    screen.write("x\r\n");
    expect((await vt.all()).filter((row) => row.startsWith("a footer"))).toEqual([]);
  });

  it("draws no footer where the output is not a terminal", async () => {
    let written = "";
    const screen = ScreenWriter.for({ write: (text: string) => (written += text), rows: 24, columns: 80, isTTY: false });
    screen.reserveFooter(() => "footer");
    screen.drawFooter();
    screen.releaseFooter();
    expect(written).toBe("");
  });

  it("animates a spinner on the cursor's line, keeps it under whole lines written, and clears it when stopped", async () => {
    const vt = new VirtualTerminal(30, 6);
    const screen = ScreenWriter.for(vt.screen);
    screen.startSpinner("thinking");
    expect((await vt.visible())[0]).toBe("⠋ thinking");
    await expect.poll(async () => (await vt.visible())[0]).not.toBe("⠋ thinking");
    expect((await vt.visible())[0]).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking$/);
    screen.write("a line\r\n");
    expect((await vt.visible()).slice(0, 2).map((row) => row.replace(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/, "*"))).toEqual(["a line", "* thinking"]);
    screen.setSpinnerText("running Shell");
    expect((await vt.visible())[1]).toMatch(/ running Shell$/);
    // Part of a line stops the spinner: the text is not drawn over.
    screen.write("partial");
    await sleep(200);
    expect((await vt.visible()).slice(0, 2)).toEqual(["a line", "partial"]);
    screen.startSpinner("again");
    screen.stopSpinner();
    expect((await vt.visible()).slice(0, 3)).toEqual(["a line", "", ""]);
    expect(vt.screen.raw.endsWith("\u001b[?25h")).toBe(true);
  });

  it("renders a turn's output with its spinner and a note between the streamed text's lines, the footer kept", async () => {
    const vt = new VirtualTerminal(40, 8);
    const screen = ScreenWriter.for(vt.screen);
    screen.reserveFooter(() => "footer");
    const renderer = new TurnRenderer({
      out: vt.screen as unknown as NodeJS.WritableStream,
      style: pc.createColors(true),
      columns: 40,
      get rows() {
        return screen.outputRows;
      },
      showThinking: () => false,
      spinner: true,
      askApproval: async () => ({ kind: "approve" }),
      respond: () => undefined,
      contextTokens: () => 0,
    });
    await renderer.render({ type: "StepBegin", payload: { n: 1 } });
    expect((await vt.visible())[0]).toMatch(/ thinking$/);
    await renderer.render({ type: "TextPart", payload: { type: "text", text: "Streaming text" } });
    renderer.note("⧗ queued: next");
    await renderer.finish();
    const rows = await vt.visible();
    expect(rows.slice(0, 2)).toEqual(["⧗ queued: next", "Streaming text"]);
    expect(rows.filter((row) => row.includes("thinking"))).toEqual([]);
    expect(rows[7]).toBe("footer");
    screen.releaseFooter();
  });
});
