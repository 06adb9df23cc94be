// Type-level inference of a tool's input and result from its schemas. Types only: this module
// emits no JavaScript that anything imports at run time.
//
// Why our own inference and not `json-schema-to-ts`: measured in docs/typescript.md. In short,
// the dependency would be the package's first (with `ts-algebra` and `@babel/runtime` behind
// it, for every user, since the public .d.ts files would import it), it checked several times
// slower on the same tools, and its mistakes read as pages of `ts-algebra` internals, where
// these read as the object types a user wrote. What this covers is the JSON Schema a page's
// tool writes by hand: `type` (one or a list, `'null'` included), `properties`, `required`,
// `items`, `enum`, `const`, `anyOf`, `oneOf`, `allOf`, `nullable` (OpenAPI) and
// `additionalProperties`. Anything else (`$ref`, `not`, `if`, `patternProperties`, …) is
// `unknown` at that place, never a wrong type.

/**
 * A Standard Schema (https://standardschema.dev), as zod ≥ 3.24, valibot ≥ 1 and ArkType
 * implement it: what `webmcp()` needs to validate with it and to infer types from it.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': {
    /** The version of the standard (1). */
    readonly version: 1;
    /** The library, such as `'zod'` or `'valibot'`. */
    readonly vendor: string;
    /** Validates a value: `{ value }` or `{ issues }`, maybe as a promise. */
    readonly validate: (value: unknown) => unknown;
    /** The schema's input and output types; types only, never set at run time. */
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/**
 * A Standard Schema that can also write itself as JSON Schema (the Standard JSON Schema
 * interface): zod ≥ 4.2, and valibot through `toStandardJsonSchema()` of
 * `@valibot/to-json-schema`. `webmcp()` shows the agent its `input` JSON Schema.
 */
export interface StandardJsonSchemaV1<Input = unknown, Output = Input> extends StandardSchemaV1<Input, Output> {
  /** The Standard Schema properties, with the JSON Schema converters. */
  readonly '~standard': StandardSchemaV1<Input, Output>['~standard'] & {
    /** Writes the schema's input or output as JSON Schema for `target` (a draft's name). */
    readonly jsonSchema: {
      /** The JSON Schema of what the schema accepts. */
      readonly input: (options: { readonly target: string; readonly libraryOptions?: Record<string, unknown> }) => Record<string, unknown>;
      /** The JSON Schema of what the schema produces. */
      readonly output: (options: { readonly target: string; readonly libraryOptions?: Record<string, unknown> }) => Record<string, unknown>;
    };
  };
}

/** What a Standard Schema accepts: the type callers write (`tool.invoke`'s input). */
export type InferInput<S> = S extends { readonly '~standard': { readonly types?: infer T } } ? (NonNullable<T> extends { readonly input: infer I } ? I : unknown) : unknown;

/** What a Standard Schema produces once it validated: the type the tool function receives. */
export type InferOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } } ? (NonNullable<T> extends { readonly output: infer O } ? O : unknown) : unknown;

/**
 * The TypeScript type of the values a JSON Schema written `as const` (or inline in
 * `webmcp()`'s options) accepts. `unknown` where a keyword is not understood.
 *
 * @example
 * type Args = FromJsonSchema<{ type: 'object'; properties: { q: { type: 'string' } }; required: ['q'] }>; // { q: string }
 */
export type FromJsonSchema<S> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { readonly const: infer C }
      ? C
      : S extends { readonly enum: readonly (infer E)[] }
        ? E
        : S extends { readonly anyOf: readonly (infer A)[] }
          ? FromJsonSchema<A>
          : S extends { readonly oneOf: readonly (infer A)[] }
            ? FromJsonSchema<A>
            : S extends { readonly allOf: infer A extends readonly unknown[] }
              ? AllOf<A>
              : S extends { readonly type: infer T }
                ? Nullable<S, T extends readonly (infer U)[] ? OfType<S, U> : OfType<S, T>>
                : S extends { readonly properties: object }
                  ? Nullable<S, ObjectOf<S>>
                  : S extends { readonly items: unknown }
                    ? Nullable<S, ArrayOf<S>>
                    : unknown;

/** Every schema of an `allOf` at once. */
type AllOf<A extends readonly unknown[]> = A extends readonly [infer Head, ...infer Tail] ? FromJsonSchema<Head> & AllOf<Tail> : unknown;

/** OpenAPI's `nullable: true` adds `null`. */
type Nullable<S, T> = S extends { readonly nullable: true } ? T | null : T;

/** One `type` name (distributes over a union of names, for `type: ['string', 'null']`). */
type OfType<S, T> = T extends 'object'
  ? ObjectOf<S>
  : T extends 'array'
    ? ArrayOf<S>
    : T extends 'string'
      ? string
      : T extends 'number' | 'integer'
        ? number
        : T extends 'boolean'
          ? boolean
          : T extends 'null'
            ? null
            : unknown;

/** Flattens an intersection so editors show one object type. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

type PropertiesOf<S> = S extends { readonly properties: infer P extends object } ? P : {};
type RequiredOf<S> = S extends { readonly required: readonly (infer K)[] } ? K : never;

/**
 * `properties` with `required` ones required; `additionalProperties`: absent or `true` adds
 * nothing when there are properties (an object type lets extra keys through where they are not
 * literals), and is an index signature when there are none; `false` adds nothing.
 */
type ObjectOf<S, P = PropertiesOf<S>, R = RequiredOf<S>> = Flat<
  { -readonly [K in keyof P as K extends R ? K : never]: FromJsonSchema<P[K]> } & {
    -readonly [K in keyof P as K extends R ? never : K]?: FromJsonSchema<P[K]>;
  } & { -readonly [K in Exclude<R & string, keyof P>]: unknown } & ([keyof P] extends [never] ? ExtraOf<S> : {})
>;

type ExtraOf<S> = S extends { readonly additionalProperties: false }
  ? {}
  : S extends { readonly additionalProperties: infer A extends object }
    ? { [key: string]: FromJsonSchema<A> }
    : { [key: string]: unknown };

/** `items` (one schema) typed; a draft-07 tuple (`items: [...]`) or no `items` is `unknown[]`. */
type ArrayOf<S> = S extends { readonly items: infer I } ? (I extends readonly unknown[] ? unknown[] : FromJsonSchema<I>[]) : unknown[];

/** A JSON Schema literal whose type can be read: not absent, and not the wide `JsonSchema`. */
type Readable<S> = [S] extends [undefined] ? false : [S] extends [StandardSchemaV1] ? false : { [key: string]: unknown } extends S ? false : true;

/** The type a readable JSON Schema describes, or `Otherwise` where nothing can be read from it. */
type FromSchemaOr<S, Otherwise> = unknown extends FromJsonSchema<S> ? Otherwise : FromJsonSchema<S>;

/**
 * The tool function's input: the Standard Schema's output (the validated value), else what a
 * JSON Schema (`schema` or `inputSchema`, written inline or `as const`) describes, else `I`
 * (the function's own annotation, or `unknown`).
 */
export type ToolInput<S, IS, I> = [S] extends [StandardSchemaV1]
  ? InferOutput<S>
  : Readable<S> extends true
    ? FromSchemaOr<S, I>
    : Readable<IS> extends true
      ? FromSchemaOr<IS, I>
      : I;

/** What callers pass (`tool.invoke`, before-hooks): the Standard Schema's input, else as {@link ToolInput}. */
export type ToolArgs<S, IS, I> = [S] extends [StandardSchemaV1] ? InferInput<S> : ToolInput<S, IS, I>;

/**
 * What a tool with this `outputSchema` may return: the value itself (which becomes
 * `structuredContent`), or a full result carrying it as `structuredContent`. Without a readable
 * `outputSchema`, anything.
 */
export type ToolResult<OS> = Readable<OS> extends true ? (unknown extends FromJsonSchema<OS> ? unknown : StructuredReturn<FromJsonSchema<OS>>) : unknown;

/** A tool's return value whose structured content is `T`, maybe as a promise. */
export type StructuredReturn<T> = T | { content: { type: string; [key: string]: unknown }[]; structuredContent: T; isError?: boolean } | Promise<T | { content: { type: string; [key: string]: unknown }[]; structuredContent: T; isError?: boolean }>;
