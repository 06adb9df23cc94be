// webmcp-warden: governed WebMCP tools. Convert in → ask the core → perform → convert out.
//
// This entry works in browsers, bundlers and Node alike: the Rust core ships inside the package
// and is compiled synchronously on first use, so nothing here awaits at import time and
// importing it where there is no `document` (SSR) does not throw. The functions below act on a
// default client; `createWarden()` makes others.
import { clientOption, getDefaultWarden, type ClientOption } from './api/api.js';
import type { WebMCPConfig } from './api/config.js';
import type { Grant } from './client/grants.js';
import type { ListingOptions } from './types/types.js';

export type { ListingOptions };
import type { TelemetryHandler } from './client/telemetry.js';
import { isWebMCPTool } from './api/tool.js';
import { createPrompt, createResource } from './subjects/subject.js';
import { getPrompt as getPromptOf, readResource as readResourceOf } from './subjects/subject-call.js';
import type {
  CallOptions,
  CallOutcome,
  GetPromptResult,
  PromptGet,
  ReadResourceResult,
  ResourceRead,
  SubjectOutcome,
  ToolContract,
  ToolFactory,
  WebMCPHooks,
  WebMCPPrompt,
  WebMCPPromptOptions,
  WebMCPResource,
  WebMCPResourceOptions,
} from './types/types.js';

export { ready } from './boundary/core.js';
export { createWarden, getDefaultWarden, type WardenClient, type ClientOption } from './api/api.js';
export { type WebMCPConfig } from './api/config.js';
export { mergeHooks, mergeHooksOrdered } from './client/hookset.js';
export { createHookedExecute, type HookedExecuteOptions } from './api/hooked-execute.js';
export { WardenError, ConfigurationError, RegistrationError, NotSupportedError, CallFailure } from './util/errors.js';
export { normalizeResult, normalizeError } from './api/public-results.js';
export type { NormalizeOptions } from './types/types.js';
export { genInvocationId } from './client/outcomes.js';
export { explain, type Explanation, type ExplainStep } from './api/explain.js';
export { definePolicy, type Policy, type PolicySection, type PolicyRule, type Rule, type ApprovalCall, type PolicyWhen, type Decision, type PolicyCall, type AskAnswer, type Approver, type PolicyPredicate, type PolicyDiagnostic, type ToolFilterFn, type GovernanceContext } from './client/governance.js';
export { lintPolicy } from './api/lint.js';
export { memoryGrantStore, localStorageGrantStore, type Grant, type GrantStore } from './client/grants.js';
export {
  type TelemetryEvent,
  type TelemetryHandler,
  type DecisionStep,
  type HookStopEvent,
  type HookExceptionEvent,
  type PolicyDecisionEvent,
  type LimitExceededEvent,
  type ToolCallStopEvent,
  type ResourceReadStopEvent,
  type PromptGetStopEvent,
  type AgentsSuspendedEvent,
  type AgentsResumedEvent,
} from './client/telemetry.js';
export { validateJson } from './api/pipeline-loader.js';
export type { Diagnostic } from './types/types.js';
export { shapeForModel } from './api/pipeline-loader.js';
export type { ShapedResult } from './shape/shaping.js';
export { getModelContext, isWebMCPSupported } from './runtime/runtime.js';
export { lintTool, type ToolLint, type LintableDefinition } from './api/lint-tool.js';
export { PROVENANCE_META_KEY } from './util/mcp.js';
export { isWebMCPTool, toSnakeCase } from './api/tool.js';
export type * from './types/types.js';

/**
 * Wraps a function as a WebMCP tool governed by webmcp-warden: `webmcp(fn, { description,
 * inputSchema, hooks })`. Also carries `webmcp.configure` (= `configureWebMCP`),
 * `webmcp.getGlobalHooks`, `webmcp.resetGlobalHooks` and `webmcp.isWebMCPTool`, as
 * simple-webmcp does.
 */
export const webmcp: ToolFactory & {
  /** Same as {@link configureWebMCP}. */
  configure: typeof configureWebMCP;
  /** Same as {@link getGlobalHooks}. */
  getGlobalHooks: typeof getGlobalHooks;
  /** Same as {@link resetGlobalHooks}. */
  resetGlobalHooks: typeof resetGlobalHooks;
  /** Same as {@link isWebMCPTool}. */
  isWebMCPTool: typeof isWebMCPTool;
} = Object.assign(((fn: any, options: any) => getDefaultWarden().webmcp(fn, options)) as ToolFactory, {
  configure: configureWebMCP,
  getGlobalHooks,
  resetGlobalHooks,
  isWebMCPTool,
});

/** Configures the page (the default client): global hooks, policy, approver, settings. */
export function configureWebMCP(options: WebMCPConfig): void {
  getDefaultWarden().configure(options);
}

/** The current global hooks (a copy). */
export function getGlobalHooks(): WebMCPHooks {
  return getDefaultWarden().getGlobalHooks();
}

/** Removes every global hook (for tests). */
export function resetGlobalHooks(): void {
  getDefaultWarden().resetGlobalHooks();
}

/**
 * Everything back to defaults, for tests: global hooks, settings, policy, grants, telemetry
 * subscribers, and the in-page registry (every tool is unregistered, from the browser too).
 */
export function resetWebMCP(): void {
  getDefaultWarden().reset();
}

/**
 * Wraps `read` as a governed resource: `webmcpResource(read, { uri, name, description?,
 * mimeType?, hooks?, client? })`, of the default client or of `client`. Registered with the
 * runtime when it has resources (MCP-B's `registerResource`), `status: 'unsupported'` otherwise;
 * readable in-page everywhere (`readResource`). `read(uri: URL, params, { signal })` answers a
 * `ReadResourceResult`, a string, or a value read as JSON; `uri` may be a URI template
 * (`user://{id}/profile`), whose variables are `params`. A top-level function rather than a
 * client method, so that a page without resources and prompts never downloads their code.
 */
export function webmcpResource(read: ResourceRead, options: WebMCPResourceOptions & ClientOption): WebMCPResource {
  const [w, rest] = clientOption(options);
  return createResource(w, read, rest);
}

/**
 * Wraps `get` as a governed prompt: `webmcpPrompt(get, { name, description?, argsSchema?, hooks?,
 * client? })`, of the default client or of `client`. Registered with the runtime when it has
 * prompts (MCP-B's `registerPrompt`), `status: 'unsupported'` otherwise; gettable in-page
 * everywhere (`getPrompt`). `get(args, { signal })` answers a `GetPromptResult`, a string, or a
 * value read as JSON; `args` are validated against `argsSchema` after the `promptGet` hooks.
 */
export function webmcpPrompt(get: PromptGet, options: WebMCPPromptOptions & ClientOption): WebMCPPrompt {
  const [w, rest] = clientOption(options);
  return createPrompt(w, get, rest);
}

/**
 * Reads a registered resource (of the default client, or of `options.client`) through the
 * governed pipeline, as an in-page agent would; never throws for a failed read.
 */
export function readResource(uri: string, options?: CallOptions & ClientOption): Promise<SubjectOutcome<ReadResourceResult>> {
  return readResourceOf(uri, options);
}

/**
 * Gets a registered prompt (of the default client, or of `options.client`) through the governed
 * pipeline, as an in-page agent would; never throws for a failed get.
 */
export function getPrompt(name: string, args?: Record<string, string>, options?: CallOptions & ClientOption): Promise<SubjectOutcome<GetPromptResult>> {
  return getPromptOf(name, args, options);
}

/** Calls a registered tool through the governed pipeline, as an in-page agent host would; never throws for a failed call. */
export function invokeTool(name: string, input?: unknown, options?: CallOptions): Promise<CallOutcome> {
  return getDefaultWarden().invokeTool(name, input, options);
}

/** The registered tools as an agent sees them, after the `toolsListed` hooks. */
export function listTools(options?: ListingOptions): Promise<ToolContract[]> {
  return getDefaultWarden().listTools(options);
}

/** Subscribes to telemetry events; answers the unsubscribe function. */
export function onTelemetry(handler: TelemetryHandler): () => void {
  return getDefaultWarden().onTelemetry(handler);
}

/**
 * Suspends the page's agents (the default client's; a kill switch): until {@link resumeAgents},
 * every call, read and get that starts is denied with `reason` (`Denied: <reason>`).
 */
export function suspendAgents(reason: string): void {
  getDefaultWarden().suspendAgents(reason);
}

/** Lets the page's agents act again after {@link suspendAgents}. */
export function resumeAgents(): void {
  getDefaultWarden().resumeAgents();
}

/** The live grants. */
export function listGrants(): Promise<Grant[]> {
  return getDefaultWarden().listGrants();
}

/** Revokes every grant matching all the given fields (`principal: null` selects grants without one). */
export function revokeGrant(filter?: { principal?: string | null; server?: string; tool?: string }): Promise<number> {
  return getDefaultWarden().revokeGrant(filter);
}

/** Removes every grant. */
export function clearGrants(): Promise<void> {
  return getDefaultWarden().clearGrants();
}

export default webmcp;
