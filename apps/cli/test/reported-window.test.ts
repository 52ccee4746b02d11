import { describe, expect, it } from "vitest";
import { reportedWindow } from "../src/agent/reported-window.js";

describe("reportedWindow", () => {
  it("reads the window a server names when it refuses a request as too long", () => {
    expect(reportedWindow("This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.")).toBe(8192);
    expect(reportedWindow("the request exceeds the available context size of 32,768 tokens")).toBe(32768);
    expect(reportedWindow("request (5000 tokens) exceeds n_ctx_slot = 4096")).toBe(4096);
    expect(reportedWindow("rate limited, try again")).toBeNull();
  });
});
