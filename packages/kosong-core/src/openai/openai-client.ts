/**
 * The `openai` SDK client of the OpenAI providers: the options that say how
 * to reach the API, shared by the Chat Completions and Responses providers,
 * and how the client is built from them.
 */
import OpenAI from "openai";

import { ChatProviderError } from "../errors.js";
import { readEnv } from "../read-env.js";
import type { StreamTimeouts } from "../stream-timeouts.js";

/** How an OpenAI provider reaches its API. */
export interface OpenAIClientOptions {
  /** API key; defaults to `OPENAI_API_KEY`. Servers that ignore keys accept any non-empty value. */
  apiKey?: string;
  /** Base URL (with `/v1`); defaults to `OPENAI_BASE_URL`, then OpenAI's. */
  baseURL?: string;
  /**
   * Request timeout in milliseconds, up to the response headers (default:
   * the SDK's, 10 minutes). Applies to a caller-supplied `client` too.
   */
  timeout?: number;
  /**
   * kosong's time limits of each call: until the response starts
   * (`firstByteMs`, default 2 minutes; `timeout` when given; 10 minutes for
   * a response that is not streamed) and between streamed parts (`idleMs`,
   * default 5 minutes). Each ends the call with a retryable
   * `APITimeoutError`; null turns a limit off.
   */
  timeouts?: StreamTimeouts;
  /** Headers sent with every request (control characters are stripped from the values). */
  defaultHeaders?: Record<string, string>;
  /**
   * A client to use instead of building one (then `apiKey`, `baseURL` and
   * `defaultHeaders` are ignored). Requests go out with `maxRetries: 0`
   * whatever the client's own setting: retrying is the caller's job (the
   * soul's), done once.
   */
  client?: OpenAI;
}

/** The API key and base URL a provider was built with, after environment defaults. */
export interface ResolvedEndpoint {
  apiKey: string | undefined;
  baseURL: string | undefined;
}

/** The API key and base URL of `options`, else `OPENAI_API_KEY` and `OPENAI_BASE_URL`. */
export function openAIEndpoint(options: OpenAIClientOptions): ResolvedEndpoint {
  return { apiKey: options.apiKey ?? readEnv("OPENAI_API_KEY"), baseURL: options.baseURL ?? readEnv("OPENAI_BASE_URL") };
}

/** The error message of an OpenAI provider built without an API key. */
export function missingOpenAIKey(provider: string): string {
  return `${provider} needs an API key: pass \`apiKey\` or set OPENAI_API_KEY (servers that ignore keys accept any value, e.g. "local").`;
}

function sanitizeHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  // eslint-disable-next-line no-control-regex
  for (const [key, value] of Object.entries(headers)) out[key] = value.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, "").trim();
  return out;
}

/**
 * The caller's client, or a new one for `endpoint` built with
 * `maxRetries: 0`; throws {@link ChatProviderError} with `missingKey` when
 * there is neither a client nor an API key.
 */
export function createOpenAIClient(options: OpenAIClientOptions, endpoint: ResolvedEndpoint, missingKey: string): OpenAI {
  if (options.client) return options.client;
  if (!endpoint.apiKey) throw new ChatProviderError(missingKey);
  return new OpenAI({
    apiKey: endpoint.apiKey,
    baseURL: endpoint.baseURL ?? null,
    maxRetries: 0,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    ...(options.defaultHeaders ? { defaultHeaders: sanitizeHeaders(options.defaultHeaders) } : {}),
  });
}
