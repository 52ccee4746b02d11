import type { StreamedMessagePart, StreamedToolCall, ToolCallPart } from "../message.js";

/** `text` cut into pieces of at most `size` UTF-16 units, never between the halves of a surrogate pair. */
export function splitText(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end += end - 1 > start ? -1 : 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/**
 * One part as a provider would stream it in token-sized chunks: text and
 * think split into pieces (a think part's signature on its last piece only),
 * a tool call's arguments split into the call plus argument fragments, and an
 * argument fragment into smaller fragments. Merging the chunks back (as
 * `generate` does) gives the original part. Media parts are never split.
 */
export function chunkPart(part: StreamedMessagePart, size: number): StreamedMessagePart[] {
  switch (part.type) {
    case "text":
      return splitText(part.text, size).map((text) => ({ type: "text", text }));
    case "think": {
      const pieces = splitText(part.think, size);
      const last = pieces.length - 1;
      return pieces.map((think, i) => ({ type: "think", think, encrypted: i === last ? (part.encrypted ?? null) : null }));
    }
    case "function": {
      const args = part.function.arguments;
      if (args === null || args.length <= size) return [part];
      const [first, ...rest] = splitText(args, size);
      const call: StreamedToolCall = { ...part, function: { name: part.function.name, arguments: first! } };
      return [call, ...rest.map((fragment) => fragmentPart(fragment, part.index))];
    }
    case "tool_call_part": {
      const args = part.arguments_part;
      if (args === null || args.length <= size) return [part];
      return splitText(args, size).map((fragment) => fragmentPart(fragment, part.index));
    }
    default:
      return [part];
  }
}

function fragmentPart(fragment: string, index: number | undefined): ToolCallPart {
  return index === undefined
    ? { type: "tool_call_part", arguments_part: fragment }
    : { type: "tool_call_part", arguments_part: fragment, index };
}
