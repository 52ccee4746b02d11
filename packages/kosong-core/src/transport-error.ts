/**
 * Failures of the HTTP transport under the provider SDKs (undici's `fetch`
 * in Node), classified once for every provider: a stalled connection is a
 * timeout, a refused, reset or cut one a connection error.
 */
import { APIConnectionError, APITimeoutError } from "./errors.js";

function codeOf(error: Error): string | null {
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : null;
}

/** undici's own inactivity limits (`bodyTimeout`, `headersTimeout`) and socket timeouts. */
const timeoutCodes = new Set(["UND_ERR_BODY_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT", "ETIMEDOUT"]);
const connectionCode = /^(?:E[A-Z]+|UND_ERR_[A-Z_]+|ERR_STREAM_PREMATURE_CLOSE)$/;
/** undici: `TypeError: terminated` when the socket closes mid-body, `fetch failed` before the response. */
const connectionMessages = new Set(["terminated", "fetch failed", "other side closed"]);

/**
 * The typed error for a transport failure: {@link APITimeoutError} for a
 * stalled request or stream, {@link APIConnectionError} for a connection
 * that failed or was cut; null when `error` is no transport failure.
 */
export function transportError(error: unknown): APIConnectionError | APITimeoutError | null {
  if (!(error instanceof Error)) return null;
  const code = codeOf(error);
  if (code !== null && timeoutCodes.has(code)) return new APITimeoutError(`timed out: ${error.message}`, { cause: error });
  if ((code !== null && connectionCode.test(code)) || (error instanceof TypeError && connectionMessages.has(error.message))) {
    return new APIConnectionError(`connection lost: ${error.message}`, { cause: error });
  }
  return null;
}

const maxCauseDepth = 6;

function ownMessage(error: Error): string {
  if (error.message !== "") return error.message;
  const inner = (error as { errors?: unknown }).errors;
  if (!Array.isArray(inner)) return "";
  return inner.map((e) => (e instanceof Error ? e.message : String(e))).filter((m) => m !== "").join("; ");
}

/**
 * The message of an SDK connection error followed by what caused it, e.g.
 * `Connection error: fetch failed: getaddrinfo ENOTFOUND api.example.com`:
 * the SDKs' own message ("Connection error.") names neither the host nor
 * the reason, which sit in the `cause` chain.
 */
export function connectionErrorMessage(error: Error): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < maxCauseDepth; depth += 1) {
    const message = ownMessage(current).replace(/\.$/, "");
    if (message !== "" && !messages.includes(message)) messages.push(message);
    current = current.cause;
  }
  if (error.message === "") messages.unshift("Connection error");
  return messages.join(": ");
}
