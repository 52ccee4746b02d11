/**
 * The provider whose SDK loads on first use: built once (on `load` or the
 * first `generate`), copies made by `withThinking` sharing that build, and
 * a failed build reported by `generate` (never as an unhandled rejection).
 */
import { textPart, userMessage, type ChatProvider } from "@kosong/core";
import { MockChatProvider } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../src/config/settings.js";
import { createProviders } from "../src/providers/create-provider.js";
import { DeferredProvider } from "../src/providers/deferred-provider.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

async function text(provider: ChatProvider): Promise<string> {
  const parts: string[] = [];
  for await (const part of await provider.generate("", [], [userMessage("hi")])) if (part.type === "text") parts.push(part.text);
  return parts.join("");
}

describe("DeferredProvider", () => {
  it("builds its provider once, on load or the first generate, and shares it with its thinking copies", async () => {
    let builds = 0;
    const deferred = new DeferredProvider("openai", "gpt-4o", async () => {
      builds++;
      return new MockChatProvider([textPart("hello")]);
    });
    expect(builds).toBe(0);
    expect(deferred.maxContextSize).toBe(128_000);
    const thinking = deferred.withThinking("high");
    expect(thinking.thinkingEffort).toBe("high");
    expect(await text(thinking)).toBe("hello");
    void deferred.load();
    expect(await text(deferred)).toBe("hello");
    expect(builds).toBe(1);
  });

  it("reports a failed build from generate, not as an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const deferred = new DeferredProvider("openai", "m", async () => {
        throw new Error("no SDK");
      });
      void deferred.load();
      await new Promise((resolve) => setTimeout(resolve, 10));
      await expect(deferred.generate("", [], [])).rejects.toThrow("no SDK");
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("is what the CLI builds for each SDK provider, named as the provider it builds", async () => {
    const home = await tempDir();
    for (const provider of ["openai", "openai-responses", "anthropic", "kimi"] as const) {
      const settings = await resolveSettings({ provider, model: "some-model" }, { KOSONG_HOME: home, KOSONG_API_KEY: "sk-x" });
      const { main } = await createProviders(settings, {});
      expect(main).toBeInstanceOf(DeferredProvider);
      const built = await (main as DeferredProvider).load();
      expect([main.name, main.modelName]).toEqual([built.name, built.modelName]);
    }
  });
});
