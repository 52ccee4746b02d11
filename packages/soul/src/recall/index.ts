/**
 * @kosong/soul/recall: re-expandable compaction. The `Recall` tool (add it
 * to an agent's toolset: compactions then leave pointers to what they
 * replaced, and tool-result aging runs), what it reads with
 * (`ContextRecall`), the pointers, and the request of a range compaction.
 */
export { Recall, RECALL_NAME } from "./recall-tool.js";
export { ContextRecall, type ContextRecallOptions, type Recalled } from "./context-recall.js";
export { RecallError } from "./recall-error.js";
export { formatPointer, parsePointer, type RecallPointer } from "./recall-pointer.js";
export { isPointerNotice, POINTER_NOTICE_HEAD } from "./pointer-notice.js";
export type { MessageRange } from "./dropped-ranges.js";
export { defaultToolResultAging, isAged, type ToolResultAgingOptions } from "./tool-result-aging.js";
export { TOOL_RESULT_AGING } from "./aging-compaction.js";
export type { CompactRequest } from "../loop/soul.js";
