/**
 * Which failures mean "the connection to the server was lost" (worth a
 * reconnect and a retry) rather than "the server refused the statement".
 */
import type { Pool, PoolClient } from "pg";

const socketCodes = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTCONN", "EAI_AGAIN"]);
/** admin_shutdown, crash_shutdown, cannot_connect_now (a server starting or shutting down). */
const serverGoingAway = new Set(["57P01", "57P02", "57P03"]);
const lostMessage = /connection terminated|connection error|not queryable|terminating connection|server closed the connection|Connection ended/i;

/** True when `error` says the connection was lost, refused or cut by the server. */
export function isConnectionLoss(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code.startsWith("08") || serverGoingAway.has(code) || socketCodes.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return false;
  }
  return error instanceof Error && lostMessage.test(error.message);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, retrying after a lost connection with a
 * growing pause (50 ms doubling up to 1 s) until `timeoutMs` have passed;
 * then, or on any other failure, rejects with the last error.
 */
export async function retryOnConnectionLoss<T>(timeoutMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConnectionLoss(error) || Date.now() + delay > deadline) throw error;
      await pause(delay);
      delay = Math.min(delay * 2, 1000);
    }
  }
}

/**
 * Runs `run` on a connection checked out of `pool`. A connection the server
 * ends while it is checked out reports the error to the running query (the
 * listener here keeps it from also crashing the process as an unhandled
 * 'error' event); after a lost connection it is destroyed, not pooled again.
 * A failure that is not a connection loss rolls back an open transaction.
 */
export async function withClient<T>(pool: Pool, run: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on("error", ignore);
  let lost = false;
  try {
    return await run(client);
  } catch (error) {
    lost = isConnectionLoss(error);
    if (!lost) await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.off("error", ignore);
    client.release(lost ? true : undefined);
  }
}
