import type { ContentPart } from "@kosong/core";

/**
 * Tokens charged for a media part, whatever its URL or data: the bytes of a
 * `data:` URI are never tokenized as text. The defaults follow what
 * providers charge for a typical item: an image of about one megapixel costs
 * 765 tokens on OpenAI (high detail, 4 tiles) and about 1,400 on Anthropic
 * (width x height / 750), so 1,000; a short audio clip 1,000; a video 4,000.
 * Pass your own rule when you know your media better.
 */
export interface MediaTokenRule {
  image: number;
  audio: number;
  video: number;
}

/** The default {@link MediaTokenRule}. */
export const defaultMediaTokens: Readonly<MediaTokenRule> = Object.freeze({ image: 1000, audio: 1000, video: 4000 });

/** Tokens of a media part under `rule` (0 for text and think parts). */
export function mediaTokens(part: ContentPart, rule: Readonly<MediaTokenRule> = defaultMediaTokens): number {
  switch (part.type) {
    case "image_url":
      return rule.image;
    case "audio_url":
      return rule.audio;
    case "video_url":
      return rule.video;
    default:
      return 0;
  }
}
