/**
 * A stand-in for the npm registry on 127.0.0.1 for tests that run `npx`:
 * it serves packages (a packument and a tarball each, packed by `npm pack`
 * from a one-command package the test gives), so `npx` resolves and
 * installs them as from registry.npmjs.org, with no network. Tarballs can
 * be held back until the test releases them (a slow download).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** A running registry: its URL (for `npm_config_registry`). */
export interface LocalNpmRegistry {
  url: string;
  /** How many tarballs it sent. */
  tarballsServed(): number;
  /** Sends the tarballs held back (and every later one at once). */
  release(): void;
  close(): Promise<void>;
}

/** A package to serve: its name (scoped or not) and its one command (a Node script's text). */
export interface ServedPackage {
  name: string;
  bin: string;
}

/** Packs each package (version 1.0.0) in `dir` and serves them; with `hold`, tarballs wait for {@link LocalNpmRegistry.release}. */
export async function startLocalNpmRegistry(dir: string, packages: readonly ServedPackage[], options: { hold?: boolean } = {}): Promise<LocalNpmRegistry> {
  const served = new Map<string, { packument: (url: string) => object; tarball: Buffer; file: string }>();
  for (const [index, { name, bin }] of packages.entries()) {
    const command = name.split("/").at(-1)!;
    const source = path.join(dir, `package-${index}`);
    await mkdir(source, { recursive: true });
    await writeFile(path.join(source, "package.json"), JSON.stringify({ name, version: "1.0.0", bin: { [command]: "bin.mjs" } }));
    await writeFile(path.join(source, "bin.mjs"), `#!/usr/bin/env node\n${bin}`, { mode: 0o755 });
    const file = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: source, encoding: "utf8", env: { ...process.env, npm_config_cache: path.join(dir, "pack-cache") } }).trim();
    const tarball = await readFile(path.join(dir, file));
    const dist = (url: string) => ({ tarball: `${url}/tarballs/${file}`, shasum: createHash("sha1").update(tarball).digest("hex"), integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}` });
    const packument = (url: string) => ({ name, "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": { name, version: "1.0.0", bin: { [command]: "bin.mjs" }, dist: dist(url) } } });
    served.set(`/${name}`, { packument, tarball, file });
  }
  let count = 0;
  let held: Array<() => void> | null = options.hold ? [] : null;
  const send = (response: ServerResponse, tarball: Buffer) => {
    count++;
    response.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
  };
  const server = createServer((request, response) => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // npm asks for a scoped package as /@scope%2fname.
    const pkg = served.get(decodeURIComponent(request.url ?? ""));
    const tarball = [...served.values()].find((p) => request.url === `/tarballs/${p.file}`);
    if (pkg !== undefined) response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(pkg.packument(url)));
    else if (tarball !== undefined && held !== null) held.push(() => send(response, tarball.tarball));
    else if (tarball !== undefined) send(response, tarball.tarball);
    else response.writeHead(404).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    tarballsServed: () => count,
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const go of waiting) go();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
