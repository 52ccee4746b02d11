/**
 * @kosong/soul/internal: every name of the package, for this repository's
 * own tests and benchmarks. Not part of the public API: names here may
 * change in any release, and nothing outside the soul package imports it.
 * Agent builders import from `@kosong/soul` and its named subpaths
 * (`/compaction`, `/tokens`, `/conversation`, `/files`).
 */
export { ApprovalRequestNotFoundError, ContextInUseError, EmptyInputError, HookBlockedError, RewriteTargetError, SoulBusyError, SoulError } from "../errors.js";
export * from "../context/index.js";
export * from "../loop/index.js";
export * from "../events/index.js";
export * from "../approval/index.js";
export * from "../session/index.js";
export * from "../dmail/index.js";
export * from "../compaction/index.js";
export * from "../conversation/index.js";
export * from "../tokens/index.js";
export * from "../subagent/index.js";
export * from "../recall/index.js";
export type * from "../hooks/index.js";
