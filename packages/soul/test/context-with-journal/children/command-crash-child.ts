/**
 * A process that runs a Shell-like command in a journaled session, for the
 * command crash test: it opens the Context (with its file journal) of the
 * session folder argv[3] on the workspace argv[2], scans as the Shell tool
 * does, and runs the bash command argv[4], whose output is its own (the
 * command prints its pid and a marker, then sleeps until the test kills
 * both). Runs on the built package.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { Context } from "@kosong/soul";
import { FileJournal, nodeWorkspaceFiles } from "@kosong/workspace";

const [root, session, command] = [process.argv[2]!, process.argv[3]!, process.argv[4]!];
const journal = new FileJournal({ dir: path.join(session, "files"), files: nodeWorkspaceFiles(root) });
const context = new Context(path.join(session, "context.jsonl"), { fileJournal: journal });
await context.restore();
const scan = await journal.scanCommand();
const child = spawn("bash", ["-c", command], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
child.on("exit", () => void scan.finish());
