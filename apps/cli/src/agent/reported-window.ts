/**
 * The context window a server names when it refuses a request as too long
 * (OpenAI: "This model's maximum context length is 8192 tokens"; vLLM and
 * llama.cpp word it alike), so the session can use the window the server
 * really has rather than a default.
 */

const patterns = [/maximum context length is (\d[\d,]*) tokens/i, /context (?:length|window|size) (?:of|is) (\d[\d,]*)(?: tokens)?/i, /n_ctx(?:_slot)?[ =:]+(\d+)/i];

/** The window `message` names, or null. */
export function reportedWindow(message: string): number | null {
  for (const pattern of patterns) {
    const match = pattern.exec(message);
    if (match) {
      const tokens = Number(match[1]!.replace(/,/g, ""));
      if (Number.isSafeInteger(tokens) && tokens > 0) return tokens;
    }
  }
  return null;
}
