/**
 * What a running tool gets besides its arguments, and the extension point
 * through which a runtime built on core (an agent loop) hands its tools more.
 */

/**
 * Members a runtime adds to every {@link ToolContext}. Empty in core: a
 * package built on core augments it by declaration merging, and then every
 * tool reads those members typed (as optional: a tool may also be called
 * outside that runtime, where they are absent).
 *
 * ```ts
 * declare module "@kosong/core" {
 *   interface ToolContextExtensions {
 *     approval: Approval;
 *   }
 * }
 * // then, in any defineTool: execute: (params, { approval }) => ...
 * // (absent outside that runtime: a tool that needs it should refuse, not skip it)
 * ```
 *
 * The values are passed with `step(..., { toolContext: { approval } })` (or
 * `toolset.handle(call, { context })`). An extension must not be named
 * `toolCallId` or `signal`.
 */
export interface ToolContextExtensions {}

/** What a running tool gets besides its arguments. */
export interface ToolContext extends Partial<ToolContextExtensions> {
  /** The id of the tool call being answered. */
  toolCallId: string;
  /** Aborted when the call is cancelled (the step was aborted): stop work and return. */
  signal: AbortSignal;
}
