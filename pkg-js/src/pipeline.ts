// The governed call: ask the core for the next step, perform it, report what happened.
//
// The core decides the order and what each outcome means; this file only calls the user's
// functions (with deadlines and the call's abort signal), holds the JS values (input, output,
// a deny's message), and converts the final state into a result. It never throws for a call
// that went wrong: every path ends in a `CallOutcome`.
import { ACCEPTED, getCore, Op, Outcome } from './core.js';
import { configVersion, settings } from './config.js';
import { CallFailure, WardenError } from './errors.js';
import { hookTable, isPlainObject, type AnyHook } from './hookset.js';
import { errorMessage, errorResult, normalizeError, normalizeResult } from './normalize.js';
import type { CallError, CallOptions, CallOutcome, CallToolResult, ToolContract, WebMCPTool } from './types.js';

/** What the pipeline needs to know about a tool. */
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
  /** Plans cached per provider scope. */
  readonly plans: Map<number, CachedPlan>;
}

/** A plan id the core gave, valid while the configuration version is unchanged. */
export interface CachedPlan {
  version: number;
  id: number;
}

const NEVER_ABORTED = new AbortController().signal;
let invocationCounter = 0;

/** A unique id per call: `crypto.randomUUID()` when available. */
export function genInvocationId(): string {
  const uuid = (globalThis.crypto as Crypto | undefined)?.randomUUID;
  if (typeof uuid === 'function') return uuid.call(globalThis.crypto);
  invocationCounter = (invocationCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `webmcp_${Date.now().toString(36)}_${invocationCounter}_${Math.random().toString(36).slice(2, 8)}`;
}

const snapshots = new WeakMap<ToolContract, ToolContract>();

/**
 * The contract hooks see (`ctx.contract`): a deeply frozen copy, made once per tool, so a hook
 * cannot change the definition the browser, `listTools` and the fingerprint read.
 */
function snapshotOf(contract: ToolContract): ToolContract {
  let snapshot = snapshots.get(contract);
  if (snapshot === undefined) {
    snapshot = frozenCopy(contract, new Map()) as ToolContract;
    snapshots.set(contract, snapshot);
  }
  return snapshot;
}

/** A deeply frozen copy of plain objects and arrays (other values are kept as they are). */
function frozenCopy(value: unknown, seen: Map<object, unknown>): unknown {
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  const done = seen.get(value);
  if (done !== undefined) return done;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  seen.set(value, copy);
  for (const key of Object.keys(value)) (copy as Record<string, unknown>)[key] = frozenCopy((value as Record<string, unknown>)[key], seen);
  return Object.freeze(copy);
}

function planFor(tool: PipelineTool, scope: number): number {
  const cached = tool.plans.get(scope);
  if (cached !== undefined && cached.version === configVersion) return cached.id;
  const answer = JSON.parse(getCore().plan(tool.coreTool, scope)) as { ok: true; plan: number } | { ok: false; error: { code: string; message: string } };
  if (!answer.ok) throw new WardenError(answer.error.code, answer.error.message);
  tool.plans.set(scope, { version: configVersion, id: answer.plan });
  return answer.plan;
}

/** How a step the TS layer performed ended. */
const enum Ended {
  Value,
  Raise,
  Timeout,
  Aborted,
}

/**
 * Runs `fn(...args)` under a deadline and the call's signal; a throw or rejection comes back
 * with its value, for the tool's error (a hook's is dropped by the caller). A synchronous return is used as is
 * (no promise, no timer), so the common case of sync hooks costs no extra microtasks.
 */
function perform(fn: AnyHook, args: unknown[], timeoutMs: number | undefined, signal: AbortSignal): [Ended, unknown] | Promise<[Ended, unknown]> {
  let returned: unknown;
  const started = timeoutMs === undefined ? 0 : performance.now();
  // An abort counts when it happens during this step, including inside `fn` before it returned
  // its promise (the 'abort' event has fired by then, so a listener added below would never
  // hear it). A step that started on an already aborted signal (error and denied hooks of an
  // aborted call) is left to finish: its observers still run and may recover.
  const abortedBefore = signal.aborted;
  try {
    returned = fn(...args);
  } catch (err) {
    return [Ended.Raise, err];
  }
  if (!isThenable(returned)) {
    // A synchronous hook cannot be interrupted, but one that ran past its deadline failed it.
    if (timeoutMs !== undefined && performance.now() - started > timeoutMs) return [Ended.Timeout, undefined];
    return [Ended.Value, returned];
  }
  if (!abortedBefore && signal.aborted) {
    (returned as PromiseLike<unknown>).then(undefined, () => undefined);
    return [Ended.Aborted, undefined];
  }
  // The shared never-aborted signal gets no listener: thousands of concurrent calls without a
  // signal would otherwise pile listeners onto one object (and Node warns past ten).
  const listen = !abortedBefore && signal !== NEVER_ABORTED;
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (result: [Ended, unknown]) => {
      if (timer !== undefined) clearTimeout(timer);
      if (listen) signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = () => settle([Ended.Aborted, undefined]);
    if (timeoutMs !== undefined) timer = setTimeout(() => settle([Ended.Timeout, undefined]), timeoutMs);
    if (listen) signal.addEventListener('abort', onAbort, { once: true });
    (returned as PromiseLike<unknown>).then(
      (value) => settle([Ended.Value, value]),
      (err) => settle([Ended.Raise, err]),
    );
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * The shape of what a hook returned (SPEC §4's returns table), without judging it: the core
 * decides whether that shape is allowed for the event.
 */
function shapeOf(value: unknown): number {
  if (value === undefined || value === null) return Outcome.Nothing;
  if (typeof value !== 'object' || Array.isArray(value)) return Outcome.BadReturn;
  const keys = Object.keys(value);
  const v = value as Record<string, unknown>;
  if ('allow' in v || v.action === 'allow') return Outcome.Allow;
  if (keys.length === 1 && keys[0] === 'input') return Outcome.Input;
  if (keys.length === 1 && keys[0] === 'output') return Outcome.Output;
  if (v.action === 'deny' && keys.every((k) => k === 'action' || k === 'message' || k === 'code')) {
    const okMessage = v.message === undefined || typeof v.message === 'string';
    const okCode = v.code === undefined || typeof v.code === 'string';
    return okMessage && okCode ? Outcome.Deny : Outcome.BadReturn;
  }
  if (keys.length === 2 && 'result' in v) {
    if (v.action === 'halt') return Outcome.Halt;
    if (v.action === 'recover') return Outcome.Recover;
  }
  return Outcome.BadReturn;
}

const endedOutcome = [0, Outcome.Raise, Outcome.Timeout, Outcome.Aborted] as const;

/** Runs one governed call of `tool` under provider `scope` (0: none). Never throws for a failed call. */
export async function runCall(tool: PipelineTool, rawInput: unknown, options: CallOptions = {}, scope = 0): Promise<CallOutcome> {
  const core = getCore();
  let call = core.begin(planFor(tool, scope));
  if (call < 0) {
    // The plan went stale between lookup and start (the configuration changed): plan again.
    tool.plans.delete(scope);
    call = core.begin(planFor(tool, scope));
  }
  const signal = options.signal ?? NEVER_ABORTED;
  const base = {
    invocationId: genInvocationId(),
    tool: tool.publicTool,
    contract: snapshotOf(tool.contract),
    signal,
    metadata: {} as Record<string, unknown>,
    serverId: tool.server ?? settings.serverId,
    principal: options.principal,
    taint: new Set<string>(options.taint ?? []),
    assigns: options.assigns ?? {},
  };
  let input = rawInput;
  let output: unknown = undefined;
  let thrown: unknown = undefined;
  let toolThrew = false;
  let denyMessage: string | undefined;
  let denyCode: string | undefined;
  let failure: CallFailure | undefined;
  let pending: unknown = undefined;
  let pendingShape = 0;
  let ended = false;

  try {
    let action = core.step(call, Outcome.Start);
    for (;;) {
      if (action & ACCEPTED) {
        // The core accepted the shape the last hook returned: its value takes effect.
        const value = pending as Record<string, any>;
        if (pendingShape === Outcome.Input) input = value.input;
        else if (pendingShape === Outcome.Output) output = value.output;
        else if (pendingShape === Outcome.Halt || pendingShape === Outcome.Recover) output = value.result;
        else if (pendingShape === Outcome.Deny) {
          denyMessage = value.message;
          denyCode = value.code;
        }
      }
      pending = undefined;
      const op = action & 7;
      if (op === Op.CallHook) {
        const event = (action >>> 4) & 15;
        const hook = hookTable[action >>> 8];
        // Aborts are acted on before the steps that do work (before/after hooks); error and
        // denied hooks still run so observers see the abort.
        if ((event === 0 || event === 1) && signal.aborted) {
          action = core.step(call, Outcome.Aborted);
          continue;
        }
        if (hook === undefined) throw new WardenError('internal', 'the core named a hook this page does not hold');
        const ctx: Record<string, unknown> = { ...base, input };
        if (event === 1) ctx.output = output;
        else if (event === 2) ctx.error = toolThrew ? thrown : (failure ??= failureOf(core.callError(call)));
        else if (event === 3) {
          ctx.reason = denyMessage;
          ctx.code = denyCode;
        }
        const performed = perform(hook.run, [ctx], hook.timeout ?? settings.hookTimeout, signal);
        const [how, value] = Array.isArray(performed) ? performed : await performed;
        // What a failing hook threw is dropped here: it may quote arguments or results, so it is
        // never logged, never put in a message, never sent to telemetry (HK-1).
        let shape: number = endedOutcome[how] ?? Outcome.Raise;
        if (how === Ended.Value) {
          shape = shapeOf(value);
          pending = value;
          pendingShape = shape;
        }
        action = core.step(call, shape);
      } else if (op === Op.RunTool) {
        if (signal.aborted) {
          action = core.step(call, Outcome.Aborted);
          continue;
        }
        const performed = perform(tool.fn as AnyHook, [input, { signal }], undefined, signal);
        const [how, value] = Array.isArray(performed) ? performed : await performed;
        if (how === Ended.Value) {
          output = value;
          action = core.step(call, Outcome.ToolReturned);
        } else if (how === Ended.Aborted) {
          action = core.step(call, Outcome.Aborted);
        } else {
          toolThrew = true;
          thrown = value;
          action = core.step(call, Outcome.ToolThrew);
        }
      } else if (op === Op.Finish) {
        ended = true;
        if (action & 16) return { ok: true, result: normalizeResult(output) };
        return failed(core.end(call));
      } else {
        throw new WardenError('internal', `the core answered an unknown action ${action}`);
      }
    }
  } catch (err) {
    // Only a bug in this package lands here; the call still ends as data.
    return {
      ok: false,
      error: { kind: 'tool', reason: 'internal_error', message: errorMessage(err) },
      result: errorResult('Error: internal error in webmcp-warden'),
    };
  } finally {
    if (!ended) core.end(call);
  }

  function failed(errorJson: string | undefined): CallOutcome {
    const record = errorJson ? (JSON.parse(errorJson) as CoreCallError) : { kind: 'tool', reason: 'internal_error' };
    let result: CallToolResult;
    let message: string;
    if (record.text !== undefined) {
      result = errorResult(record.text);
      message = record.text.replace(/^(Error|Denied): /, '');
    } else if (record.kind === 'denied') {
      message = denyMessage ?? 'Tool execution denied';
      result = errorResult('Denied: ' + message);
    } else if (toolThrew) {
      result = normalizeError(thrown);
      message = errorMessage(thrown);
    } else {
      message = record.reason;
      result = errorResult('Error: ' + message);
    }
    const error: CallError = { kind: record.kind as CallError['kind'], reason: record.reason, message };
    if (record.hookId !== undefined) error.hookId = record.hookId;
    if (record.cause !== undefined) error.cause = record.cause as CallError['cause'];
    if (record.kind === 'denied' && denyCode !== undefined) error.code = denyCode;
    return { ok: false, error, result };
  }
}

/** The error record the core keeps for a failing call. */
interface CoreCallError {
  kind: string;
  reason: string;
  hookId?: string;
  cause?: string;
  text?: string;
}

function failureOf(errorJson: string | undefined): CallFailure {
  const record = errorJson ? (JSON.parse(errorJson) as CoreCallError) : { kind: 'tool', reason: 'internal_error' };
  const message = record.text?.replace(/^(Error|Denied): /, '') ?? record.reason;
  return new CallFailure(record.kind, record.reason, message, record.hookId);
}
