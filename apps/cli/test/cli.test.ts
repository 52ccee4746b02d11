import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../dist/kosong.js", import.meta.url));

describe.runIf(existsSync(bin))("kosong binary", () => {
  it("prints its version", () => {
    expect(execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8" })).toBe("kosong 0.1.0\n");
  });
  it("estimates tokens through @kosong/soul", () => {
    const out = execFileSync(process.execPath, [bin, "estimate", "x".repeat(400)], { encoding: "utf8" });
    expect(Number(out.trim())).toBeGreaterThan(100);
  });
});
