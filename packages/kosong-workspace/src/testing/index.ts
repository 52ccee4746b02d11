/**
 * @kosong/workspace/testing: the contract suite (needs vitest) any
 * `ContextJournal` implementation runs against itself.
 */
export { describeContextJournalContract, type ContextJournalHarness } from "./context-journal-contract.js";
