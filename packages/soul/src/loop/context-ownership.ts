/**
 * A Context belongs to one Soul at a time: the first Soul that runs an
 * operation on it owns it until it calls `release()`. Two Souls appending
 * turns to one conversation would interleave their records in the file and
 * fold each other's messages into their turns.
 */
import type { Context } from "../context/index.js";
import { ContextInUseError } from "../errors.js";

/** A Soul, as ownership needs it: a name for the error message. */
export interface ContextOwner {
  readonly agent: { readonly name: string };
}

/** Owners by context, shared by every installed copy of @kosong/soul in the process. */
const registryKey = Symbol.for("@kosong/soul.contextOwners");
const owners: WeakMap<Context, ContextOwner> = ((globalThis as Record<symbol, unknown>)[registryKey] as WeakMap<Context, ContextOwner> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[registryKey] = new WeakMap<Context, ContextOwner>());

/**
 * Makes `owner` the owner of `context` if nobody owns it.
 * @throws ContextInUseError when another owner holds it.
 */
export function claimContext(context: Context, owner: ContextOwner, what: string): void {
  const current = owners.get(context);
  if (current === undefined) owners.set(context, owner);
  else if (current !== owner) throw new ContextInUseError(what, context.location, current.agent.name);
}

/** Gives up `owner`'s ownership of `context` (nothing if it does not own it). */
export function releaseContext(context: Context, owner: ContextOwner): void {
  if (owners.get(context) === owner) owners.delete(context);
}
