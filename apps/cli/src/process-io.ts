/**
 * What a run of `kosong` reads and writes outside itself: its terminal
 * (stdin, stdout, stderr), its environment, its working directory and the
 * signals that end it. The binary runs on {@link processIo}, the process's
 * own; a host that runs the command inside its own process (an embedding
 * application, the CLI's in-process terminal tests) passes its own, and the
 * same code runs on it.
 */

/** A signal source: SIGTERM and SIGHUP end an interactive session as `/exit` does. */
export interface SignalSource {
  on(signal: "SIGTERM" | "SIGHUP", listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: "SIGTERM" | "SIGHUP", listener: (signal: NodeJS.Signals) => void): unknown;
}

/** The outside of a run. */
export interface ProcessIo {
  /** The keys (a TTY in raw mode for the interactive mode). */
  stdin: NodeJS.ReadStream;
  /** The screen. */
  stdout: NodeJS.WriteStream;
  /** Warnings and errors (`kosong: ...` lines). */
  stderr: NodeJS.WritableStream;
  /** The environment: provider keys, `KOSONG_*` defaults, `HOME`, `NO_COLOR`. */
  env: NodeJS.ProcessEnv;
  /** The working directory. */
  cwd(): string;
  /** Where SIGTERM and SIGHUP arrive. */
  signals: SignalSource;
}

/** The process's own terminal, environment, directory and signals. */
export const processIo: ProcessIo = {
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  get env() {
    return process.env;
  },
  cwd: () => process.cwd(),
  signals: process,
};
