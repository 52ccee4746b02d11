/**
 * Python's `json.dumps(value)` with its defaults (`", "` and `": "`
 * separators, `ensure_ascii=True`): the style in which kimi-cli writes its
 * internal records, e.g. `{"role": "_usage", "token_count": 150}`.
 */
import type { JsonValue } from "@kosong/core";

const nonAscii = /[\u007f-\uffff]/g;

function escapeNonAscii(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * A JSON string literal as Python writes it: `JSON.stringify` escaping plus
 * `\uXXXX` (lowercase hex) for DEL and every non-ASCII UTF-16 unit, astral
 * characters as surrogate pairs.
 */
export function pythonJsonString(value: string): string {
  const json = JSON.stringify(value);
  nonAscii.lastIndex = 0;
  return nonAscii.test(json) ? json.replace(nonAscii, escapeNonAscii) : json;
}

/**
 * `json.dumps(value)` for a plain JSON value. Throws a TypeError for anything
 * Python would not write as standard JSON (non-finite numbers, undefined,
 * functions, non-plain objects).
 */
export function pythonJsonDumps(value: JsonValue): string {
  switch (typeof value) {
    case "string":
      return pythonJsonString(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`${value} is not JSON`);
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw new TypeError("only plain objects are JSON");
      const members: string[] = [];
      for (const key of Object.keys(value)) {
        members.push(`${pythonJsonString(key)}: ${pythonJsonDumps(value[key] as JsonValue)}`);
      }
      return `{${members.join(", ")}}`;
    }
    default:
      throw new TypeError(`${typeof value} is not JSON`);
  }
}
