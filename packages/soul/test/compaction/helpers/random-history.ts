/**
 * Seeded random agent histories for the compaction property tests: user
 * turns, assistant steps with think parts and parallel tool calls, results
 * in any order (some long, some errors), images, steering messages between
 * steps, English or Chinese text, now and then a system message.
 */
import {
  assistantMessage,
  type ContentPart,
  imageURLPart,
  type Message,
  systemMessage,
  textPart,
  thinkPart,
  toolCall,
  toolMessage,
  userMessage,
} from "@kosong/core";

/** mulberry32: a small seeded PRNG. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EN = "the parser stream token refactor tests pass node context user constraint decision error fix file path budget summary model window tool result call history build deploy config".split(" ");
const ZH = "我们重构了解析器以惰性地流式传输标记现在测试在节点上通过了上下文压缩保留用户的约束和决定错误修复文件路径".split("");

export function randomHistory(random: () => number): Message[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const cjk = random() < 0.2;
  const words = (n: number): string =>
    cjk ? Array.from({ length: n }, () => pick(ZH)).join("") : Array.from({ length: n }, () => pick(EN)).join(" ");
  const history: Message[] = [];
  let callId = 0;
  const turns = 1 + Math.floor(random() * 8);
  for (let turn = 0; turn < turns; turn++) {
    if (random() < 0.05) history.push(systemMessage(`system note ${words(5)}`));
    history.push(
      random() < 0.1 ? userMessage([textPart(words(8)), imageURLPart("data:image/png;base64,iVBORw0KGgo=")]) : userMessage(words(3 + Math.floor(random() * 40))),
    );
    const steps = Math.floor(random() * 5);
    for (let step = 0; step < steps; step++) {
      const calls = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
        toolCall(`call_${callId++}`, pick(["Read", "Shell", "Write", "Grep"]), { path: `/src/${pick(EN)}.ts`, command: words(3) }),
      );
      const content: ContentPart[] = [textPart(random() < 0.5 ? "" : words(10))];
      if (random() < 0.3) content.unshift(thinkPart(words(30), random() < 0.5 ? "sig" : null));
      history.push(assistantMessage(content, calls));
      const results = calls.map((call) => {
        const size = random() < 0.15 ? 400 + Math.floor(random() * 3000) : 5 + Math.floor(random() * 60);
        const text = random() < 0.1 ? `<system>ERROR: ${words(8)} failed</system>` : words(size);
        return toolMessage(call.id, text);
      });
      if (random() < 0.5) results.reverse();
      history.push(...results);
      if (random() < 0.1) history.push(userMessage(`steer: ${words(6)}`));
    }
    if (random() < 0.85) history.push(assistantMessage(words(5 + Math.floor(random() * 60))));
  }
  return history;
}
