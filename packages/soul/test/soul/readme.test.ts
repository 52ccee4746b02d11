/**
 * The README's complete agent is `examples/agent.ts` word for word, and it
 * runs as written, printing what the README says it prints; the same for its
 * subagent (`examples/subagent.ts`).
 */
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";

const packageDir = new URL("../../", import.meta.url);

/** The fenced block that follows `marker` in the README. */
function blockAfter(readme: string, marker: string): string {
  const start = readme.indexOf("```", readme.indexOf(marker));
  const body = readme.indexOf("\n", start) + 1;
  return readme.slice(body, readme.indexOf("```", body));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the README's agent", () => {
  it("is the example file, under 40 lines, and prints what the README shows", async () => {
    const readme = await readFile(new URL("README.md", packageDir), "utf8");
    const example = await readFile(new URL("examples/agent.ts", packageDir), "utf8");
    expect(blockAfter(readme, "## A complete agent")).toBe(example);
    expect(example.trimEnd().split("\n").length).toBeLessThan(40);

    const printed: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void printed.push(args.join(" ")));
    await import("../../examples/agent.js");
    expect(printed).toEqual(blockAfter(readme, "It prints:").trimEnd().split("\n"));
  });

  it("has a subagent: examples/subagent.ts word for word, printing the child's text nested and its tokens in the turn", async () => {
    const readme = await readFile(new URL("README.md", packageDir), "utf8");
    const section = readme.slice(readme.indexOf("### Subagents"));
    expect(blockAfter(section, "### Subagents")).toBe(await readFile(new URL("examples/subagent.ts", packageDir), "utf8"));
    const printed: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void printed.push(args.join(" ")));
    await import("../../examples/subagent.js");
    expect(printed).toEqual(blockAfter(section, "It prints:").trimEnd().split("\n"));
  });
});
