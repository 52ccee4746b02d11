/**
 * A prompt ended from outside (a background agent's approval must be
 * asked): the read ends as `preempted`, and what was typed comes back on the
 * next prompt, not on the approval's answer.
 */
import { describe, expect, it } from "vitest";
import { TerminalInput } from "../src/modes/interactive/terminal-input.js";
import { keys, VirtualTerminal } from "./virtual-terminal.js";

describe("a preempted prompt", () => {
  it("ends as preempted and keeps the typed text for the next prompt", async () => {
    const vt = new VirtualTerminal(40, 10);
    const input = new TerminalInput(vt.keyboard as unknown as NodeJS.ReadStream, vt.screen, null);
    let end: (() => void) | null = null;
    let stopped = false;
    const read = input.readLine("› ", {
      preempt: (e) => {
        end = e;
        return () => (stopped = true);
      },
    });
    vt.send("earlier line", "\n");
    vt.send("half typed");
    expect((await vt.visible()).slice(0, 2)).toEqual(["› earlier line", "  half typed"]);
    end!();
    expect(await read).toEqual({ kind: "preempted" });
    expect(stopped).toBe(true);
    // The prompt is taken away: the question is asked where it was.
    expect((await vt.visible()).filter((row) => row.trim())).toEqual([]);
    const answer = input.readLine("approve? ", { remember: false });
    vt.send("y", keys.enter);
    expect(await answer).toEqual({ kind: "line", text: "y" });
    const next = input.readLine("› ");
    vt.send(keys.enter);
    expect(await next).toEqual({ kind: "line", text: "earlier line\nhalf typed" });
  });

  it("ends at once when the preempt fires while it starts", async () => {
    const vt = new VirtualTerminal(40, 10);
    const input = new TerminalInput(vt.keyboard as unknown as NodeJS.ReadStream, vt.screen, null);
    let stopped = false;
    const read = input.readLine("› ", {
      preempt: (e) => {
        e();
        return () => (stopped = true);
      },
    });
    expect(await read).toEqual({ kind: "preempted" });
    expect(stopped).toBe(true);
  });
});
