/**
 * Tool error results, with kosong's message texts. These are not exceptions:
 * they are {@link ToolReturnValue}s with `is_error: true` that the model
 * reads, so that a tool never throws into the agent loop.
 *
 * Like the error classes of errors.ts, each class has a static `isInstance`
 * that works across duplicate installs of @kosong/core.
 */
import { createErrorMarker, type ErrorMarker } from "./error-marker.js";
import type { ContentPart, JsonValue } from "./message.js";
import { briefDisplay, normalizeToolOutput, type DisplayBlock, type ToolErrorOptions, type ToolReturnValue } from "./tool-return-value.js";

function marker(name: string): ErrorMarker {
  return createErrorMarker(`@kosong/core.tool-error.${name}`);
}

const toolErrorMarker = marker("ToolError");

/** A failed tool result (kosong's `ToolError`). Build one with `toolError(...)` or subclass it. */
export class ToolError implements ToolReturnValue {
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
    toolErrorMarker.mark(this);
  }

  /** True when `value` is a ToolError (or subclass) from any copy of this package. */
  static isInstance(value: unknown): value is ToolError {
    return toolErrorMarker.is(value);
  }
}

/** A failed result (kosong's `ToolError`): the model reads `message` (and `output`, if any). */
export function toolError(options: ToolErrorOptions): ToolError {
  return new ToolError(options);
}

const notFoundMarker = marker("ToolNotFoundError");

/** The model called a tool that does not exist. */
export class ToolNotFoundError extends ToolError {
  /** @param suggestions names of existing tools to hint at (kosong's "did you mean" form). */
  constructor(toolName: string, suggestions: readonly string[] = []) {
    let message = `Tool \`${toolName}\` not found`;
    if (suggestions.length > 0) message += ` - did you mean ${suggestions.map((s) => `\`${s}\``).join(", ")}?`;
    super({ message, brief: message });
    notFoundMarker.mark(this);
  }

  static override isInstance(value: unknown): value is ToolNotFoundError {
    return notFoundMarker.is(value);
  }
}

const parseMarker = marker("ToolParseError");

/** The tool call's arguments are not valid JSON. */
export class ToolParseError extends ToolError {
  constructor(message: string) {
    super({ message: `Error parsing JSON arguments: ${message}`, brief: "Invalid arguments" });
    parseMarker.mark(this);
  }

  static override isInstance(value: unknown): value is ToolParseError {
    return parseMarker.is(value);
  }
}

const validateMarker = marker("ToolValidateError");

/** The tool call's arguments do not match the tool's parameter schema. */
export class ToolValidateError extends ToolError {
  constructor(message: string) {
    super({ message: `Error validating JSON arguments: ${message}`, brief: "Invalid arguments" });
    validateMarker.mark(this);
  }

  static override isInstance(value: unknown): value is ToolValidateError {
    return validateMarker.is(value);
  }
}

const runtimeMarker = marker("ToolRuntimeError");

/** The tool threw (or returned something that is not a result). */
export class ToolRuntimeError extends ToolError {
  constructor(message: string) {
    super({ message: `Error running tool: ${message}`, brief: "Tool runtime error" });
    runtimeMarker.mark(this);
  }

  static override isInstance(value: unknown): value is ToolRuntimeError {
    return runtimeMarker.is(value);
  }
}

const cancelledMarker = marker("ToolCancelledError");

/** The tool call was cancelled (its step was aborted) before it finished. */
export class ToolCancelledError extends ToolError {
  constructor() {
    super({ message: "The tool call was cancelled before it finished.", brief: "Cancelled" });
    cancelledMarker.mark(this);
  }

  static override isInstance(value: unknown): value is ToolCancelledError {
    return cancelledMarker.is(value);
  }
}
