/**
 * The soul's own tools (Recall, SendDMail) carry their parameters' JSON
 * Schema written out, so that loading the soul converts nothing. What the
 * model reads must stay exactly what zod makes of the parameters that
 * validate the arguments: the same text, key for key, in the same order.
 */
import { defineTool } from "@kosong/core";
import { SendDMail } from "@kosong/soul";
import { Recall } from "@kosong/soul/recall";
import { describe, expect, it } from "vitest";

describe("the soul's tools' JSON Schemas", () => {
  it.each([
    ["Recall", Recall],
    ["SendDMail", SendDMail],
  ])("%s: the written-out schema is zod's conversion of its parameters", (name, tool) => {
    const converted = defineTool({ name, description: "", parameters: tool.parameters, execute: () => "" }).definition.parameters;
    expect(JSON.stringify(tool.definition.parameters)).toBe(JSON.stringify(converted));
  });
});
