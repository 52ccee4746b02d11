/**
 * The message `kosong` prints when the chosen provider has no API key: how
 * to set one, how to use a local OpenAI-compatible server instead, and that
 * the demo needs none.
 */
import type { ProviderName } from "../config/setting-values.js";

const keyVariables: Record<Exclude<ProviderName, "scripted">, string> = {
  openai: "OPENAI_API_KEY",
  "openai-responses": "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  kimi: "KIMI_API_KEY",
};

/** The environment variable that holds the API key of `provider`. */
export function keyVariable(provider: Exclude<ProviderName, "scripted">): string {
  return keyVariables[provider];
}

/** The full, multi-line help shown when `provider` has no credentials. */
export function missingCredentialsMessage(provider: Exclude<ProviderName, "scripted">): string {
  const variable = keyVariable(provider);
  return [
    `kosong: no API key for the ${provider} provider.`,
    "",
    "Set one of:",
    `  export ${variable}=...            (or KOSONG_API_KEY, or api_key in $KOSONG_HOME/config.toml)`,
    "",
    "Or use a local OpenAI-compatible server (no key needed), e.g.:",
    "  Ollama     kosong --provider openai --base-url http://localhost:11434/v1 --model llama3.2",
    "  llama.cpp  kosong --provider openai --base-url http://localhost:8080/v1 --model local",
    "  vLLM       kosong --provider openai --base-url http://localhost:8000/v1 --model <served-model>",
    "",
    "Or watch an offline, scripted session without any key:",
    "  kosong demo",
  ].join("\n");
}
