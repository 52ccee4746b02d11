/**
 * The context windows of current models, as data: what the providers report
 * as `maxContextSize` when the caller does not give one. Keys are model-name
 * prefixes (the longest matching prefix wins, so `gpt-4o-mini-2024-07-18`
 * finds `gpt-4o`); values are tokens, from each vendor's model pages.
 */

/** Context windows in tokens by model-name prefix (OpenAI, Anthropic, Kimi, DeepSeek). */
export const modelContextWindows: Readonly<Record<string, number>> = Object.freeze({
  // OpenAI
  "gpt-5": 400_000,
  "gpt-5-chat": 128_000,
  "gpt-5.1-chat": 128_000,
  "gpt-4.1": 1_047_576,
  "gpt-4o": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-oss": 131_072,
  o1: 200_000,
  "o1-mini": 128_000,
  o3: 200_000,
  "o4-mini": 200_000,
  // Anthropic (every Claude 3.x and 4.x model; Sonnet's 1M window is an opt-in beta)
  "claude-": 200_000,
  // Kimi (Moonshot AI)
  "kimi-k2": 262_144,
  "kimi-k2-0711": 131_072,
  "kimi-latest": 131_072,
  "kimi-for-coding": 262_144,
  "moonshot-v1-8k": 8_192,
  "moonshot-v1-32k": 32_768,
  "moonshot-v1-128k": 131_072,
  // DeepSeek
  "deepseek-chat": 128_000,
  "deepseek-reasoner": 128_000,
});

/**
 * The context window of `model` in tokens, or null when no prefix of
 * `table` matches. A vendor prefix (`openai/gpt-4.1`, as routers name
 * models) is ignored; matching is case-insensitive.
 */
export function contextWindowOf(model: string, table: Readonly<Record<string, number>> = modelContextWindows): number | null {
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  let best: string | null = null;
  for (const prefix of Object.keys(table)) {
    if (name.startsWith(prefix.toLowerCase()) && (best === null || prefix.length > best.length)) best = prefix;
  }
  return best === null ? null : table[best]!;
}
