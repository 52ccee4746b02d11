/**
 * A stand-in for the npm registry on 127.0.0.1 for tests that run `npx`:
 * it serves one package (a packument and its tarball, packed by `npm pack`
 * from files the test gives), so `npx` resolves and installs it as from
 * registry.npmjs.org, with no network.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** A running registry: its URL (for `npm_config_registry`) and how many tarballs it served. */
export interface LocalNpmRegistry {
  url: string;
  tarballsServed(): number;
  close(): Promise<void>;
}

/**
 * Packs a package named `name` (version 1.0.0) with `bin` (its one command,
 * a Node script's text) in `dir`, and serves it.
 */
export async function startLocalNpmRegistry(dir: string, name: string, bin: string): Promise<LocalNpmRegistry> {
  const source = path.join(dir, "package");
  await mkdir(source, { recursive: true });
  await writeFile(path.join(source, "package.json"), JSON.stringify({ name, version: "1.0.0", bin: { [name]: "bin.mjs" } }));
  await writeFile(path.join(source, "bin.mjs"), `#!/usr/bin/env node\n${bin}`, { mode: 0o755 });
  const file = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: source, encoding: "utf8", env: { ...process.env, npm_config_cache: path.join(dir, "pack-cache") } }).trim();
  const tarball = await readFile(path.join(dir, file));
  let served = 0;
  const server = createServer((request, response) => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url === `/${name}`) {
      const dist = { tarball: `${url}/${name}/-/${file}`, shasum: createHash("sha1").update(tarball).digest("hex"), integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}` };
      const version = { name, version: "1.0.0", bin: { [name]: "bin.mjs" }, dist };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ name, "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": version } }));
    } else if (request.url === `/${name}/-/${file}`) {
      served++;
      response.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
    } else {
      response.writeHead(404).end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    tarballsServed: () => served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
