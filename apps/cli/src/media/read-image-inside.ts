/**
 * Reading an image of the workspace for the model: opened through the
 * confined primitives (like ReadFile), refused over the file-size cap before
 * it is read, recognised by its bytes, scaled down to the provider limits.
 */
import { type ImageURLPart, toolError, type ToolReturnValue } from "@kosong/core";
import { openForRead } from "../tools/confined-fs.js";
import { fileToolFailure } from "../tools/tool-failure.js";
import type { Workspace } from "../tools/workspace.js";
import { fitImage, type FittedImage, ImageFitError } from "./fit-image.js";
import { defaultImageLimits, type ImageLimits } from "./image-limits.js";
import { sniffImageType } from "./image-type.js";

/** An image read: its real path, the part to send and how it was sent; or the error result to return. */
export type ImageRead = { ok: true; file: string; part: ImageURLPart; image: FittedImage } | { ok: false; failure: ToolReturnValue };

/** Reads `requested` (a path inside the workspace) as an image part with a `data:` URL. */
export async function readImageInside(workspace: Workspace, requested: string, limits: Readonly<ImageLimits> = defaultImageLimits): Promise<ImageRead> {
  let bytes: Buffer;
  let file: string;
  try {
    const opened = await openForRead(workspace, requested);
    try {
      file = opened.path;
      if (opened.stats.size > limits.maxFileBytes) return refuse(`\`${requested}\` is ${opened.stats.size} bytes; images over ${limits.maxFileBytes} bytes are not read.`, "Image too large");
      bytes = await opened.handle.readFile();
    } finally {
      await opened.handle.close();
    }
  } catch (error) {
    return { ok: false, failure: fileToolFailure(error, requested) };
  }
  const mediaType = sniffImageType(bytes);
  if (mediaType === null) return refuse(`\`${requested}\` is not a PNG, JPEG, GIF or WebP image.`, "Not an image");
  try {
    const image = await fitImage(bytes, mediaType, limits);
    const url = `data:${image.mediaType};base64,${image.bytes.toString("base64")}`;
    return { ok: true, file, part: { type: "image_url", image_url: { url, id: null } }, image };
  } catch (error) {
    if (error instanceof ImageFitError) return refuse(`\`${requested}\` cannot be sent: ${error.message}.`, "Image refused");
    throw error;
  }
}

function refuse(message: string, brief: string): ImageRead {
  return { ok: false, failure: toolError({ message, brief }) };
}
