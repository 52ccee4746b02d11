import type { Options } from "tsup";

/**
 * The tsup options of one kosong package: the shared preset (ESM, `node22`,
 * `platform: "node"`, declarations, source maps, `clean`, `splitting`,
 * `treeshake`) under `options`, with `/^@kosong\//` always external besides
 * `options.external`.
 */
export declare function kosongTsup(options: Options & { entry: NonNullable<Options["entry"]> }): Options;
