import { assistantMessage, toolCall } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { containsIdentifier, identifiersIn, messageText } from "../src/real-trajectories/identifiers.ts";

describe("the real-trajectory benchmark's identifier extraction", () => {
  it("finds paths, dotted names, code identifiers and error text, and nothing from plain prose", () => {
    const ids = identifiersIn(
      "Let me look at ./django/http/response.py:312 and setup.cfg. `HttpResponse.make_bytes` calls self._container;\n" +
        "AttributeError: 'NoneType' object has no attribute 'write'\nrun tests/test_x.py::TestY::test_zed",
    );
    for (const id of ["django/http/response.py", "setup.cfg", "HttpResponse.make_bytes", "HttpResponse", "make_bytes", "self._container", "_container"]) {
      expect(ids).toContain(id);
    }
    expect(ids).toContain("AttributeError");
    expect(ids).toContain("'NoneType' object has no attribute 'write'");
    expect(ids).toContain("tests/test_x.py::TestY::test_zed");
    expect(ids).not.toContain("Let");
    expect(ids).not.toContain("look");
    expect(identifiersIn("Now the plain words of a sentence, nothing more.").size).toBe(0);
  });

  it("reads a tool call's command out of its JSON arguments", () => {
    const text = messageText(assistantMessage("Running it", [toolCall("c1", "bash", { command: "grep -n 'class HttpResponse' django/http/response.py" })]));
    expect(identifiersIn(text)).toContain("django/http/response.py");
    expect(identifiersIn(text)).toContain("HttpResponse");
  });

  it("matches identifiers with boundaries", () => {
    expect(containsIdentifier("class StreamingHttpResponse:", "HttpResponse")).toBe(false);
    expect(containsIdentifier("return HttpResponse(x)", "HttpResponse")).toBe(true);
    expect(containsIdentifier("see ./django/http/response.py", "django/http/response.py")).toBe(true);
  });
});
