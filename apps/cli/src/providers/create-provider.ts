/**
 * Builds the chat provider (and the optional compact model) from the
 * settings. The SDK-backed providers are imported lazily, so `--version`,
 * `--help` and the scripted provider never load an SDK, and the interactive
 * mode loads it after its prompt is drawn (see {@link DeferredProvider}).
 */
import type { ChatProvider } from "@kosong/core";
import { UsageError } from "../cli-error.js";
import type { ProviderName } from "../config/setting-values.js";
import type { Settings } from "../config/settings.js";
import { acceptsImages } from "../media/image-input.js";
import { DeferredProvider } from "./deferred-provider.js";
import { missingCredentialsMessage } from "./missing-credentials.js";
import { readScriptsFile } from "./scripts-file.js";
import type { TransportWarmUp, WarmUpOutcome, WarmUpRequest, WireFormat } from "./first-turn-warm-up.js";

/** Default models per provider. */
export const defaultModels: Record<ProviderName, string> = {
  openai: "gpt-4.1",
  "openai-responses": "gpt-4.1",
  anthropic: "claude-sonnet-4-5",
  kimi: "kimi-k2-turbo-preview",
  scripted: "scripted_echo",
};

/** Default context windows per provider, in tokens (`--max-context-size` overrides). */
export const defaultContextSizes: Record<ProviderName, number> = {
  openai: 128_000,
  "openai-responses": 128_000,
  anthropic: 200_000,
  kimi: 256_000,
  scripted: 128_000,
};

/** The providers of a run. */
export interface Providers {
  /** The agent's model. */
  main: ChatProvider;
  /** The compact model (`--compact-model`), null when not set. */
  compact: ChatProvider | null;
  /** The context window in tokens. */
  maxContextSize: number;
}

type Env = NodeJS.ProcessEnv;

/**
 * Builds the providers of `settings`. Missing credentials are a
 * {@link UsageError} whose message explains how to set them.
 */
export async function createProviders(settings: Settings, env: Env = process.env): Promise<Providers> {
  const model = settings.model ?? defaultModels[settings.provider];
  let main = await createProvider(settings, model, env);
  if (settings.thinking) main = main.withThinking(settings.thinking);
  const compact = settings.compactModel && settings.provider !== "scripted" ? await createProvider(settings, settings.compactModel, env) : null;
  return { main, compact, maxContextSize: settings.maxContextSize ?? defaultContextSizes[settings.provider] };
}

/** How a provider reaches its API: the key (undefined: none, e.g. Anthropic's auth token), the base URL, and where the key came from. */
export interface ProviderEndpoint {
  apiKey: string | undefined;
  baseURL: string | undefined;
  /** For messages about a refused key, e.g. `OPENAI_API_KEY`. */
  keySource: string;
}

/**
 * The key and base URL of `settings.provider` (not `scripted`) by kosong's
 * rules: `KOSONG_API_KEY` or the config's `api_key`, else the provider's
 * variable, else a placeholder for a server on this machine. Missing
 * credentials are a {@link UsageError} saying how to set them.
 */
export function providerEndpoint(settings: Settings, env: Env = process.env): ProviderEndpoint {
  const baseURL = settings.baseUrl ?? undefined;
  switch (settings.provider) {
    case "anthropic": {
      const apiKey = settings.apiKey ?? env.ANTHROPIC_API_KEY ?? (env.ANTHROPIC_AUTH_TOKEN ? undefined : localKey(baseURL));
      if (!apiKey && !env.ANTHROPIC_AUTH_TOKEN) throw new UsageError(missingCredentialsMessage("anthropic"));
      return { apiKey, baseURL, keySource: apiKey ? keySource(settings, env, "ANTHROPIC_API_KEY", baseURL) : "ANTHROPIC_AUTH_TOKEN" };
    }
    case "kimi": {
      const apiKey = settings.apiKey ?? env.KIMI_API_KEY ?? localKey(baseURL);
      if (!apiKey) throw new UsageError(missingCredentialsMessage("kimi"));
      return { apiKey, baseURL, keySource: keySource(settings, env, "KIMI_API_KEY", baseURL) };
    }
    case "openai":
    case "openai-responses":
    case "scripted": {
      const url = baseURL ?? (env.OPENAI_BASE_URL || undefined);
      const apiKey = settings.apiKey ?? (env.OPENAI_API_KEY || undefined) ?? localKey(url);
      if (!apiKey && settings.provider !== "scripted") throw new UsageError(missingCredentialsMessage(settings.provider));
      return { apiKey, baseURL: url, keySource: keySource(settings, env, "OPENAI_API_KEY", url) };
    }
  }
}

/** A provider of the session's kind (key, base URL, timeouts) for `model`: what a subagent's own model runs on. */
export async function createProvider(settings: Settings, model: string, env: Env = process.env): Promise<ChatProvider> {
  const timeouts = settings.llmTimeouts;
  if (settings.provider === "scripted") {
    if (!settings.script) throw new UsageError("--provider scripted needs --script <file> (a JSON array of echo-DSL responses, or responses separated by --- lines)");
    const { ScriptedChatProvider } = await import("@kosong/core/testing");
    return new ScriptedChatProvider(await readScriptsFile(settings.script), { chunkSize: 8, delayMs: 5 });
  }
  const { apiKey, baseURL, keySource: source } = providerEndpoint(settings, env);
  const images = acceptsImages(settings.provider, model, settings.imageInput);
  const build = sdkProviderBuilder(settings.provider, model, timeouts);
  // The warm-up's twin calls a throwaway local server with a placeholder key (see first-turn-warm-up.ts).
  const warmUp: TransportWarmUp = { wire: wireFormats[settings.provider], twin: (url) => build("warm-up", url) };
  return new DeferredProvider(settings.provider, model, () => build(apiKey, baseURL), null, source, images, warmUp);
}

/** The wire format each SDK provider speaks. */
const wireFormats: Record<Exclude<ProviderName, "scripted">, WireFormat> = {
  openai: "openai-chat",
  kimi: "openai-chat",
  "openai-responses": "openai-responses",
  anthropic: "anthropic",
};

/** Builds the SDK provider of `provider` for `model` (importing its SDK) from a key and a base URL. */
function sdkProviderBuilder(provider: Exclude<ProviderName, "scripted">, model: string, timeouts: Settings["llmTimeouts"]) {
  return async (apiKey: string | undefined, baseURL: string | undefined): Promise<ChatProvider> => {
    switch (provider) {
      case "anthropic":
        return new (await import("@kosong/core/anthropic")).AnthropicProvider({ model, apiKey, baseURL, timeouts });
      case "kimi":
        return new (await import("@kosong/core/openai")).KimiChatProvider({ model, apiKey: apiKey!, baseURL, timeouts });
      case "openai":
        return new (await import("@kosong/core/openai")).OpenAIChatProvider({ model, apiKey: apiKey!, baseURL, timeouts });
      case "openai-responses":
        return new (await import("@kosong/core/openai")).OpenAIResponsesProvider({ model, apiKey: apiKey!, baseURL, timeouts });
    }
  };
}

/** Loads the SDKs of `providers` (the interactive mode starts it once its prompt is drawn); resolves when they are loaded or failed. */
export async function loadProviders(providers: Providers): Promise<void> {
  await Promise.allSettled([providers.main, providers.compact].map((provider) => (provider instanceof DeferredProvider ? provider.load() : null)));
}

/**
 * Loads the SDKs of `providers`, then warms the main provider's first
 * request up while `idle()` holds (see {@link DeferredProvider.warmUp}):
 * nothing is sent to the provider. Never rejects.
 */
export async function warmUpProviders(providers: Providers, idle: () => boolean, request?: WarmUpRequest): Promise<WarmUpOutcome> {
  await loadProviders(providers);
  return providers.main instanceof DeferredProvider ? providers.main.warmUp(idle, request) : "skipped";
}

/** Where the key a provider sends comes from, as a user would fix it: a variable, the config file, or none (a local server). */
function keySource(settings: Settings, env: Env, variable: string, baseURL: string | undefined): string {
  if (settings.apiKey !== null) return env.KOSONG_API_KEY ? "KOSONG_API_KEY" : `api_key in ${settings.configPath ?? "the config file"}`;
  if (env[variable]) return variable;
  return `no key: a placeholder for the local server ${baseURL ?? ""}`.trim();
}

/**
 * Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) ignore the key:
 * with a base URL on this machine, a placeholder stands in for it.
 */
function localKey(baseURL: string | undefined): string | undefined {
  if (!baseURL) return undefined;
  try {
    const host = new URL(baseURL).hostname;
    return host === "localhost" || host === "127.0.0.1" || host === "::1" || host === "[::1]" ? "local" : undefined;
  } catch {
    throw new UsageError(`--base-url: not a URL: "${baseURL}"`);
  }
}
