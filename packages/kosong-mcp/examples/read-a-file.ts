import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { step, userMessage } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { connectMcpServers } from "@kosong/mcp";

const dir = await mkdtemp(path.join(os.tmpdir(), "mcp-example-"));
await writeFile(path.join(dir, "hello.txt"), "Hello from an MCP server!");

// The reference filesystem server (npm install @modelcontextprotocol/server-filesystem), confined to `dir`;
// and a server that does not exist: it fails clearly, the others work.
// Outside a soul nobody is asked before a call, so a call without an approval is refused:
// this example approves every call.
const mcp = await connectMcpServers(
  {
    files: { command: "mcp-server-filesystem", args: [dir] },
    missing: { command: "no-such-mcp-server" },
  },
  { approval: { request: async () => ({ approved: true }) } },
);
for (const failure of mcp.failures) console.log(failure.message);
// -> MCP server `missing` could not be started: spawn no-such-mcp-server ENOENT
console.log(mcp.toolset.tools.some((tool) => tool.name === "mcp__files__read_text_file"));
// -> true

// A model that calls one of its tools (scripted here; any ChatProvider works the same).
const call = { id: "c1", name: "mcp__files__read_text_file", arguments: JSON.stringify({ path: path.join(dir, "hello.txt") }) };
const provider = new ScriptedChatProvider([`tool_call: ${JSON.stringify(call)}`]);
const result = await step(provider, "You read files.", mcp.toolset, [userMessage("Read hello.txt")]);
const [read] = await result.toolResults();
console.log(read!.return_value.output);
// -> Hello from an MCP server!
await mcp.close();
