// simple-webmcp's engine API (`createHookedExecute`), kept with its meaning: build a hooked
// `execute` from a function and a `getHooks` callback, for custom engines and tests.
import { defaultClientState } from './api.js';
import { compileHookSet, HOOK_EVENTS } from '../client/hookset.js';
import type { PipelineTool } from '../types/internal.js';
import { runCall } from './pipeline-loader.js';
import type { CallToolResult, ToolContract, WebMCPHooks, WebMCPTool } from '../types/types.js';
import { isPlainObject } from '../util/js-values.js';

/** Options of {@link createHookedExecute}. */
export interface HookedExecuteOptions {
  /** The hooks of each call, already ordered (see `mergeHooksOrdered`); read per call. */
  getHooks: () => WebMCPHooks<any, any, any>;
  /** Checks the input after the before-hooks and before the function; a throw fails the call. */
  validate?: (input: unknown) => void;
}

/**
 * Builds the `execute` simple-webmcp registers: before-hooks → `validate` → `fn` → after-hooks,
 * error and denied hooks, and a normalized result. Hook contracts and failures are those of `docs/behaviour.md`, "Hooks".
 * The hooks `getHooks` returns are the whole set (as `mergeHooksOrdered` builds it): the global
 * hooks of `configureWebMCP` are not added again. They are read per call, and compiled again
 * only when they differ from the last ones (the same entries in the same order count as the
 * same, so a `getHooks` that builds a new object per call costs no compile and no memory).
 */
export function createHookedExecute(
  fn: (input: any, extra: { signal: AbortSignal }) => unknown,
  tool: WebMCPTool<any, any>,
  contract: ToolContract,
  { getHooks, validate }: HookedExecuteOptions,
): (input: unknown, extra?: { signal?: AbortSignal }) => Promise<CallToolResult> {
  let current: { entries: unknown[][]; set: number | undefined; pipeline: PipelineTool } | undefined;
  const run = (input: any, extra: { signal: AbortSignal }) => {
    validate?.(input);
    return fn(input, extra);
  };
  const pipelineFor = (hooks: WebMCPHooks): PipelineTool => {
    const entries = HOOK_EVENTS.map((event) => {
      const list = (hooks as Record<string, unknown>)[event];
      return Array.isArray(list) ? [...list] : [];
    });
    if (current !== undefined && isPlainObject(hooks) && sameEntries(current.entries, entries)) return current.pipeline;
    const w = defaultClientState();
    const label = `tool "${contract.name}" hooks`;
    const set = compileHookSet(w, hooks, label);
    const coreTool = w.handles.take();
    try {
      w.defineStandaloneTool(coreTool, contract.name, new Uint32Array(set === undefined ? [] : [set]), label);
    } catch (err) {
      w.handles.give(coreTool);
      if (set !== undefined) w.dropHookSet(set);
      throw err;
    }
    if (current !== undefined) {
      // Calls in flight keep the plan they started with.
      w.dropTool(current.pipeline.coreTool);
      if (current.set !== undefined) w.dropHookSet(current.set);
    }
    // simple-webmcp's engine neither validates with JSON Schema nor shapes, and its results are
    // text only (no structuredContent): it keeps that meaning.
    const pipeline: PipelineTool = { coreTool, fn: run, publicTool: tool, contract, server: undefined, validation: {}, shape: false, structured: false };
    current = { entries, set, pipeline };
    return pipeline;
  };
  return async (input, extra) => {
    const outcome = await runCall(defaultClientState(), pipelineFor(getHooks() ?? {}), input, extra?.signal ? { signal: extra.signal } : {});
    return outcome.result;
  };
}

function sameEntries(a: unknown[][], b: unknown[][]): boolean {
  return a.length === b.length && a.every((list, i) => list.length === b[i]?.length && list.every((entry, j) => entry === b[i]?.[j]));
}
