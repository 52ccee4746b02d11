/** The MCP servers an ACP editor sends, as @kosong/mcp's config: [{name, value}] arrays become maps; SSE and invalid servers are reported and left out. */
import { describe, expect, it } from "vitest";
import { acpMcpConfig } from "../src/agent/acp-mcp-config.js";

describe("acpMcpConfig", () => {
  it("converts stdio and http servers, and reports SSE and invalid servers instead of failing the session", () => {
    const warnings: string[] = [];
    const config = acpMcpConfig(
      [
        { name: "files", command: "mcp-files", args: ["--root", "."], env: [{ name: "A", value: "1" }, { name: "A", value: "2" }, { name: "B", value: "x" }] },
        { type: "http", name: "remote", url: "https://example.com/mcp", headers: [{ name: "Authorization", value: "Bearer t" }] },
        { type: "sse", name: "old\u001b[2J", url: "https://example.com/sse", headers: [] },
        { type: "http", name: "bad", url: "file:///etc/passwd", headers: [] },
      ],
      (line) => warnings.push(line),
    );
    expect(config).toEqual({
      files: { command: "mcp-files", args: ["--root", "."], env: { A: "2", B: "x" } },
      remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } },
    });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/uses SSE/);
    expect(warnings[0]).not.toContain("\u001b");
    expect(warnings[1]).toMatch(/bad.*http: or https: URL/s);
  });
});
