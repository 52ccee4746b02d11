/**
 * The setup an end-to-end suite of the built binary shares: the CLI built,
 * tmux present when the suite uses a terminal (.ci/run installs it), one fake provider server
 * for the file (reset after each test, closed after the file), and the
 * terminals a test started closed after it. Call it at the top of the file:
 * `const { server, terminals } = await kosongSuite({ tmux: true });`.
 */
import { type FakeProviderServer, startFakeProviderServer } from "@kosong/core/testing";
import { afterAll, afterEach } from "vitest";
import { ensureBuilt, kosongBin } from "./kosong-binary.js";
import { ensureTmux, TmuxTerminal } from "./tmux-terminal.js";

/** What a terminal test drives, in tmux or in process (`KosongTerminal` answers to the same calls). */
export type KosongScreen = Pick<TmuxTerminal, "line" | "keys" | "type" | "paste" | "screen" | "visible" | "after" | "waitFor" | "resize">;

/** Starts `kosong args...` on a terminal (closed after the test): tmux and the built binary, or in process. */
export type StartKosong = (args: string[], options: { cwd: string; env: Record<string, string>; width?: number; height?: number }) => KosongScreen;

/** What a suite gets. */
export interface KosongSuite {
  server: FakeProviderServer;
  /** Push each terminal a test starts: it is closed after the test. */
  terminals: TmuxTerminal[];
  /** Starts the built binary in tmux (pushed to `terminals`). */
  start: StartKosong;
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
  const start: StartKosong = (args, startOptions) => {
    const terminal = TmuxTerminal.start([process.execPath, kosongBin, ...args], startOptions);
    terminals.push(terminal);
    return terminal;
  };
  return { server, terminals, start };
}
