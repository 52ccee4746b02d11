/**
 * Request conversion for the OpenAI Responses API: the kosong message model
 * to `input` items and tool definitions, exactly as upstream kosong's
 * `OpenAIResponses` provider builds them. Pure functions, no SDK import.
 */
import type { Tool } from "../chat-provider.js";
import type { ContentPart, Message } from "../message.js";
import { extractText } from "../message.js";

/** `input_text` content. */
export interface ResponsesInputText {
  type: "input_text";
  text: string;
}

/** `input_image` content (`detail` is set in messages, absent in tool outputs, as upstream). */
export interface ResponsesInputImage {
  type: "input_image";
  image_url: string;
  detail?: "auto";
}

/** `input_file` content (audio is sent as a file: the API no longer takes `input_audio` here). */
export interface ResponsesInputFile {
  type: "input_file";
  file_url?: string;
  file_data?: string;
  filename?: string;
}

/** Content of a user/system/developer message item. */
export type ResponsesInputContent = ResponsesInputText | ResponsesInputImage | ResponsesInputFile;

/** `output_text` content of an assistant message item. */
export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations: [];
}

/** The system prompt as the first input item (string content, no `type`). */
export interface ResponsesInstructionItem {
  role: "system" | "developer";
  content: string;
}

/** A user, system or developer message. */
export interface ResponsesInputMessageItem {
  type: "message";
  role: "user" | "system" | "developer";
  content: ResponsesInputContent[];
}

/** An assistant message replayed as output (the item `id` is left out on purpose, as upstream). */
export interface ResponsesOutputMessageItem {
  type: "message";
  role: "assistant";
  content: ResponsesOutputText[];
}

/** A reasoning item replayed with its summaries and encrypted content. */
export interface ResponsesReasoningItem {
  type: "reasoning";
  summary: Array<{ type: "summary_text"; text: string }>;
  encrypted_content: string | null;
}

/** A function call the assistant made; `call_id` is the kosong tool call id. */
export interface ResponsesFunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}

/** The result of a function call. */
export interface ResponsesFunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  output: string | ResponsesInputContent[];
}

/** Any item of the request's `input`. */
export type ResponsesInputItem =
  | ResponsesInstructionItem
  | ResponsesInputMessageItem
  | ResponsesOutputMessageItem
  | ResponsesReasoningItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem;

/** A function tool definition. */
export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: Tool["parameters"];
  strict: false;
}

/** How tool results are sent: as content items (default) or as their text joined by newlines. */
export type ToolMessageConversion = "extract_text";

/** Options of {@link convertResponsesInput}. */
export interface ResponsesInputOptions {
  /** The role of the system prompt and of system messages: `developer` for OpenAI models, else `system`. */
  systemRole: "system" | "developer";
  /** Send tool results as plain text instead of content items. */
  toolMessageConversion?: ToolMessageConversion | null;
}

const openAIModelPattern = /^(?:gpt-(?:3\.5|4|5)|o[1-9](?:-|$)|chatgpt-|codex-|computer-use-)/;

/**
 * Whether `model` is one of OpenAI's own models, which take the system prompt
 * in the `developer` role. Upstream checks the SDK's list of model names; the
 * TS SDK has that list only as a type, so this matches its name families
 * (`gpt-3.5*`, `gpt-4*`, `gpt-5*`, `o1`…`o9`, `chatgpt-*`, `codex-*`,
 * `computer-use-*`). Open-weight models such as `gpt-oss-*` keep `system`.
 */
export function isOpenAIModel(model: string): boolean {
  return openAIModelPattern.test(model);
}

/** The request `input` for a system prompt and a history. */
export function convertResponsesInput(
  systemPrompt: string,
  history: readonly Message[],
  options: ResponsesInputOptions,
): ResponsesInputItem[] {
  const input: ResponsesInputItem[] = [];
  if (systemPrompt) input.push({ role: options.systemRole, content: systemPrompt });
  for (const message of history) appendMessage(input, message, options);
  return input;
}

/** A kosong tool as a Responses function tool (`strict: false`, as upstream). */
export function convertResponsesTool(tool: Tool): ResponsesFunctionTool {
  return { type: "function", name: tool.name, description: tool.description, parameters: tool.parameters, strict: false };
}

function appendMessage(out: ResponsesInputItem[], message: Message, options: ResponsesInputOptions): void {
  if (message.role === "tool") {
    const output =
      options.toolMessageConversion === "extract_text"
        ? extractText(message, "\n")
        : toolOutputItems(message.content);
    out.push({ type: "function_call_output", call_id: message.tool_call_id ?? "", output });
    return;
  }
  const role = message.role === "system" ? options.systemRole : message.role;
  const content = message.content;
  let pendingStart = -1;
  const flush = (end: number): void => {
    if (pendingStart < 0) return;
    const parts = content.slice(pendingStart, end);
    pendingStart = -1;
    if (role === "assistant") out.push({ type: "message", role, content: outputTextItems(parts) });
    else out.push({ type: "message", role, content: inputContentItems(parts) });
  };
  let i = 0;
  while (i < content.length) {
    const part = content[i]!;
    if (part.type !== "think") {
      if (pendingStart < 0) pendingStart = i;
      i++;
      continue;
    }
    flush(i);
    // Consecutive think parts with the same encrypted content form one reasoning item.
    const encrypted = part.encrypted ?? null;
    const summary = [{ type: "summary_text" as const, text: part.think }];
    i++;
    while (i < content.length) {
      const next = content[i]!;
      if (next.type !== "think" || (next.encrypted ?? null) !== encrypted) break;
      summary.push({ type: "summary_text", text: next.think });
      i++;
    }
    out.push({ type: "reasoning", summary, encrypted_content: encrypted });
  }
  flush(content.length);
  for (const call of message.tool_calls ?? []) {
    out.push({
      type: "function_call",
      arguments: call.function.arguments || "{}",
      call_id: call.id,
      name: call.function.name,
    });
  }
}

function inputContentItems(parts: readonly ContentPart[]): ResponsesInputContent[] {
  const items: ResponsesInputContent[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      if (part.text) items.push({ type: "input_text", text: part.text });
    } else if (part.type === "image_url") {
      items.push({ type: "input_image", detail: "auto", image_url: part.image_url.url });
    } else if (part.type === "audio_url") {
      const file = audioAsInputFile(part.audio_url.url);
      if (file) items.push(file);
    }
  }
  return items;
}

function outputTextItems(parts: readonly ContentPart[]): ResponsesOutputText[] {
  const items: ResponsesOutputText[] = [];
  for (const part of parts) {
    if (part.type === "text" && part.text) items.push({ type: "output_text", text: part.text, annotations: [] });
  }
  return items;
}

function toolOutputItems(parts: readonly ContentPart[]): ResponsesInputContent[] {
  const items: ResponsesInputContent[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      if (part.text) items.push({ type: "input_text", text: part.text });
    } else if (part.type === "image_url") {
      items.push({ type: "input_image", image_url: part.image_url.url });
    } else if (part.type === "audio_url") {
      const file = audioAsToolOutputFile(part.audio_url.url);
      if (file) items.push(file);
    }
  }
  return items;
}

function isHttpURL(url: string): boolean {
  return url.startsWith("http://") || url.startsWith("https://");
}

/** Audio in a message: a remote URL as `file_url`; an mp3/wav data URI as `file_data` with a file name. */
function audioAsInputFile(url: string): ResponsesInputFile | null {
  if (url.startsWith("data:audio/")) {
    const comma = url.indexOf(",");
    if (comma < 0) return null;
    const subtype = (url.slice("data:audio/".length, comma).split(";")[0] ?? "").toLowerCase();
    const ext = subtype === "mp3" || subtype === "mpeg" ? "mp3" : subtype === "wav" ? "wav" : null;
    if (ext === null) return null;
    return { type: "input_file", file_data: url.slice(comma + 1), filename: `inline.${ext}` };
  }
  return isHttpURL(url) ? { type: "input_file", file_url: url } : null;
}

/** Audio in a tool result: a remote URL as `file_url`; a data URI as `file_data`. */
function audioAsToolOutputFile(url: string): ResponsesInputFile | null {
  if (isHttpURL(url)) return { type: "input_file", file_url: url };
  if (url.startsWith("data:audio/")) {
    const comma = url.indexOf(",");
    return comma < 0 ? null : { type: "input_file", file_data: url.slice(comma + 1) };
  }
  return null;
}
