/**
 * Encoding messages to the bytes of their JSONL lines, as append() queues
 * them for writing. Ours: @kosong/context's internal message line encoder
 * (WebAssembly SIMD escaping) into a ByteQueue. Baseline: what append did
 * before the encoder, `serializeMessage` (JSON.stringify) and `ByteQueue.pushLine` (UTF-8).
 * Both produce the same bytes (checked before timing). Informational, no
 * goal.
 *
 * - W: the 20,000 messages of context-jsonl.ts's workload W (~0.8 KB each,
 *   ASCII, few characters to escape);
 * - W in Chinese: the same shapes with CJK text and a newline every ~40
 *   characters (multi-byte UTF-8, more escapes).
 *
 * The encoder and ByteQueue are not exported by @kosong/context, so this
 * file loads them from the package's sources, with a resolve hook that maps
 * the sources' `./x.js` imports to their `./x.ts` files (Node's type
 * stripping runs TypeScript but does not remap extensions).
 */
import { registerHooks } from "node:module";
import { serializeMessage } from "@kosong/core";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { compare, toRow } from "../measure.ts";
import { W_MESSAGES, W_WORDS, workMessage } from "../workload-w.ts";

const contextSources = new URL("../../../packages/kosong-context/src/", import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (context.parentURL?.startsWith(contextSources) && specifier.startsWith("./") && specifier.endsWith(".js")) {
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
    return nextResolve(specifier, context);
  },
});

const { createMessageLineEncoder } = await import("../../../packages/kosong-context/src/message-line-encoder.ts");
const { ByteQueue } = await import("../../../packages/kosong-context/src/byte-queue.ts");

const chinese = "我们先读取配置文件，然后运行测试，看看哪些用例失败了。\n".repeat(40);

const benchmark: Benchmark = {
  name: "message-encode",
  async run({ quick }): Promise<BenchRow[]> {
    const encoder = createMessageLineEncoder();
    if (encoder.kind !== "wasm") throw new Error("WebAssembly SIMD is unavailable: the encoder fell back to serializeMessage");
    const rows: BenchRow[] = [];
    for (const [label, text] of [
      ["W", W_WORDS],
      ["W in Chinese", chinese],
    ] as const) {
      const messages = Array.from({ length: W_MESSAGES }, (_, i) => workMessage(i, text));
      const ours = () => {
        const queue = new ByteQueue();
        let bytes = 0;
        for (const message of messages) bytes += encoder.encodeLine(message, queue);
        return queue.take(bytes);
      };
      const baseline = () => {
        const queue = new ByteQueue();
        let bytes = 0;
        for (const message of messages) bytes += queue.pushLine(serializeMessage(message));
        return queue.take(bytes);
      };
      const encoded = Buffer.concat(ours());
      if (!encoded.equals(Buffer.concat(baseline()))) throw new Error(`${label}: the encoder wrote different bytes`);
      const result = await compare(ours, baseline, quick ? { warmup: 3, rounds: 7 } : { warmup: 10, rounds: 41 });
      const mb = (encoded.length / 1024 / 1024).toFixed(1);
      rows.push(
        toRow(`encode ${label} (${W_MESSAGES.toLocaleString("en-US")} messages, ${mb} MB) into a ByteQueue`, "serializeMessage + ByteQueue.pushLine", result, {
          note: `informational; ours: the internal message line encoder (WebAssembly SIMD escaping, ${encoder.memoryBytes / 1024} KiB of wasm memory)`,
        }),
      );
    }
    return rows;
  },
};

export default benchmark;
