import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/cli-error.js";
import { resolveSettings } from "../src/config/settings.js";
import { createProviders } from "../src/providers/create-provider.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("createProviders", () => {
  it("explains how to get going when the provider has no key", async () => {
    const home = await tempDir();
    for (const [provider, variable] of [["openai", "OPENAI_API_KEY"], ["anthropic", "ANTHROPIC_API_KEY"], ["kimi", "KIMI_API_KEY"]] as const) {
      const settings = await resolveSettings({ provider }, { KOSONG_HOME: home });
      const error = await createProviders(settings, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      const message = (error as Error).message;
      expect(message).toContain(`export ${variable}=`);
      expect(message).toMatch(/Ollama.*--base-url http:\/\/localhost:11434\/v1/);
      expect(message).toContain("kosong demo");
    }
  });

  it("needs no key for a local OpenAI-compatible server", async () => {
    const home = await tempDir();
    const settings = await resolveSettings({ baseUrl: "http://localhost:11434/v1", model: "llama3.2" }, { KOSONG_HOME: home });
    const { main, maxContextSize } = await createProviders(settings, {});
    expect(main.name).toBe("openai");
    expect(main.modelName).toBe("llama3.2");
    expect(maxContextSize).toBe(128_000);
  });

  it("builds each provider with its model, thinking effort, compact model and context size", async () => {
    const home = await tempDir();
    const env = { OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "sk-ant" };
    const anthropic = await createProviders(await resolveSettings({ provider: "anthropic", thinking: "high", compactModel: "claude-haiku-4-5", maxContextSize: "50000" }, { KOSONG_HOME: home }), env);
    expect([anthropic.main.name, anthropic.main.modelName, anthropic.main.thinkingEffort]).toEqual(["anthropic", "claude-sonnet-4-5", "high"]);
    expect(anthropic.compact?.modelName).toBe("claude-haiku-4-5");
    expect(anthropic.maxContextSize).toBe(50_000);
    const responses = await createProviders(await resolveSettings({ provider: "openai-responses" }, { KOSONG_HOME: home }), env);
    expect(responses.main.modelName).toBe("gpt-4.1");
    expect(responses.compact).toBeNull();
  });

  it("reads the scripted provider's responses from a file", async () => {
    const home = await tempDir();
    const script = path.join(home, "script.txt");
    await writeFile(script, "text: one\n---\ntext: two\n");
    const { main } = await createProviders(await resolveSettings({ provider: "scripted", script }, { KOSONG_HOME: home }), {});
    const texts: string[] = [];
    for (let i = 0; i < 2; i++) {
      for await (const part of await main.generate("", [], [])) if (part.type === "text") texts.push(part.text);
    }
    expect(texts.join("")).toBe("onetwo");
    await expect(createProviders(await resolveSettings({ provider: "scripted" }, { KOSONG_HOME: home }), {})).rejects.toThrow(/--script/);
  });
});
