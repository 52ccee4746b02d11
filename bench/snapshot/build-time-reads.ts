/**
 * What module evaluation reads from the process while the snapshot builds
 * (environment variables, the standard streams, argv, the directory): each
 * is frozen into the snapshot, so the build prints them for review.
 */
const reads = new Set<string>();
const env = process.env;
process.env = new Proxy(env, {
  get(target, key) {
    if (typeof key === "string") reads.add(`env.${key}`);
    return Reflect.get(target, key);
  },
  has(target, key) {
    if (typeof key === "string") reads.add(`env.${key}`);
    return Reflect.has(target, key);
  },
  ownKeys(target) {
    reads.add("env (all of it)");
    return Reflect.ownKeys(target);
  },
});
const kept = new Map<string, PropertyDescriptor>();
for (const name of ["stdout", "stderr", "stdin", "argv"] as const) {
  const descriptor = Object.getOwnPropertyDescriptor(process, name)!;
  kept.set(name, descriptor);
  const read = descriptor.get ? () => descriptor.get!.call(process) : () => descriptor.value;
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => (reads.add(`process.${name}`), read()) });
}
const cwd = process.cwd;
process.cwd = () => (reads.add("process.cwd()"), cwd());

export const buildTimeReads = {
  /** Puts the process back and prints what was read. */
  report(): void {
    process.env = env;
    for (const [name, descriptor] of kept) Object.defineProperty(process, name, descriptor);
    process.cwd = cwd;
    console.error(`[snapshot build] read while loading: ${[...reads].sort().join(", ") || "nothing"}`);
  },
};
