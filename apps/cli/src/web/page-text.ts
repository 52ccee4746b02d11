/**
 * What FetchURL gives the model of a fetched body: HTML as readable
 * markdown (turndown, on its own DOM parser; scripts, styles and other
 * non-content dropped), JSON and text as they are, other types refused.
 * turndown (and its DOM) is loaded on the first HTML page, not at start-up.
 */
import type TurndownService from "turndown";
import { FetchError } from "./fetch-error.js";
import { htmlNestsDeeperThan } from "./html-depth.js";

/** Pages nesting elements deeper than this are refused: parsing and converting them takes time growing with the square of the depth. */
export const maxHtmlDepth = 256;

/** The text of a body of `contentType` fetched from `url` (links resolve against it), or null when it is not text. */
export async function pageText(body: Buffer, contentType: string, url: string): Promise<string | null> {
  const [type = "", ...params] = contentType.toLowerCase().split(";").map((s) => s.trim());
  const charset = params.find((p) => p.startsWith("charset="))?.slice(8).replace(/"/g, "") ?? "utf-8";
  if (body.includes(0)) return null;
  const text = decode(body, charset);
  if (type === "text/html" || type === "application/xhtml+xml") return await htmlToMarkdown(text, url);
  if (type === "" || type.startsWith("text/") || type === "application/json" || type.endsWith("+json") || type === "application/xml" || type.endsWith("+xml") || type === "application/javascript") return text;
  return null;
}

/**
 * `html` as markdown, its links made absolute against `base` (so the model
 * can fetch them). Throws a {@link FetchError} for a page nesting deeper
 * than {@link maxHtmlDepth} (it would block the process for minutes).
 */
export async function htmlToMarkdown(html: string, base: string): Promise<string> {
  if (htmlNestsDeeperThan(html, maxHtmlDepth)) throw new FetchError(`The page at ${base.slice(0, 200)} nests its HTML more than ${maxHtmlDepth} elements deep; FetchURL does not convert such pages.`);
  const Turndown: typeof TurndownService = (await import("turndown")).default;
  const service = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  service.addRule("absoluteLinks", {
    filter: (node) => node.nodeName === "A" && Boolean(node.getAttribute("href")),
    replacement: (content, node) => {
      const href = absolute(node.getAttribute("href")!, base);
      return href === null ? content : `[${content}](${href})`;
    },
  });
  service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg"]);
  return service.turndown(html).trim();
}

function absolute(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.toString() : null;
  } catch {
    return null;
  }
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
