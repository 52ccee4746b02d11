/**
 * FetchURL's nesting check before a page is parsed: it counts nesting as
 * the HTML parser builds it, so a page with inline SVG icons and charts
 * converts, while nesting the parser would build (a hostile page's) is
 * still found, however its tags are spelled.
 */
import { describe, expect, it } from "vitest";
import { htmlNestsDeeperThan } from "../src/web/html-depth.js";

const limit = 256;

describe("htmlNestsDeeperThan", () => {
  it("does not count SVG and MathML elements that close themselves (a chart of 300 points, a path whose data holds '/>')", () => {
    const chart = `<p>Sales</p><svg viewBox="0 0 10 10"><g class="points">${'<circle cx="1" cy="2" r="0.5"/>'.repeat(300)}</g><path d='M0 0 L1 1' /><text x=1>a/b</text></svg>`;
    expect(htmlNestsDeeperThan(`<div>${chart}</div>`, limit)).toBe(false);
    const formula = `<math>${"<mspace width='1em'/>".repeat(300)}<mi>x</mi></math>`;
    expect(htmlNestsDeeperThan(formula, limit)).toBe(false);
  });

  it("still counts what the parser nests: open SVG elements, HTML elements in SVG, HTML islands, '/>' inside a quoted or unquoted value", () => {
    expect(htmlNestsDeeperThan(`<svg>${"<g>".repeat(300)}`, limit)).toBe(true);
    // An HTML element takes the parser back to HTML, where <div/> opens a div.
    expect(htmlNestsDeeperThan(`<svg>${"<div/>".repeat(300)}`, limit)).toBe(true);
    expect(htmlNestsDeeperThan(`<svg><foreignObject>${"<section/>".repeat(300)}`, limit)).toBe(true);
    expect(htmlNestsDeeperThan(`<svg>${'<g title="/>">'.repeat(300)}`, limit)).toBe(true);
    expect(htmlNestsDeeperThan(`<svg>${"<g class=a/>".repeat(300)}`, limit)).toBe(true);
    expect(htmlNestsDeeperThan(`${"<div/>".repeat(300)}`, limit)).toBe(true);
  });

  it("reads a tag whose quoted value never ends in one pass (the parser sees no element after it)", () => {
    expect(htmlNestsDeeperThan(`<svg><g x="${"<g ".repeat(500_000)}`, limit)).toBe(false);
  });
});
