/**
 * `TaskOutput` and `TaskStop`: the model's view of the background jobs the
 * Shell tool started (`run_in_background`): the new output and state of a
 * job, and stopping one (its whole process group).
 */
import { toolError, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "./built-in-tool.js";
import * as z from "zod";
import type { BackgroundJobs, JobInfo } from "../jobs/background-jobs.js";
import { capOutput } from "./cap-output.js";

const jobId = z.string().min(1).max(64).describe("The job id Shell gave (e.g. job-1).");

/** The parameters of `TaskOutput` (listed in `built-in-tool-parameters.ts`). */
export const taskOutputParameters = z.lazy(() => z.object({
  job_id: jobId,
  block: z.boolean().default(false).describe("Wait for new output or the job's end."),
  timeout: z.int().min(1).max(120).default(30).describe("With block: seconds to wait at most (default 30)."),
}));

/** The parameters of `TaskStop` (listed in `built-in-tool-parameters.ts`). */
export const taskStopParameters = z.lazy(() => z.object({ job_id: jobId }));

/** TaskOutput and TaskStop over `jobs`. */
export function taskTools(jobs: BackgroundJobs) {
  const unknown = (id: string) => toolError({ message: `No background job ${JSON.stringify(id)}. Jobs: ${jobs.list().map((j) => j.id).join(", ") || "none"}.`, brief: "Unknown job" });
  return [
    defineBuiltInTool({
      name: "TaskOutput",
      description: "Read the output a background job (Shell with run_in_background) wrote since the last read, and whether it still runs. With block, wait (up to timeout seconds) for new output or for the job to end.",
      parameters: taskOutputParameters,
      async execute({ job_id, block, timeout }) {
        const read = await jobs.read(job_id, { waitMs: block ? timeout * 1000 : 0 });
        if (read === null) return unknown(job_id);
        const output = `${jobState(read.job)}\n${read.text ? capOutput(read.text) : "(no new output)"}${read.capped ? "\n[the job's log reached its cap: later output is not kept]" : ""}`;
        return toolOk({ output, brief: `${read.job.id} ${read.job.state}` });
      },
    }),
    defineBuiltInTool({
      name: "TaskStop",
      description: "Stop a background job: its whole process group gets SIGTERM, then SIGKILL after 2 s.",
      parameters: taskStopParameters,
      async execute({ job_id }) {
        const before = jobs.get(job_id);
        const job = await jobs.stop(job_id);
        if (job === null || before === null) return unknown(job_id);
        return toolOk({ output: before.state === "running" ? `Stopped. ${jobState(job)}` : `It had already ended. ${jobState(job)}`, brief: `${job.id} ${job.state}` });
      },
    }),
  ];
}

/** `job-1 (npm run dev): running` / `...: exited with code 0` / `...: stopped (SIGTERM)`. */
export function jobState(job: JobInfo): string {
  const how =
    job.state === "running"
      ? "running"
      : job.state === "failed"
        ? "could not start"
        : `${job.state}${job.exitCode !== null ? ` with code ${job.exitCode}` : job.signal ? ` (${job.signal})` : ""}`;
  return `Job ${job.id} (${job.command.length > 80 ? `${job.command.slice(0, 77)}...` : job.command}): ${how}.`;
}
