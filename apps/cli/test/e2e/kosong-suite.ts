/**
 * The setup an end-to-end suite of the built binary shares: the CLI built,
 * tmux present when the suite uses a terminal (.ci/run installs it), one fake provider server
 * for the file (reset after each test, closed after the file), and the
 * terminals a test started closed after it. Call it at the top of the file:
 * `const { server, terminals } = await kosongSuite({ tmux: true });`.
 */
import { type FakeProviderServer, startFakeProviderServer } from "@kosong/core/testing";
import { afterAll, afterEach } from "vitest";
import { ensureBuilt } from "./kosong-binary.js";
import { ensureTmux, type TmuxTerminal } from "./tmux-terminal.js";

/** What a suite gets. */
export interface KosongSuite {
  server: FakeProviderServer;
  /** Push each terminal a test starts: it is closed after the test. */
  terminals: TmuxTerminal[];
}

/** Prepares the suite and registers its clean-up hooks. */
export async function kosongSuite(options: { tmux?: boolean } = {}): Promise<KosongSuite> {
  ensureBuilt();
  if (options.tmux) ensureTmux();
  const server = await startFakeProviderServer();
  const terminals: TmuxTerminal[] = [];
  afterAll(() => server.close());
  afterEach(() => {
    for (const t of terminals.splice(0)) t.close();
    server.reset();
  });
  return { server, terminals };
}
