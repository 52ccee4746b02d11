/** The environment of Shell commands: no credentials, whatever the policy; the policy from the config file. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveSettings } from "../src/config/settings.js";
import { childEnvironment, defaultEnvironmentPolicy, type EnvironmentPolicy } from "../src/tools/child-environment.js";
import { useTempDirs } from "./temp-dir.js";
import { outputText, toolHarness } from "./tool-harness.js";

const tempDir = useTempDirs();

const userEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/home/someone",
  LANG: "C.UTF-8",
  OPENAI_API_KEY: "sk-openai-0123456789",
  ANTHROPIC_AUTH_TOKEN: "ant-token-0123456789",
  KOSONG_API_KEY: "kosong-key-0123456789",
  GITHUB_TOKEN: "ghp_0123456789",
  AWS_SECRET_ACCESS_KEY: "aws-secret-0123456789",
  DB_PASSWORD: "hunter2hunter2",
  COPY_OF_KEY_IN_A_URL: "https://user:sk-openai-0123456789@example.invalid",
  EDITOR: "vi",
  AWS_REGION: "eu-west-1",
};

/** Runs `env` through the real Shell tool with `shellEnv` and returns the variables the child saw. */
async function envSeenByShell(shellEnv?: Record<string, string>): Promise<Record<string, string>> {
  const { call } = await toolHarness(tempDir, shellEnv ? { shellEnv } : {});
  const result = await call("Shell", { command: "env" });
  expect(result.is_error, JSON.stringify(result)).toBe(false);
  return Object.fromEntries(
    outputText(result)
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

const policy = (overrides: Partial<EnvironmentPolicy>): EnvironmentPolicy => ({ ...defaultEnvironmentPolicy, ...overrides });

describe("the environment of Shell commands", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it("by default a real `env` child sees the user's variables but no credential kosong read and no *_TOKEN, *_SECRET, *_KEY, *PASSWORD*", async () => {
    Object.assign(process.env, userEnv);
    const seen = await envSeenByShell();
    expect(seen).toMatchObject({ HOME: "/home/someone", EDITOR: "vi", AWS_REGION: "eu-west-1", LANG: "C.UTF-8" });
    for (const name of ["OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN", "KOSONG_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "COPY_OF_KEY_IN_A_URL"]) {
      expect(seen, name).not.toHaveProperty(name);
    }
    expect(JSON.stringify(seen)).not.toMatch(/0123456789|hunter2/);
  });

  it("never passes the credentials on, even with every exclusion turned off, and drops any variable holding the configured key", async () => {
    const env = childEnvironment({ ...userEnv, HOLDS_CONFIG_KEY: "Bearer cfg-key-abcdefgh" }, policy({ ignoreDefaultExcludes: true, set: { KIMI_API_KEY: "set-by-policy-123" } }), ["cfg-key-abcdefgh"]);
    const seen = await envSeenByShell(env);
    expect(seen).toMatchObject({ GITHUB_TOKEN: "ghp_0123456789", DB_PASSWORD: "hunter2hunter2" });
    for (const name of ["OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN", "KOSONG_API_KEY", "KIMI_API_KEY", "COPY_OF_KEY_IN_A_URL", "HOLDS_CONFIG_KEY"]) {
      expect(seen, name).not.toHaveProperty(name);
    }
  });

  it("drops credentials under other names and their copies by default, and keeps them all with ignore_default_excludes", () => {
    const env = { ...userEnv, GH_PAT: "ghp_pat_0123456789", NPM_AUTH: "npm-auth-0123", SLACK_WEBHOOK_URL: "https://hooks.example/x", SENTRY_DSN: "https://k@o.example/1", REDIS_URL: "redis://:pw-0123@cache:6379", PAT_COPY: "ghp_pat_0123456789", GIT_AUTHOR_NAME: "Ada", SSH_AUTH_SOCK: "/tmp/agent.sock", SHORT_COPY: "ok" };
    const seen = childEnvironment(env);
    for (const name of ["GH_PAT", "NPM_AUTH", "SLACK_WEBHOOK_URL", "SENTRY_DSN", "REDIS_URL", "PAT_COPY"]) expect(seen, name).not.toHaveProperty(name);
    expect(seen).toMatchObject({ GIT_AUTHOR_NAME: "Ada", SSH_AUTH_SOCK: "/tmp/agent.sock", SHORT_COPY: "ok", EDITOR: "vi" });
    expect(childEnvironment(env, policy({ ignoreDefaultExcludes: true }))).toMatchObject({ GH_PAT: "ghp_pat_0123456789", REDIS_URL: "redis://:pw-0123@cache:6379", PAT_COPY: "ghp_pat_0123456789" });
  });

  it("follows inherit, exclude, include_only and set", async () => {
    expect(childEnvironment(userEnv, policy({ inherit: "core" }))).toEqual({ PATH: userEnv.PATH, HOME: "/home/someone", LANG: "C.UTF-8" });
    expect(childEnvironment(userEnv, policy({ inherit: "none", set: { CI: "1" } }))).toEqual({ CI: "1" });
    expect(childEnvironment(userEnv, policy({ exclude: ["aws_*", "ED?TOR"] }))).not.toHaveProperty("AWS_REGION");
    expect(childEnvironment(userEnv, policy({ exclude: ["aws_*", "ED?TOR"] }))).not.toHaveProperty("EDITOR");
    expect(Object.keys(childEnvironment(userEnv, policy({ includeOnly: ["PATH", "AWS_*"] }))).sort()).toEqual(["AWS_REGION", "PATH"]);
    const none = await envSeenByShell(childEnvironment(userEnv, policy({ inherit: "none", set: { ONLY: "this" } })));
    expect(none.ONLY).toBe("this");
    expect(none).not.toHaveProperty("HOME");
  });

  it("reads the policy from [shell_environment_policy] of config.toml, and rejects a bad one naming the key", async () => {
    const home = await tempDir();
    await writeFile(
      path.join(home, "config.toml"),
      '[shell_environment_policy]\ninherit = "core"\nexclude = ["LANG"]\ninclude_only = []\nignore_default_excludes = false\nset = { CI = "1" }\n',
    );
    const settings = await resolveSettings({}, { KOSONG_HOME: home });
    expect(settings.shellEnvironment).toEqual({ inherit: "core", ignoreDefaultExcludes: false, exclude: ["LANG"], includeOnly: [], set: { CI: "1" } });
    expect(childEnvironment(userEnv, settings.shellEnvironment)).toEqual({ PATH: userEnv.PATH, HOME: "/home/someone", CI: "1" });
    await writeFile(path.join(home, "config.toml"), '[shell_environment_policy]\ninherit = "some"\n');
    await expect(resolveSettings({}, { KOSONG_HOME: home })).rejects.toThrow(/shell_environment_policy\.inherit/);
    await writeFile(path.join(home, "config.toml"), '[shell_environment_policy]\nset = { "BAD NAME" = "x" }\n');
    await expect(resolveSettings({}, { KOSONG_HOME: home })).rejects.toThrow(/shell_environment_policy\.set/);
  });

  it("accepts the README's example policy as it is written", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const example = /### Child process environment[\s\S]*?```toml\n([\s\S]*?)```/.exec(readme)![1]!;
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), example);
    const { shellEnvironment } = await resolveSettings({}, { KOSONG_HOME: home });
    expect(shellEnvironment).toEqual({ inherit: "all", ignoreDefaultExcludes: false, exclude: ["AWS_*", "DATABASE_URL"], includeOnly: [], set: { CI: "1" } });
    expect(childEnvironment({ ...userEnv, DATABASE_URL: "postgres://u:p@h/db" }, shellEnvironment)).toEqual({ PATH: userEnv.PATH, HOME: "/home/someone", LANG: "C.UTF-8", EDITOR: "vi", CI: "1" });
  });
});
