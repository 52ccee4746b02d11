/**
 * Tool names the model sees: `mcp__server__tool`, only characters providers
 * accept, at most 64, different tools never under one name, and the same
 * names whatever order the servers are listed in.
 */
import { qualifiedToolNames } from "@kosong/mcp";
import { describe, expect, it } from "vitest";

describe("qualifiedToolNames", () => {
  it("keeps plain names as mcp__server__tool", () => {
    expect(qualifiedToolNames([{ server: "files", tool: "read_file" }, { server: "web-search", tool: "search" }])).toEqual(["mcp__files__read_file", "mcp__web-search__search"]);
  });

  it("cleans and shortens other names, with a hash of the original so cleaning never merges two tools", () => {
    const [dotted, spaced, long] = qualifiedToolNames([
      { server: "s", tool: "a.b" },
      { server: "s", tool: "a b" },
      { server: "s", tool: "t".repeat(100) },
    ]);
    expect(dotted).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
    expect(spaced).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(spaced);
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__s__t+_[0-9a-f]{8}$/);
  });

  it("gives every tool of a collision its own name, the same in any order", () => {
    const tools = [
      { server: "a", tool: "b__c" },
      { server: "a__b", tool: "c" },
      { server: "x", tool: "y" },
    ];
    const names = qualifiedToolNames(tools);
    expect(new Set(names).size).toBe(3);
    expect(names[2]).toBe("mcp__x__y");
    expect(names[0]).toMatch(/^mcp__a__b__c_[0-9a-f]{8}$/);
    const reversed = qualifiedToolNames([...tools].reverse());
    expect(reversed).toEqual([...names].reverse());
  });
});
