/**
 * Background jobs in the bubblewrap sandbox end whole: bwrap runs the
 * command in its own pid namespace under a second bwrap, and stopping the
 * job (TaskStop, the session's end) must end that one too, even when it
 * comes while the sandbox is still being set up.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BackgroundJobs } from "../src/jobs/background-jobs.js";
import { CommandSandbox } from "../src/sandbox/command-sandbox.js";
import { processesWith } from "./e2e/dev-server.js";
import { endsOrHangs } from "./ends-or-hangs.js";
import { ensureBubblewrap } from "./ensure-bubblewrap.js";
import { useTempDirs } from "./temp-dir.js";

// Under /var/tmp: a sandboxed command has a private /tmp.
const tempDir = useTempDirs("/var/tmp");
const bwrap = ensureBubblewrap();
const markers: string[] = [];

afterEach(() => {
  for (const marker of markers.splice(0)) for (const pid of processesWith(marker)) process.kill(Number(pid), "SIGKILL");
});

describe.skipIf(!bwrap)("BackgroundJobs in the sandbox", () => {
  it("TaskStop and closeAll end the sandbox's inner processes, at any moment of its start, and never hang", async () => {
    const workspace = await tempDir();
    const sandbox = await CommandSandbox.open(bwrap, workspace, { mode: "on", network: false }, []);
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) {
        const marker = `kosong-leak-${process.pid}-${i}-${Date.now()}`;
        markers.push(marker);
        // A list, so that bash runs the program as its child (not exec'd in its place): the tree that outlived the stop.
        const command = `true; ${process.execPath} -e 'setInterval(() => {}, 1000)' ${marker}`;
        const jobs = new BackgroundJobs({ dir: path.join(workspace, `jobs-${i}`), graceMs: 300 });
        const job = await jobs.start(command, sandbox.wrapShell(command, { PATH: process.env.PATH ?? "/usr/bin:/bin" }, { detached: true }), workspace);
        // Stopped at once, or a little later: while bwrap sets the sandbox up, or once the command runs.
        await new Promise((r) => setTimeout(r, (i % 4) * 3));
        const ending = Math.floor(i / 4) % 2 === 0 ? jobs.stop(job.id) : jobs.closeAll();
        outcomes.push(`${i}: ${await endsOrHangs(ending)}, ${processesWith(marker).length} left`);
        for (const pid of processesWith(marker)) process.kill(Number(pid), "SIGKILL");
      }
      expect(outcomes).toEqual(Array.from({ length: 20 }, (_, i) => `${i}: ended, 0 left`));
    } finally {
      await sandbox.close();
    }
  }, 240_000);
});
