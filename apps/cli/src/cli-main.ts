/**
 * The `kosong` command: parses the command line and runs the chosen mode.
 * Errors the user can fix print as one message with their exit code (see
 * `ExitCode`); any other error prints as `kosong: message` and exits 1
 * (with its stack when `KOSONG_DEBUG` is set). Passwords of URLs in them
 * (a `--store` connection string a driver quotes) are shown as `***`.
 */
import { CommanderError } from "commander";
import { CliError, ExitCode } from "./cli-error.js";
import { buildProgram, commanderExitCode } from "./program.js";
import { visibleControls } from "./render/visible-controls.js";

// A reader that went away (`kosong -p ... | head`) ends the run quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(ExitCode.ok);
  throw error;
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  // Loaded for an error only: @kosong/core (and zod with it) is more than `--version` and `--help` need.
  const redactUrlPasswords = async (text: string) => (await import("@kosong/core")).redactUrlPasswords(text);
  if (error instanceof CommanderError) {
    process.exitCode = commanderExitCode(error.code);
  } else if (error instanceof CliError) {
    process.stderr.write(`${visibleControls(await redactUrlPasswords(error.message))}\n`);
    process.exitCode = error.exitCode;
  } else {
    const detail = error instanceof Error ? (process.env.KOSONG_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
    process.stderr.write(`kosong: ${visibleControls(await redactUrlPasswords(detail))}\n`);
    process.exitCode = ExitCode.error;
  }
}
