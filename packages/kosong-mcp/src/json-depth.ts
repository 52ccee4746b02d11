/** How deeply a value parsed from JSON nests, measured without recursion (internal). */

/**
 * The nesting depth of `value` (a scalar 0, `{}` or `[]` 1, `{"a": {}}` 2),
 * walked with an explicit stack so that no depth can overflow the call
 * stack; stops counting once it passes `limit` (then returns `limit + 1`).
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    const here = depth + 1;
    if (here > limit) return limit + 1;
    if (here > deepest) deepest = here;
    for (const child of Object.values(item)) if (child !== null && typeof child === "object") stack.push([child, here]);
  }
  return deepest;
}
