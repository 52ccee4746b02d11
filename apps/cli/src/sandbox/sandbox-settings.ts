/**
 * What the user configures of the Shell sandbox (config file `sandbox`,
 * `--sandbox`, `KOSONG_SANDBOX`): whether commands run in it, whether a
 * command that runs in it is approved without asking, and what network it
 * may reach.
 */

/** `on` (default): sandboxed, approvals as before; `auto-allow`: a sandboxed command runs unasked; `off`: no sandbox. */
export const sandboxModes = ["on", "off", "auto-allow"] as const;

/** How commands are sandboxed; see {@link sandboxModes}. */
export type SandboxMode = (typeof sandboxModes)[number];

/**
 * The sandbox's network: `false` (default) none, `true` the machine's, or a
 * list of hosts reachable through kosong's proxy (`"registry.npmjs.org"`,
 * `"*.example.com"` for its subdomains, `"127.0.0.1:8080"` for one port).
 */
export type SandboxNetwork = boolean | readonly string[];

/** The sandbox settings of a run. */
export interface SandboxSettings {
  mode: SandboxMode;
  network: SandboxNetwork;
}

/** The settings without any configuration: on, no network. */
export const defaultSandboxSettings: SandboxSettings = { mode: "on", network: false };

/** What a `sandbox.network` host entry looks like: a host name or IP address (`*.` allowed in front), an optional `:port`. */
export const hostPattern = /^(?:\*\.)?(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
