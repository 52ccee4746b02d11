/**
 * CommonJS users load the packages with `require()`: Node 22.12+ can require
 * an ES module without top-level await, and the exports maps say `default`
 * (not only `import`) so the CommonJS resolver finds each entry. A child Node
 * process runs in CommonJS mode from this package's folder, where pnpm links
 * @kosong/core and @kosong/context, and @kosong/soul resolves itself through
 * its own exports map; it requires every public entry of the built packages.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const soulDir = fileURLToPath(new URL("../../", import.meta.url));
const entries = [
  "@kosong/core",
  "@kosong/core/testing",
  "@kosong/core/openai",
  "@kosong/core/anthropic",
  "@kosong/context",
  "@kosong/context/records",
  "@kosong/context/testing",
  "@kosong/workspace",
  "@kosong/soul",
  "@kosong/soul/compaction",
  "@kosong/soul/tokens",
  "@kosong/soul/conversation",
  "@kosong/soul/files",
  "@kosong/soul/recall",
  "@kosong/soul/hooks",
  "@kosong/soul/internal",
];
const built = ["kosong-core", "kosong-context", "kosong-workspace", "soul"].every((dir) =>
  existsSync(path.join(soulDir, "..", dir, "dist", "index.js")),
);

const probe = `
const out = {};
for (const entry of ${JSON.stringify(entries)}) {
  try { out[entry] = Object.keys(require(entry)).length; }
  catch (error) { out[entry] = String(error && error.code || error); }
}
const { userMessage, serializeMessage } = require("@kosong/core");
out.line = serializeMessage(userMessage("hi"));
process.stdout.write(JSON.stringify(out));
`;

describe.skipIf(!built)(built ? "require() of each package" : "require() of each package (SKIPPED: run `pnpm run build`)", () => {
  it("loads every public entry from CommonJS", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--input-type=commonjs", "--no-warnings", "-e", probe],
      { cwd: soulDir },
    );
    const out = JSON.parse(stdout) as Record<string, number | string>;
    for (const entry of entries) expect([entry, typeof out[entry]]).toEqual([entry, "number"]);
    for (const entry of entries) expect(out[entry]).toBeGreaterThan(0);
    expect(out.line).toBe('{"role":"user","content":"hi"}');
  });
});
