// simple-webmcp's engine API, kept with its meaning (SPEC §8): build a hooked `execute` from a
// function and a `getHooks` callback, for custom engines and tests.
import { getCore } from './core.js';
import { configurationError } from './errors.js';
import { compileHookSet } from './hookset.js';
import { runCall, type CachedPlan, type PipelineTool } from './pipeline.js';
import type { CallToolResult, ToolContract, WebMCPHooks, WebMCPTool } from './types.js';

/** Options of {@link createHookedExecute}. */
export interface HookedExecuteOptions {
  /** The hooks of each call, already ordered (see `mergeHooksOrdered`); read per call. */
  getHooks: () => WebMCPHooks;
  /** Checks the input after the before-hooks and before the function; a throw fails the call. */
  validate?: (input: unknown) => void;
}

/**
 * Builds the `execute` simple-webmcp registers: before-hooks → `validate` → `fn` → after-hooks,
 * error and denied hooks, and a normalized result. Hook contracts and failures follow SPEC §4.
 * Each distinct hooks object `getHooks` returns is checked and compiled once.
 */
export function createHookedExecute(
  fn: (input: any, extra: { signal: AbortSignal }) => unknown,
  tool: WebMCPTool,
  contract: ToolContract,
  { getHooks, validate }: HookedExecuteOptions,
): (input: unknown, extra?: { signal?: AbortSignal }) => Promise<CallToolResult> {
  const compiled = new WeakMap<object, PipelineTool>();
  const run = (input: any, extra: { signal: AbortSignal }) => {
    validate?.(input);
    return fn(input, extra);
  };
  const pipelineFor = (hooks: WebMCPHooks): PipelineTool => {
    let pipeline = compiled.get(hooks);
    if (pipeline === undefined) {
      const label = `tool "${contract.name}" hooks`;
      const set = compileHookSet(hooks, label);
      const answer = JSON.parse(getCore().defineTool(contract.name, undefined, new Uint32Array(set === undefined ? [] : [set]), label)) as
        | { ok: true; tool: number }
        | { ok: false; error: { code: string; message: string; path?: string } };
      if (!answer.ok) throw configurationError(answer.error);
      pipeline = { coreTool: answer.tool, fn: run, publicTool: tool, contract, server: undefined, plans: new Map<number, CachedPlan>() };
      compiled.set(hooks, pipeline);
    }
    return pipeline;
  };
  return async (input, extra) => {
    const outcome = await runCall(pipelineFor(getHooks() ?? {}), input, extra?.signal ? { signal: extra.signal } : {});
    return outcome.result;
  };
}
