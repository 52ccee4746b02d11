/** "ended" when `ending` settles within 8 s, else "hung": a test of what must not hang reports it instead of timing out. */
export function endsOrHangs(ending: Promise<unknown>): Promise<"ended" | "hung"> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), 8_000)));
  return Promise.race([ending.then(() => "ended" as const), hung]).finally(() => clearTimeout(timer));
}
