/**
 * How deep a page's HTML nests, estimated in one linear pass before the
 * page is parsed: the DOM parser and turndown take time that grows with the
 * square of the depth and recurse once per level, so a hostile page of
 * `<div>` repeated 200,000 times (1 MB) blocks the whole process for many
 * minutes, past every time cap and unstoppable by Esc. Elements the parser
 * closes by itself (`p`, `li`, table cells...) and void elements are not
 * counted; an end tag closes its element and those inside it, a stray one
 * is ignored, as the parser does. Inside SVG or MathML (not in an HTML
 * island of it, such as `foreignObject`), a start tag ending in `/>` closes
 * itself, as the parser has it there (in HTML, and for an HTML element such
 * as `div` that takes the parser back to HTML, `<div/>` opens a `div`); its
 * attributes are read as the tokenizer reads them.
 */

/** Elements that never nest: void elements, those whose end tag is optional (a sibling closes them), and those a new one closes (`a`, `button`, `nobr`). */
const notNesting = new Set(["a", "button", "nobr", "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "keygen", "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "rt", "rp", "colgroup", "caption", "html", "head", "body"]);

/** Elements whose content is text up to their end tag. */
const rawText = new Set(["script", "style", "textarea", "title", "xmp", "noscript", "iframe", "noembed", "noframes", "plaintext"]);

/** Elements that start foreign content (SVG, MathML), and those inside it whose content is HTML again. */
const foreignRoots = new Set(["svg", "math"]);
const htmlIslands = new Set(["foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext", "annotation-xml"]);
/** HTML elements whose start tag in foreign content takes the parser back to HTML (`font` only with some attributes: taken as always). */
const breakout = new Set(["b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var", "font"]);

/**
 * The start tag whose name ends at `from`, read as the HTML tokenizer reads
 * it: where it ends (after its `>`) and whether it ends in `/>`; null when
 * it never ends. A quote starts a value only after an attribute's name and
 * `=`, and a `/` in an unquoted value is part of the value.
 */
function startTagEnd(html: string, from: number): { end: number; selfClosing: boolean } | null {
  let named = false;
  for (let i = from; i < html.length; i++) {
    const c = html[i]!;
    if (c === ">") return { end: i + 1, selfClosing: html[i - 1] === "/" };
    if (c === "/") named = false;
    else if (c === "=" && named) {
      named = false;
      i++;
      while (i < html.length && /\s/.test(html[i]!)) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        i = html.indexOf(quote, i + 1);
        if (i < 0) return null;
      } else {
        while (i < html.length && html[i] !== ">" && !/\s/.test(html[i]!)) i++;
        if (html[i] === ">") return { end: i + 1, selfClosing: false };
      }
    } else if (!/\s/.test(c)) named = true;
  }
  return null;
}

/** True when `html` opens more than `limit` elements inside one another. */
export function htmlNestsDeeperThan(html: string, limit: number): boolean {
  const open: string[] = [];
  // Whether the content of each open element is foreign (SVG or MathML).
  const foreign: boolean[] = [];
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
        foreign.pop();
        openCount.set(closed, openCount.get(closed)! - 1);
        if (closed === name) break;
      }
    } else if (rawText.has(name)) {
      const end = new RegExp(`</${name}`, "gi");
      end.lastIndex = tag.lastIndex;
      if (end.exec(html) === null) return false;
      tag.lastIndex = end.lastIndex;
    } else if (foreign.at(-1) === true && !breakout.has(name)) {
      const start = startTagEnd(html, tag.lastIndex);
      if (start === null) return false;
      tag.lastIndex = start.end;
      if (start.selfClosing) continue;
      open.push(name);
      foreign.push(!htmlIslands.has(name));
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      if (open.length > limit) return true;
    } else if (!notNesting.has(name)) {
      open.push(name);
      foreign.push(foreignRoots.has(name));
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      if (open.length > limit) return true;
    }
  }
  return false;
}
