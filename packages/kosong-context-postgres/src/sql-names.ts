/** SQL identifiers built from user-given names. */

const plainName = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * `name` as a quoted SQL identifier. Only lower-case ASCII letters, digits
 * and `_` (not first a digit, at most 63 characters) are accepted, so a
 * schema name can never carry SQL; anything else is a TypeError.
 */
export function quoteIdentifier(name: string): string {
  if (typeof name !== "string" || !plainName.test(name)) {
    throw new TypeError(`a schema name must be 1-63 lower-case letters, digits or _ (not starting with a digit), got ${JSON.stringify(name)}`);
  }
  return `"${name}"`;
}
