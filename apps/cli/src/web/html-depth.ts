/**
 * How deep a page's HTML nests, estimated in one linear pass before the
 * page is parsed: the DOM parser and turndown take time that grows with the
 * square of the depth and recurse once per level, so a hostile page of
 * `<div>` repeated 200,000 times (1 MB) blocks the whole process for many
 * minutes, past every time cap and unstoppable by Esc. Elements the parser
 * closes by itself (`p`, `li`, table cells...) and void elements are not
 * counted; an end tag closes its element and those inside it, a stray one
 * is ignored, as the parser does.
 */

/** Elements that never nest: void elements, those whose end tag is optional (a sibling closes them), and those a new one closes (`a`, `button`, `nobr`). */
const notNesting = new Set(["a", "button", "nobr", "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "keygen", "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "rt", "rp", "colgroup", "caption", "html", "head", "body"]);

/** Elements whose content is text up to their end tag. */
const rawText = new Set(["script", "style", "textarea", "title", "xmp", "noscript", "iframe", "noembed", "noframes", "plaintext"]);

/** True when `html` opens more than `limit` elements inside one another. */
export function htmlNestsDeeperThan(html: string, limit: number): boolean {
  const open: string[] = [];
  const openCount = new Map<string, number>();
  const tag = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)|<!--/g;
  for (let match = tag.exec(html); match !== null; match = tag.exec(html)) {
    if (match[0] === "<!--") {
      const end = html.indexOf("-->", tag.lastIndex);
      if (end < 0) return false;
      tag.lastIndex = end + 3;
      continue;
    }
    const name = match[2]!.toLowerCase();
    if (match[1]) {
      if (!openCount.get(name)) continue;
      for (let closed = open.pop(); closed !== undefined; closed = open.pop()) {
        openCount.set(closed, openCount.get(closed)! - 1);
        if (closed === name) break;
      }
    } else if (rawText.has(name)) {
      const end = new RegExp(`</${name}`, "gi");
      end.lastIndex = tag.lastIndex;
      if (end.exec(html) === null) return false;
      tag.lastIndex = end.lastIndex;
    } else if (!notNesting.has(name)) {
      open.push(name);
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      if (open.length > limit) return true;
    }
  }
  return false;
}
