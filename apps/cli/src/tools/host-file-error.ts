/** The failure of a host's (an editor's) file system call, for the file tools' error results. */

/** Thrown when the host could not read or write a file the tool handed it. */
export class HostFileError extends Error {
  constructor(
    readonly requested: string,
    readonly operation: "read" | "write",
    readonly reason: string,
  ) {
    super(`The editor could not ${operation} \`${requested}\`: ${reason}`);
    this.name = "HostFileError";
  }

  /** Runs `call`, turning what it throws into a {@link HostFileError}. */
  static async wrap<T>(requested: string, operation: "read" | "write", call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new HostFileError(requested, operation, error instanceof Error ? error.message : String(error));
    }
  }
}
