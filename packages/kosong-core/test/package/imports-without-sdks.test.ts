/**
 * `openai` and `@anthropic-ai/sdk` are optional peer dependencies: a user who
 * installs only @kosong/core (with zod and its one dependency, zod-to-json-schema) can import the
 * root entry and `@kosong/core/testing`; only the provider subpaths need
 * their SDK, and importing one without it names the missing package.
 *
 * The built package (dist + package.json) is installed into a temporary
 * folder whose node_modules holds nothing but zod and zod-to-json-schema, and imported from a child
 * Node process.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("../../", import.meta.url));
const dist = path.join(packageDir, "dist");
const built = existsSync(path.join(dist, "index.js")) && existsSync(path.join(dist, "testing", "index.js"));

const probe = `
const out = { canResolve: {}, imports: {} };
for (const sdk of ["openai", "@anthropic-ai/sdk"]) {
  try { import.meta.resolve(sdk); out.canResolve[sdk] = true; } catch { out.canResolve[sdk] = false; }
}
const core = await import("@kosong/core");
out.line = core.serializeMessage(core.userMessage("hi"));
out.coreExports = Object.keys(core);
const testing = await import("@kosong/core/testing");
const server = await testing.startFakeProviderServer();
server.enqueue({ status: 200, body: { ok: true } });
out.served = await (await fetch(server.url + "/v1/chat/completions", { method: "POST", body: "{}" })).json();
await server.close();
for (const entry of ["@kosong/core/openai", "@kosong/core/anthropic"]) {
  try { await import(entry); out.imports[entry] = { ok: true }; }
  catch (error) { out.imports[entry] = { ok: false, code: error.code, message: error.message }; }
}
console.log(JSON.stringify(out));
`;

interface ProbeResult {
  canResolve: Record<string, boolean>;
  line: string;
  coreExports: string[];
  served: unknown;
  imports: Record<string, { ok: boolean; code?: string; message?: string }>;
}

describe.skipIf(!built)(
  built ? "@kosong/core without either SDK installed" : "@kosong/core without either SDK installed (SKIPPED: packages/kosong-core/dist is absent; run `pnpm turbo run build --filter=@kosong/core`)",
  () => {
    let root: string;
    let result: ProbeResult;

    beforeAll(async () => {
      root = mkdtempSync(path.join(tmpdir(), "kosong-no-sdk-"));
      const installed = path.join(root, "node_modules", "@kosong", "core");
      mkdirSync(installed, { recursive: true });
      cpSync(dist, path.join(installed, "dist"), { recursive: true });
      cpSync(path.join(packageDir, "package.json"), path.join(installed, "package.json"));
      // zod (a peer) and core's dependencies, nothing else.
      for (const name of ["zod", "zod-to-json-schema"]) symlinkSync(realpathSync(path.join(packageDir, "node_modules", name)), path.join(root, "node_modules", name), "dir");
      writeFileSync(path.join(root, "probe.mjs"), probe);
      const { stdout } = await promisify(execFile)(process.execPath, ["probe.mjs"], { cwd: root });
      result = JSON.parse(stdout) as ProbeResult;
    });

    afterAll(() => {
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it("really has no SDK to find", () => {
      expect(result.canResolve).toEqual({ openai: false, "@anthropic-ai/sdk": false });
    });

    it("imports @kosong/core and @kosong/core/testing and uses them", () => {
      expect(result.line).toBe('{"role":"user","content":"hi"}');
      expect(result.coreExports).toEqual(expect.arrayContaining(["serializeMessage", "parseMessage", "APIStatusError", "isRetryable"]));
      expect(result.served).toEqual({ ok: true });
    });

    it("fails to import a provider subpath with an error naming the missing peer", () => {
      expect(result.imports["@kosong/core/openai"]).toMatchObject({ ok: false, code: "ERR_MODULE_NOT_FOUND" });
      expect(result.imports["@kosong/core/openai"]!.message).toMatch(/Cannot find package 'openai'/);
      expect(result.imports["@kosong/core/anthropic"]).toMatchObject({ ok: false, code: "ERR_MODULE_NOT_FOUND" });
      expect(result.imports["@kosong/core/anthropic"]!.message).toMatch(/Cannot find package '@anthropic-ai\/sdk'/);
    });
  },
);
