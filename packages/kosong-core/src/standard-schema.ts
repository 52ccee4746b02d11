/**
 * The Standard Schema interface (https://standardschema.dev), version 1:
 * what zod (3.24+, 4), valibot, arktype and other validation libraries
 * implement under the `~standard` key, so a tool can take a schema from any
 * of them. Declared here (types only) as the specification invites, plus
 * the optional Standard JSON Schema extension (`~standard.jsonSchema`) that
 * zod 4.2+, arktype and valibot's adapter provide.
 */

/** A schema of any Standard Schema library, validating `Input` into `Output`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  /** The `~standard` properties. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    /** The library, e.g. `zod`, `valibot`, `arktype`. */
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
    /** Standard JSON Schema: the schema as JSON Schema, when the library provides it. */
    readonly jsonSchema?: JsonSchemaConverter | undefined;
  }

  /** A validation outcome: the value, or the issues. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;

  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }

  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }

  /** One problem found, with where it is. */
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }

  export interface PathSegment {
    readonly key: PropertyKey;
  }

  /** Carries the input and output types (never set at run time). */
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }

  /** The Standard JSON Schema converter. */
  export interface JsonSchemaConverter {
    readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    readonly output?: (options: { readonly target: string }) => Record<string, unknown>;
  }

  /** The input type of a schema. */
  export type InferInput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["input"];
  /** The output type of a schema. */
  export type InferOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];
}
