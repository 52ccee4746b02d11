/**
 * The sandbox of the commands the agent runs (the Shell tool): bubblewrap
 * on Linux (see `bwrap-arguments.ts` for what a command can reach), with a
 * private temp folder and, for `sandbox.network = [hosts]`, kosong's proxy.
 * {@link openCommandSandbox} says at start-up when there is none (no
 * bwrap, not Linux, no user namespaces) and commands are asked for as before.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { allowedHosts } from "./allowed-hosts.js";
import { findBubblewrap, trialBubblewrap } from "./bubblewrap-probe.js";
import { bwrapArguments, proxySocketInside, type SandboxLayout } from "./bwrap-arguments.js";
import { protectedGitPaths } from "./git-protection.js";
import { type HiddenPath, hiddenPaths } from "./hidden-paths.js";
import { machineTmpEntries } from "./machine-tmp.js";
import { type NetworkProxy, startNetworkProxy } from "./network-proxy.js";
import { bridgeProgram, bypassVariables, proxyVariables } from "./proxy-bridge.js";
import type { SandboxNetwork, SandboxSettings } from "./sandbox-settings.js";

/** A program and its arguments and environment, ready to spawn. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * A sandbox for one workspace, open for the session; {@link close} it at the
 * end. Whether bwrap can start a sandbox here is tried on the first
 * {@link usable} (not at start-up, where its process would hold up the first
 * request); each user asks before wrapping a command and, when it cannot,
 * runs as without a sandbox.
 */
export class CommandSandbox {
  #trial: Promise<CommandSandbox | null> | null = null;

  private constructor(
    private readonly bwrap: string,
    private readonly workspace: string,
    private readonly tempDir: string,
    private readonly proxyDir: string,
    private readonly hidden: readonly HiddenPath[],
    private readonly proxy: NetworkProxy | null,
    /** The network setting in force. */
    readonly network: SandboxNetwork,
    /** A command that runs in the sandbox is approved without asking (`sandbox = "auto-allow"`). */
    readonly autoAllow: boolean,
    private readonly unavailable: (reason: string) => void,
  ) {}

  /**
   * Opens a sandbox with bwrap at `bwrap`: makes the temp folder, starts the
   * proxy when hosts are allowed. `unavailable` is told, once, why bwrap
   * cannot start a sandbox when its trial fails.
   */
  static async open(bwrap: string, workspace: string, settings: SandboxSettings, hidden: readonly HiddenPath[], unavailable: (reason: string) => void = () => undefined): Promise<CommandSandbox> {
    // The proxy's socket is kept apart from the temp folder, which sandboxed commands may change.
    const [tempDir, proxyDir] = ["kosong-sandbox-", "kosong-proxy-"].map((prefix) => realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)))) as [string, string];
    let proxy: NetworkProxy | null = null;
    try {
      if (Array.isArray(settings.network)) proxy = await startNetworkProxy(path.join(proxyDir, "proxy.sock"), allowedHosts(settings.network));
    } catch (error) {
      for (const dir of [tempDir, proxyDir]) rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return new CommandSandbox(bwrap, realpathSync(workspace), tempDir, proxyDir, hidden, proxy, settings.network, settings.mode === "auto-allow", unavailable);
  }

  /**
   * This sandbox when commands can run in it, else null: bwrap's trial
   * sandbox (see `bubblewrap-probe.ts`) runs on the first call and its
   * answer holds for the session. On null, the caller runs its command as
   * without a sandbox (the Shell asks for it as before).
   */
  usable(): Promise<CommandSandbox | null> {
    this.#trial ??= trialBubblewrap(this.bwrap).then((failure) => {
      if (failure !== null) this.unavailable(failure);
      return failure === null ? this : null;
    });
    return this.#trial;
  }

  /**
   * `bash -c command` inside the sandbox, in the workspace (see {@link wrap}).
   * The command's text (a model's) names nothing under the machine's `/tmp`
   * to show: only the folders of `env.PATH` do.
   *
   * With `options.detached` (the caller spawns it detached, with no
   * terminal, as Shell commands and background jobs are), the command stays in bwrap's process
   * group instead of a new session: a signal to the group then reaches the
   * sandbox's init, whose death ends every process in the sandbox.
   */
  wrapShell(command: string, env: Record<string, string>, options: { detached?: boolean } = {}): SandboxedCommand {
    return this.#wrap(["bash", "-c", command], env, this.workspace, [], options.detached === true);
  }

  /**
   * `file args...` inside the sandbox, working in `cwd` (default: the
   * workspace), with `env` plus the temp folder's (and the proxy's) variables.
   * What lies under the machine's `/tmp` among `file`, the absolute paths
   * in `args`, `cwd` and the folders of `env.PATH` stays readable: its entry
   * of `/tmp` is bound read-only over the private one. For configured
   * commands (an MCP server's), not a model's.
   */
  wrap(file: string, args: readonly string[], env: Record<string, string>, cwd: string = this.workspace): SandboxedCommand {
    return this.#wrap([file, ...args], env, cwd, [path.resolve(cwd, file), ...args, cwd]);
  }

  /** `inner` in the sandbox; `named` (with `env.PATH`'s folders and, for the proxy's bridge, kosong's Node) is what of the machine's `/tmp` it sees. */
  #wrap(inner: readonly string[], env: Record<string, string>, cwd: string, named: readonly string[], detached = false): SandboxedCommand {
    // What is inside the workspace is visible anyway.
    const inWorkspace = (p: string) => p === this.workspace || p.startsWith(`${this.workspace}${path.sep}`);
    const needed = [...named, ...(env.PATH ?? "").split(path.delimiter), ...(this.proxy ? [process.execPath] : [])].filter((p) => !inWorkspace(p));
    const layout: SandboxLayout = {
      workspace: this.workspace,
      cwd,
      tempDir: this.tempDir,
      machineTmp: machineTmpEntries(needed, [this.tempDir, this.proxyDir]),
      hidden: this.hidden,
      readOnly: protectedGitPaths(this.workspace),
      network: this.proxy ? { kind: "proxy", socketPath: this.proxy.socketPath } : { kind: this.network === true ? "host" : "none" },
      newSession: !detached,
    };
    const sandboxEnv: Record<string, string> = { ...env, TMPDIR: "/tmp", TMP: "/tmp", TEMP: "/tmp" };
    if (!this.proxy) return { file: this.bwrap, args: [...bwrapArguments(layout), ...inner], env: sandboxEnv };
    for (const name of bypassVariables) delete sandboxEnv[name];
    return { file: this.bwrap, args: [...bwrapArguments(layout), process.execPath, "-e", bridgeProgram, proxySocketInside, ...inner], env: { ...sandboxEnv, ...proxyVariables() } };
  }

  /** What a sandboxed command can and cannot do, in a sentence for the model. */
  describe(): string {
    const network = this.network === true ? "the network" : this.network === false || this.network.length === 0 ? "no network" : `no network but HTTP(S) through a proxy to ${this.network.join(", ")}`;
    return `Commands run in a sandbox: they can write only in the working directory and /tmp (not .git/hooks or .git/config), cannot read credential folders (~/.ssh, ~/.aws, ...), and have ${network}.`;
  }

  /** Stops the proxy and removes the temp folder. */
  async close(): Promise<void> {
    await this.proxy?.close();
    for (const dir of [this.tempDir, this.proxyDir]) rmSync(dir, { recursive: true, force: true });
  }
}

/** The sandbox of a session, or null and the notice saying why there is none (null when it was turned off). */
export interface OpenedSandbox {
  sandbox: CommandSandbox | null;
  notice: string | null;
}

/** Where the paths a sandbox hides are (see `hidden-paths.ts`). */
export interface SandboxPaths {
  workspace: string;
  /** kosong's config and session folders and files. */
  kosongPaths: readonly string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Opens the session's sandbox as `settings` ask, or says why there is none.
 * Whether bwrap starts a sandbox here is tried on the sandbox's first use
 * ({@link CommandSandbox.usable}); when it cannot, `later` gets the notice
 * then.
 */
export async function openCommandSandbox(settings: SandboxSettings, paths: SandboxPaths, later: (notice: string) => void = () => undefined): Promise<OpenedSandbox> {
  if (settings.mode === "off") return { sandbox: null, notice: null };
  const without = (reason: string) => `Shell commands run without a sandbox: ${reason}. They ask for approval as before${settings.mode === "auto-allow" ? ' (sandbox = "auto-allow" needs the sandbox)' : ""}.`;
  // A sandbox whose writable workspace is the whole file system would confine nothing.
  if (path.dirname(paths.workspace) === paths.workspace) return { sandbox: null, notice: without("the working directory is the root of the file system") };
  const found = findBubblewrap(paths.env.PATH);
  if (!found.available) return { sandbox: null, notice: without(found.reason) };
  const hidden = hiddenPaths({ home: paths.env.HOME ?? os.homedir(), kosongPaths: paths.kosongPaths, sshAuthSock: paths.env.SSH_AUTH_SOCK });
  return { sandbox: await CommandSandbox.open(found.bwrap, paths.workspace, settings, hidden, (reason) => later(without(reason))), notice: null };
}
