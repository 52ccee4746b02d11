/** Exports of the session area of @kosong/soul for `./internal` (the public ones are chosen in ../index.ts and ../files.ts). */
import "./tool-context.js";

export type { SoulSession, SoulSessionOptions } from "./session.js";
/** Moved to @kosong/workspace (next to the journal); kept here under their names. */
export { declareWrite, scanCommand } from "@kosong/workspace";
