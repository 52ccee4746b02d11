/**
 * Scaling an image down to {@link ImageLimits} with sharp (libvips, prebuilt
 * for the platform from the npm registry), loaded only when an image needs it.
 */
import type { ImageLimits } from "./image-limits.js";
import type { ImageMediaType } from "./image-type.js";

/** An image as it is sent. */
export interface FittedImage {
  bytes: Buffer;
  mediaType: ImageMediaType;
  width: number;
  height: number;
  /** Set when the image was scaled down: its original size, e.g. `4000x3000`. */
  scaledFrom: string | null;
}

/** Thrown when an image cannot be decoded or brought within the limits. */
export class ImageFitError extends Error {
  override name = "ImageFitError";
}

/** `bytes` (of `mediaType`) as sent: unchanged when within `limits` (and every pixel decodes), else scaled to fit (JPEG when still too large). */
export async function fitImage(bytes: Buffer, mediaType: ImageMediaType, limits: Readonly<ImageLimits>): Promise<FittedImage> {
  const sharp = (await import("sharp")).default;
  let meta;
  try {
    meta = await sharp(bytes, { limitInputPixels: 100_000_000 }).metadata();
  } catch (error) {
    throw undecodable(error);
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (bytes.length <= limits.maxBytes && width <= limits.maxSide && height <= limits.maxSide) {
    // Every pixel is decoded once before the file is sent as it is: a damaged image in the history would make the provider refuse every later request of the session.
    await sharp(bytes).stats().catch((error: unknown) => {
      throw undecodable(error);
    });
    return { bytes, mediaType, width, height, scaledFrom: null };
  }
  let out;
  try {
    out = await scaleDown(sharp, bytes, mediaType, limits);
  } catch (error) {
    // The header read fine, the pixels do not (a file cut short, a damaged body).
    throw undecodable(error);
  }
  if (out.data.length > limits.maxBytes) throw new ImageFitError(`it stays over ${limits.maxBytes} bytes even scaled down`);
  return { bytes: out.data, mediaType: out.mediaType, width: out.info.width, height: out.info.height, scaledFrom: `${width}x${height}` };
}

/** `bytes` scaled to fit `limits` (PNG stays PNG, GIF becomes PNG, JPEG when still too large): the decoder's error is thrown as it is. */
async function scaleDown(sharp: typeof import("sharp").default, bytes: Buffer, mediaType: ImageMediaType, limits: Readonly<ImageLimits>) {
  const resize = { width: limits.maxSide, height: limits.maxSide, fit: "inside" as const, withoutEnlargement: true };
  // GIF frames beyond the first are dropped: a model sees one still anyway.
  const png = mediaType === "image/png" || mediaType === "image/gif";
  let out = await sharp(bytes).rotate().resize(resize)[png ? "png" : mediaType === "image/webp" ? "webp" : "jpeg"]().toBuffer({ resolveWithObject: true });
  let outType: ImageMediaType = png ? "image/png" : mediaType === "image/webp" ? "image/webp" : "image/jpeg";
  for (const quality of [85, 70, 50]) {
    if (out.data.length <= limits.maxBytes) break;
    out = await sharp(bytes).rotate().resize(resize).flatten({ background: "#ffffff" }).jpeg({ quality }).toBuffer({ resolveWithObject: true });
    outType = "image/jpeg";
  }
  return { ...out, mediaType: outType };
}

function undecodable(error: unknown): ImageFitError {
  return new ImageFitError(`cannot decode the image: ${(error as Error).message}`, { cause: error });
}
