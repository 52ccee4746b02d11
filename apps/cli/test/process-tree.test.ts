import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anyAliveInGroup, groupMembers } from "../src/jobs/process-tree.js";

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
};
const sessionOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[3];

describe("anyAliveInGroup", () => {
  it("does not count a living process that left the group with setsid: once empty, the group's id is free for someone else", async () => {
    // A job's leftover that turns itself into a daemon: same pid and start time, its own session and group.
    const go = path.join(tmpdir(), `kosong-setsid-${process.pid}-${Date.now()}`);
    const child = spawn("bash", ["-c", '(while [ ! -e "$1" ]; do sleep 0.02; done; exec setsid sleep 30) & echo $!; wait', "bash", go], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const pgid = child.pid!;
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    await until(() => out.includes("\n"));
    const leftover = Number(out.trim());
    try {
      const members = groupMembers(pgid);
      expect(members.map((ref) => ref.pid)).toContain(leftover);
      expect(anyAliveInGroup(members, pgid)).toBe(true);
      writeFileSync(go, "");
      await until(() => sessionOf(leftover) === String(leftover));
      process.kill(pgid, "SIGKILL");
      await until(() => groupMembers(pgid).length === 0);
      expect(groupMembers(pgid)).toEqual([]);
      expect(anyAliveInGroup(members, pgid)).toBe(false);
    } finally {
      rmSync(go, { force: true });
      for (const pid of [leftover, pgid]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // ended
        }
      }
    }
  });
});
