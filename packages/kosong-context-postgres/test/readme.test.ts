/**
 * The README's programs run as written on the built package, against the
 * test server (DATABASE_URL), and print what their comments promise.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { assertDistIsFresh } from "./helpers/child.js";
import { pgUrl } from "./helpers/store.js";

const packageDir = fileURLToPath(new URL("../", import.meta.url));
const readme = await readFile(path.join(packageDir, "README.md"), "utf8");
const programs = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe("README examples run as written on the built package", () => {
  beforeAll(assertDistIsFresh);

  it("finds the examples", () => {
    expect(programs).toHaveLength(2);
  });

  it.each(programs.map((code, i) => [i + 1, code]))("example %i", async (_, code) => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module-typescript", "-e", code], {
      cwd: packageDir,
      env: { ...process.env, DATABASE_URL: pgUrl() },
    });
    const promised = [...code.matchAll(/^\/\/ -> (.*)$/gm)].map((match) => match[1]);
    expect(promised.length).toBeGreaterThan(0);
    expect(stdout.trimEnd().split("\n")).toEqual(promised);
  });
});
