/** Every error class @kosong/workspace exports is under its own root, WorkspaceError, with a brand of its own (so `isInstance` works across installed copies). */
import { KosongError } from "@kosong/core";
import * as workspace from "@kosong/workspace";
import { describe, expect, it } from "vitest";

describe("the errors of @kosong/workspace", () => {
  it("puts every exported error class under WorkspaceError, each with its own brand", () => {
    const errors = Object.entries(workspace).filter(([name, value]) => name.endsWith("Error") && typeof value === "function");
    expect(errors.map(([name]) => name).sort()).toEqual(["HardLinkError", "NotRegularFileError", "PathEscapeError", "WorkspaceError"]);
    for (const [name, value] of errors) {
      expect([name, (value as { prototype: unknown }).prototype instanceof workspace.WorkspaceError || value === workspace.WorkspaceError]).toEqual([name, true]);
      expect([name, Object.hasOwn(value as object, "brand")]).toEqual([name, true]);
    }
    const escape = new workspace.PathEscapeError("../x");
    expect([workspace.WorkspaceError.isInstance(escape), KosongError.isInstance(escape)]).toEqual([true, true]);
  });
});
