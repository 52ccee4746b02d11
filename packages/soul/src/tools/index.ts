/** Public exports of the tools area of @kosong/soul (see ../index.ts). */
export { DenwaRenji, DenwaRenjiError, type DMail } from "./denwa-renji.js";
export { SendDMail, SEND_DMAIL_NAME } from "./send-dmail.js";
