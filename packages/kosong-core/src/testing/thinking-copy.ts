import type { ThinkingEffort } from "../chat-provider.js";

/**
 * A shallow copy of `provider` (same class, same fields) whose
 * `thinkingEffort` is `effort`. Fields holding objects, such as call logs
 * and script queues, are shared with the original.
 */
export function thinkingCopy<T extends { readonly thinkingEffort: ThinkingEffort | null }>(provider: T, effort: ThinkingEffort): T {
  const copy = Object.create(Object.getPrototypeOf(provider) as object | null) as T;
  Object.assign(copy, provider);
  (copy as { thinkingEffort: ThinkingEffort | null }).thinkingEffort = effort;
  return copy;
}
