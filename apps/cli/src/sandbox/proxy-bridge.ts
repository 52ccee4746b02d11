/**
 * The bridge inside a sandbox without a network of its own: a small Node
 * program that listens on {@link bridgePort} of the sandbox's loopback,
 * forwards each connection to the proxy's Unix socket (bound into the
 * sandbox), runs the command with the proxy variables pointing at that port,
 * and exits as the command did.
 */

/** The port of the sandbox's loopback the bridge listens on (the sandbox has its own network namespace). */
export const bridgePort = 3128;

/** The variables that send HTTP clients (curl, git, npm, pip, Node with NODE_USE_ENV_PROXY) to the bridge. */
export function proxyVariables(): Record<string, string> {
  const url = `http://127.0.0.1:${bridgePort}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NODE_USE_ENV_PROXY: "1" };
}

/** Variables removed so that no host bypasses the proxy (the sandbox could not reach it directly anyway). */
export const bypassVariables = ["NO_PROXY", "no_proxy"] as const;

/**
 * The bridge program, for `node -e`: its arguments are the proxy's socket
 * path, then the command and its arguments.
 */
export const bridgeProgram = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const [socketPath, file, ...args] = process.argv.slice(1);
const server = net.createServer((inside) => {
  const proxy = net.connect(socketPath);
  inside.on("error", () => proxy.destroy());
  proxy.on("error", () => inside.destroy());
  inside.pipe(proxy).pipe(inside);
});
server.listen(${bridgePort}, "127.0.0.1", () => {
  const child = spawn(file, args, { stdio: "inherit" });
  child.on("error", (error) => { process.stderr.write(String(error) + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (require("node:os").constants.signals[signal] ?? 0)));
});
`;
