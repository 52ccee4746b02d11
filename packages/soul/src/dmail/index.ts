/** Exports of the D-Mail area of @kosong/soul for `./internal` (the public ones are chosen in ../index.ts). */
export { DenwaRenji, DenwaRenjiError, type DMail } from "./denwa-renji.js";
export { SendDMail, SEND_DMAIL_NAME } from "./send-dmail.js";
export { dmailMessage } from "./dmail.js";
export { sendDMailDescription, describeDMailFiles } from "./send-dmail-description.js";
