/**
 * The limits an image is held to before it is sent: what the providers
 * accept (Anthropic: 5 MB of base64 per image, and images wider or taller
 * than about 2,000 px are scaled down by the API anyway; OpenAI: 20 MB, long
 * side scaled to 2,048 px), so the smaller of each.
 */
export interface ImageLimits {
  /** A file larger than this is refused before it is decoded (bytes). */
  maxFileBytes: number;
  /** An image larger than this after encoding is scaled down (bytes of the file, not of base64). */
  maxBytes: number;
  /** An image wider or taller than this is scaled down to fit (pixels). */
  maxSide: number;
}

/** The default {@link ImageLimits}: 20 MiB files, 3.75 MiB sent (5 MB as base64), 2,000 px sides. */
export const defaultImageLimits: Readonly<ImageLimits> = Object.freeze({ maxFileBytes: 20 * 1024 * 1024, maxBytes: 3_750_000, maxSide: 2000 });
