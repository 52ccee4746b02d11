/** Images read for the model from a real workspace: recognised by their bytes, capped, scaled down with sharp. */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { FileRegistry } from "@kosong/soul";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { readImageInside } from "../src/media/read-image-inside.js";
import { openWorkspace } from "../src/tools/workspace.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

async function workspaceWith(files: Record<string, Buffer>) {
  const root = await tempDir();
  for (const [name, bytes] of Object.entries(files)) await writeFile(path.join(root, name), bytes);
  return openWorkspace(root, new FileRegistry());
}

/** Random pixels: a PNG of them hardly compresses, a JPEG does. */
const noisy = (width: number, height: number) => sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } });

describe("readImageInside", () => {
  it("sends a small image as it is, and scales a wide GIF down to a PNG within the side limit", async () => {
    const small = await sharp({ create: { width: 10, height: 10, channels: 3, background: "#123456" } }).png().toBuffer();
    const wide = await sharp({ create: { width: 2500, height: 50, channels: 3, background: "#654321" } }).gif().toBuffer();
    const workspace = await workspaceWith({ "small.png": small, "wide.gif": wide });
    const same = await readImageInside(workspace, "small.png");
    expect(same.ok && same.part.image_url.url).toBe(`data:image/png;base64,${small.toString("base64")}`);
    const scaled = await readImageInside(workspace, "wide.gif");
    expect(scaled.ok && [scaled.image.mediaType, scaled.image.width, scaled.image.height, scaled.image.scaledFrom]).toEqual(["image/png", 2000, 40, "2500x50"]);
  });

  it("refuses a file over the size cap unread, re-encodes as JPEG when still over the byte limit, and refuses what cannot fit", async () => {
    const photo = await noisy(300, 300).png().toBuffer();
    const workspace = await workspaceWith({ "photo.png": photo });
    const tooBig = await readImageInside(workspace, "photo.png", { maxFileBytes: 1000, maxBytes: 1_000_000, maxSide: 2000 });
    expect(!tooBig.ok && tooBig.failure.message).toBe(`\`photo.png\` is ${photo.length} bytes; images over 1000 bytes are not read.`);
    const jpeg = await readImageInside(workspace, "photo.png", { maxFileBytes: 10_000_000, maxBytes: 100_000, maxSide: 2000 });
    expect(jpeg.ok && jpeg.image.mediaType).toBe("image/jpeg");
    expect(jpeg.ok && jpeg.image.bytes.length).toBeLessThanOrEqual(100_000);
    const never = await readImageInside(workspace, "photo.png", { maxFileBytes: 10_000_000, maxBytes: 100, maxSide: 2000 });
    expect(!never.ok && never.failure.message).toBe("`photo.png` cannot be sent: it stays over 100 bytes even scaled down.");
  });

  it("refuses a damaged image with an error result: one that has to be scaled (a PNG cut short, a JPEG header over noise) is not a thrown decoder error, a small one is not sent as it is", async () => {
    const large = await sharp({ create: { width: 3000, height: 40, channels: 3, background: "#336699" } }).png().toBuffer();
    const header = await sharp({ create: { width: 2500, height: 2500, channels: 3, background: "#000" } }).jpeg().toBuffer();
    const small = await noisy(100, 100).png().toBuffer();
    const workspace = await workspaceWith({ "cut.png": large.subarray(0, large.length - 200), "noise.jpg": Buffer.concat([header.subarray(0, 400), randomBytes(5000)]), "small-cut.png": small.subarray(0, small.length / 2) });
    for (const name of ["cut.png", "noise.jpg", "small-cut.png"]) {
      const read = await readImageInside(workspace, name);
      expect(!read.ok && read.failure.message).toMatch(new RegExp(`^\`${name.replace(".", "\\.")}\` cannot be sent: cannot decode the image: `));
    }
  });
});
