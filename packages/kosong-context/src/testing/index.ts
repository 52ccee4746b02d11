/**
 * @kosong/context/testing: the LinearStorage contract suite (needs vitest).
 */
export { describeLinearStorageContract, type LinearStorageHarness } from "./linear-storage-contract.js";
