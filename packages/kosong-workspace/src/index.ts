/**
 * @kosong/workspace: the agent's workspace on disk. A confined file system
 * (every path checked against the workspace root, links that lead out
 * refused), a file journal that records files before tools change them so a
 * revert of the conversation restores them, and a scan of the workspace that
 * reads `.gitignore` files as git does.
 */
export { WorkspaceError } from "./workspace-error.js";
export * from "./confined-fs.js";
export { isInside, PathEscapeError } from "./path-escape-error.js";
export * from "./workspace-files.js";
export * from "./file-journal.js";
export type { StoredState, RestoreKind, RestoreEntry, CommandToolCall } from "./journal-records.js";
export { scanWorkspace, defaultScanLimits, type ScanLimits, type WorkspaceScan, type ScannedFile, type ScanContents } from "./workspace-scan.js";
export type { ContextJournal, FileRestoreReport, FileRecoveryReport, InterruptedCommandReport, PendingRestore, RestoreTarget } from "./context-journal.js";
export type { ToolJournal, JournalingToolContext, DeclaredWrite, ScannedCommand } from "./tool-journal.js";
export { declareWrite } from "./declare-write.js";
export { scanCommand } from "./scan-command.js";
export type { SessionJournal } from "./session-journal.js";
