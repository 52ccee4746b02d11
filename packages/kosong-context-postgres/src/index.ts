/**
 * @kosong/context-postgres: conversations in PostgreSQL behind
 * @kosong/context's contracts (`ContextLog`, `LinearStorage`), for services
 * that run many agent sessions on many machines. Records keep the exact JSON
 * of kimi-cli's `context.jsonl`.
 */
export { PostgresContextStore, type PostgresStoreOptions, type PostgresTarget } from "./postgres-context-store.js";
export { PostgresContextLog } from "./postgres-context-log.js";
export { PostgresLinearStorage } from "./postgres-linear-storage.js";
export { exportManifestFile, rotationFile, type SessionExport } from "./session-transfer.js";
export { migrations, type Migration } from "./migrations.js";
export type { AppendStats } from "./append-batcher.js";
