import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  EmptyToolset,
  imageURLPart,
  KosongError,
  parseToolArguments,
  SimpleToolset,
  textPart,
  toolBrief,
  ToolCancelledError,
  toolCall,
  toolError,
  ToolNotFoundError,
  toolOk,
  ToolParseError,
  toolResultToMessage,
  ToolRuntimeError,
  ToolValidateError,
  type CallableTool,
} from "@kosong/core";

const echo = defineTool({
  name: "echo",
  description: "Echo the arguments back.",
  parameters: z.object({ text: z.string().default("") }),
  execute: ({ text }) => `echo:${text}`,
});

describe("SimpleToolset", () => {
  it("lists the definitions of its tools and replaces a tool of the same name", () => {
    const toolset = new SimpleToolset([echo]);
    expect(toolset.tools).toEqual([echo.definition]);
    const other = defineTool({ name: "echo", description: "v2", parameters: z.object({}), execute: () => "v2" });
    toolset.add(other);
    expect(toolset.tools.map((t) => t.description)).toEqual(["v2"]);
    expect(toolset.get("echo")).toBe(other);
  });

  it("removes a tool, and says so clearly when there is none", () => {
    const toolset = new SimpleToolset([echo]);
    toolset.remove("echo");
    expect(toolset.tools).toEqual([]);
    expect(() => toolset.remove("echo")).toThrow(KosongError);
    expect(() => toolset.remove("echo")).toThrow("Tool `echo` not found in the toolset.");
  });

  it("runs the called tool with the JSON-decoded arguments", async () => {
    const result = await new SimpleToolset([echo]).handle(toolCall("c1", "echo", { text: "hi" }));
    expect(result).toEqual({ tool_call_id: "c1", return_value: toolOk("echo:hi") });
  });

  it("reads null or empty arguments as {}", async () => {
    const toolset = new SimpleToolset([echo]);
    expect((await toolset.handle(toolCall("c1", "echo", null))).return_value.output).toBe("echo:");
    expect((await toolset.handle(toolCall("c2", "echo", ""))).return_value.output).toBe("echo:");
  });

  it("tolerates raw control characters inside strings, as json.loads(strict=False) does", async () => {
    const result = await new SimpleToolset([echo]).handle(toolCall("c1", "echo", '{"text": "line1\nline2\ttab"}'));
    expect(result.return_value.output).toBe("echo:line1\nline2\ttab");
    expect(parseToolArguments('{"a": "x\ny"}')).toEqual({ a: "x\ny" });
  });

  it("answers an unknown tool with ToolNotFoundError", async () => {
    const result = await new SimpleToolset([echo]).handle(toolCall("c1", "ech0", "{}"));
    expect(result.tool_call_id).toBe("c1");
    expect(ToolNotFoundError.isInstance(result.return_value)).toBe(true);
    expect(result.return_value.message).toBe("Tool `ech0` not found");
    expect(toolBrief(result.return_value)).toBe("Tool `ech0` not found");
  });

  it("answers unparsable arguments with ToolParseError", async () => {
    const result = await new SimpleToolset([echo]).handle(toolCall("c1", "echo", '{"text": "unterminated'));
    expect(ToolParseError.isInstance(result.return_value)).toBe(true);
    expect(result.return_value.message).toMatch(/^Error parsing JSON arguments: .+/);
    expect(toolBrief(result.return_value)).toBe("Invalid arguments");
  });

  it("answers invalid arguments with ToolValidateError", async () => {
    const result = await new SimpleToolset([echo]).handle(toolCall("c1", "echo", { text: 5 }));
    expect(ToolValidateError.isInstance(result.return_value)).toBe(true);
    expect(result.return_value.message).toContain("at text");
  });

  it("answers a custom tool that rejects with ToolRuntimeError", async () => {
    const raw: CallableTool = {
      name: "raw",
      definition: { name: "raw", description: "d", parameters: { type: "object" } },
      call: () => Promise.reject(new Error("socket hang up")),
    };
    const result = await new SimpleToolset([raw]).handle(toolCall("c1", "raw", "{}"));
    expect(ToolRuntimeError.isInstance(result.return_value)).toBe(true);
    expect(result.return_value.message).toBe("Error running tool: socket hang up");
  });

  it("does not start a tool whose signal is already aborted", async () => {
    let ran = false;
    const tool = defineTool({ name: "t", description: "d", parameters: z.object({}), execute: () => ((ran = true), "x") });
    const controller = new AbortController();
    controller.abort();
    const result = await new SimpleToolset([tool]).handle(toolCall("c1", "t", "{}"), { signal: controller.signal });
    expect(ToolCancelledError.isInstance(result.return_value)).toBe(true);
    expect(ran).toBe(false);
  });
});

describe("EmptyToolset", () => {
  it("offers no tools and answers every call with ToolNotFoundError", async () => {
    const toolset = new EmptyToolset();
    expect(toolset.tools).toEqual([]);
    const result = await toolset.handle(toolCall("c1", "anything", "{}"));
    expect(result.return_value.message).toBe("Tool `anything` not found");
  });
});

describe("ToolNotFoundError", () => {
  it("can hint at close names", () => {
    expect(new ToolNotFoundError("Shel", ["Shell"]).message).toBe("Tool `Shel` not found - did you mean `Shell`?");
  });
});

describe("toolResultToMessage", () => {
  it("wraps an error message in <system>ERROR: ...</system>, followed by any output", () => {
    const message = toolResultToMessage({ tool_call_id: "c1", return_value: toolError({ message: "file too large", output: "partial" }) });
    expect(message).toEqual({
      role: "tool",
      content: [textPart("<system>ERROR: file too large</system>"), textPart("partial")],
      tool_call_id: "c1",
    });
    expect(toolResultToMessage({ tool_call_id: "c2", return_value: new ToolNotFoundError("x") }).content).toEqual([
      textPart("<system>ERROR: Tool `x` not found</system>"),
    ]);
  });

  it("adds kimi-cli's warning to a runtime error", () => {
    const message = toolResultToMessage({ tool_call_id: "c1", return_value: new ToolRuntimeError("boom") });
    expect(message.content).toEqual([
      textPart("<system>ERROR: Error running tool: boom\nThis is an unexpected error and the tool is probably not working.</system>"),
    ]);
  });

  it("puts a success message in <system> tags before the output", () => {
    const message = toolResultToMessage({
      tool_call_id: "c1",
      return_value: toolOk({ output: [textPart("a"), imageURLPart("i.png")], message: "2 items" }),
    });
    expect(message.content).toEqual([textPart("<system>2 items</system>"), textPart("a"), imageURLPart("i.png")]);
  });

  it("writes a plain output as the content and says when the output is empty", () => {
    expect(toolResultToMessage({ tool_call_id: "c1", return_value: toolOk("a.py\nb.py") })).toEqual({
      role: "tool",
      content: [textPart("a.py\nb.py")],
      tool_call_id: "c1",
    });
    expect(toolResultToMessage({ tool_call_id: "c1", return_value: toolOk("") }).content).toEqual([
      textPart("<system>Tool output is empty.</system>"),
    ]);
  });
});
