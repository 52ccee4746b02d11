/**
 * Text samples for the tokenizer benchmark: English prose (the repository's
 * READMEs), TypeScript (the packages' sources) and Chinese (a text written
 * for this benchmark), read from the repository at run time.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full, suffix));
    else if (entry.name.endsWith(suffix)) out.push(full);
  }
  return out.sort();
}

/** The READMEs of the repository, concatenated. */
export function englishSample(): string {
  const readmes = ["README.md", "bench/README.md", ...readdirSync(path.join(root, "packages")).map((p) => `packages/${p}/README.md`)];
  return readmes.flatMap((file) => {
    try {
      return [readFileSync(path.join(root, file), "utf8")];
    } catch {
      return [];
    }
  }).join("\n\n");
}

/** The TypeScript sources of the packages, one string per file. */
export function codeFiles(): string[] {
  return readdirSync(path.join(root, "packages")).flatMap((p) => {
    const src = path.join(root, "packages", p, "src");
    try {
      return filesUnder(src, ".ts").map((file) => readFileSync(file, "utf8"));
    } catch {
      return [];
    }
  });
}

/** Chinese prose about agents and their context (written for this benchmark). */
export const chineseSample = `智能体在长时间运行时会积累大量对话历史。每一次调用模型，都要把系统提示、用户的请求、模型的回答以及工具的输出一起发送过去。上下文窗口虽然越来越大，但终究有限；当历史接近上限时，必须决定保留什么、丢弃什么。
最简单的办法是只保留最近的几条消息，可这样会丢掉用户在一开始提出的约束，比如“不要修改公共接口”或者“只用制表符缩进”。稍好一点的办法是把旧的消息交给模型写成摘要，再把最近的消息原样接在后面。摘要的质量取决于提示词：它应当要求模型记下用户的原话、改动过的文件、遇到的错误以及最后是怎样解决的，还有做出的技术决定和理由。
工具调用让事情更复杂。模型发出的每一个调用都必须有对应的结果，而且结果要紧跟在调用所在的消息后面，否则服务端会直接拒绝请求。因此截断历史时只能在完整的回合之间下刀，不能把调用和结果拆开。体积很大的工具输出，例如整份日志或者整个源文件，可以先换成一句简短的说明，写明省略了多少个标记，这样既节省空间，又让模型知道那里曾经有内容。
计数也需要认真对待。按照每四个字符一个标记来估算，对英文大致可用，对代码会偏低，对中文则严重偏低，因为一个汉字通常就是一个标记甚至更多。如果预算按这种估算来执行，压缩之后的上下文可能仍然超出窗口。使用与模型相同的分词器来计数，误差才能控制在可以接受的范围内。
最后，压缩本身也可能失败：模型可能返回空白、道歉、只有一句“好的”，或者因为输出长度限制而在中途被截断。可靠的实现会检查摘要是否完整，失败时依次退回到主模型、抽取式摘要，最后才是带说明的直接截断，并且不会在每一步都重复尝试一个已经坏掉的模型。`;
