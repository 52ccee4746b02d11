/**
 * @kosong/soul/hooks: the types of the soul's hooks (`new Soul({ hooks })`):
 * each callback's input and outcome, and the host's session and subagent
 * hooks, and `HookBlockedError` (a prompt a hook blocked).
 */
export type * from "./soul-hooks.js";
export { HookBlockedError } from "../errors.js";
