/**
 * An MCP `tools/call` result as a kosong tool result: text, images, audio,
 * embedded resources, resource links and structured content become content
 * parts the model reads; `isError` becomes an error result. Everything is
 * bounded (text characters, media bytes, number of parts) and text is made
 * printable, since the server is not trusted.
 */
import { audioURLPart, type ContentPart, imageURLPart, textPart, toolError, toolOk, type ToolReturnValue, videoURLPart } from "@kosong/core";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { capText, visibleLine, visibleText } from "./server-text.js";

/** Bounds on one result. */
export interface ResultLimits {
  /** Characters of text (all text parts together) the model gets; the rest is cut with a marker. */
  maxOutputChars: number;
  /** Bytes of base64 media (images, audio, video together); media beyond it is replaced by a note. */
  maxMediaBytes: number;
  /** Content blocks read; later ones are dropped with a note. */
  maxParts: number;
}

/** The default bounds: 30,000 characters, 8 MB of media, 100 parts. */
export const defaultResultLimits: Readonly<ResultLimits> = Object.freeze({ maxOutputChars: 30_000, maxMediaBytes: 8 * 1024 * 1024, maxParts: 100 });

/** What names the tool in messages: `tool` of `server`. */
export interface ToolLabel {
  server: string;
  tool: string;
}

/** Maps `result` (of `label`) to a tool return value within `limits`. */
export function toolResultFromMcp(result: CallToolResult, label: ToolLabel, limits: ResultLimits = defaultResultLimits): ToolReturnValue {
  const builder = new PartsBuilder(limits);
  const blocks = Array.isArray(result.content) ? result.content : [];
  for (const block of blocks.slice(0, limits.maxParts)) builder.add(block);
  if (blocks.length > limits.maxParts) builder.note(`[${blocks.length - limits.maxParts} more content blocks not shown]`);
  if (result.structuredContent !== undefined && !builder.hasText) builder.text(JSON.stringify(result.structuredContent));
  const output = builder.output();
  const brief = briefOf(output);
  if (result.isError === true) {
    return toolError({ message: `The MCP tool \`${visibleLine(label.tool)}\` of server \`${visibleLine(label.server)}\` reported an error.`, output, brief: brief || "MCP tool error" });
  }
  return toolOk({ output, brief });
}

class PartsBuilder {
  readonly #parts: ContentPart[] = [];
  #chars = 0;
  #mediaBytes = 0;
  #truncated = false;
  hasText = false;

  constructor(private readonly limits: ResultLimits) {}

  add(block: ContentBlock): void {
    switch (block.type) {
      case "text":
        this.text(block.text);
        return;
      case "image":
      case "audio":
        this.media(block.type, block.mimeType, block.data, "");
        return;
      case "resource": {
        const resource = block.resource;
        const label = `${visibleLine(resource.uri)}${resource.mimeType ? ` (${visibleLine(resource.mimeType)})` : ""}`;
        if ("text" in resource && typeof resource.text === "string") this.text(`[resource ${label}]\n${resource.text}`);
        else if ("blob" in resource && typeof resource.blob === "string") this.media("resource", resource.mimeType ?? "application/octet-stream", resource.blob, label);
        return;
      }
      case "resource_link": {
        const about = [block.mimeType && `(${block.mimeType})`, block.description].filter(Boolean).join(" ");
        this.text(`[resource link: ${block.name} <${block.uri}>${about ? ` ${about}` : ""}]`);
        return;
      }
      default:
        this.note(`[content of type "${visibleLine(String((block as { type: unknown }).type))}" not shown]`);
    }
  }

  /** Adds text, printable and within the character budget. */
  text(raw: string): void {
    this.hasText = true;
    if (this.#truncated) return;
    const text = visibleText(raw);
    const room = this.limits.maxOutputChars - this.#chars;
    const kept = text.length <= room ? text : capText(text, Math.max(room, 0));
    if (kept !== text) this.#truncated = true;
    this.#chars += Math.min(text.length, room);
    this.#parts.push(textPart(kept));
  }

  /** Adds a note that does not count against the budget. */
  note(text: string): void {
    this.#parts.push(textPart(text));
  }

  /** Adds an image, audio or video as a data URL, or a note when it is not one the model can take or too big. */
  private media(kind: string, mimeType: string, data: string, label: string): void {
    const mime = mimeType.toLowerCase();
    const what = label || `${kind} (${visibleLine(mimeType)})`;
    const make = mediaPart(mime);
    if (make === null || !isBase64(data)) {
      this.note(`[${what}: ${data.length} characters of ${make === null ? "binary data of a type the model cannot read" : "invalid base64"} not shown]`);
      return;
    }
    if (this.#mediaBytes + data.length > this.limits.maxMediaBytes) {
      this.note(`[${what}: ${data.length} bytes of media not shown: over the limit of ${this.limits.maxMediaBytes} bytes per result]`);
      return;
    }
    this.#mediaBytes += data.length;
    this.#parts.push(make(`data:${mime};base64,${data}`));
  }

  /** A string when every part is text, else the parts. */
  output(): string | ContentPart[] {
    if (this.#parts.every((part) => part.type === "text")) return this.#parts.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    return this.#parts;
  }
}

function mediaPart(mime: string): ((url: string) => ContentPart) | null {
  if (/^image\/(png|jpeg|gif|webp)$/.test(mime)) return (url) => imageURLPart(url);
  if (/^audio\/[a-z0-9.+-]+$/.test(mime)) return (url) => audioURLPart(url);
  if (/^video\/[a-z0-9.+-]+$/.test(mime)) return (url) => videoURLPart(url);
  return null;
}

function isBase64(data: string): boolean {
  return data.length > 0 && data.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(data);
}

function briefOf(output: string | ContentPart[]): string {
  const first = typeof output === "string" ? output : output.find((part) => part.type === "text")?.text ?? "";
  const line = first.split("\n", 1)[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
