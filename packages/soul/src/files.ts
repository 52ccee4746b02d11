/**
 * `@kosong/soul/files`: the names this subpath always had. The workspace
 * (confined file system, file journal, workspace scan) lives in
 * `@kosong/workspace` and is re-exported here unchanged; `declareWrite` and
 * `scanCommand` (how a tool reaches the session's journal through its
 * `ToolContext`) are the soul's own. New code imports the workspace from
 * `@kosong/workspace`.
 */
export * from "@kosong/workspace";
export { declareWrite } from "./session/declare-write.js";
export { scanCommand } from "./session/scan-command.js";
