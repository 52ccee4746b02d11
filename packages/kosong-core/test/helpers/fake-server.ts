import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";

/** When the file's fake server starts and what happens between tests. */
export interface UseFakeServerOptions {
  /** A fresh server for every test (default: one server for the whole file). */
  perTest?: boolean;
  /** With one server per file: clear its queue and recorded requests before each test. */
  resetBeforeEach?: boolean;
}

/**
 * Registers the hooks that start a fake provider server for this test file
 * and close it afterwards, and returns a stand-in that forwards to the
 * server currently running (usable at module level, before it starts).
 */
export function useFakeProviderServer(options: UseFakeServerOptions = {}): FakeProviderServer {
  let current: FakeProviderServer | undefined;
  const start = async (): Promise<void> => {
    current = await startFakeProviderServer();
  };
  const stop = async (): Promise<void> => {
    await current?.close();
    current = undefined;
  };
  if (options.perTest) {
    beforeEach(start);
    afterEach(stop);
  } else {
    beforeAll(start);
    afterAll(stop);
    if (options.resetBeforeEach) beforeEach(() => current!.reset());
  }
  return new Proxy({} as FakeProviderServer, {
    get(_, key) {
      if (current === undefined) throw new Error("the fake provider server is used outside a test");
      const value: unknown = Reflect.get(current, key);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}
