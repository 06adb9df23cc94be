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
