/** The `kosong` command in this process: `runCli` on the process's arguments, terminal and environment. */
import { ExitCode } from "./cli-error.js";
import { runCli } from "./run-cli.js";

// A reader that went away (`kosong -p ... | head`) ends the run quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(ExitCode.ok);
  throw error;
});

process.exitCode = await runCli(process.argv);
