/**
 * The footer when the terminal grows mid-turn, in the emulated terminal:
 * the footer moves to the new last row, and the row it left (now inside the
 * output's region) is cleared, so no stale footer, and no streamed text
 * written over part of it, stays on the screen.
 */
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { ScreenWriter } from "../src/render/screen-writer.js";
import { TurnRenderer } from "../src/render/turn-renderer.js";
import { VirtualTerminal } from "./virtual-terminal.js";

const footerText = "▍ test-model · in 1.2k · out 80 · cached 300";

describe("the footer when the terminal grows", () => {
  it("leaves the rows between the output and the new footer empty, and streamed text after the resize clean", async () => {
    const vt = new VirtualTerminal(50, 8);
    // A TTY turns "\n" into "\r\n" (libuv's raw mode keeps ONLCR).
    vt.terminal.options.convertEol = true;
    const screen = ScreenWriter.for(vt.screen);
    screen.write("› talk\r\n");
    screen.reserveFooter(() => footerText);
    const renderer = new TurnRenderer({
      out: vt.screen as unknown as NodeJS.WritableStream,
      style: pc.createColors(false),
      get columns() {
        return vt.terminal.cols;
      },
      get rows() {
        return screen.outputRows;
      },
      showThinking: () => false,
      spinner: false,
      askApproval: async () => ({ kind: "approve" }),
      respond: () => undefined,
      contextTokens: () => 0,
    });
    const stream = async (text: string) => {
      for (const word of text.split(/(?<= )/)) await renderer.render({ type: "TextPart", payload: { type: "text", text: word } });
    };
    await renderer.render({ type: "StepBegin", payload: { n: 1 } });
    await stream(Array.from({ length: 9 }, (_, i) => `line ${i}`).join("\n"));
    await stream("\nhalf a line ");
    expect((await vt.visible()).at(-1)).toBe(footerText);

    vt.resize(50, 12);
    let rows = await vt.visible();
    expect(rows.at(-1)).toBe(footerText);
    expect(rows.filter((row) => row.includes("test-model")), rows.join("\n")).toHaveLength(1);

    // The stream goes on into the rows the footer left: each of them shows the streamed text alone.
    await stream("goes on\nx\ny\nz");
    rows = await vt.visible();
    expect(rows.filter((row) => row.includes("test-model")), rows.join("\n")).toEqual([footerText]);
    expect(rows.at(-1)).toBe(footerText);
    expect(rows.slice(-6, -1), rows.join("\n")).toEqual(["half a line goes on", "x", "y", "z", ""]);
    await renderer.finish();
    screen.releaseFooter();
  });
});
