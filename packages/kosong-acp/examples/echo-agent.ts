import { randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { serveAcp, stdioStream } from "@kosong/acp";
import { SimpleToolset } from "@kosong/core";
import { EchoChatProvider } from "@kosong/core/testing";
import { Context, Soul } from "@kosong/soul";

const dir = await mkdtemp(path.join(os.tmpdir(), "echo-agent-"));

await serveAcp(
  {
    info: { name: "echo-agent", version: "1.0.0" },
    async newSession({ cwd }) {
      const id = randomUUID();
      const context = new Context(path.join(dir, `${id}.jsonl`));
      await context.restore();
      const soul = new Soul({
        agent: { name: "echo", systemPrompt: `You work in ${cwd}.`, toolset: new SimpleToolset([]) },
        provider: new EchoChatProvider(), // streams the echo-DSL script the user sends
        context,
        session: { id, workDir: cwd },
      });
      return { id, soul, close: () => context.close() };
    },
  },
  stdioStream(),
);
