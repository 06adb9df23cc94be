// webmcp-warden: governed WebMCP tools. Convert in → ask the core → perform → convert out.
//
// This entry works in browsers, bundlers and Node alike: the Rust core ships inside the package
// and is compiled synchronously on first use, so nothing here awaits at import time and
// importing it where there is no `document` (SSR) does not throw.
import { configureWebMCP, getGlobalHooks, resetGlobalHooks } from './config.js';
import { webmcp as wrap, isWebMCPTool } from './tool.js';

export { ready } from './core.js';
export { configureWebMCP, getGlobalHooks, resetGlobalHooks, resetWebMCP, mergeHooks, mergeHooksOrdered, type WebMCPConfig } from './config.js';
export { createHookedExecute, type HookedExecuteOptions } from './engine.js';
export { WardenError, ConfigurationError, RegistrationError, NotSupportedError, CallFailure } from './errors.js';
export { normalizeResult, normalizeError, type NormalizeOptions } from './normalize.js';
export { genInvocationId } from './pipeline.js';
export { invokeTool, listTools } from './registry.js';
export { explain, type Explanation, type ExplainStep } from './explain.js';
export { lintPolicy, type Policy, type PolicyRule, type PolicyWhen, type Decision, type PolicyCall, type AskAnswer, type Approver, type PolicyPredicate, type PolicyDiagnostic, type ToolFilterFn } from './governance.js';
export { listGrants, revokeGrant, clearGrants, memoryGrantStore, localStorageGrantStore, type Grant, type GrantStore } from './grants.js';
export { onTelemetry, type TelemetryEvent, type TelemetryHandler, type DecisionStep, type HookStopEvent, type HookExceptionEvent, type PolicyDecisionEvent, type ToolCallStopEvent } from './telemetry.js';
export { type Diagnostic } from './validation.js';
export { getModelContext, isWebMCPSupported } from './runtime.js';
export { isWebMCPTool, toSnakeCase } from './tool.js';
export type * from './types.js';

/**
 * Wraps a function as a WebMCP tool governed by webmcp-warden (SPEC §3). Also carries
 * `webmcp.configure` (= `configureWebMCP`), `webmcp.getGlobalHooks`, `webmcp.resetGlobalHooks`
 * and `webmcp.isWebMCPTool`, as simple-webmcp does.
 */
export const webmcp = Object.assign(wrap, {
  configure: configureWebMCP,
  getGlobalHooks,
  resetGlobalHooks,
  isWebMCPTool,
});

export default webmcp;
