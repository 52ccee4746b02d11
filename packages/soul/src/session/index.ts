/** Exports of the session area of @kosong/soul for `./internal` (the public ones are chosen in ../index.ts and ../files.ts). */
import "./tool-context.js";

export type { SoulSession, SoulSessionOptions } from "./session.js";
export { declareWrite } from "./declare-write.js";
export { scanCommand } from "./scan-command.js";
