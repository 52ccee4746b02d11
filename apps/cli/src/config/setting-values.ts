/**
 * The value sets of the settings that take one of a few names, shared by the
 * argument parser, the config-file schema and the environment.
 */

/** The providers `--provider` accepts. */
export const providerNames = ["openai", "openai-responses", "anthropic", "kimi", "scripted"] as const;
/** A provider name of {@link providerNames}. */
export type ProviderName = (typeof providerNames)[number];

/** The compaction strategies `--compaction` and `/strategy` accept. */
export const compactionNames = ["simple", "preserve-recent", "preserve-important", "smart", "auto"] as const;
/** A strategy name of {@link compactionNames}. */
export type CompactionName = (typeof compactionNames)[number];

/** The thinking efforts `--thinking` accepts (core's `ThinkingEffort`). */
export const thinkingEfforts = ["off", "low", "medium", "high", "xhigh", "max"] as const;

/** What `--file-restore` journals: nothing, the files tools declare (WriteFile, EditFile), or those and what a Shell command changes (found by a scan around it). */
export const fileRestoreModes = ["off", "declared", "scan"] as const;
/** A mode of {@link fileRestoreModes}. */
export type FileRestoreMode = (typeof fileRestoreModes)[number];

/** The output formats of print mode. */
export const outputFormats = ["text", "stream-json"] as const;
/** An output format of {@link outputFormats}. */
export type OutputFormat = (typeof outputFormats)[number];
