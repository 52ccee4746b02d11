/**
 * An ACP prompt (content blocks) as the user input of a soul turn: text as
 * text, images as data URLs, embedded text resources as text with their URI,
 * resource links as a mention of their URI.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ContentPart } from "@kosong/core";
import type { UserInput } from "@kosong/soul";

/** The turn input of `prompt`. */
export function promptInput(prompt: readonly ContentBlock[]): UserInput {
  const parts = prompt.flatMap((block): ContentPart[] => {
    switch (block.type) {
      case "text":
        return [{ type: "text", text: block.text }];
      case "image":
        return [{ type: "image_url", image_url: { url: block.uri && !block.data ? block.uri : `data:${block.mimeType};base64,${block.data}`, id: null } }];
      case "resource_link":
        return [{ type: "text", text: `@${block.uri}` }];
      case "resource":
        return "text" in block.resource ? [{ type: "text", text: `<resource uri="${block.resource.uri}">\n${block.resource.text}\n</resource>` }] : [{ type: "text", text: `@${block.resource.uri}` }];
      default:
        return [];
    }
  });
  return parts.length === 1 && parts[0]!.type === "text" ? parts[0]!.text : parts;
}
