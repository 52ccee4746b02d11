/**
 * Colours for the terminal: on when the output is a terminal and `NO_COLOR`
 * is unset (or `FORCE_COLOR` says so), plain text otherwise.
 */
import pc from "picocolors";

/** The colour functions in use. */
export type Style = ReturnType<typeof pc.createColors>;

/** Whether `stream` gets colours: a TTY without `NO_COLOR`, or `FORCE_COLOR` set to anything but 0. */
export function colorEnabled(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0";
  return Boolean((stream as NodeJS.WriteStream).isTTY);
}

/** The style for `stream`. */
export function styleFor(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): Style {
  return pc.createColors(colorEnabled(stream, env));
}
