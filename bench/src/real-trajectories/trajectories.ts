/**
 * The shared real trajectories (`../shared/fixtures/real-trajectories` beside
 * the repository, or `$KOSONG_FIXTURES/real-trajectories`): mini-swe-agent
 * runs with DeepSeek, each with the prompt tokens the provider reported
 * before each of its calls. From those reports the benchmark knows the
 * provider's own count of every message of the original history (the
 * growth between two reports, shared among the messages added in between
 * in proportion to their o200k estimate; what the first report holds
 * besides messages, the system prompt, goes to none of them), so it can
 * count a compacted context the way the provider would. The strategies get
 * the last report before the cut, as the soul would pass it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Message, parseMessage } from "@kosong/core";
import { TokenCounter } from "@kosong/soul/tokens";

/** Where the trajectories are. */
export const TRAJECTORIES_DIR = path.join(
  process.env.KOSONG_FIXTURES ?? fileURLToPath(new URL("../../../../shared/fixtures/", import.meta.url)),
  "real-trajectories",
);

/** One provider report: the prompt of the call made after `messages[0..at)` took `prompt` tokens. */
export type UsageReport = { at: number; prompt: number };

/** A trajectory as the benchmark uses it. */
export type Trajectory = { id: string; messages: Message[]; usage: UsageReport[] };

/** The trajectories, sorted by file name; empty when the fixtures are not there. */
export function loadTrajectories(): Trajectory[] {
  if (!existsSync(TRAJECTORIES_DIR)) return [];
  return readdirSync(TRAJECTORIES_DIR)
    .filter((file) => file.endsWith(".json") && file !== "manifest.json")
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(path.join(TRAJECTORIES_DIR, file), "utf8")) as { id: string; messages: unknown[]; usage?: UsageReport[] };
      return { id: raw.id, messages: raw.messages.map((m) => parseMessage(m)), usage: (raw.usage ?? []).filter((u) => u.prompt > 0) };
    });
}

/**
 * The provider's count of messages: each original message of the trajectory
 * costs its share of the provider-reported growth; any other message (a
 * summary, a stub, a notice) costs its estimate times the provider's ratio
 * over the reports up to the cut.
 */
export class ProviderCount {
  readonly #perMessage = new Map<Message, number>();
  readonly #counter: TokenCounter;
  /** Provider tokens per estimated token over the reports up to the cut. */
  readonly ratio: number;
  /** The last report before the cut: what a soul would know when it compacts there. */
  readonly lastReport: UsageReport | null;

  constructor(trajectory: Trajectory, cut: number, counter: TokenCounter) {
    this.#counter = counter;
    const { messages } = trajectory;
    const reports = trajectory.usage.filter((u) => u.at <= messages.length);
    // The first report also holds what is not a message (the system prompt, the chat template): that fixed part is
    // the first report minus its messages at the growth rate of the later reports, and no message pays for it.
    const first = reports[0];
    const last = reports.at(-1);
    let fixed = 0;
    if (first !== undefined && last !== undefined && last.at > first.at) {
      const growth = (last.prompt - first.prompt) / (counter.count(messages.slice(0, last.at)) - counter.count(messages.slice(0, first.at)));
      fixed = Math.max(0, first.prompt - growth * counter.count(messages.slice(0, first.at)));
    }
    let from = 0;
    let before = fixed;
    for (const report of reports) {
      const slice = messages.slice(from, report.at);
      const estimate = counter.count(slice);
      for (const message of slice) this.#perMessage.set(message, estimate === 0 ? 0 : ((report.prompt - before) * counter.message(message)) / estimate);
      from = report.at;
      before = report.prompt;
    }
    const known = reports.filter((u) => u.at <= cut).at(-1);
    this.lastReport = known ?? null;
    this.ratio = known === undefined ? 1 : known.prompt / counter.count(messages.slice(0, known.at));
    for (const message of messages.slice(from)) this.#perMessage.set(message, counter.message(message) * this.ratio);
  }

  /** The provider's tokens of `messages`. */
  count(messages: readonly Message[]): number {
    let tokens = 0;
    for (const message of messages) tokens += this.#perMessage.get(message) ?? this.#counter.message(message) * this.ratio;
    return Math.round(tokens);
  }
}
