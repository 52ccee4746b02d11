/**
 * What FetchURL gives the model of a fetched body: HTML as readable
 * markdown (turndown, on its own DOM parser; scripts, styles and other
 * non-content dropped), JSON and text as they are, other types refused.
 */
import TurndownService from "turndown";

/** The text of a body of `contentType`, or null when the type is not text. */
export function pageText(body: Buffer, contentType: string): string | null {
  const [type = "", ...params] = contentType.toLowerCase().split(";").map((s) => s.trim());
  const charset = params.find((p) => p.startsWith("charset="))?.slice(8).replace(/"/g, "") ?? "utf-8";
  const text = decode(body, charset);
  if (type === "text/html" || type === "application/xhtml+xml") return htmlToMarkdown(text);
  if (type === "" || type.startsWith("text/") || type === "application/json" || type.endsWith("+json") || type === "application/xml" || type.endsWith("+xml") || type === "application/javascript") return text;
  return null;
}

/** `html` as markdown. */
export function htmlToMarkdown(html: string): string {
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg"]);
  return service.turndown(html).trim();
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
