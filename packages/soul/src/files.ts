/**
 * `@kosong/soul/files`: the names this subpath always had. The workspace
 * (confined file system, file journal, workspace scan) and how a tool reaches
 * the session's journal through its `ToolContext` (`declareWrite`,
 * `scanCommand`) live in `@kosong/workspace` and are re-exported here
 * unchanged. New code imports them from `@kosong/workspace`.
 */
export * from "@kosong/workspace";
