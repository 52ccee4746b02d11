/**
 * The errors the CLI reports to the user itself (a message on stderr and an
 * exit code) instead of a stack trace.
 */

/** Exit codes of `kosong` (documented in `--help` and the README). */
export const ExitCode = {
  /** The turn finished (print mode), or the session ended normally. */
  ok: 0,
  /** The turn failed: a provider error, a tool crash, a storage error. */
  error: 1,
  /** Bad usage: an unknown flag or value, a bad config file, missing credentials. */
  usage: 2,
  /** Aborted by the user (Ctrl-C, SIGINT, SIGTERM). */
  aborted: 130,
} as const;

/** An exit code of {@link ExitCode}. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the user can fix: printed without a stack trace, exits with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;

  constructor(message: string, exitCode: ExitCodeValue = ExitCode.error, options?: ErrorOptions) {
    super(message, options);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

/** A usage or configuration error (exit code 2). */
export class UsageError extends CliError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.usage, options);
    this.name = "UsageError";
  }
}
