import { readFileSync } from "node:fs";

/** One recorded Anthropic stream event (the parsed `data:` of a frame). */
export interface RecordedEvent {
  type: string;
  index?: number;
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string; signature?: string };
  content_block?: { type: string; id?: string; name?: string; data?: string };
}

/** The events of a recorded `.sse` file (pings and error frames included), parsed independently of the SDK. */
export function recordedEvents(file: string): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  for (const frame of readFileSync(file, "utf8").split(/\n\n+/)) {
    const data = frame
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (data) events.push(JSON.parse(data) as RecordedEvent);
  }
  return events;
}

/** What the recording says each content block holds, in block order: deltas concatenated. */
export interface RecordedBlock {
  type: string;
  text: string;
  signature: string;
  id?: string;
  name?: string;
  data?: string;
}

export function recordedBlocks(file: string): RecordedBlock[] {
  const blocks: RecordedBlock[] = [];
  for (const event of recordedEvents(file)) {
    if (event.type === "content_block_start" && event.content_block) {
      const { type, id, name, data } = event.content_block;
      blocks[event.index!] = { type, text: "", signature: "", id, name, data };
    } else if (event.type === "content_block_delta" && event.delta) {
      const block = blocks[event.index!]!;
      const d = event.delta;
      block.text += d.text ?? d.thinking ?? d.partial_json ?? "";
      block.signature += d.signature ?? "";
    }
  }
  return blocks;
}
