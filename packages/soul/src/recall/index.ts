/** Public exports of the recall area of @kosong/soul: bringing back what compaction took out. */
export { ContextRecall, type ContextRecallOptions, type Recalled } from "./context-recall.js";
export { RecallError } from "./recall-error.js";
export { formatPointer, parsePointer, type RecallPointer } from "./recall-pointer.js";
export { isPointerNotice, POINTER_NOTICE_HEAD } from "./pointer-notice.js";
export type { MessageRange } from "./dropped-ranges.js";
