/**
 * Codex CLI (a native binary), for the benchmarks that run it beside kosong
 * against the fake provider server: where its binary is, the config that
 * points it at the server, and how its TUI shows its composer.
 *
 * Codex is not a dependency: set `KOSONG_BENCH_CODEX` to its binary, or have
 * `codex` on the PATH (`npm install -g @openai/codex` installs the native
 * binary in a platform package). Its home (`CODEX_HOME`) must lie outside
 * /tmp: Codex will not put its helpers in a temporary folder. Codex 0.171's
 * TUI is a client of an app-server daemon it starts from a copy of itself
 * under `CODEX_HOME` (the daemon sends the model requests); the daemon
 * outlives the TUI, a later TUI with the same home reuses it, and
 * `stopProcessesUnder` (`./process-tree.ts`) stops it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";

/** Codex's binary: `KOSONG_BENCH_CODEX`, else `codex` on the PATH, else null. */
export function codexBinary(): string | null {
  const given = process.env.KOSONG_BENCH_CODEX;
  if (given) return existsSync(given) ? given : null;
  try {
    execFileSync("codex", ["--version"], { stdio: "ignore" });
    return "codex";
  } catch {
    return null;
  }
}

/**
 * Writes `codexHome/config.toml`: the model `bench-model` from a `fake` provider at `serverUrl` (Responses API, the key in
 * `FAKE_API_KEY`), and `project` trusted (no trust question at start).
 */
export function writeCodexConfig(codexHome: string, serverUrl: string, project: string): void {
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    `${codexHome}/config.toml`,
    `model = "bench-model"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${serverUrl}/v1"\nenv_key = "FAKE_API_KEY"\nwire_api = "responses"\n\n[projects."${project}"]\ntrust_level = "trusted"\n`,
  );
}

/** The environment Codex runs in with the config of {@link writeCodexConfig}. */
export function codexEnv(home: string, codexHome: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "", HOME: home, CODEX_HOME: codexHome, FAKE_API_KEY: "sk-bench" };
}

/** Codex's composer is on the screen: a line that starts with `›`. */
export const codexComposerShown = (screen: string): boolean => /^› /m.test(screen);
