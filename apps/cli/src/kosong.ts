import { estimateTokens } from "@kosong/soul";
import { userMessage } from "@kosong/core";

const args = process.argv.slice(2);
if (args.includes("--version")) {
  process.stdout.write("kosong 0.1.0\n");
} else if (args[0] === "estimate") {
  process.stdout.write(`${estimateTokens([userMessage(args.slice(1).join(" "))])}\n`);
} else {
  process.stdout.write("usage: kosong --version | kosong estimate TEXT\n");
}
