/**
 * The setup an in-process suite of the interactive mode shares: one fake
 * provider server for the file (reset after each test, closed after the
 * file), and the terminals a test started closed after it (their sessions
 * closed as after a hangup). Call it at the top of the file:
 * `const { server, terminals } = await interactiveSuite();`.
 */
import { type FakeProviderServer, startFakeProviderServer } from "@kosong/core/testing";
import { afterAll, afterEach } from "vitest";
import { ensureBuilt } from "../e2e/kosong-binary.js";
import type { StartKosong } from "../e2e/kosong-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

/** What a suite gets. */
export interface InteractiveSuite {
  server: FakeProviderServer;
  /** Push each terminal a test starts: it is closed after the test. */
  terminals: KosongTerminal[];
  /** Starts kosong in process (pushed to `terminals`). */
  start: StartKosong;
}

/** Prepares the suite and registers its clean-up hooks; `binary`: the built CLI too, for runs of `kosong -p` a test prepares with. */
export async function interactiveSuite(options: { binary?: boolean } = {}): Promise<InteractiveSuite> {
  if (options.binary) ensureBuilt();
  const server = await startFakeProviderServer();
  const terminals: KosongTerminal[] = [];
  afterAll(() => server.close());
  afterEach(async () => {
    await Promise.all(terminals.splice(0).map((t) => t.close()));
    server.reset();
  });
  const start: StartKosong = (args, startOptions) => {
    const terminal = KosongTerminal.start(args, startOptions);
    terminals.push(terminal);
    return terminal;
  };
  return { server, terminals, start };
}
