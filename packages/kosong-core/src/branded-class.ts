/**
 * The brand mechanism every kosong error class uses (the {@link KosongError}
 * exceptions and the {@link ToolError} results alike): a class names a
 * static `brand`, a globally unique key; its instances carry the brand of
 * each class of their chain, and the static `isInstance` checks the brand of
 * the class it is read from. Brands are global symbols, so an instance made
 * by another installed copy of the package is recognised.
 */
import { createErrorMarker } from "./error-marker.js";

/** A class that may name a brand, as the brand functions see it. */
type Constructor = abstract new (...args: never[]) => unknown;

/** Marks `target` with the brand of each class from `cls` (its `new.target`) up the chain that names one. */
export function markBrands(target: object, cls: Constructor): void {
  for (let c: unknown = cls; typeof c === "function"; c = Object.getPrototypeOf(c)) {
    if (Object.hasOwn(c, "brand")) createErrorMarker(brandOf(c)).mark(target);
  }
}

/** True when `value` carries `cls`'s brand (or, for a class without one of its own, is an instance of it). */
export function isBranded(cls: Constructor, value: unknown): boolean {
  if (!Object.hasOwn(cls, "brand")) return value instanceof cls;
  return createErrorMarker(brandOf(cls)).is(value);
}

/**
 * Makes `root.isInstance`, read from `root` or any subclass, that class's
 * check already bound, so `errors.filter(SomeError.isInstance)` keeps the
 * class.
 */
export function bindIsInstance(root: Constructor): void {
  Object.defineProperty(root, "isInstance", {
    configurable: true,
    get(this: Constructor) {
      return (value: unknown): boolean => isBranded(this, value);
    },
  });
}

function brandOf(cls: object): string {
  return (cls as { readonly brand: string }).brand;
}
