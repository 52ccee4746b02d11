/**
 * @kosong/context/testing: the contract suites (need vitest): any
 * `LinearStorage` and any `ContextLog` implementation can run them.
 */
export { describeContextLogContract, type ContextLogHarness } from "./context-log-contract.js";
export { describeLinearStorageContract, type LinearStorageHarness } from "./linear-storage-contract.js";
