/**
 * Brand markers that make `isInstance` checks work across duplicate installs
 * of a package (two versions in `node_modules`, bundled and unbundled code),
 * where `instanceof` fails because each copy has its own classes.
 */

/** A brand for one error class, shared by every copy of the code that creates it. */
export interface ErrorMarker {
  /** The global symbol (`Symbol.for(key)`) under which the brand is stored. */
  readonly symbol: symbol;
  /** Brands `target` (a non-enumerable, read-only property, invisible to JSON and `Object.keys`). */
  mark(target: object): void;
  /** True when `value` is an object carrying this brand, whichever copy of the code branded it. */
  is(value: unknown): boolean;
}

/**
 * The marker for `key`, a globally unique name such as
 * `"@my/package.error.MyError"`. Markers with the same key are
 * interchangeable: a class brands its instances in its constructor and tests
 * the brand in a static `isInstance`, so an instance made by another loaded
 * copy of the class is recognised.
 *
 * `KosongError`, `ToolError` and their subclasses use markers through their
 * static `brand` (`static override readonly brand = "@my/package.error.MyError"`,
 * see branded-class.ts); call this directly only for a class outside those.
 */
export function createErrorMarker(key: string): ErrorMarker {
  const symbol = Symbol.for(key);
  return {
    symbol,
    mark(target: object): void {
      Object.defineProperty(target, symbol, { value: true, enumerable: false });
    },
    is(value: unknown): boolean {
      return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[symbol] === true;
    },
  };
}
