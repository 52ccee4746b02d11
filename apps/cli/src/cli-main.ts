/** The `kosong` command in this process: `runCli` on the process's arguments, terminal and environment. */
import { runCli } from "./run-cli.js";

process.exitCode = await runCli(process.argv);
