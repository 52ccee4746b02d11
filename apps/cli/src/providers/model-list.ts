/**
 * The models `/model` offers: the ones the provider's API lists (OpenAI's
 * and OpenAI-compatible servers' `GET /models`, Anthropic's `GET
 * /v1/models`, through the official SDKs), or, when it lists none or cannot
 * be asked, the models named in the settings. Model names come from a
 * server: callers show them through `visibleControls`.
 */
import type { Settings } from "../config/settings.js";
import { defaultModels, providerEndpoint } from "./create-provider.js";

/** How long the provider may take to list its models. */
const listTimeoutMs = 10_000;

/** The models to choose from, and where the list came from. */
export interface ModelList {
  models: string[];
  /** `provider`: the API listed them (a name outside them is refused); `settings`: only the configured ones are known. */
  from: "provider" | "settings";
  /** Why the provider's list is not used (with `from: "settings"`). */
  why?: string;
}

/** Asks the provider of `settings` for its models; falls back to the configured ones. */
export async function listModels(settings: Settings, env: NodeJS.ProcessEnv = process.env): Promise<ModelList> {
  const configured = [...new Set([settings.model ?? defaultModels[settings.provider], settings.compactModel, ...Object.keys(settings.prices)].filter((m): m is string => !!m))];
  if (settings.provider === "scripted") return { models: configured, from: "settings", why: "the scripted provider has no list" };
  try {
    const listed = await providerModels(settings, env);
    if (listed.length > 0) return { models: listed.sort(), from: "provider" };
    return { models: configured, from: "settings", why: "the provider listed no models" };
  } catch (error) {
    return { models: configured, from: "settings", why: `the provider did not list its models: ${error instanceof Error ? error.message : String(error)}` };
  }
}

async function providerModels(settings: Settings, env: NodeJS.ProcessEnv): Promise<string[]> {
  const { apiKey, baseURL } = providerEndpoint(settings, env);
  const options = { signal: AbortSignal.timeout(listTimeoutMs), maxRetries: 0 };
  const ids: string[] = [];
  if (settings.provider === "anthropic") {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const client = new Anthropic({ apiKey: apiKey ?? null, authToken: env.ANTHROPIC_AUTH_TOKEN ?? null, ...(baseURL ? { baseURL } : {}) });
    for await (const model of client.models.list({ limit: 100 }, options)) ids.push(model.id);
    return ids;
  }
  const { default: OpenAI } = await import("openai");
  const client = new OpenAI({ apiKey: apiKey ?? "", ...(baseURL ? { baseURL } : settings.provider === "kimi" ? { baseURL: env.KIMI_BASE_URL || "https://api.moonshot.ai/v1" } : {}) });
  for await (const model of client.models.list(options)) ids.push(model.id);
  return ids;
}
