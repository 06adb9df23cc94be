// Telemetry: events for hooks, policy decisions and finished calls, and the instrumentation hook
// tracing needs (a call's start, in the caller's context). Subscribers and instrumentations are
// isolated: one that throws never fails a call. Nothing the agent chose (arguments, results,
// validation paths, a URI read) appears unless `capturePayloads: true`, and then capped and
// through the page's `redact` (payloads.ts); what a hook threw never appears.
import { ActionBits, StepReport, Verdict } from '../boundary/codes.js';
import { deepFrozenCopy } from '../util/frozen.js';

/** Fields every event carries. */
export interface TelemetryBase {
  /** The name of what was called: a tool's, a resource's `name`, a prompt's. */
  tool: string;
  /** The tool's server id. */
  serverId: string;
  /** The call's id. */
  invocationId: string;
}

/** A hook returned within its contract. */
export interface HookStopEvent extends TelemetryBase {
  name: 'hook.stop';
  hookId: string;
  event: string;
  status: 'cont' | 'rewrite' | 'deny' | 'halt' | 'recover';
  durationMs: number;
}

/** A hook threw, rejected, timed out or returned outside its contract. */
export interface HookExceptionEvent extends TelemetryBase {
  name: 'hook.exception';
  hookId: string;
  event: string;
  cause: 'raise' | 'timeout' | 'bad_return';
  durationMs: number;
}

/** A policy decision. */
export interface PolicyDecisionEvent extends TelemetryBase {
  name: 'policy.decision';
  effect: 'allow' | 'ask' | 'deny';
  reason: string;
  rule?: { list: string; index: number; id?: string; label?: string };
}

/**
 * A limit of the policy decided (denied or asked about) a call: the decision's fields, and
 * `limit`, the bound passed (`decision.limit`). Emitted after its `policy.decision`.
 */
export interface LimitExceededEvent extends TelemetryBase {
  name: 'limit.exceeded';
  effect: 'ask' | 'deny';
  reason: 'limit';
  rule: { list: 'limits'; index: number; id?: string };
  limit: { kind: string; per: string; used: number; max: number };
}

/** One step of a call's decision record. */
export type DecisionStep =
  | {
      step: 'hook';
      event: string;
      hookId: string;
      /** `'removed'`: the hook's set was dropped while the call was in flight. */
      outcome: HookStopEvent['status'] | HookExceptionEvent['cause'] | 'removed';
      durationMs: number;
      /** The hook failed and the call went on without it (`onError: 'ignore'`, an error or denied hook). */
      skipped?: true;
    }
  /**
   * Diagnostics carry the schema `keyword`; their `path` (which names the caller's keys) and
   * `message` (which may quote values) only with `capturePayloads`, except the message of a
   * schema that is not valid JSON Schema (`keyword: 'schema'`, the page's own).
   */
  | { step: 'validation'; target: 'input' | 'output'; ok: boolean; diagnostics?: { path?: string; keyword: string; message?: string }[] }
  | { step: 'policy'; decision: unknown }
  /** `scope: 'arguments'`: a grant the approver recorded covers exactly these arguments. */
  | { step: 'approval'; outcome: string; durationMs?: number; scope?: 'arguments' }
  | { step: 'tool' | 'read' | 'get'; outcome: 'returned' | 'threw' | 'aborted'; durationMs: number }
  | { step: 'aborted' }
  | { step: 'shape'; flags: string[]; truncated: boolean };

/** A call finished. */
export interface ToolCallStopEvent extends TelemetryBase {
  name: 'tool_call.stop';
  status: 'ok' | 'error';
  errorKind?: string;
  errorReason?: string;
  durationMs: number;
  /** Every step taken, in order, so a developer can see why the call ended as it did. */
  record: DecisionStep[];
  /**
   * The arguments as the tool received them (after before-hook rewrites and validation; the
   * call's final arguments when the tool did not run), as JSON data, after `redact` (only with
   * `capturePayloads: true`). A payload whose JSON passes 16 384 characters, or has none, is a
   * notice string instead.
   */
  arguments?: unknown;
  /** What the caller received, recorded as `arguments` is (only with `capturePayloads: true`). */
  result?: unknown;
}

/** A resource read finished (its `resourceRead` hooks, policy, the read, shaping). */
export interface ResourceReadStopEvent extends Omit<ToolCallStopEvent, 'name'> {
  name: 'resource_read.stop';
  /** The URI read (only with `capturePayloads: true`: its template variables are the agent's). */
  uri?: string;
}

/** A prompt get finished (its `promptGet` hooks, validation of its arguments, policy, the get, shaping). */
export interface PromptGetStopEvent extends Omit<ToolCallStopEvent, 'name'> {
  name: 'prompt_get.stop';
}

/** The page suspended its agents (`suspendAgents(reason)`): every call, read and get is denied with `reason`. */
export interface AgentsSuspendedEvent {
  name: 'agents.suspended';
  /** What denied calls read (`Denied: <reason>`). */
  reason: string;
}

/** The page resumed its agents (`resumeAgents()`). */
export interface AgentsResumedEvent {
  name: 'agents.resumed';
}

/** Any telemetry event. Events of one call carry `tool`, `serverId` and `invocationId`; the agents events are the page's. */
export type TelemetryEvent = HookStopEvent | HookExceptionEvent | PolicyDecisionEvent | LimitExceededEvent | ToolCallStopEvent | ResourceReadStopEvent | PromptGetStopEvent | AgentsSuspendedEvent | AgentsResumedEvent;

/** A telemetry subscriber. */
export type TelemetryHandler = (event: TelemetryEvent) => void;

/** The parts of a governed call an instrumentation can wrap: the whole call, the approval wait, the tool run. */
export type TracedStep = 'call' | 'approval' | 'tool';

/** What an instrumentation is told when a governed call starts. */
export type CallStart = TelemetryBase;

/**
 * A call's payloads as an instrumentation may record them, offered once as the call ends (before
 * its `tool_call.stop`): `read(where, redact)` answers the arguments the tool received (the
 * call's final arguments when it did not run) or the result the caller receives, as JSON text
 * after `redact` and at most the payload cap, or a notice saying why it was left out;
 * `undefined` when `redact` answered `undefined`.
 */
export type PayloadReader = (where: 'arguments' | 'result', redact?: (value: unknown, where: 'arguments' | 'result') => unknown) => { json: string } | { notice: string } | undefined;

/**
 * One call as an instrumentation follows it. `step` runs `run` as one part of the call and
 * answers what `run` returned; it calls `run` exactly once and synchronously, so an
 * instrumentation can make its own context active around it (a tracer's span, so spans the tool
 * makes become its children).
 */
export interface CallTrace {
  /** Runs `run` (once, synchronously) as part `step` of the call; answers what it returned. */
  step<T>(step: TracedStep, run: () => T): T;
  /** Offered the call's payloads once, as the call ends (an instrumentation that captures reads them). */
  payloads?(read: PayloadReader): void;
}

/**
 * An instrumentation of a client's governed calls (internal: `webmcp-warden/otel` is its user).
 * Telemetry events say what happened once a step is over; tracing also needs the moment a call
 * starts, in the caller's execution context (the span active when the agent path was entered is
 * the call's parent), and a way to run the approval wait and the tool inside a context of its
 * own. `callStarted` is called synchronously from the agent path (`tool.invoke`, `invokeTool`,
 * the browser's `execute`), before the call's first `await`, for calls that send telemetry.
 */
export interface CallInstrumentation {
  /** A call starts; answers how to follow it, or `undefined` to leave it alone. */
  callStarted(call: CallStart): CallTrace | undefined;
}

/**
 * One client's telemetry subscribers. Subscribers are isolated: one that throws (or whose promise
 * rejects) is skipped, never the call; each gets one deeply frozen copy of an event, so none can
 * change what the caller received or what the next subscriber sees.
 */
export class TelemetryBus {
  readonly #handlers = new Set<TelemetryHandler>();
  #configured: TelemetryHandler | undefined;
  /**
   * How calls that send telemetry are followed: set by {@link instrument} when the first
   * instrumentation is added (so a page without one never loads that code), called
   * synchronously from the agent path when a call starts.
   */
  follow: Follower | undefined = undefined;

  /** Whether anyone listens; calls build their decision record only then. */
  active(): boolean {
    return this.#handlers.size > 0 || this.#configured !== undefined;
  }

  /** Subscribes; answers the unsubscribe function. */
  subscribe(handler: TelemetryHandler): () => void {
    if (typeof handler !== 'function') throw new TypeError('onTelemetry expects a function');
    const own = (event: TelemetryEvent) => handler(event);
    this.#handlers.add(own);
    return () => {
      this.#handlers.delete(own);
    };
  }

  /** Sets the handler given to `configureWebMCP({ telemetry })` (undefined removes it). */
  setConfigured(handler: TelemetryHandler | undefined): void {
    this.#configured = handler;
  }

  /** Removes every subscriber and instrumentation. */
  reset(): void {
    this.#handlers.clear();
    this.#configured = undefined;
    this.follow = undefined;
  }

  /** Sends an event to every subscriber. */
  emit(event: TelemetryEvent): void {
    if (!this.active()) return;
    const frozen = deepFrozenCopy(event) as TelemetryEvent;
    if (this.#configured !== undefined) deliver(this.#configured, frozen);
    for (const handler of this.#handlers) deliver(handler, frozen);
  }
}

/** What a hook's verdict reads as in `hook.stop` (`Verdict` of codes.ts, by number). */
const STOP_STATUS = ['cont', 'cont', 'rewrite', 'deny', 'halt', 'recover'] as const;

/**
 * Emits what a performed hook came to, as the core judged it (the verdict in `action`):
 * `hook.exception` for a failure (its cause read from `outcome`), `hook.stop` for a hook that
 * returned within its contract; nothing for a verdict of none. For a call's hooks and a
 * listing's alike.
 */
export function emitHookEvent(bus: TelemetryBus, base: Omit<HookStopEvent, 'name' | 'status'>, outcome: number, action: number): void {
  const verdict = (action >>> ActionBits.VerdictShift) & 7;
  if (verdict === Verdict.Failed) {
    const cause = outcome === StepReport.Raised ? 'raise' : outcome === StepReport.TimedOut ? 'timeout' : 'bad_return';
    bus.emit({ name: 'hook.exception', ...base, cause });
  } else if (verdict !== Verdict.None) {
    bus.emit({ name: 'hook.stop', ...base, status: STOP_STATUS[verdict] ?? 'cont' });
  }
}

function deliver(handler: TelemetryHandler, event: TelemetryEvent): void {
  try {
    const returned: unknown = handler(event);
    // An async subscriber's rejection would otherwise be an unhandled rejection.
    if (returned !== null && typeof returned === 'object' && typeof (returned as { then?: unknown }).then === 'function') {
      Promise.resolve(returned).catch(ignore);
    }
  } catch {
    // Isolated on purpose: telemetry must never change a call's outcome, and what the
    // handler threw may quote the event (payloads), so it is not logged either.
  }
}

function ignore(): void {}

/** A bus's {@link TelemetryBus.follow}: asks each of its instrumentations how to follow a call. */
type Follower = ((call: CallStart) => CallTrace | undefined) & { readonly instruments: Set<CallInstrumentation> };

/**
 * Adds an instrumentation to `bus`; answers the function that removes it. An instrumentation is
 * told about calls that send telemetry, so it should subscribe too (it reads the events).
 * `reset()` removes every instrumentation (it drops the bus's follower).
 */
export function instrument(bus: TelemetryBus, instrumentation: CallInstrumentation): () => void {
  const own = { callStarted: (call: CallStart) => instrumentation.callStarted(call) };
  const follower = (bus.follow ??= makeFollower());
  follower.instruments.add(own);
  return () => {
    follower.instruments.delete(own);
  };
}

/**
 * A follower over a set of instrumentations. When a call starts it asks each one how to follow
 * it. Isolated like subscribers: an instrumentation that throws is left out of this call, and
 * one whose `step` throws still has the step run, exactly once.
 */
function makeFollower(): Follower {
  const instruments = new Set<CallInstrumentation>();
  const follow = (call: CallStart): CallTrace | undefined => {
    const traces: CallTrace[] = [];
    for (const instrumentation of instruments) {
      try {
        const trace = instrumentation.callStarted(call);
        if (trace !== undefined && trace !== null && typeof trace.step === 'function') traces.push(trace);
      } catch {
        // isolated: the call goes on without this instrumentation
      }
    }
    if (traces.length === 0) return undefined;
    return {
      step: (step, run) => traces.reduce((inner, trace) => () => guardedStep(trace, step, inner), run)(),
      payloads: (read) => {
        for (const trace of traces) {
          try {
            trace.payloads?.(read);
          } catch {
            // isolated: what the instrumentation threw is not the call's
          }
        }
      },
    };
  };
  return Object.assign(follow, { instruments });
}

/** Runs `run` through `trace.step`, exactly once whatever the instrumentation does or throws. */
function guardedStep<T>(trace: CallTrace, step: TracedStep, run: () => T): T {
  let ran = false;
  let threw = false;
  let value: T | undefined;
  let error: unknown;
  const once = (): T => {
    if (!ran) {
      ran = true;
      try {
        value = run();
      } catch (err) {
        threw = true;
        error = err;
      }
    }
    if (threw) throw error;
    return value as T;
  };
  try {
    trace.step(step, once);
  } catch {
    // isolated: what the instrumentation threw is not the call's
  }
  if (!ran) return run();
  if (threw) throw error;
  return value as T;
}

