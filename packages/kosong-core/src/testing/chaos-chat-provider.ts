import { ChatProviderBase, type GenerationRequest } from "../chat-provider-base.js";
import type { ChatProvider, StreamedMessage, ThinkingEffort } from "../chat-provider.js";
import { APIConnectionError, APITimeoutError, type ChatProviderError } from "../errors.js";
import { createStatusError } from "../status-error.js";
import {
  type ChaosCorruption,
  type ChaosCorruptionFault,
  type ChaosFault,
  type ChaosResetFault, type ChaosFaultKind,
  chaosFaultKinds,
} from "./chaos-fault.js";
import { ChaosStreamedMessage } from "./chaos-streamed-message.js";
import { ScriptedStreamedMessage } from "./scripted-streamed-message.js";
import { SeededRandom } from "./seeded-random.js";

/** Options of {@link ChaosChatProvider}. */
export interface ChaosOptions {
  /**
   * Seed of the pseudo-random generator: the same seed and calls give the
   * same faults. Default: a random seed (see {@link ChaosChatProvider.seed}).
   */
  seed?: number;
  /** Probability, in [0, 1], that a call gets a fault (default 0.3, or 0 when a `schedule` is given). */
  errorProbability?: number;
  /**
   * The faults to choose from: a list (equally likely) or weights per kind
   * (e.g. `{rate_limit: 3, connection_reset: 1}`). Default: every kind, equally likely.
   */
  kinds?: readonly ChaosFaultKind[] | Partial<Record<ChaosFaultKind, number>>;
  /**
   * Faults for the first calls, in order (`null`: no fault), before the
   * random ones: `["rate_limit", null]` makes the first call fail with a 429
   * and lets the second through.
   */
  schedule?: readonly (ChaosFaultKind | null)[];
  /** The `retryAfterMs` of injected 429s; null for a 429 without a retry hint (default 1000). */
  retryAfterMs?: number | null;
  /** The statuses of `server_error` faults, picked at random (default 500, 502, 503, 504). */
  serverErrorStatuses?: readonly number[];
  /** A `connection_reset` comes after 1 to this many parts (default 3). */
  maxPartsBeforeReset?: number;
  /** How `corrupt_tool_call` breaks the arguments (default `truncate`). */
  corruption?: ChaosCorruption;
}

interface ChaosState {
  readonly random: SeededRandom;
  calls: number;
  readonly faults: ChaosFault[];
}

interface ChaosConfig {
  errorProbability: number;
  kinds: ChaosFaultKind[];
  weights: number[];
  totalWeight: number;
  schedule: readonly (ChaosFaultKind | null)[];
  retryAfterMs: number | null;
  serverErrorStatuses: readonly number[];
  maxPartsBeforeReset: number;
  corruption: ChaosCorruption;
}

const statusTexts: Record<number, [message: string, code: string]> = {
  500: ["Internal server error", "internal_error"],
  502: ["Bad gateway", "bad_gateway"],
  503: ["Service temporarily unavailable", "service_unavailable"],
  504: ["Gateway timeout", "gateway_timeout"],
};

const injected = " (injected by ChaosChatProvider)";

/**
 * Wraps any provider and injects faults, driven by a seeded pseudo-random
 * generator so that a run can be replayed: every call first decides (with
 * `errorProbability`, or from `schedule`) whether it fails and how, then
 * behaves accordingly (see {@link ChaosFaultKind}). Every injected fault is
 * appended to {@link faults}, so a test can assert what happened.
 *
 * Decisions are made when `generate` is called, never while streaming, so
 * the faults depend only on the seed and the order of the calls. Copies made
 * by {@link withThinking} share the generator and the fault log.
 */
export class ChaosChatProvider extends ChatProviderBase implements ChatProvider {
  /** The seed in use (pass it back as `seed` to replay a run). */
  readonly seed: number;
  private readonly provider: ChatProvider;
  private readonly config: ChaosConfig;
  private readonly state: ChaosState;

  constructor(provider: ChatProvider, options: ChaosOptions = {}) {
    super();
    this.provider = provider;
    this.config = resolveConfig(options);
    this.seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
    if (!Number.isFinite(this.seed)) throw new RangeError(`seed must be a finite number, got ${String(this.seed)}`);
    this.state = { random: new SeededRandom(this.seed), calls: 0, faults: [] };
  }

  get name(): string {
    return this.provider.name;
  }

  /** The wrapped model's name, as `chaos(<model>)` while faults can happen. */
  get modelName(): string {
    const active = this.config.errorProbability > 0 || this.config.schedule.some((kind) => kind !== null);
    return active ? `chaos(${this.provider.modelName})` : this.provider.modelName;
  }

  get thinkingEffort(): ThinkingEffort | null {
    return this.provider.thinkingEffort;
  }

  /** The wrapped provider. */
  get wrapped(): ChatProvider {
    return this.provider;
  }

  /** How many times `generate` was called (aborted calls excepted). */
  get calls(): number {
    return this.state.calls;
  }

  /** Every fault injected so far, in order. */
  get faults(): readonly ChaosFault[] {
    return this.state.faults;
  }

  protected async start({ systemPrompt, tools, history, signal }: GenerationRequest): Promise<StreamedMessage> {
    const options = { signal };
    const call = ++this.state.calls;
    const kind = this.chooseFault(call);
    const { random, faults } = this.state;
    switch (kind) {
      case null:
        return this.provider.generate(systemPrompt, tools, history, options);
      case "rate_limit":
      case "server_error":
      case "overloaded":
      case "timeout": {
        const error = this.requestError(kind);
        faults.push({ call, kind, error });
        throw error;
      }
      case "empty_response":
        faults.push({ call, kind });
        return new ScriptedStreamedMessage({ parts: [], signal });
      case "connection_reset": {
        const fault: ChaosResetFault = {
          call,
          kind,
          afterParts: random.int(1, this.config.maxPartsBeforeReset),
          error: new APIConnectionError(`Connection reset by peer${injected}`),
        };
        const inner = await this.provider.generate(systemPrompt, tools, history, options);
        faults.push(fault);
        return new ChaosStreamedMessage(inner, fault);
      }
      case "corrupt_tool_call": {
        const fault: ChaosCorruptionFault = { call, kind, corruption: this.config.corruption, toolCallId: null };
        const inner = await this.provider.generate(systemPrompt, tools, history, options);
        faults.push(fault);
        return new ChaosStreamedMessage(inner, fault);
      }
    }
  }

  withThinking(effort: ThinkingEffort): ChaosChatProvider {
    const copy = Object.create(ChaosChatProvider.prototype) as ChaosChatProvider;
    Object.assign(copy, this, { provider: this.provider.withThinking(effort) });
    return copy;
  }

  private chooseFault(call: number): ChaosFaultKind | null {
    const { schedule, errorProbability, kinds, weights, totalWeight } = this.config;
    if (call <= schedule.length) return schedule[call - 1]!;
    const { random } = this.state;
    if (!(random.next() < errorProbability)) return null;
    let point = random.next() * totalWeight;
    for (let i = 0; i < kinds.length; i++) {
      point -= weights[i]!;
      if (point < 0) return kinds[i]!;
    }
    return kinds[kinds.length - 1]!;
  }

  private requestError(kind: "rate_limit" | "server_error" | "overloaded" | "timeout"): ChatProviderError {
    switch (kind) {
      case "rate_limit":
        return createStatusError(429, `Rate limit exceeded${injected}`, {
          retryAfterMs: this.config.retryAfterMs,
          errorCode: "rate_limit_exceeded",
        });
      case "overloaded":
        return createStatusError(529, `Overloaded${injected}`, { errorType: "overloaded_error" });
      case "timeout":
        return new APITimeoutError(`Request timed out.${injected}`);
      case "server_error": {
        const status = this.state.random.pick(this.config.serverErrorStatuses);
        const [message, code] = statusTexts[status] ?? ["Server error", "server_error"];
        return createStatusError(status, `${message}${injected}`, { errorCode: code });
      }
    }
  }
}

function resolveConfig(options: ChaosOptions): ChaosConfig {
  const errorProbability = options.errorProbability ?? (options.schedule ? 0 : 0.3);
  if (!(errorProbability >= 0 && errorProbability <= 1)) {
    throw new RangeError(`errorProbability must be between 0 and 1, got ${String(errorProbability)}`);
  }
  const weighted: [ChaosFaultKind, number][] = Array.isArray(options.kinds)
    ? (options.kinds as readonly ChaosFaultKind[]).map((kind) => [kind, 1])
    : options.kinds
      ? (Object.entries(options.kinds) as [ChaosFaultKind, number][])
      : chaosFaultKinds.map((kind) => [kind, 1]);
  for (const [kind, weight] of weighted) {
    checkKind(kind, "kinds");
    if (!(Number.isFinite(weight) && weight >= 0)) {
      throw new RangeError(`the weight of ${kind} must be a non-negative number, got ${String(weight)}`);
    }
  }
  const chosen = weighted.filter(([, weight]) => weight > 0);
  if (chosen.length === 0 && errorProbability > 0) throw new RangeError("kinds must allow at least one fault kind");
  const schedule = options.schedule ?? [];
  for (const kind of schedule) if (kind !== null) checkKind(kind, "schedule");
  const retryAfterMs = options.retryAfterMs === undefined ? 1000 : options.retryAfterMs;
  if (retryAfterMs !== null && !(Number.isFinite(retryAfterMs) && retryAfterMs >= 0)) {
    throw new RangeError(`retryAfterMs must be a non-negative number or null, got ${String(retryAfterMs)}`);
  }
  const serverErrorStatuses = options.serverErrorStatuses ?? [500, 502, 503, 504];
  if (serverErrorStatuses.length === 0 || serverErrorStatuses.some((s) => !Number.isInteger(s) || s < 500 || s > 599)) {
    throw new RangeError(`serverErrorStatuses must be a non-empty list of 5xx statuses, got [${serverErrorStatuses.join(", ")}]`);
  }
  const maxPartsBeforeReset = options.maxPartsBeforeReset ?? 3;
  if (!(Number.isInteger(maxPartsBeforeReset) && maxPartsBeforeReset >= 1)) {
    throw new RangeError(`maxPartsBeforeReset must be a positive integer, got ${String(maxPartsBeforeReset)}`);
  }
  const corruption = options.corruption ?? "truncate";
  if (corruption !== "truncate" && corruption !== "garble") {
    throw new RangeError(`corruption must be "truncate" or "garble", got ${String(corruption)}`);
  }
  return {
    errorProbability,
    kinds: chosen.map(([kind]) => kind),
    weights: chosen.map(([, weight]) => weight),
    totalWeight: chosen.reduce((sum, [, weight]) => sum + weight, 0),
    schedule: schedule.slice(),
    retryAfterMs,
    serverErrorStatuses: serverErrorStatuses.slice(),
    maxPartsBeforeReset,
    corruption,
  };
}

function checkKind(kind: string, where: string): void {
  if (!(chaosFaultKinds as readonly string[]).includes(kind)) {
    throw new RangeError(`unknown fault kind ${JSON.stringify(kind)} in ${where}; expected one of ${chaosFaultKinds.join(", ")}`);
  }
}
