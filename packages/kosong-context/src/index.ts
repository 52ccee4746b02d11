/** @kosong/context: linear conversation storage (placeholder until the storage issue lands). */
export {};
