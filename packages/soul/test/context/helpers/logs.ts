/**
 * The logs every Context test runs on: memory, and a real `context.jsonl`
 * in a temp folder. `reopen()` gives a fresh Context on the same log, as a
 * new process would get after the first one ended normally (for memory it
 * is dropped without closing the shared log; for files it is closed, which
 * also releases the lock).
 */
import path from "node:path";
import { MemoryContextLog } from "@kosong/context";
import { Context, type ContextOptions } from "@kosong/soul";
import { tempDir } from "@kosong/test-support";

export interface LogSetup {
  context: Context;
  /** Closes `context` where needed and opens a new, unrestored Context on the same log. */
  reopen(context: Context): Promise<Context>;
}

export interface LogKind {
  name: string;
  make(options?: ContextOptions): Promise<LogSetup>;
}

export const LOG_KINDS: LogKind[] = [
  {
    name: "MemoryContextLog",
    async make(options) {
      const log = new MemoryContextLog();
      return {
        context: new Context(log, options),
        reopen: async () => new Context(log, options),
      };
    },
  },
  {
    name: "context.jsonl",
    async make(options) {
      const file = path.join(await tempDir(), "context.jsonl");
      return {
        context: new Context(file, options),
        reopen: async (context) => {
          await context.close();
          return new Context(file, options);
        },
      };
    },
  },
];
