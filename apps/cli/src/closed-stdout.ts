/**
 * A reader that went away (`kosong -p ... | head`) ends the run quietly:
 * writing to a closed pipe fails with EPIPE, which would otherwise surface
 * as an unexpected error.
 */
import { ExitCode } from "./cli-error.js";

/** Exits the process with success on EPIPE from stdout; any other stdout error is thrown. */
export function exitOnClosedStdout(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(ExitCode.ok);
    throw error;
  });
}
