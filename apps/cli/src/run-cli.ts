/**
 * The `kosong` command line run to its end on a {@link ProcessIo}: parses
 * `argv` and runs the chosen command. Errors the user can fix print as one
 * message with their exit code (see `ExitCode`); any other error prints as
 * `kosong: message` and gives 1 (with its stack when `KOSONG_DEBUG` is set).
 * Passwords of URLs in them (a `--store` connection string a driver quotes)
 * are shown as `***`.
 */
import { CommanderError } from "commander";
import { CliError, ExitCode } from "./cli-error.js";
import { type ProcessIo, processIo } from "./process-io.js";
import { buildProgram, commanderExitCode } from "./program.js";
import { visibleControls } from "./render/visible-controls.js";

/** Runs `argv` (as `process.argv`: the node binary and the script first); returns the exit code. */
export async function runCli(argv: readonly string[], io: ProcessIo = processIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  try {
    await buildProgram(io, (code) => (exitCode = code)).parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExitCode(error.code);
    // Loaded for an error only: @kosong/core (and zod with it) is more than `--version` and `--help` need.
    const redactUrlPasswords = async (text: string) => (await import("@kosong/core")).redactUrlPasswords(text);
    if (error instanceof CliError) {
      io.stderr.write(`${visibleControls(await redactUrlPasswords(error.message))}\n`);
      return error.exitCode;
    }
    const detail = error instanceof Error ? (io.env.KOSONG_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
    io.stderr.write(`kosong: ${visibleControls(await redactUrlPasswords(detail))}\n`);
    return ExitCode.error;
  }
}
