/**
 * The Shell scan reads .gitignore files as git does: on a real tree with a
 * root and nested .gitignore files (negations, anchored and folder-only
 * patterns, `**`, bracket sets, escapes), the files it scans are exactly the
 * untracked, not ignored files `git ls-files --others --exclude-standard`
 * lists; a file under an excluded folder cannot be re-included. A hostile
 * .gitignore (catastrophic patterns, or too many) cannot make it slow.
 */
import { execFile } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { scanWorkspace } from "@kosong/workspace";
import { describe, expect, it } from "vitest";
import { GitignoreMatcher, GitignoreTooCostlyError, parseGitignore } from "../src/gitignore.js";
import { journaledSession } from "./helpers/workspace.js";

const run = promisify(execFile);

/** The files git sees as untracked and not ignored under `root` (a fresh repository, no global excludes). */
async function gitUntracked(root: string): Promise<string[]> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, GIT_CONFIG_NOSYSTEM: "1" };
  await run("git", ["init", "-q"], { cwd: root, env });
  const { stdout } = await run("git", ["-c", "core.excludesFile=/dev/null", "ls-files", "--others", "--exclude-standard", "-z"], { cwd: root, env });
  return stdout.split("\0").filter((name) => name !== "").sort();
}

const tree: Record<string, string> = {
  ".gitignore": ["# comment", "*.log", "!keep.log", "build/", "/top-only.txt", "docs/**/*.tmp", "**/cache", "a/**/z", "\\#literal", "[abc].bin", "[!x]y.dat", "trailing\\ ", "foo/*", "!foo/bar", "spaces   ", "*.o", ""].join("\n"),
  "a.log": "",
  "keep.log": "",
  "sub/keep.log": "",
  "sub/other.log": "",
  "nested/.gitignore": ["!important.log", "*.txt", "/local.md", "deep/", "!*.o"].join("\n"),
  "nested/important.log": "",
  "nested/x.txt": "",
  "nested/local.md": "",
  "nested/thing.o": "",
  "nested/sub/.gitignore": ["!keep.txt", "ignored-dir/", "*.md"].join("\n"),
  "nested/sub/keep.txt": "",
  "nested/sub/other.txt": "",
  "nested/sub/local.md": "",
  "nested/sub/ignored-dir/f": "",
  "nested/deep/f": "",
  "nested/sub/deep/g": "",
  "build/.gitignore": "!*\n",
  "build/out.bin": "",
  "src/build": "",
  "src/main.o": "",
  "top-only.txt": "",
  "sub/top-only.txt": "",
  "docs/a/b/c.tmp": "",
  "docs/c.tmp": "",
  "docs/keep.md": "",
  "x/cache/f": "",
  "cache": "",
  "a/z": "",
  "a/b/c/z": "",
  "a/b/y": "",
  "#literal": "",
  "#other": "",
  "a.bin": "",
  "d.bin": "",
  "zy.dat": "",
  "xy.dat": "",
  "trailing ": "",
  "trailing": "",
  "spaces": "",
  "foo/bar": "",
  "foo/baz": "",
  "foo/dir/q": "",
};

describe("the scan's .gitignore", () => {
  it("scans exactly the files git lists as untracked and not ignored, nested .gitignore files and negations included", async () => {
    const { root } = await journaledSession();
    for (const [name, content] of Object.entries(tree)) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), content);
    }
    await symlink("a.log", path.join(root, "link.log"));
    await symlink("keep.log", path.join(root, "link-kept"));
    const expected = await gitUntracked(root);
    // The tree exercises both sides: some files ignored, some re-included.
    expect(expected).toContain("nested/important.log");
    expect(expected).not.toContain("build/out.bin");
    const scan = await scanWorkspace(root);
    expect([...(scan.stamps?.keys() ?? [])].sort()).toEqual(expected);
  });

  it("reads git's syntax: escapes, sets, `**` only as whole segments", () => {
    const matcher = new GitignoreMatcher();
    const test = (text: string, key: string, folder = false) => matcher.ignored(parseGitignore(text), key, folder);
    expect(test("a**b", "axxb")).toBe(true);
    expect(test("a**b", "ax/xb")).toBe(false);
    expect(test("**/x", "a/b/x")).toBe(true);
    expect(test("x/**", "x")).toBe(false);
    expect(test("x/**", "x/a/b")).toBe(true);
    expect(test("[a-c]?", "b1")).toBe(true);
    expect(test("[^a-c]?", "b1")).toBe(false);
    expect(test("[[:alpha:]]", "a")).toBe(false);
    expect(test("\\!bang", "!bang")).toBe(true);
    expect(test("out/", "out", false)).toBe(false);
    expect(test("out/", "out", true)).toBe(true);
    expect(test("*.log\n!keep.log", "keep.log")).toBe(false);
  });

  it("a hostile .gitignore cannot make a scan slow: patterns are not backtracking regular expressions, and their cost is capped", async () => {
    const matcher = new GitignoreMatcher();
    const rules = parseGitignore(`${"*a".repeat(30)}*b\n${"a*".repeat(2000)}\n`);
    const name = "a".repeat(200);
    // With a backtracking regular expression this never ends (vitest's timeout fails it).
    expect(matcher.ignored(rules, name, false)).toBe(false);
    expect(matcher.ignored(rules, `${name}b`, false)).toBe(true);

    const { root } = await journaledSession();
    await writeFile(path.join(root, ".gitignore"), `${"*a".repeat(8000)}*b\n`.repeat(4));
    for (let i = 0; i < 20; i++) await writeFile(path.join(root, `${"a".repeat(100)}${i}`), "");
    const scan = await scanWorkspace(root);
    expect(scan.limitHit).toMatch(/the \.gitignore patterns cost more than \d+ steps to match/);
  });

  it("a pattern of many `**/` against a deep path costs its table and no more: matched within that budget, stopped with GitignoreTooCostlyError below it", () => {
    // Each `**/` could walk the rest of the path from every position it reaches (work growing with the path's length squared).
    const pattern = `${"**/".repeat(16)}`;
    const key = `${"a/".repeat(2000)}c`;
    const table = (16 + 2) * (key.length + 1);
    expect(new GitignoreMatcher(table).ignored(parseGitignore(`${pattern}c\n`), key, false)).toBe(true);
    expect(new GitignoreMatcher(table).ignored(parseGitignore(`${pattern}b\n`), key, false)).toBe(false);
    expect(() => new GitignoreMatcher(table - 1).ignored(parseGitignore(`${pattern}c\n`), key, false)).toThrow(GitignoreTooCostlyError);
  });

  it("a bracket set of thousands of characters costs a step per character in each cell: a hostile set stops with GitignoreTooCostlyError at once instead of running long", async () => {
    // One `*` then a set of 60,000 characters none of which a name holds: each of a name's cells tries every one of them.
    const set = `*[${"b".repeat(60_000)}]`;
    const name = "a".repeat(250);
    const table = (1 + 1 + 60_000) * (name.length + 1);
    expect(new GitignoreMatcher(table).ignored(parseGitignore(set), name, false)).toBe(false);
    expect(() => new GitignoreMatcher(table - 1).ignored(parseGitignore(set), name, false)).toThrow(GitignoreTooCostlyError);
    // With the default budget the second name is already too costly (uncharged, each name would cost ~15 million range checks
    // while counted as 750 steps: a scan of thousands of names would run for minutes).
    const matcher = new GitignoreMatcher();
    const rules = parseGitignore(set);
    expect(() => {
      for (let i = 0; i < 2000; i++) matcher.ignored(rules, `${name.slice(0, 240)}${i}`, false);
    }).toThrow(GitignoreTooCostlyError);

    const { root } = await journaledSession();
    await writeFile(path.join(root, ".gitignore"), `${set}\n`);
    for (let i = 0; i < 5; i++) await writeFile(path.join(root, `${name.slice(0, 240)}${i}`), "");
    const scan = await scanWorkspace(root);
    expect(scan.limitHit).toMatch(/the \.gitignore patterns cost more than \d+ steps to match/);
  });
});
