/**
 * Preloaded into a child (`node --import`): every hard link fails with EPERM,
 * as on file systems without hard links (FAT, some network shares), which
 * this machine's kernel cannot mount. Rotations then take the copy fallback.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

fs.promises.link = async () => {
  throw Object.assign(new Error("EPERM: operation not permitted, link (no hard links here)"), { code: "EPERM" });
};
syncBuiltinESMExports();
