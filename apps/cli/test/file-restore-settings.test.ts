/**
 * The file-restore settings: `--file-restore` (or `--no-file-restore`) over
 * KOSONG_FILE_RESTORE over the config file's `file_restore`, default "scan";
 * the size cap in bytes or with a unit, default 10 MiB; a usage error for
 * anything else.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { defaultMaxFileBytes } from "@kosong/workspace";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/cli-error.js";
import { resolveSettings } from "../src/config/settings.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("file-restore settings", () => {
  it("takes the mode from the flag, then the environment, then the config file, default scan", async () => {
    const home = await tempDir();
    const env = { KOSONG_HOME: home };
    expect(await resolveSettings({}, env)).toMatchObject({ fileRestore: "scan", fileRestoreMaxBytes: defaultMaxFileBytes });
    await writeFile(path.join(home, "config.toml"), 'file_restore = "off"\nfile_restore_max_size = 2048\n');
    expect(await resolveSettings({}, env)).toMatchObject({ fileRestore: "off", fileRestoreMaxBytes: 2048 });
    expect(await resolveSettings({}, { ...env, KOSONG_FILE_RESTORE: "declared", KOSONG_FILE_RESTORE_MAX_SIZE: "3k" })).toMatchObject({ fileRestore: "declared", fileRestoreMaxBytes: 3072 });
    expect(await resolveSettings({ fileRestore: "scan", fileRestoreMaxSize: "1.5 MiB" }, { ...env, KOSONG_FILE_RESTORE: "declared" })).toMatchObject({ fileRestore: "scan", fileRestoreMaxBytes: 1.5 * 1024 * 1024 });
    expect(await resolveSettings({ fileRestore: false }, { ...env, KOSONG_FILE_RESTORE: "scan" })).toMatchObject({ fileRestore: "off" });
  });

  it("refuses a mode or a size it does not know, naming where it came from", async () => {
    const env = { KOSONG_HOME: await tempDir() };
    await expect(resolveSettings({}, { ...env, KOSONG_FILE_RESTORE: "all" })).rejects.toThrow(new UsageError('KOSONG_FILE_RESTORE (environment): unknown value "all" (one of: off, declared, scan)'));
    for (const size of ["-1", "1e3", "10 MB", "0x10", ""]) {
      await expect(resolveSettings({ fileRestoreMaxSize: size }, env), size).rejects.toThrow(/--file-restore-max-size: expected a size in bytes/);
    }
  });
});
