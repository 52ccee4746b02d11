/** Public exports of this area of @kosong/soul (see ../index.ts). */
export {};
