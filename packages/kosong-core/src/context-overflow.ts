/**
 * How servers say "the conversation does not fit the context window", so that
 * an agent loop can compact and try again instead of failing. One table, one
 * entry per wording, each with an error body the server really sends (the
 * tests serve every example through the providers).
 */

/** One way a server words a context-overflow rejection. */
export interface ContextOverflowPattern {
  /** Who sends it. */
  server: string;
  /** Matches the error message. */
  pattern: RegExp;
  /** An error body that server sends (`{error: {...}}`), with where it is documented or seen. */
  example: { status: number; body: { error: { message: string; type?: string; code?: string | number } }; source: string };
}

/** Error codes or types that always mean a context overflow, whatever the message says. */
export const contextOverflowCodes: ReadonlySet<string> = new Set(["context_length_exceeded", "string_above_max_length", "exceed_context_size_error"]);

/** The wordings of context-overflow rejections, per server. */
export const contextOverflowPatterns: readonly ContextOverflowPattern[] = [
  {
    server: "OpenAI, DeepSeek, vLLM, OpenRouter, Mistral (\"maximum context length\")",
    pattern: /maximum context length/i,
    example: {
      status: 400,
      body: { error: { message: "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (140000 in the messages, 0 in the completion). Please reduce the length of the messages or completion.", type: "invalid_request_error" } },
      source: "DeepSeek / vLLM OpenAI-compatible 400 (vLLM serving_engine `_validate_input`)",
    },
  },
  {
    server: "vLLM (prompt longer than max_model_len)",
    pattern: /is too long to fit into the model/i,
    example: {
      status: 400,
      body: { error: { message: "The prompt (total length 25938) is too long to fit into the model (context length 4096). Make sure that `max_model_len` is no smaller than the number of text tokens.", type: "BadRequestError", code: 400 } },
      source: "vLLM ValueError, vllm-project/vllm issue #12165",
    },
  },
  {
    server: "llama.cpp server",
    pattern: /exceeds the available context size/i,
    example: {
      status: 400,
      body: { error: { message: "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it", type: "exceed_context_size_error", code: 400 } },
      source: "llama.cpp tools/server `exceed_context_size_error`",
    },
  },
  {
    server: "Ollama",
    pattern: /(?:input length exceeds|exceeded max) (?:the )?(?:maximum )?context length/i,
    example: {
      status: 400,
      body: { error: { message: "prompt too long; exceeded max context length by 1024 tokens", type: "api_error" } },
      source: "Ollama runner error for a prompt longer than num_ctx (truncate off)",
    },
  },
  {
    server: "Kimi (Moonshot)",
    pattern: /exceeded model token limit/i,
    example: {
      status: 400,
      body: { error: { message: "Invalid request: Your request exceeded model token limit: 262144", type: "invalid_request_error" } },
      source: "Moonshot AI API error for an over-long request",
    },
  },
  {
    server: "Anthropic",
    pattern: /prompt is too long/i,
    example: {
      status: 400,
      body: { error: { message: "prompt is too long: 210000 tokens > 200000 maximum", type: "invalid_request_error" } },
      source: "Anthropic Messages API 400 invalid_request_error",
    },
  },
  {
    server: "Anthropic (input plus max_tokens)",
    pattern: /exceed context limit/i,
    example: {
      status: 400,
      body: { error: { message: "input length and `max_tokens` exceed context limit: 197626 + 21333 > 200000, decrease input length or `max_tokens` and try again", type: "invalid_request_error" } },
      source: "Anthropic Messages API 400 invalid_request_error",
    },
  },
  {
    server: "OpenAI Responses",
    pattern: /context window/i,
    example: {
      status: 400,
      body: { error: { message: "Your input exceeds the context window of this model. Please adjust your input and try again.", type: "invalid_request_error" } },
      source: "OpenAI Responses API 400 (code context_length_exceeded in `response.failed`)",
    },
  },
  {
    server: "xAI",
    pattern: /maximum prompt length/i,
    example: {
      status: 400,
      body: { error: { message: "This model's maximum prompt length is 131072 but the request contains 140021 tokens.", type: "invalid_request_error" } },
      source: "xAI API 400 for an over-long prompt",
    },
  },
  {
    server: "Gemini (OpenAI-compatible endpoint)",
    pattern: /exceeds the maximum number of tokens allowed/i,
    example: {
      status: 400,
      body: { error: { message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", type: "INVALID_ARGUMENT" } },
      source: "Gemini API 400 INVALID_ARGUMENT",
    },
  },
  {
    server: "AWS Bedrock (Anthropic models)",
    pattern: /input is too long/i,
    example: { status: 400, body: { error: { message: "Input is too long for requested model." } }, source: "Bedrock ValidationException" },
  },
  {
    server: "Cohere and others (\"too many tokens\")",
    pattern: /too many tokens/i,
    example: {
      status: 400,
      body: { error: { message: "too many tokens: the total number of tokens in the prompt cannot exceed 4081 - received 5000." } },
      source: "Cohere API 400",
    },
  },
];

/**
 * True when an error's code or type, or its message, says the conversation
 * does not fit the context window (see {@link contextOverflowPatterns}).
 */
export function isContextOverflowMessage(code: string | null | undefined, message: string, type?: string | null): boolean {
  if ((code && contextOverflowCodes.has(code)) || (type && contextOverflowCodes.has(type))) return true;
  return contextOverflowPatterns.some((entry) => entry.pattern.test(message));
}
