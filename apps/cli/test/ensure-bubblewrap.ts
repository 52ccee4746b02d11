/** Makes sure bubblewrap is installed for the sandbox tests (apt-get install -y bubblewrap when it is not, as CI machines may lack it). */
import { execFileSync } from "node:child_process";

/** The path of bwrap, installing it with apt-get when missing ("" when that failed). */
export function ensureBubblewrap(): string {
  const find = () => execFileSync("bash", ["-c", "command -v bwrap || true"], { encoding: "utf8" }).trim();
  if (find()) return find();
  try {
    execFileSync("apt-get", ["install", "-y", "bubblewrap"], { stdio: "ignore" });
  } catch {
    execFileSync("apt-get", ["update"], { stdio: "ignore" });
    execFileSync("apt-get", ["install", "-y", "bubblewrap"], { stdio: "ignore" });
  }
  return find();
}
