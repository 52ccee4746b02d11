/**
 * The `kosong` binary: parses the command line and runs the chosen mode.
 * Errors the user can fix print as one message with their exit code (see
 * `ExitCode`); anything else prints its stack and exits 1.
 */
import { CommanderError } from "commander";
import { CliError, ExitCode } from "./cli-error.js";
import { buildProgram, commanderExitCode } from "./program.js";

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = commanderExitCode(error.code);
  } else if (error instanceof CliError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`kosong: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = ExitCode.error;
  }
}
