/**
 * The `FetchURL` tool: GET a web page for the model, as markdown (HTML) or
 * as it is (text, JSON). Each host is approved before it is contacted (the
 * first time in a session; config `fetch_allow_hosts` needs no asking), and
 * private addresses are refused (see {@link AddressPolicy}).
 */
import { toolError, toolOk, type ToolReturnValue } from "@kosong/core";
import { defineBuiltInTool } from "../tools/built-in-tool.js";
import * as z from "zod";
import { askApproval } from "../tools/ask-approval.js";
import { capOutput } from "../tools/cap-output.js";
import { AddressPolicy } from "./address-policy.js";
import { defaultFetchLimits, type FetchLimits } from "./fetch-limits.js";
import { FetchError } from "./fetch-error.js";
import { hostAllowed } from "./host-allowed.js";
import { pageText } from "./page-text.js";

/** Options of {@link fetchUrlTool}. */
export interface FetchUrlOptions {
  /** Hosts fetched without asking: `example.com`, `*.example.com`, `host:port`. */
  allowHosts?: readonly string[];
  /** Private addresses or ranges that may be reached (`127.0.0.1`, `10.0.0.0/8`). */
  allowPrivate?: readonly string[];
  limits?: Partial<FetchLimits>;
  /** The permission rules' word on a host (each redirect's too): `deny` refuses it, `allow` fetches without asking; null: ask. */
  hostRule?: (host: string) => "allow" | "ask" | "deny" | null;
}

/** The parameters of `FetchURL` (listed in `tools/built-in-tool-parameters.ts`). */
export const fetchUrlParameters = z.lazy(() => z.object({
  url: z.string().min(1).describe("The http or https URL to fetch."),
}));

/** Builds `FetchURL`. */
export function fetchUrlTool(options: FetchUrlOptions = {}) {
  const policy = new AddressPolicy(options.allowPrivate ?? []);
  const limits = { ...defaultFetchLimits, ...options.limits };
  return defineBuiltInTool({
    name: "FetchURL",
    description: `Fetch a web page or file over http(s) with GET. HTML comes back as markdown, text and JSON as they are. At most ${limits.maxBytes} bytes, ${limits.timeoutMs / 1000} s and ${limits.maxRedirects} redirects; private network addresses are refused.`,
    parameters: fetchUrlParameters,
    async execute({ url }, context) {
      // A refusal of the user (with their feedback) is returned as it is, not as a fetch error.
      let refused: ToolReturnValue | null = null;
      const approveHost = async (host: string) => {
        const rule = options.hostRule?.(host) ?? null;
        if (rule === "deny") throw new FetchError(`Fetching from ${host} is denied by a permission rule.`);
        if (rule === "allow" || hostAllowed(host, options.allowHosts ?? [])) return true;
        refused = await askApproval(context, `FetchURL:${host}`, `Fetch ${url.slice(0, 300)} (host ${host})`, `every FetchURL request to ${host}`);
        return refused === null;
      };
      try {
        const { guardedGet } = await import("./guarded-get.js");
        const page = await guardedGet(url, { policy, limits, signal: context.signal, approveHost });
        const text = await pageText(page.body, page.contentType, page.url);
        if (text === null) return toolError({ message: `${page.url} is ${page.contentType}, not text: FetchURL reads HTML, text and JSON only.`, brief: "Not text" });
        const notes = [page.url !== url ? `Redirected to ${page.url}.` : "", page.truncated ? `The body was cut at ${limits.maxBytes} bytes.` : ""].filter(Boolean).join(" ");
        if (page.status >= 400) return toolError({ message: `HTTP ${page.status} from ${page.url}. ${notes}`.trim(), output: capOutput(text), brief: `HTTP ${page.status}` });
        return toolOk({ output: capOutput(text), message: notes, brief: `${new URL(page.url).host} (${page.body.length} bytes${page.truncated ? ", cut" : ""})` });
      } catch (error) {
        if (refused !== null) return refused;
        if (error instanceof FetchError) return toolError({ message: error.message, brief: error.message.slice(0, 60) });
        throw error;
      }
    },
  });
}
