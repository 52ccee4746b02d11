/**
 * The tsup settings every kosong package builds with: ESM for Node 22, with
 * declarations and source maps, shared chunks between entries, and the
 * other `@kosong/*` packages left as imports. A package's tsup.config.ts
 * names its entries and what else it leaves external, and overrides a
 * setting only where it differs (see index.d.ts).
 */
const preset = {
  format: ["esm"],
  target: "node22",
  platform: "node",
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
};

export function kosongTsup(options) {
  return { ...preset, ...options, external: [/^@kosong\//, ...(options.external ?? [])] };
}
