/** A tiny node HTTP dev server for the background-job tests, and how to find its processes. */
import { readdirSync, readFileSync } from "node:fs";

/** A dev server: listens on 127.0.0.1, answers "ok", says so; quits (code 3) when a `quit` file appears, writing `server.done` first. */
export const devServer = `
const http = require("node:http");
const fs = require("node:fs");
const server = http.createServer((req, res) => res.end("ok"));
server.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port));
setInterval(() => {
  if (!fs.existsSync("quit")) return;
  console.log("quitting");
  fs.writeFileSync("server.done", "");
  process.exit(3);
}, 30);
`;

/** Processes (any pid namespace) whose command line names `marker`. */
export function processesWith(marker: string): string[] {
  return readdirSync("/proc").filter((pid) => /^\d+$/.test(pid) && pid !== String(process.pid)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
    } catch {
      return false;
    }
  });
}
