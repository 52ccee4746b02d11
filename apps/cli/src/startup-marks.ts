/**
 * Named points of a run's start (`performance.mark("kosong:<name>")`):
 * where the process is when it enters the binary, has its settings, its
 * providers, its session, its project context, its prompt drawn, the
 * model's SDK loaded, its first request's code warmed up, the Markdown renderer warmed up, its first request
 * made. A mark costs a microsecond and changes nothing; the bench
 * (`pnpm bench cli-startup-breakdown`) reads them through a preloaded
 * module to break the start-up time down by phase. The marks go on Node's
 * global `performance` (the one `node:perf_hooks` exports), which Node
 * loads on the first mark: importing this module loads nothing.
 */

/** The names of the start-up marks, in the order a run reaches them. */
export type StartupMark =
  | "entry"
  | "main"
  | "config"
  | "providers"
  | "mode-loaded"
  | "session-file"
  | "project-context"
  | "session-open"
  | "prompt-drawn"
  | "sdk-loaded"
  | "first-turn-warmed"
  | "markdown-warmed"
  | "first-request";

/** Marks `name` (once per run: a later mark of the same name is ignored). */
export function startupMark(name: StartupMark): void {
  if (performance.getEntriesByName(`kosong:${name}`, "mark").length === 0) performance.mark(`kosong:${name}`);
}
