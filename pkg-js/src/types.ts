// Public types of webmcp-warden (SPEC §3, §4, §10).

/** A JSON Schema object (draft 2020-12 unless `$schema` says draft-07). */
export type JsonSchema = { [key: string]: unknown };

/** A value or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/** Tool annotations, passed to the browser as given. */
export interface ToolAnnotations {
  /** The tool only reads. */
  readOnlyHint?: boolean;
  /** The tool's output may hold untrusted content (user-generated, third-party). */
  untrustedContentHint?: boolean;
  /** The call has significant, real-world or irreversible effects. */
  consequentialHint?: boolean;
  /** The tool may destroy data (MCP hint). */
  destructiveHint?: boolean;
  /** Calling twice has the effect of calling once (MCP hint). */
  idempotentHint?: boolean;
  /** The tool reaches beyond the page (MCP hint). */
  openWorldHint?: boolean;
  /** A human-readable title. */
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
 * Which tools a hook applies to: `'*'` / `'all'`, `'server/tool'` (`*` globs within a segment),
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
  /** Deadline in milliseconds (default the global `hookTimeout`, 5000). */
  timeout?: number;
  /** For `after` and `error` hooks: `'fail'` (default, fail closed) or `'ignore'`. */
  onError?: 'fail' | 'ignore';
}

/** A hook entry: a function, or a function with options. */
export type HookEntry<Run> = Run | HookOptions<Run>;

/** What every hook sees (SPEC §4). */
export interface HookContext {
  /** Unique per call. */
  invocationId: string;
  /** The tool being called. */
  tool: WebMCPTool;
  /** The tool's contract. */
  contract: ToolContract;
  /** Aborted when the caller cancels the call. */
  signal: AbortSignal;
  /** One mutable object shared by every hook of one call. */
  metadata: Record<string, unknown>;
  /** The current input (after earlier rewrites). */
  input: unknown;
  /** The tool's server id. */
  serverId: string;
  /** Who the call is for, if the caller said. */
  principal: string | undefined;
  /** Server ids whose output entered the current turn. */
  taint: Set<string>;
  /** The caller's map (`assigns` call option). */
  assigns: Record<string, unknown>;
}

/** Context of an `after` hook. */
export interface AfterContext extends HookContext {
  /** What the tool returned (after earlier rewrites). */
  output: unknown;
}

/** Context of an `error` hook. */
export interface ErrorContext extends HookContext {
  /** What went wrong: the tool's thrown value, or a {@link CallFailure}. */
  error: unknown;
}

/** Context of a `denied` hook. */
export interface DeniedContext extends HookContext {
  /** The denial's message. */
  reason?: string;
  /** The denial's code. */
  code?: string;
}

/** What a before-hook may return. */
export type BeforeReturn =
  | void
  | undefined
  | { input: unknown }
  | { action: 'deny'; message?: string; code?: string }
  | { action: 'halt'; result: unknown };

/** Runs before the tool; may rewrite the input, deny, or halt with a result. */
export type BeforeHook = (ctx: HookContext) => MaybePromise<BeforeReturn>;
/** Runs after the tool; may rewrite the output. */
export type AfterHook = (ctx: AfterContext) => MaybePromise<void | undefined | { output: unknown }>;
/** Runs when the call failed; may recover with a result. */
export type ErrorHook = (ctx: ErrorContext) => MaybePromise<void | undefined | { action: 'recover'; result: unknown }>;
/** Runs after a denial; observes only. */
export type DeniedHook = (ctx: DeniedContext) => MaybePromise<void | undefined>;
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

/** A set of hooks (SPEC §4). */
export interface WebMCPHooks {
  /** Before the tool, in order global → scoped → tool. */
  before?: HookEntry<BeforeHook>[];
  /** After the tool, in order tool → scoped → global. */
  after?: HookEntry<AfterHook>[];
  /** On failure, in order tool → scoped → global. */
  error?: HookEntry<ErrorHook>[];
  /** After a denial, in order tool → scoped → global. */
  denied?: HookEntry<DeniedHook>[];
  /** When tools are listed. */
  toolsListed?: HookEntry<ToolsListedHook>[];
}

/** Options of {@link webmcp}. */
export interface WebMCPOptions {
  /** 1–128 characters of `[A-Za-z0-9_.-]`; default snake_case of `fn.name`. */
  name?: string;
  /** A human-readable label. */
  title?: string;
  /** What the tool does; required before `register()`. */
  description?: string;
  /**
   * The input's JSON Schema (default `{ type: 'object', properties: {} }`). Beside a Standard
   * Schema `schema`, only what the browser is shown (for a library with no JSON Schema export).
   */
  inputSchema?: JsonSchema;
  /**
   * The input contract as a Standard Schema (zod, valibot, …), validated in JS (async validators
   * too) — the tool receives the validated value — or as a JSON Schema (same as `inputSchema`).
   */
  schema?: unknown;
  /** The JSON Schema of `structuredContent`. */
  outputSchema?: JsonSchema;
  /** Hints for the agent, passed to the browser as given. */
  annotations?: ToolAnnotations;
  /** Tool-level hooks. */
  hooks?: WebMCPHooks;
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
}

/** Why a call failed (SPEC §10). */
export interface CallError {
  /** `not_found | hook | validation | denied | tool | aborted`. */
  kind: 'not_found' | 'hook' | 'validation' | 'denied' | 'tool' | 'aborted';
  /** The finer reason, such as `hook_failed`, `hook_denied`, `unknown_tool`. */
  reason: string;
  /** One sentence; never what a hook threw. */
  message: string;
  /** The hook that decided, when one did. */
  hookId?: string;
  /** How a hook failed: `'raise' | 'timeout' | 'bad_return'`. */
  cause?: 'raise' | 'timeout' | 'bad_return';
  /** A deny's code, when the hook gave one. */
  code?: string;
}

/** The outcome of an agent-path call: never thrown, always data. */
export type CallOutcome =
  | { ok: true; result: CallToolResult }
  | { ok: false; error: CallError; result: CallToolResult };

/** Registration status of a tool with the browser. */
export type RegistrationStatus = 'unregistered' | 'registering' | 'registered' | 'error' | 'unsupported';

/** A function wrapped by {@link webmcp}: callable directly (bypassing the engine), plus tool methods. */
export interface WebMCPTool<F extends (...args: any[]) => any = (...args: any[]) => any> {
  /** Calls the function directly; no hooks, no policy. */
  (...args: Parameters<F>): ReturnType<F>;
  /** The tool's name. */
  readonly toolName: string;
  /** The contract sent to the browser. */
  readonly definition: ToolContract;
  /** Registration status with the browser. */
  readonly status: RegistrationStatus;
  /** Lowercase hex SHA-256 of the RFC 8785 canonical JSON of the definition (SPEC §5). */
  readonly fingerprint: string;
  /** The last registration error, if any. */
  readonly error: Error | null;
  /** Registers the tool with the browser (and the in-page registry); resolves to an unregister function. */
  register(options?: { signal?: AbortSignal }): Promise<() => void>;
  /** Unregisters the tool (aborts the registration signal). */
  unregister(): void;
  /** Runs the governed pipeline on `input`; needs no registration. */
  invoke(input?: unknown, options?: CallOptions): Promise<CallOutcome>;
}
