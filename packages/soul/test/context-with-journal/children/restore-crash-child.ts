/**
 * A process that reverts a journaled session to checkpoint 0, for the
 * restore crash test: it opens the Context (with its file journal) of the
 * session folder argv[3] on the workspace argv[2], prints "ready", reverts,
 * prints "done <ms>", and waits to be killed. Runs on the built package.
 */
import path from "node:path";
import { Context } from "@kosong/soul";
import { FileJournal, nodeWorkspaceFiles } from "@kosong/workspace";

const [root, session] = [process.argv[2]!, process.argv[3]!];
const journal = new FileJournal({ dir: path.join(session, "files"), files: nodeWorkspaceFiles(root) });
const context = new Context(path.join(session, "context.jsonl"), { fileJournal: journal });
await context.restore();
process.stdout.write("ready\n");
const started = performance.now();
await context.revertTo(0);
process.stdout.write(`done ${Math.ceil(performance.now() - started)}\n`);
setInterval(() => undefined, 60_000);
