/** The image formats kosong sends to a model, recognised by their first bytes (never by the file name alone). */

/** A media type kosong sends as an image. */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** File name endings that mark an image (a mention or a path is taken as one). */
export const imageExtensions: readonly string[] = [".png", ".jpg", ".jpeg", ".gif", ".webp"];

/** Whether `name` ends like an image file. */
export function looksLikeImageName(name: string): boolean {
  const lower = name.toLowerCase();
  return imageExtensions.some((extension) => lower.endsWith(extension));
}

/** The media type of `bytes` by their signature, or null when they are none of PNG, JPEG, GIF, WebP. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | null {
  const starts = (signature: readonly number[], at = 0) => signature.every((byte, i) => bytes[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return null;
}
