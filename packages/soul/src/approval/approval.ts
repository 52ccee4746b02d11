/**
 * Approval of tool actions: a tool asks (`approval.request(action,
 * description)` in its `ToolContext`), the soul emits an `ApprovalRequest`
 * event, and the host answers with `respond(id, kind, feedback?)`.
 */
import { randomUUID } from "node:crypto";
import { abortError } from "@kosong/core";
import { ApprovalRequestNotFoundError } from "../errors.js";
import { type ApprovalKind, approvalKinds, type SoulEventOf } from "../events/events.js";
import { ToolRejectedError } from "./tool-rejected-error.js";

/** A pending request, as the `ApprovalRequest` event carries it. */
export type ApprovalRequestInfo = SoulEventOf<"ApprovalRequest">["payload"];

/** The answer a tool gets. When not approved, return `rejection` as the tool's result. */
export type ApprovalAnswer =
  | { approved: true }
  | { approved: false; feedback: string; rejection: ToolRejectedError };

/** What a tool finds in `context.approval`: requests approval for the call it runs. */
export interface ToolApproval {
  /**
   * Asks the user whether `action` may happen, described by `description`.
   * `action` is the key `approve_for_session` remembers: once the user
   * approves for the session, every later request with the same `action`
   * is approved without asking, so make it as narrow as that approval
   * should reach (e.g. "Shell: git status", not "Shell"). `scope` says in
   * words what that covers (e.g. "`git status` commands"); hosts show it
   * with the approve-for-session choice. `options.once`: only this request
   * can be approved, never the action for the session (see
   * {@link ApprovalRequestOptions}). Resolves once answered; rejects with an
   * AbortError when the call is cancelled while waiting.
   */
  request(action: string, description: string, scope?: string, options?: ApprovalRequestOptions): Promise<ApprovalAnswer>;
}

/** How a request may be answered. */
export interface ApprovalRequestOptions {
  /**
   * Only this request can be approved (e.g. leaving plan mode with one
   * plan): the `ApprovalRequest` carries `once: true`, hosts offer no
   * "for the session" choice, and an `approve_for_session` answer approves
   * this request only (the action is not remembered).
   */
  once?: boolean;
}

/** Receives approval events (the soul forwards them into the running turn). */
export type ApprovalListener = (event: SoulEventOf<"ApprovalRequest"> | SoulEventOf<"ApprovalResponse">) => void;

/** Options of {@link Approval}. */
export interface ApprovalOptions {
  /** Approve everything without asking (default false). */
  yolo?: boolean;
  /**
   * Hands every request to another approval instead of answering it here
   * (yolo, the session's approvals and the answers are then that one's): a
   * child soul forwards to its parent's turn, so the parent's host answers
   * (see `runSubagent`). No `ApprovalRequest` is emitted here then.
   */
  forward?: ApprovalForward;
}

/** Asks another approval: what {@link ApprovalOptions.forward} calls with each request. */
export type ApprovalForward = (request: Omit<ApprovalRequestInfo, "id">, signal?: AbortSignal) => Promise<ApprovalAnswer>;

interface Pending {
  info: ApprovalRequestInfo;
  resolve: (answer: ApprovalAnswer) => void;
}

/**
 * The approval state of a session: yolo, the actions approved for the
 * session, and the pending requests.
 */
export class Approval {
  /** Approve everything without asking. */
  yolo: boolean;
  readonly #sessionActions = new Set<string>();
  readonly #pending = new Map<string, Pending>();
  readonly #listeners = new Set<ApprovalListener>();
  readonly #outbox: Array<Parameters<ApprovalListener>[0]> = [];
  #delivering = false;

  readonly #forward: ApprovalForward | null;

  constructor(options: ApprovalOptions = {}) {
    this.yolo = options.yolo ?? false;
    this.#forward = options.forward ?? null;
  }

  /** The actions approved for the rest of the session. */
  get sessionApproved(): ReadonlySet<string> {
    return this.#sessionActions;
  }

  /** The requests waiting for an answer, oldest first. */
  pending(): ApprovalRequestInfo[] {
    return Array.from(this.#pending.values(), (p) => p.info);
  }

  /** Subscribes to `ApprovalRequest` and `ApprovalResponse` events; returns the unsubscribe function. */
  subscribe(listener: ApprovalListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The approval handed to the tool running `toolCallId` (tool `sender`). */
  forCall(toolCallId: string, sender: string, signal?: AbortSignal): ToolApproval {
    return {
      request: (action, description, scope, options) =>
        this.request({ tool_call_id: toolCallId, sender, action, description, ...(scope === undefined ? {} : { scope }), ...(options?.once ? { once: true } : {}) }, signal),
    };
  }

  /**
   * Asks for approval. Answered at once when yolo is on or the action was
   * approved for the session; otherwise emits an `ApprovalRequest` and waits
   * for {@link respond}. Rejects with an AbortError when `signal` aborts first.
   */
  request(request: Omit<ApprovalRequestInfo, "id">, signal?: AbortSignal): Promise<ApprovalAnswer> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.#forward !== null) return this.#forward(request, signal);
    if (this.yolo || this.#sessionActions.has(request.action)) return Promise.resolve({ approved: true });
    // Unique across sessions and restarts: an answer to a request from before a restart never lands on a new one.
    const info: ApprovalRequestInfo = { id: `approval-${randomUUID()}`, ...request };
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      const onAbort = (): void => {
        this.#pending.delete(info.id);
        reject(abortError(signal));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(info.id, {
        info,
        resolve: (answer) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(answer);
        },
      });
      this.#emit({ type: "ApprovalRequest", payload: info });
    });
  }

  /**
   * Answers request `requestId` (the `id` of its `ApprovalRequest`, unique
   * across sessions and restarts: `approval-<uuid>`): `approve`, `approve_for_session` (also
   * approves every later request of the same action), or `reject` with
   * optional feedback for the model. Answers arrive from UIs, RPC and JSON,
   * so they are checked at run time: anything else approves nothing.
   * @throws TypeError when `response` is not one of {@link approvalKinds} or
   *   `feedback` is not a string (the request stays pending).
   * @throws ApprovalRequestNotFoundError when no such request is pending.
   */
  respond(requestId: string, response: ApprovalKind, feedback = ""): void {
    if (!(approvalKinds as readonly unknown[]).includes(response)) {
      throw new TypeError(`Not an approval answer: ${JSON.stringify(response) ?? String(response)}; answer one of ${approvalKinds.join(", ")}.`);
    }
    if (typeof feedback !== "string") throw new TypeError(`Approval feedback must be a string, got ${typeof feedback}.`);
    const pending = this.#pending.get(requestId);
    if (pending === undefined) throw new ApprovalRequestNotFoundError(requestId, [...this.#pending.keys()]);
    this.#pending.delete(requestId);
    // A request that can only be approved once takes approve_for_session as approve: its action is not remembered.
    const kind = pending.info.once === true && response === "approve_for_session" ? "approve" : response;
    if (kind === "approve_for_session") this.#sessionActions.add(pending.info.action);
    this.#emit({ type: "ApprovalResponse", payload: { request_id: requestId, response: kind, feedback } });
    const approved = kind === "approve" || kind === "approve_for_session";
    pending.resolve(approved ? { approved: true } : { approved: false, feedback, rejection: new ToolRejectedError(feedback) });
    if (kind === "approve_for_session") this.#approveWaiting(pending.info.action);
  }

  /** Answers the other pending requests of an action that was just approved for the session. */
  #approveWaiting(action: string): void {
    for (const [id, other] of this.#pending) if (other.info.action === action) this.respond(id, "approve");
  }

  /**
   * Delivers `event` to every listener. A listener that answers a request
   * synchronously emits from inside this loop: that event waits in the queue
   * until every listener has seen the current one, so all listeners see
   * every request before its answer.
   */
  #emit(event: Parameters<ApprovalListener>[0]): void {
    this.#outbox.push(event);
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      for (let next = this.#outbox.shift(); next !== undefined; next = this.#outbox.shift()) {
        for (const listener of this.#listeners) {
          try {
            listener(next);
          } catch {
            // A failing listener must not lose the request or its answer.
          }
        }
      }
    } finally {
      this.#delivering = false;
    }
  }
}
