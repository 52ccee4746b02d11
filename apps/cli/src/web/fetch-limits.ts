/** FetchURL's limits. */
export interface FetchLimits {
  /** The whole fetch, redirects included, ends after this long (ms). */
  timeoutMs: number;
  /** The body is cut after this many bytes (decompressed). */
  maxBytes: number;
  /** At most this many redirects are followed. */
  maxRedirects: number;
}

/** The defaults: 30 s, 2 MiB, 5 redirects. */
export const defaultFetchLimits: Readonly<FetchLimits> = Object.freeze({ timeoutMs: 30_000, maxBytes: 2 * 1024 * 1024, maxRedirects: 5 });
