export * from "./confined-fs.js";
export { isInside, PathEscapeError } from "./path-escape-error.js";
export * from "./workspace-files.js";
export * from "./file-journal.js";
export type { StoredState, RestoreKind, RestoreEntry } from "./journal-records.js";
export { declareWrite } from "../soul/declare-write.js";
export { scanWorkspace, defaultScanLimits, type ScanLimits, type WorkspaceScan, type ScannedFile, type ScanContents } from "./workspace-scan.js";
export { scanCommand } from "../soul/scan-command.js";
