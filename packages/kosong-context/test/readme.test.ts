/**
 * The README is what npm shows: its links must resolve inside the published
 * package, and its examples must run as written, with nothing defined
 * elsewhere.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { assertDistIsFresh } from "./helpers/child.js";
import { tempDir } from "@kosong/test-support";

const packageDir = fileURLToPath(new URL("../", import.meta.url));
const readme = await readFile(path.join(packageDir, "README.md"), "utf8");
const published: string[] = (JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as { files: string[] }).files;

/** The ```ts blocks of the README that a user runs as a program (not the contract-suite template, which runs under vitest). */
const programs = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
  .map((match) => match[1]!)
  .filter((code) => !code.includes('"@kosong/context/testing"'));

describe("README on npm", () => {
  it("links only to pages on the web, anchors, or files in the published package", () => {
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    const local = targets.filter((target) => !/^(https?:|mailto:|#)/.test(target));
    const outside = local.filter((target) => {
      const relative = path.posix.normalize(target.split("#")[0]!);
      return !published.some((entry) => relative === entry || relative.startsWith(`${entry}/`)) || !existsSync(path.join(packageDir, relative));
    });
    expect(outside).toEqual([]);
  });

  describe("examples run as written on the built package", () => {
    beforeAll(assertDistIsFresh);

    it("finds the examples", () => {
      expect(programs.length).toBe(5);
    });

    it.each(programs.map((code) => [code.split("\n").find((l) => l.includes("@kosong/context"))!, code]))("%s", async (_, code) => {
      const tmp = await tempDir();
      const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module-typescript", "-e", code], {
        cwd: packageDir,
        env: { ...process.env, TMPDIR: tmp },
      });
      const promised = [...code.matchAll(/^\/\/ -> (.*)$/gm)].map((match) => match[1]);
      expect(promised.length).toBeGreaterThan(0);
      expect(stdout).toBe(promised.map((line) => `${line}\n`).join(""));
    });
  });
});
