// Types the package's modules share about tools, kept apart so no module has to import another
// for its types alone.
import type { StandardSchemaLike } from './validation.js';
import type { JsonSchema, StandardSchemaV1, ToolContract, WebMCPHooks, WebMCPOptions, WebMCPTool } from './types.js';

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
  readonly validation: { input?: JsonSchema; standard?: StandardSchemaLike; output?: JsonSchema };
  /** Shaping on the agent path (`'llm'` by default). */
  readonly shape: 'llm' | false;
  /** `false`: a plain object the tool returns becomes text only, without `structuredContent` (default `true`). */
  readonly structured?: boolean;
}

/** A tool the in-page registry holds. */
export interface RegisteredTool extends PipelineTool {
  /** The provider scope its calls run under (0: none). */
  readonly scope: number;
}

/** How a tool stands with the browser. */
export type RegistrationStatus = 'unregistered' | 'registering' | 'registered' | 'error' | 'unsupported';

/** Everything the package keeps about one tool made by `webmcp()`. */
export interface ToolRecord extends RegisteredTool {
  /** The client the tool belongs to. */
  readonly warden: import('./client.js').Warden;
  /** The options it was made with. */
  readonly options: AnyToolOptions;
  /**
   * Why the browser cannot be shown the input's JSON Schema (a Standard Schema with no JSON
   * Schema export and no `inputSchema`): `register()` refuses with it.
   */
  readonly schemaProblem: string | undefined;
  /** Lowercase hex SHA-256 of the definition's canonical JSON. */
  readonly fingerprint: string;
  /** The core's hook sets of this tool, oldest first (re-wrapping appends). */
  readonly hookSets: number[];
  /** Registration status with the browser; setting it notifies `statusListeners`. */
  status: RegistrationStatus;
  /** The last registration error. */
  error: Error | null;
  /** The live `register()`: a newer one, or `unregister()`, replaces it. */
  attempt: { unregister: () => void } | undefined;
  /** The registration with the browser: its controller, the descriptor it was made with, the runtime that holds it. */
  browser: { controller: AbortController; key: string; runtime: unknown } | undefined;
  /** Where `scope` comes from, set by `webmcp-warden/react` while the tool is mounted. */
  scopeOf: (() => number) | undefined;
  /** Called after every change of `status`. */
  readonly statusListeners: Set<() => void>;
}

/** Everything the package keeps about one resource (`webmcpResource`) or prompt (`webmcpPrompt`). */
export interface SubjectRecord extends RegisteredTool {
  /** The client it belongs to. */
  readonly warden: import('./client.js').Warden;
  /** What it is. */
  readonly kind: 'resource' | 'prompt';
  /** Its key in the client's registry: a resource's URI (or template), a prompt's name. */
  readonly key: string;
  /** What agents are shown. */
  readonly definition: import('./types.js').ResourceDefinition | import('./types.js').PromptDefinition;
  /** A templated resource's URI pattern (one group per variable) and variable names. */
  readonly template: { pattern: RegExp; names: string[] } | undefined;
  /** The core's hook sets of it. */
  readonly hookSets: number[];
  /** Registration status with the runtime; setting it notifies `statusListeners`. */
  status: RegistrationStatus;
  /** The last registration error. */
  error: Error | null;
  /** The live `register()`: a newer one, or `unregister()`, replaces it. */
  attempt: { unregister: () => void } | undefined;
  /** The registration with the runtime, and the runtime that holds it. */
  registration: { runtime: unknown; handle: { unregister(): void } } | undefined;
  /** Where `scope` comes from, set by `webmcp-warden/react` while it is mounted. */
  scopeOf: (() => number) | undefined;
  /** Called after every change of `status`. */
  readonly statusListeners: Set<() => void>;
}
