/**
 * Schemas built on first use. A module that builds its zod schemas at import
 * makes every program importing it pay for them, even one that never
 * parses what they describe: kosong's CLI made some 600 zod calls at import
 * (its config file's schema alone about 290) for files a start often does
 * not read. {@link lazySchema} defers the building to the first call.
 */

/**
 * A getter for the value `build` returns, built on the first call and the
 * same value on every later call:
 *
 * ```ts
 * const settingsSchema = lazySchema(() => z.object({ name: z.string() }));
 * type Settings = z.infer<ReturnType<typeof settingsSchema>>;
 * settingsSchema().parse(json);
 * ```
 *
 * A `build` that throws is called again by the next call. For a bundler to
 * leave an unused lazy schema out, mark the call with a `@__PURE__` comment.
 */
export function lazySchema<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
