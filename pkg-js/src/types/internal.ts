// Types the package's modules share about tools, kept apart so no module has to import another
// for its types alone.
import type { Diagnostic, JsonSchema, StandardSchemaV1, ToolContract, WebMCPHooks, WebMCPOptions, WebMCPTool } from './types.js';
import type { Approver } from './policy-types.js';

/**
 * Options as the package reads them: every field optional (a re-wrap inherits the name) and no
 * type parameters (inference is for callers; inside, schemas and hooks are data).
 */
export type AnyToolOptions = Partial<Omit<WebMCPOptions<JsonSchema, StandardSchemaV1 | JsonSchema, JsonSchema, unknown>, 'hooks'>> & { hooks?: WebMCPHooks<any, any, any> };

/** What a governed call needs to know about a tool. */
export interface PipelineTool {
  /** The core's handle of the tool. */
  readonly coreTool: number;
  /** The function behind the tool. */
  readonly fn: (input: any, extra: { signal: AbortSignal }) => unknown;
  /** The tool as users hold it (for `ctx.tool`). */
  readonly publicTool: WebMCPTool;
  /** The contract sent to the browser. */
  readonly contract: ToolContract;
  /** The tool's own server id, if it has one. */
  readonly server: string | undefined;
  /** What validates its input and output, if anything. */
  readonly validation: { input?: JsonSchema; standard?: StandardSchemaLike; output?: JsonSchema; unsafePatterns?: boolean };
  /** Shaping on the agent path (`'llm'` by default). */
  readonly shape: 'llm' | false;
  /** `false`: a plain object the tool returns becomes text only, without `structuredContent` (default `true`). */
  readonly structured?: boolean;
  /** A tool's options, of which calls read `exposedTo` (for predicates and the approver). */
  readonly options?: { readonly exposedTo?: readonly string[] };
}

/** A tool the in-page registry holds. */
export interface RegisteredTool extends PipelineTool {
  /** The provider scope its calls run under (0: none). */
  readonly scope: number;
}

/** How a tool stands with the browser. */
export type RegistrationStatus = 'unregistered' | 'registering' | 'registered' | 'error' | 'unsupported';

/**
 * What a call about a resource or a prompt does differently from a tool call: the core plans its
 * gate hooks (for `target`, the URI a read reads), hooks get `context()`, the step that runs
 * the tool runs `run`, and the answer is `normalize`d and `shape`d its own way.
 */
export interface SubjectCall {
  /** `Subject.Resource` or `Subject.Prompt` (codes.ts). */
  readonly kind: number;
  /** The URI a read reads; absent for prompts. */
  readonly target?: string;
  /** `resource_read.stop` or `prompt_get.stop`. */
  readonly stopEvent: 'resource_read.stop' | 'prompt_get.stop';
  /** The fields of a gate hook's ctx beyond the shared ones, for the current input. */
  context(input: unknown): Record<string, unknown>;
  /** Reads or gets, with the final input. */
  run(input: unknown, signal: AbortSignal): unknown;
  /** The answer from what `run` returned (never throws). */
  normalize(output: unknown): unknown;
  /** The answer shaped for a model, with what shaping did. */
  shape(result: unknown, serverId: string, maxBytes: number): { result: unknown; flags: string[]; truncated: boolean };
}

/**
 * JSON text as {@link toJson} wrote it; `source`, when present, is the value it was written
 * from, which is JSON as it stands (the quick check vouched for it: plain nesting, no `toJSON`,
 * no boxed primitive), so writing it again gives the same JSON without reading the text back.
 * Only as long as the value has not changed: pass `source` on only with no `await` since
 * `toJson` (the text is what a tool receives, and what must have been validated).
 */
export interface JsonText {
  /** The JSON text, as `JSON.stringify` writes it. */
  text: string;
  /** The value the text was written from, when it is JSON as it stands (see above). */
  source?: unknown;
}

/** A compiled schema's handle, valid in one generation of the module; or why the schema is invalid. */
export type Compiled =
  | {
      handle: number;
      generation: number;
      /** The schema's slow patterns (`src/validate.rs`, `PatternNote`), for `register()`'s warnings. */
      notes: PatternNote[];
      /** Compiled while the pattern judgement was not loaded (its load failed): its patterns are judged at their first test. */
      unjudged: boolean;
    }
  | { error: string; code: string };

/** A pattern of a schema that the page's backtracking engine cannot run on every string, and where it runs instead. */
export interface PatternNote {
  /** `pattern_linear` or `pattern_unsafe`. */
  code: string;
  message: string;
  /** Where it is in the schema (a JSON Pointer). */
  path: string;
}

/** Call options as `readCallOptions` (call-options.ts) read them: each field checked, `taint` a Set of its entries. */
export interface ReadCallOptions {
  principal: string | undefined;
  taint: Set<string>;
  shape: 'llm' | false | undefined;
  signal: AbortSignal | undefined;
  timeout: number | undefined;
  assigns: Record<string, unknown> | undefined;
}

/**
 * The shaping exports of the module that shapes (`wasm/shape/lib.rs`, in the shaping module or the
 * validator module), each crossing guarded by the module's owner: a trap replaces the instance,
 * and the crossing throws.
 */
export interface ShapingExports {
  scanText(text: string): Uint32Array;
  shapeFlagNames(): string;
  shapeLimits(): Uint32Array;
  shapeMediaKinds(mime: string): number;
  shapeResult(request: Uint8Array): Uint8Array;
  /** Forces a trap (tests of the recovery only). */
  testTrap(): void;
  /** The size of the live instance's linear memory in bytes (0 before the first crossing). */
  memoryBytes(): number;
}

/** A Standard Schema (zod, valibot, …): `'~standard'.validate`, maybe async. */
export interface StandardSchemaLike {
  '~standard': {
    version: number;
    vendor: string;
    validate(value: unknown): unknown;
    jsonSchema?: { input?(options: { target: string }): unknown };
  };
}

/** Which payload a redactor is given. */
export type PayloadWhere = 'arguments' | 'result';

/**
 * The page's redactor: answers what to record of `value` (a copy, the redactor's to change), or
 * `undefined` to record nothing. Synchronous; a throw or a promise records a notice instead.
 */
export type Redactor = (value: unknown, where: PayloadWhere) => unknown;

/** What running a Standard Schema found. */
export type StandardValidated =
  | { how: 'value'; valid: true; value: unknown }
  | { how: 'value'; valid: false; diagnostics: Diagnostic[] }
  | { how: 'threw'; thrown: unknown }
  | { how: 'aborted' };

/**
 * The link the approver lookup walks from a React provider's scope to the root. It holds no
 * reference to the provider's handle, so a scope id the core still knows cannot keep a provider
 * alive.
 */
export interface ApproverNode {
  parent: ApproverNode | null;
  approver: Approver | undefined;
}

/**
 * A client's React provider scopes, kept on the client (`ClientState.providerScopes`) by
 * `react/scope.ts` once a provider mounts; calls read their approvers (`client/governance.ts`,
 * `approverFor`). Declared here so the client layer holds them without importing the React layer.
 */
export interface ProviderScopes {
  /** The approver node of each live core scope id. */
  readonly nodes: Map<number, ApproverNode>;
  /** The client's `resets` when `nodes` was last valid (a reset drops every scope in the core). */
  epoch: number;
  /** The deny-everything scope, once one was needed (`failedScope` in `react/scope.ts`). */
  failed: { set: number; scope: number; epoch: number } | undefined;
}
