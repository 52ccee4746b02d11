/** One fake provider server per test file, its queue and recorded requests cleared before each test. */
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** Registers the hooks and returns a stand-in that forwards to the running server (usable at module level). */
export function useFakeProviderServer(): FakeProviderServer {
  let current: FakeProviderServer | undefined;
  beforeAll(async () => {
    current = await startFakeProviderServer();
  });
  afterAll(() => current?.close());
  beforeEach(() => current?.reset());
  return new Proxy({} as FakeProviderServer, {
    get(_, key) {
      if (current === undefined) throw new Error("the fake provider server is used outside a test");
      const value: unknown = Reflect.get(current, key);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}
