// Public types of webmcp-warden, and (at the end) the type-level inference of a tool's input and
// result from its schemas.

/** A JSON Schema object (draft 2020-12 unless `$schema` says draft-07); `as const` ones too. */
export type JsonSchema = { readonly [key: string]: unknown };

/** A value or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Tool annotations. They are fingerprinted as given; browsers are sent WebMCP's members, with
 * MCP's mapped onto them (`destructiveHint` → `consequentialHint`, `openWorldHint` →
 * `untrustedContentHint`; the table is in docs/runtimes.md, "Annotations").
 */
export interface ToolAnnotations {
  /** The tool only reads. */
  readOnlyHint?: boolean;
  /**
   * The tool's output may hold untrusted content (user-generated, third-party). `'auto'`:
   * browsers are told `true` once the tool's server is not the page's `serverId` or shaping had
   * to clean one of its results, else `false` (docs/runtimes.md, "Annotations").
   */
  untrustedContentHint?: boolean | 'auto';
  /** The call has significant, real-world or irreversible effects. */
  consequentialHint?: boolean;
  /** Marks a tool meant for developer tooling (WebMCP). */
  debugging?: boolean;
  /** The tool may destroy data (MCP hint; browsers are sent `consequentialHint` too). */
  destructiveHint?: boolean;
  /** Calling twice has the effect of calling once (MCP hint). */
  idempotentHint?: boolean;
  /** The tool reaches beyond the page (MCP hint; browsers are sent `untrustedContentHint` too). */
  openWorldHint?: boolean;
  /** A human-readable title (MCP; browsers are sent it as the tool's `title` when it has none). */
  title?: string;
  [key: string]: unknown;
}

/** One block of a tool result. */
export interface ContentBlock {
  /** `text`, `image`, `audio`, `resource`, `resource_link`, … */
  type: string;
  [key: string]: unknown;
}

/** A tool result as MCP and the agent see it. */
export interface CallToolResult {
  /** The result's blocks. */
  content: ContentBlock[];
  /** Structured output, validated against `outputSchema` when the tool has one. */
  structuredContent?: unknown;
  /** The result reports a failure. */
  isError?: boolean;
  [key: string]: unknown;
}

/** The contract sent to the browser (`tool.definition`). */
export interface ToolContract {
  /** 1–128 characters of `[A-Za-z0-9_.-]`. */
  name: string;
  /** A human-readable label. */
  title?: string;
  /** What the tool does, for the model. */
  description: string;
  /** The input's JSON Schema. */
  inputSchema: JsonSchema;
  /** The JSON Schema of `structuredContent`. */
  outputSchema?: JsonSchema;
  /** Hints for the agent. */
  annotations?: ToolAnnotations;
}

/**
 * Which tools a hook applies to: `'*'` / `'all'` / `'any'`, `'server/tool'` (`*` globs within a segment),
 * a bare `'tool'` (any server), a `RegExp` tested against the tool name, or `{ server, name }`.
 * Names compare loosely: case-folded, with `-`, `.` and `_` equivalent.
 */
export type HookMatcher = string | RegExp | { server: string; name: RegExp };

/** A hook with options. */
export interface HookOptions<Run> {
  /** The hook function. */
  run: Run;
  /** Which tools it applies to (default every tool). */
  match?: HookMatcher;
  /** Names the hook in errors and telemetry; default `"<event>:<index>"`. */
  id?: string;
  /** Deadline in milliseconds (default the global `hookTimeout`, 5000; at most 2^31 − 1, the longest delay a timer holds). */
  timeout?: number;
  /** For `after` and `error` hooks: `'fail'` (default, fail closed) or `'ignore'`. */
  onError?: 'fail' | 'ignore';
}

/** A hook entry: a function, or a function with options. */
export type HookEntry<Run> = Run | HookOptions<Run>;

/** The second argument of a tool function: `fn(input, { signal })`. */
export interface ToolCallContext {
  /** Aborted when the caller cancels the call (or, in a direct call, never). */
  signal: AbortSignal;
}

/** Any function: the constraint of the `F` type parameters simple-webmcp's type names carry. */
export type AnyFunction = (...args: any) => any;

/**
 * The tool function type when nothing is known about a tool (global and provider hooks, an
 * unparameterized `WebMCPTool`): input and result `unknown`.
 */
export type UntypedToolFunction = (...args: any[]) => unknown;

/** The function type of a tool whose function takes `I` and returns `R`. */
export type ToolFunction<I = unknown, R = unknown> = (input: I, ctx: ToolCallContext) => R;

/** `unknown` where `T` is `any` (an unparameterized function's input): hooks never see `any`. */
type KnownOr<T> = 0 extends 1 & T ? unknown : T;

/** What callers pass to a tool with function type `F`: its first parameter, `unknown` for `any`. */
export type ArgsOf<F extends AnyFunction> = F extends (...args: infer P) => any ? (P extends [] ? undefined : P extends [infer A, ...any[]] ? KnownOr<A> : P extends [(infer A)?, ...any[]] ? KnownOr<A> | undefined : unknown) : unknown;

/**
 * What every hook of one governed call, read or get sees, whatever it is about: the fields tool
 * hooks ({@link HookBaseContext}) and gate hooks ({@link GateContext}) share.
 */
export interface CallContextBase {
  /** Unique per call, read or get. */
  invocationId: string;
  /** Aborted when the caller cancels. */
  signal: AbortSignal;
  /** One mutable object shared by every hook of one call, read or get. */
  metadata: Record<string, unknown>;
  /** The tool's, resource's or prompt's server id. */
  serverId: string;
  /** Who the call is for, if the caller said. */
  principal: string | undefined;
  /** Server ids whose output entered the current turn. */
  taint: Set<string>;
  /** The caller's map (`assigns` option). */
  assigns: Record<string, unknown>;
}

/**
 * What every hook sees, whatever the event: simple-webmcp's `HookBaseContext<F>`
 * with webmcp-warden's additions (`serverId`, `principal`, `taint`, `assigns`).
 */
export interface HookBaseContext<F extends AnyFunction = UntypedToolFunction> extends CallContextBase {
  /** The tool being called. */
  tool: WebMCPTool<F>;
  /** The tool's contract. */
  contract: ToolContract;
}

/**
 * Context of a `before` hook. `I` is the input's type: `unknown` for global and provider hooks
 * (and by default, as in simple-webmcp); a tool's own hooks get what its schema says callers
 * pass. Before-hooks run *before* validation: on the agent path the value is whatever the agent
 * sent, so a hook that must not fail on bad input checks before it trusts the type.
 */
export interface BeforeContext<F extends AnyFunction = UntypedToolFunction, I = unknown> extends HookBaseContext<F> {
  /** The current input (after earlier rewrites). */
  input: I;
}

/** What every hook sees: a {@link BeforeContext} with `input: unknown` (kept from earlier versions). */
export type HookContext<F extends AnyFunction = UntypedToolFunction> = BeforeContext<F>;

/** Context of an `after` hook: `output` is what the tool returned (simple-webmcp's `Awaited<ReturnType<F>>`). */
export interface AfterContext<F extends AnyFunction = UntypedToolFunction, I = unknown> extends HookBaseContext<F> {
  /** The input the tool ran with (validated). */
  input: I;
  /** What the tool returned (after earlier rewrites). */
  output: Awaited<ReturnType<F>>;
}

/** Context of an `error` hook. */
export interface ErrorContext<F extends AnyFunction = UntypedToolFunction, I = unknown> extends HookBaseContext<F> {
  /** The input when the call failed (validated or not, depending on where it failed). */
  input: I;
  /**
   * What failed the call: the value thrown by the step that failed it (the tool, a validator, a
   * hook, the approver); for a failure without a throw (a denial, a timeout, a bad return, an
   * abort) a {@link CallFailure} built from `failure`. Error hooks are page code: they see what
   * was thrown, the agent never does.
   */
  error: unknown;
  /** The failure as data, as the caller gets it (`outcome.error`). */
  failure: CallError;
}

/** Context of a `denied` hook. */
export interface DeniedContext<F extends AnyFunction = UntypedToolFunction, I = unknown> extends HookBaseContext<F> {
  /** The input when the call was denied. */
  input: I;
  /** The denial's message. */
  reason?: string;
  /** The denial's code (or the failure's reason). */
  code?: string;
  /** The denial as data, as the caller gets it (`outcome.error`). */
  failure: CallError;
}

/**
 * What a before-hook may return: nothing, a rewritten input, a denial, or a halt with a result.
 * A rewritten input is `unknown`, as in simple-webmcp: validation runs after the before-hooks.
 */
export type BeforeReturn =
  | void
  | undefined
  | { input?: unknown }
  | { action: 'deny'; message?: string; code?: string }
  | { action: 'halt'; result: unknown };

/** Runs before the tool; may rewrite the input, deny, or halt with a result. */
export type BeforeHook<F extends AnyFunction = UntypedToolFunction, I = unknown> = (ctx: BeforeContext<F, I>) => MaybePromise<BeforeReturn>;
/** Runs after the tool; may rewrite the output. */
export type AfterHook<F extends AnyFunction = UntypedToolFunction, I = unknown> = (ctx: AfterContext<F, I>) => MaybePromise<void | undefined | { output?: Awaited<ReturnType<F>> }>;
/** Runs when the call failed; may recover with a result. */
export type ErrorHook<F extends AnyFunction = UntypedToolFunction, I = unknown> = (ctx: ErrorContext<F, I>) => MaybePromise<void | undefined | { action: 'recover'; result: unknown }>;
/** Runs after a denial; observes only. */
export type DeniedHook<F extends AnyFunction = UntypedToolFunction, I = unknown> = (ctx: DeniedContext<F, I>) => MaybePromise<void | undefined>;
/** Runs when tools are listed; may return a subset of the tools (same names), possibly annotated. */
export type ToolsListedHook = (tools: ToolContract[], ctx: ListingContext) => MaybePromise<void | undefined | ToolContract[]>;

/** Context of a `toolsListed` hook. */
export interface ListingContext {
  /** Unique per listing. */
  invocationId: string;
  /** One mutable object shared by the hooks of one listing. */
  metadata: Record<string, unknown>;
  /** Who the listing is for. */
  principal: string | undefined;
  /** The caller's map. */
  assigns: Record<string, unknown>;
  /** Aborted when the caller cancels. */
  signal: AbortSignal;
}

/**
 * A set of hooks, simple-webmcp's `WebMCPHooks<F>`: `F` ties `after` hooks' `output`
 * to `Awaited<ReturnType<F>>`. `I` is the input's type before validation (`before`), `V` after
 * it (`after`); `error` and `denied` hooks may come before or after, and see either. Global and
 * provider hooks are `WebMCPHooks` (everything `unknown`); `webmcp()` types a tool's own.
 */
export interface WebMCPHooks<F extends AnyFunction = UntypedToolFunction, I = unknown, V = I> {
  /** Before the tool, in order global → scoped → tool. */
  before?: HookEntry<BeforeHook<F, I>>[];
  /** After the tool, in order tool → scoped → global. */
  after?: HookEntry<AfterHook<F, V>>[];
  /** On failure, in order tool → scoped → global. */
  error?: HookEntry<ErrorHook<F, I | V>>[];
  /** After a denial, in order tool → scoped → global. */
  denied?: HookEntry<DeniedHook<F, I | V>>[];
  /** When tools are listed. */
  toolsListed?: HookEntry<ToolsListedHook>[];
  /** Before a resource is read (matchers match the URI read); may deny. */
  resourceRead?: HookEntry<ResourceReadHook>[];
  /** Before a prompt is got (matchers match its name); may rewrite its arguments or deny. */
  promptGet?: HookEntry<PromptGetHook>[];
}

/**
 * Options of {@link webmcp}. The type parameters are what `webmcp()` infers from: `IS` the
 * `inputSchema`, `S` the `schema`, `OS` the `outputSchema`, `H` the tool's hooks.
 */
export interface WebMCPOptions<IS extends JsonSchema | undefined = JsonSchema, S extends StandardSchemaV1 | JsonSchema | undefined = StandardSchemaV1 | JsonSchema, OS extends JsonSchema | undefined = JsonSchema, H = WebMCPHooks> {
  /**
   * The tool's name, as agents call it: 1–128 characters of `[A-Za-z0-9_.-]`. Default: snake_case
   * of the function's `displayName` or `name`. Give it for code shipped through a minifier:
   * production builds rename functions, and a function without a name, or with a name that
   * looks minified (one or two characters, a `$`, three with a digit or an inner capital),
   * throws `ConfigurationError('missing_name')` at once; three lowercase letters warn once.
   */
  name?: string;
  /** A human-readable label. */
  title?: string;
  /** What the tool does; required before `register()`. */
  description?: string;
  /**
   * The input's JSON Schema (default `{ type: 'object', properties: {} }`); written inline or
   * `as const`, it types the function's input. Beside a Standard Schema `schema`, only what the
   * browser is shown (for a schema that cannot write itself as JSON Schema).
   */
  inputSchema?: IS;
  /**
   * The input contract as a Standard Schema (zod, valibot, …), validated in JS (async validators
   * too) — the tool receives the validated value, typed as the schema's output — or as a JSON
   * Schema (same as `inputSchema`). The browser is shown the schema's Standard JSON Schema
   * (`~standard.jsonSchema`) or zod's own conversion; with neither, give `inputSchema`.
   */
  schema?: S;
  /** The JSON Schema of `structuredContent`; written inline or `as const`, it types the function's result. */
  outputSchema?: OS;
  /** Hints for the agent; browsers get WebMCP's members, MCP's mapped onto them (docs/runtimes.md). */
  annotations?: ToolAnnotations;
  /**
   * Origins of other documents whose agents may see the tool (WebMCP's `exposedTo`), passed to
   * runtimes that support it; one that refuses it (MCP-B) registers the tool for same-origin
   * agents only, with a console warning. Predicates and the approver read it as `ctx.exposedTo`.
   */
  exposedTo?: readonly string[];
  /**
   * `'compatible'`: browsers are sent the input and output schemas without the keywords a
   * browser may refuse (`$ref` inlined, `format` in the description, …; docs/runtimes.md), while
   * the package's validator keeps enforcing them as given. Default `'as-given'`, with a console
   * warning naming such keywords.
   */
  browserSchema?: 'as-given' | 'compatible';
  /** Tool-level hooks (their `ctx.input` is typed from the schema). */
  hooks?: H;
  /** The tool's server id (default the global `serverId`, `"page"`). */
  server?: string;
  /** `'llm'` (default) or `false`: shaping of results on the agent path. */
  shape?: 'llm' | false;
  /**
   * `false`: a plain object the tool returns becomes JSON text only. By default (`true`) it is
   * also the result's `structuredContent`, which an `outputSchema` validates.
   */
  structured?: boolean;
  /** `'global'`: register at once; `'scoped'` (default): on `register()` or mount; `'manual'`. */
  scope?: 'global' | 'scoped' | 'manual';
  /** `false` makes `register()` a no-op. */
  enabled?: boolean;
  /**
   * Let this tool's JSON Schemas hold patterns that neither the page's `RegExp` nor the
   * linear-time engine can be trusted with: they run on the page's engine for strings short
   * enough to stay fast, and a longer string is not tested (the value is invalid). Default
   * `false`: `register()` refuses such a schema (`ConfigurationError('unsafe_pattern')`).
   * `configureWebMCP({ unsafePatterns: true })` opts in every pattern of the page.
   * (docs/behaviour.md, "Patterns").
   */
  unsafePatterns?: boolean;
}

/**
 * The options `webmcp(fn, options)` takes: {@link WebMCPOptions} typed from the schemas. `Fn`
 * (the wrapped function or tool) is kept as a parameter so one signature serves functions and
 * re-wrapped tools alike: overloads would let a failed candidate fix an unannotated function's
 * parameters as `any`.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export type ToolOptions<Fn, IS extends JsonSchema | undefined, S extends StandardSchemaV1 | JsonSchema | undefined, OS extends JsonSchema | undefined, H> = WebMCPOptions<IS, S, OS, H>;

/** The hooks of a tool whose function takes `In` and returns `R`, called with `Args`. */
export type ToolHooks<In, Args, R> = WebMCPHooks<ToolFunction<In, R>, Args, In>;

/** What `tool.invoke` takes: a re-wrapped tool's own, else what the schemas say. */
export type InvokeInputOf<Fn, Args> = Fn extends WebMCPTool<any, infer A> ? A : Args;

/**
 * `webmcp(fn, options)` and `client.webmcp(fn, options)`: wraps `fn` as a governed tool, or
 * re-wraps a tool made by `webmcp` (options merge, hook arrays concatenate).
 *
 * The function's input is inferred from `schema` (a Standard Schema's output type: what
 * validation produces) or from a JSON Schema written inline or `as const` (`schema` or
 * `inputSchema`); without either, from the function's own annotation (else `unknown`). Callers
 * (`tool.invoke`) pass the Standard Schema's input type. `outputSchema`, written the same way,
 * types what the function returns. The tool's own hooks see these types; global and provider
 * hooks see `unknown`.
 */
export interface ToolFactory {
  <
    I = unknown,
    const IS extends JsonSchema | undefined = undefined,
    const S extends StandardSchemaV1 | JsonSchema | undefined = undefined,
    const OS extends JsonSchema | undefined = undefined,
    R extends ToolResult<OS> = ToolResult<OS>,
    Fn = unknown,
  >(
    fn: ((input: ToolInput<S, IS, I>, ctx: ToolCallContext) => R) & Fn,
    options?: ToolOptions<Fn, IS, S, OS, NoInfer<ToolHooks<ToolInput<S, IS, I>, ToolArgs<S, IS, I>, R>>>,
  ): WebMCPTool<ToolFunction<ToolInput<S, IS, I>, R>, InvokeInputOf<Fn, ToolArgs<S, IS, I>>>;
}

/** A policy decision. */
export interface Decision {
  /** `allow`, `ask` or `deny`. */
  effect: 'allow' | 'ask' | 'deny';
  /** `rule`, `default`, `no_rule`, `no_approver`, `fingerprint_changed`, `new_tool`, `grant` or `limit`. */
  reason: string;
  /** The deciding rule, or limit (`list: 'limits'`): its list and index, and its `id` and `label` when the policy gives them. */
  rule?: { list: 'deny' | 'ask' | 'allow' | 'limits'; index: number; id?: string; label?: string };
  /** One sentence naming the deciding rule. */
  explanation: string;
  /** What changed, when the pin decided. */
  pin?: { previous: string; current: string; changed: string[] };
  /**
   * The bound passed, when a limit decided: `calls` (`max` per window), `budget`, `concurrency`,
   * `cost_failed` (its cost function failed) or `keys` (too many keys counted); what the key
   * counts apart by (`per`), and how much it had `used` of its `max`.
   */
  limit?: { kind: 'calls' | 'budget' | 'concurrency' | 'cost_failed' | 'keys'; per: 'principal' | 'tool' | 'page'; used: number; max: number };
}

/** One reason a value failed validation. */
export interface Diagnostic {
  /** JSON Pointer of the instance location (`''` is the whole input). */
  path: string;
  /** The JSON Schema keyword that failed (`type`, `required`, …), or `json`, `size`, `depth`, `standard`. */
  keyword: string;
  /** A short message, read after the path. */
  message: string;
}

/** Options of one agent-path call. */
export interface CallOptions {
  /** Who the call is for. */
  principal?: string;
  /** Server ids whose output entered the current turn. */
  taint?: Iterable<string>;
  /** Override the tool's shaping for this call. */
  shape?: 'llm' | false;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** A map passed to hooks as `ctx.assigns`. */
  assigns?: Record<string, unknown>;
  /**
   * Milliseconds the whole call may take (a positive number, at most 2^31 − 1: the longest delay
   * a timer holds); past it the call's signal aborts and the call ends as `aborted`.
   */
  timeout?: number;
}

/** Why a call failed. */
export interface CallError {
  /** `not_found | hook | validation | denied | tool | aborted`. */
  kind: 'not_found' | 'hook' | 'validation' | 'denied' | 'tool' | 'aborted';
  /** The finer reason, such as `hook_failed`, `hook_denied`, `unknown_tool`, `suspended`. */
  reason: string;
  /** One sentence; never what a hook threw. */
  message: string;
  /** The hook that decided, when one did. */
  hookId?: string;
  /**
   * How a hook failed: `'raise' | 'timeout' | 'bad_return'`, or `'removed'` when its hook set
   * was dropped (hooks replaced, a provider's hooks changed) while the call was in flight.
   */
  cause?: 'raise' | 'timeout' | 'bad_return' | 'removed';
  /** A deny's code, when the hook gave one. */
  code?: string;
  /** What failed validation (`kind: 'validation'`): one entry per problem, capped. */
  diagnostics?: Diagnostic[];
  /** The policy decision that denied or asked (`kind: 'denied'` by policy or approval). */
  decision?: Decision;
}

/** The outcome of an agent-path call: never thrown, always data. */
export type CallOutcome =
  | { ok: true; result: CallToolResult }
  | { ok: false; error: CallError; result: CallToolResult };

// ------------------------------------------------------------------ resources and prompts

/** One item of what a resource read answers (MCP's text or blob resource contents). */
export interface ResourceContents {
  /** The URI of this item (the URI read, unless the read says otherwise). */
  uri: string;
  /** Its MIME type. */
  mimeType?: string;
  /** Its text. */
  text?: string;
  /** Its bytes, base64-encoded. */
  blob?: string;
  [key: string]: unknown;
}

/** What a resource read answers (MCP's `ReadResourceResult`). */
export interface ReadResourceResult {
  /** The contents read. */
  contents: ResourceContents[];
  [key: string]: unknown;
}

/** One message of a prompt (MCP's `PromptMessage`). */
export interface PromptMessage {
  /** Who says it. */
  role: 'user' | 'assistant';
  /** What is said: one content block. */
  content: ContentBlock;
}

/** What a prompt get answers (MCP's `GetPromptResult`). */
export interface GetPromptResult {
  /** What the prompt is for. */
  description?: string;
  /** The prompt's messages. */
  messages: PromptMessage[];
  [key: string]: unknown;
}

/**
 * The outcome of a resource read or a prompt get: never thrown, always data. `text` is what an
 * agent reads of a failure (over MCP, the error's message).
 */
export type SubjectOutcome<R> = { ok: true; result: R } | { ok: false; error: CallError; text: string };

/** What a resource is, as agents are shown it. */
export interface ResourceDefinition {
  /**
   * Its URI, in canonical form (docs/resources-and-prompts.md, "URIs"), or a URI template
   * (`user://{id}/profile`) whose instances it reads.
   */
  uri: string;
  /** Its name. */
  name: string;
  /** A human-readable label. */
  title?: string;
  /** What it holds, for the model. */
  description?: string;
  /** The MIME type of what it reads. */
  mimeType?: string;
}

/** What a prompt is, as agents are shown it. */
export interface PromptDefinition {
  /** 1–128 characters of `[A-Za-z0-9_.-]`. */
  name: string;
  /** A human-readable label. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** The JSON Schema of its arguments (an object whose properties are strings). */
  argsSchema?: JsonSchema;
}

/** What every resourceRead and promptGet hook sees. */
export type GateContext = CallContextBase;

/** Context of a `resourceRead` hook. */
export interface ResourceReadContext extends GateContext {
  /** The URI read, in canonical form: what the policy, the grant, telemetry and the read function see. */
  uri: string;
  /** The URI template's variables, read from `uri`, for a templated resource (`{}` otherwise). */
  params: Record<string, string>;
  /** The resource read (a deeply frozen copy). */
  resource: ResourceDefinition;
}

/** Context of a `promptGet` hook. */
export interface PromptGetContext extends GateContext {
  /** The prompt's name. */
  name: string;
  /** Its arguments (after earlier rewrites, before validation). */
  args: unknown;
  /** The prompt (a deeply frozen copy). */
  prompt: PromptDefinition;
}

/** A denial, as a gate hook returns it. */
export type DenyReturn = { action: 'deny'; message?: string; code?: string };

/** Runs before a resource is read; may deny (ConduitMCP's `:on_resource_read`). */
export type ResourceReadHook = (ctx: ResourceReadContext) => MaybePromise<void | undefined | DenyReturn>;
/** Runs before a prompt is got; may rewrite its arguments or deny (ConduitMCP's `:on_prompt_get`). */
export type PromptGetHook = (ctx: PromptGetContext) => MaybePromise<void | undefined | { args: Record<string, string> } | DenyReturn>;

/** The second argument of a resource's read and a prompt's get. */
export interface GateCallContext {
  /** Aborted when the caller cancels (a cancelled MCP request too). */
  signal: AbortSignal;
}

/**
 * A resource's read: answers its contents (a `ReadResourceResult`, a string, or a value read as
 * JSON). `uri` is `new URL` of the canonical URI the hooks and the policy saw (its `href` is that
 * string); `params` the template's variables read from it.
 */
export type ResourceRead = (uri: URL, params: Record<string, string>, ctx: GateCallContext) => unknown;
/** A prompt's get: answers its messages (a `GetPromptResult`, a string, or a value read as JSON). */
export type PromptGet = (args: Record<string, string>, ctx: GateCallContext) => unknown;

/** Options of {@link webmcpResource}. */
export interface WebMCPResourceOptions extends ResourceDefinition {
  /** The resource's own hooks: `resourceRead` only. */
  hooks?: { resourceRead?: HookEntry<ResourceReadHook>[] };
  /** Its server id (default: the client's `serverId`). */
  server?: string;
  /** `'llm'` (default): what it reads is shaped for a model; `false`: as read. */
  shape?: 'llm' | false;
}

/** Options of {@link webmcpPrompt}. */
export interface WebMCPPromptOptions extends PromptDefinition {
  /** The prompt's own hooks: `promptGet` only. */
  hooks?: { promptGet?: HookEntry<PromptGetHook>[] };
  /** Its server id (default: the client's `serverId`). */
  server?: string;
  /** `'llm'` (default): its messages are shaped for a model; `false`: as got. */
  shape?: 'llm' | false;
}

/** What resources and prompts have in common: registration with the runtime. */
export interface WebMCPRegistrable {
  /** Registration status with the runtime (`'unsupported'` where the runtime has no resources or prompts). */
  readonly status: RegistrationStatus;
  /** The last registration error, if any. */
  readonly error: Error | null;
  /** Registers with the in-page registry and the runtime; resolves to an unregister function. */
  register(options?: { signal?: AbortSignal }): Promise<() => void>;
  /** Unregisters. */
  unregister(): void;
}

/** A resource made by {@link webmcpResource}. */
export interface WebMCPResource extends WebMCPRegistrable {
  /** What agents are shown. */
  readonly definition: ResourceDefinition;
  /** Reads `uri` (default: the resource's own URI) through the governed pipeline; needs no registration. */
  read(uri?: string, options?: CallOptions): Promise<SubjectOutcome<ReadResourceResult>>;
}

/** A prompt made by {@link webmcpPrompt}. */
export interface WebMCPPrompt extends WebMCPRegistrable {
  /** What agents are shown. */
  readonly definition: PromptDefinition;
  /** Gets the prompt with `args` through the governed pipeline; needs no registration. */
  get(args?: Record<string, string>, options?: CallOptions): Promise<SubjectOutcome<GetPromptResult>>;
}

/** Registration status of a tool with the browser. */
export type RegistrationStatus = 'unregistered' | 'registering' | 'registered' | 'error' | 'unsupported';

/** The direct call's arguments: the function's input (optional when it may be absent) and an optional context. */
export type DirectArgs<F extends AnyFunction> = F extends (...args: infer P) => any
  ? P extends []
    ? []
    : P extends [infer A, ...any[]]
      ? unknown extends A
        ? [input?: A, ctx?: ToolCallContext]
        : [input: A, ctx?: ToolCallContext]
      : P
  : never;

/** `tool.invoke`'s arguments: the input callers pass (optional when it may be absent) and the call's options. */
export type InvokeArgs<A> = unknown extends A ? [input?: A, options?: CallOptions] : undefined extends A ? [input?: A, options?: CallOptions] : [input: A, options?: CallOptions];

/**
 * A function wrapped by {@link webmcp}: callable directly (bypassing the engine), plus tool
 * methods. `F` is the function's type (simple-webmcp's `WebMCPTool<F>`); `A` what callers pass
 * to `invoke` (a Standard Schema's input type, which may differ from what `F` receives).
 */
export interface WebMCPTool<F extends AnyFunction = UntypedToolFunction, A = ArgsOf<F>> {
  /**
   * Calls the function directly: no hooks, no validation, no policy. Without a context, the
   * function gets `{ signal }` with a signal that never aborts.
   */
  (...args: DirectArgs<F>): ReturnType<F>;
  /** The tool's name. */
  readonly toolName: string;
  /** The contract sent to the browser. */
  readonly definition: ToolContract;
  /** Registration status with the browser. */
  readonly status: RegistrationStatus;
  /**
   * Lowercase hex SHA-256 of the RFC 8785 canonical JSON of the definition. The core computes
   * it: for a tool without hooks, whose `webmcp()` loaded nothing, the first read loads the core.
   */
  readonly fingerprint: string;
  /** The last registration error, if any. */
  readonly error: Error | null;
  /** Registers the tool with the browser (and the in-page registry); resolves to an unregister function. */
  register(options?: { signal?: AbortSignal }): Promise<() => void>;
  /** Unregisters the tool (aborts the registration signal). */
  unregister(): void;
  /** Runs the governed pipeline on `input`; needs no registration. */
  invoke(...args: InvokeArgs<A>): Promise<CallOutcome>;
}

/** Who a listing is for, as `listTools(options)` takes it. */
export interface ListingOptions {
  principal?: string;
  assigns?: Record<string, unknown>;
  signal?: AbortSignal;
  shape?: 'llm' | false;
}

/** Options of {@link normalizeResult}. */
export interface NormalizeOptions {
  /**
   * `false`: a plain object becomes JSON text only, without `structuredContent` (the tool
   * option `structured: false`). Default `true`.
   */
  structured?: boolean;
}

/** Limits on arguments that cross to the validator or the policy as JSON. */
export interface Limits {
  /** Largest JSON, in UTF-8 bytes. */
  maxBytes: number;
  /** Deepest nesting of arrays and objects (`{}` is 1). */
  maxDepth: number;
}

/** What validating JSON text against a JSON Schema found. */
export type JsonValidated = { valid: true } | { valid: false; diagnostics: Diagnostic[] } | { valid: false; invalidSchema: string };

// ---- inference ---------------------------------------------------------------------------------
//
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
