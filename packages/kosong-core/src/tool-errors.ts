/**
 * Tool error results, with kosong's message texts. These are not exceptions:
 * they are {@link ToolReturnValue}s with `is_error: true` that the model
 * reads, so that a tool never throws into the agent loop.
 *
 * Like the error classes of errors.ts, each class names a static `brand`
 * (see branded-class.ts), so its `isInstance` works across duplicate
 * installs of @kosong/core. A subclass needs one line:
 * `static override readonly brand = "@my/package.tool-error.MyError";`.
 */
import { bindIsInstance, isBranded, markBrands } from "./branded-class.js";
import type { ContentPart, JsonValue } from "./message.js";
import { briefDisplay, normalizeToolOutput, type DisplayBlock, type ToolErrorOptions, type ToolReturnValue } from "./tool-return-value.js";

/** A failed tool result (kosong's `ToolError`). Build one with `toolError(...)` or subclass it. */
export class ToolError implements ToolReturnValue {
  /** This class's brand (a subclass sets its own: `static override readonly brand = "@scope/pkg.tool-error.Name"`). */
  static readonly brand: string = "@kosong/core.tool-error.ToolError";

  is_error: boolean;
  output: string | ContentPart[];
  message: string;
  display: DisplayBlock[];
  extras: Record<string, JsonValue> | null;

  constructor(options: ToolErrorOptions) {
    this.is_error = true;
    this.output = normalizeToolOutput(options.output ?? "");
    this.message = options.message;
    this.display = briefDisplay(options.brief);
    this.extras = options.extras ?? null;
    markBrands(this, new.target);
  }

  /**
   * True when `value` is an instance of the class this is read from (a
   * ToolError or subclass), from any copy of its package. Also works
   * unbound: `results.filter(ToolRuntimeError.isInstance)`.
   */
  static isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    return isBranded(this, value);
  }
}

bindIsInstance(ToolError);

/** A failed result (kosong's `ToolError`): the model reads `message` (and `output`, if any). */
export function toolError(options: ToolErrorOptions): ToolError {
  return new ToolError(options);
}

/** The model called a tool that does not exist. */
export class ToolNotFoundError extends ToolError {
  static override readonly brand: string = "@kosong/core.tool-error.ToolNotFoundError";

  /** @param suggestions names of existing tools to hint at (kosong's "did you mean" form). */
  constructor(toolName: string, suggestions: readonly string[] = []) {
    let message = `Tool \`${toolName}\` not found`;
    if (suggestions.length > 0) message += ` - did you mean ${suggestions.map((s) => `\`${s}\``).join(", ")}?`;
    super({ message, brief: message });
  }
}

/** The tool call's arguments are not valid JSON. */
export class ToolParseError extends ToolError {
  static override readonly brand: string = "@kosong/core.tool-error.ToolParseError";

  constructor(message: string) {
    super({ message: `Error parsing JSON arguments: ${message}`, brief: "Invalid arguments" });
  }
}

/** The tool call's arguments do not match the tool's parameter schema. */
export class ToolValidateError extends ToolError {
  static override readonly brand: string = "@kosong/core.tool-error.ToolValidateError";

  constructor(message: string) {
    super({ message: `Error validating JSON arguments: ${message}`, brief: "Invalid arguments" });
  }
}

/** The tool threw (or returned something that is not a result). */
export class ToolRuntimeError extends ToolError {
  static override readonly brand: string = "@kosong/core.tool-error.ToolRuntimeError";

  constructor(message: string) {
    super({ message: `Error running tool: ${message}`, brief: "Tool runtime error" });
  }
}

/** The tool call was cancelled (its step was aborted) before it finished. */
export class ToolCancelledError extends ToolError {
  static override readonly brand: string = "@kosong/core.tool-error.ToolCancelledError";

  constructor() {
    super({ message: "The tool call was cancelled before it finished.", brief: "Cancelled" });
  }
}
