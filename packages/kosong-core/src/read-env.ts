/** An environment variable, or undefined when it is unset or empty (or there is no `process`). */
export function readEnv(name: string): string | undefined {
  const value = globalThis.process?.env?.[name];
  return value ? value : undefined;
}
