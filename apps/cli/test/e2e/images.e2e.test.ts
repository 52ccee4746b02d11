/**
 * Images in, the built binary against the fake provider server: an
 * `@image` mention (and a pasted image path) reaches OpenAI and Anthropic
 * as an image part in each API's shape, scaled down when over the limits;
 * `ReadMediaFile` lets the model look at an image of the workspace; a model
 * without image input gets a clear error before any request.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "./fake-model.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

type Part = { type: string; [key: string]: unknown };

async function setup() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  // A wide PNG (over the 2,000 px side limit), a small JPEG and a small WebP.
  await writeFile(path.join(cwd, "wide.png"), await sharp({ create: { width: 3000, height: 300, channels: 3, background: "#3366cc" } }).png().toBuffer());
  await writeFile(path.join(cwd, "photo.jpg"), await sharp({ create: { width: 40, height: 30, channels: 3, background: "#cc3333" } }).jpeg().toBuffer());
  await writeFile(path.join(cwd, "icon.webp"), await sharp({ create: { width: 16, height: 16, channels: 4, background: "#00ff0080" } }).webp().toBuffer());
  await writeFile(path.join(cwd, "fake.png"), "not an image at all\n");
  await writeFile(path.join(home, "outside.png"), await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } }).png().toBuffer());
  const openai = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
  const anthropic = { ANTHROPIC_API_KEY: "sk-ant-test" };
  const run = (args: string[], env: Record<string, string>) => runKosong(args, { cwd, home, env });
  return { cwd, home, run, openai, anthropic };
}

function lastUserParts(n: number): Part[] {
  const messages = server.requests[n]!.body!.messages as { role: string; content: string | Part[] }[];
  const content = messages.filter((m) => m.role === "user").at(-1)!.content;
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

async function dimensionsOf(base64: string): Promise<{ width: number; height: number; format: string }> {
  const meta = await sharp(Buffer.from(base64, "base64")).metadata();
  return { width: meta.width!, height: meta.height!, format: meta.format };
}

describe("images in, the built binary against the fake provider server", { timeout: 90_000 }, () => {
  it("sends an @image mention to OpenAI as an image_url part, a wide PNG scaled down to 2,000 px", async () => {
    const { run, openai } = await setup();
    server.enqueue({ message: say("A blue bar."), usage });
    const result = await run(["-p", "what is in @wide.png?", "--model", "gpt-4.1"], openai);
    expect(result.code, result.stderr).toBe(0);
    const parts = lastUserParts(0);
    expect(parts[0]).toMatchObject({ type: "text", text: "what is in @wide.png?" });
    const image = parts.find((p) => p.type === "image_url") as { image_url: { url: string } } | undefined;
    expect(image?.image_url.url).toMatch(/^data:image\/png;base64,/);
    expect(await dimensionsOf(image!.image_url.url.split(",")[1]!)).toEqual({ width: 2000, height: 200, format: "png" });
  });

  it("sends an @image mention and a pasted image path to Anthropic as base64 image blocks", async () => {
    const { run, anthropic, cwd } = await setup();
    server.enqueue({ message: say("Red and green."), usage });
    const result = await run(["-p", `compare @photo.jpg with '${path.join(cwd, "icon.webp")}'`, "--provider", "anthropic", "--base-url", server.url], anthropic);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]!.path).toBe("/v1/messages");
    const images = lastUserParts(0).filter((p) => p.type === "image") as unknown as { source: { type: string; media_type: string; data: string } }[];
    expect(images.map((i) => [i.source.type, i.source.media_type])).toEqual([
      ["base64", "image/jpeg"],
      ["base64", "image/webp"],
    ]);
    expect(await dimensionsOf(images[0]!.source.data)).toEqual({ width: 40, height: 30, format: "jpeg" });
  });

  it("refuses an image outside the working directory and a file that only ends like one, and says why", async () => {
    const { run, openai } = await setup();
    server.enqueue({ message: say("Nothing to see."), usage });
    const result = await run(["-p", "look at @../outside.png and @fake.png", "--model", "gpt-4.1"], openai);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/@\.\.\/outside\.png not attached: .*outside the working directory/);
    expect(result.stderr).toMatch(/@fake\.png not attached: `fake\.png` is not a PNG, JPEG, GIF or WebP image/);
    expect(lastUserParts(0).filter((p) => p.type === "image_url")).toEqual([]);
  });

  it("ReadMediaFile puts the image in the tool result, in OpenAI's and in Anthropic's shape", async () => {
    const { run, openai, anthropic } = await setup();
    server.enqueue({ message: callTool("m1", "ReadMediaFile", { path: "photo.jpg" }), usage }, { message: say("A red square."), usage });
    const viaOpenAI = await run(["-p", "look at the photo", "--model", "gpt-4.1"], openai);
    expect(viaOpenAI.code, viaOpenAI.stderr).toBe(0);
    const tool = (server.requests[1]!.body!.messages as { role: string; content: Part[] }[]).find((m) => m.role === "tool")!;
    expect(tool.content.find((p) => p.type === "image_url")).toMatchObject({ image_url: { url: expect.stringMatching(/^data:image\/jpeg;base64,/) } });

    server.enqueue({ message: callTool("m2", "ReadMediaFile", { path: "icon.webp" }), usage }, { message: say("A green dot."), usage });
    const viaAnthropic = await run(["-p", "look at the icon", "--provider", "anthropic", "--base-url", server.url], anthropic);
    expect(viaAnthropic.code, viaAnthropic.stderr).toBe(0);
    const result = lastUserParts(3).find((p) => p.type === "tool_result") as unknown as { content: Part[] };
    expect(result.content.find((p) => p.type === "image")).toMatchObject({ source: { type: "base64", media_type: "image/webp" } });
  });

  it("a model without image input: an @image prompt fails before any request, and ReadMediaFile answers with an error", async () => {
    const { run, openai } = await setup();
    const kimi = await run(["-p", "what is in @photo.jpg", "--provider", "kimi", "--base-url", `${server.url}/v1`], { KIMI_API_KEY: "sk-kimi" });
    expect(kimi.code).toBe(2);
    expect(kimi.stderr).toMatch(/The model kimi-k2-turbo-preview does not accept images \(the prompt attaches photo\.jpg\); nothing was sent/);
    expect(server.requests).toHaveLength(0);

    server.enqueue({ message: callTool("m1", "ReadMediaFile", { path: "photo.jpg" }), usage }, { message: say("I cannot see it."), usage });
    const off = await run(["-p", "look at photo.jpg", "--model", "gpt-4.1"], { ...openai, KOSONG_IMAGE_INPUT: "0" });
    expect(off.code, off.stderr).toBe(0);
    const tool = (server.requests[1]!.body!.messages as unknown as Message[]).find((m) => m.role === "tool")!;
    expect(JSON.stringify(tool.content)).toContain("The model gpt-4.1 does not accept images");
    expect(JSON.stringify(server.requests[1]!.body)).not.toContain("data:image");
  });

  it("a conversation holding an image, continued on a model without image input: a clear error, no request", async () => {
    const { run, openai } = await setup();
    server.enqueue({ message: say("A red square."), usage });
    expect((await run(["-p", "what is in @photo.jpg", "--model", "gpt-4.1"], openai)).code).toBe(0);
    const continued = await run(["-c", "-p", "and its size?", "--provider", "kimi", "--base-url", `${server.url}/v1`], { KIMI_API_KEY: "sk-kimi" });
    expect(continued.code).toBe(1);
    expect(continued.stderr).toContain("The model kimi-k2-turbo-preview does not accept images, and the conversation has one; nothing was sent.");
    expect(server.requests).toHaveLength(1);
  });
});
