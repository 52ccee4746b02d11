/**
 * A child process for the lock tests, on the built package.
 *
 *   contend <url> <session> <n>   wait for "go" on stdin, open the session, print "won" and append n records
 *                                 (printing "done"), or print "locked <holder pid>"; exit when stdin ends
 *   hold <url> <session> <name>   open the session with application_name <name>, append one record, print "ready";
 *                                 per stdin line "append <i>": append record i, print "acked <i>" or "failed <error name>"
 */
import { createInterface } from "node:readline";
import { messageRecord } from "@kosong/context/records";
import { SessionLockedError } from "@kosong/context";
import { PostgresContextStore, type PostgresContextLog } from "@kosong/context-postgres";

const [command, url, session, arg] = process.argv.slice(2) as [string, string, string, string];
const out = (text: string): void => void process.stdout.write(`${text}\n`);
const record = (text: string) => messageRecord({ role: "user", content: [{ type: "text", text }] });
/** stdin's lines, read from now on (readline drops lines that arrive before its iterator exists). */
const stdinLines = () => createInterface({ input: process.stdin });

if (command === "contend") {
  const store = await PostgresContextStore.connect(url);
  for await (const line of stdinLines()) {
    if (line !== "go") continue;
    let log: PostgresContextLog;
    try {
      log = await store.openLog(session);
    } catch (error) {
      if (!SessionLockedError.isInstance(error)) throw error;
      out(`locked ${error.owner.pid}`);
      break;
    }
    out("won");
    for (let i = 0; i < Number(arg); i += 1) await log.append([record(`${process.pid} ${i}`)]);
    out("done");
  }
  await store.close();
} else if (command === "hold") {
  const store = await PostgresContextStore.connect({ connectionString: url, application_name: arg }, { reconnectTimeoutMs: 5000 });
  const log = await store.openLog(session);
  await log.append([record("held 0")]);
  const lines = stdinLines();
  out("ready");
  for await (const line of lines) {
    const [verb, i] = line.split(" ");
    if (verb !== "append") continue;
    try {
      await log.append([record(`held ${i}`)]);
      out(`acked ${i}`);
    } catch (error) {
      out(`failed ${error instanceof Error ? error.name : String(error)}`);
    }
  }
  await store.close();
}
