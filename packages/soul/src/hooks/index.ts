/** Exports of the hooks area of @kosong/soul (the public ones are chosen in ../index.ts). */
export type * from "./soul-hooks.js";
