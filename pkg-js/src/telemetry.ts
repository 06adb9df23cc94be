// Telemetry (SPEC §9): events for hooks, policy decisions and finished calls. Subscribers are
// isolated: one that throws never fails a call. Arguments and results appear only with
// `capturePayloads: true`; what a hook threw never appears.

/** Fields every event carries. */
export interface TelemetryBase {
  /** The tool's name. */
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
  rule?: { list: string; index: number; id?: string };
}

/** One step of a call's decision record. */
export type DecisionStep =
  | { step: 'hook'; event: string; hookId: string; outcome: HookStopEvent['status'] | HookExceptionEvent['cause'] | 'skipped'; durationMs: number }
  | { step: 'validation'; target: 'input' | 'output'; ok: boolean; diagnostics?: unknown[] }
  | { step: 'policy'; decision: unknown }
  | { step: 'approval'; outcome: string; durationMs?: number }
  | { step: 'tool'; outcome: 'returned' | 'threw' | 'aborted'; durationMs: number }
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
  /** The arguments the call started with (only with `capturePayloads: true`). */
  arguments?: unknown;
  /** What the caller received (only with `capturePayloads: true`). */
  result?: unknown;
}

/** Any telemetry event. */
export type TelemetryEvent = HookStopEvent | HookExceptionEvent | PolicyDecisionEvent | ToolCallStopEvent;

/** A telemetry subscriber. */
export type TelemetryHandler = (event: TelemetryEvent) => void;

const handlers = new Set<TelemetryHandler>();
let configured: TelemetryHandler | undefined;

/** Whether anyone listens; the pipeline builds records only then. */
export function telemetryActive(): boolean {
  return handlers.size > 0 || configured !== undefined;
}

/** Subscribes to telemetry events; returns the unsubscribe function. */
export function onTelemetry(handler: TelemetryHandler): () => void {
  if (typeof handler !== 'function') throw new TypeError('onTelemetry expects a function');
  const own = (event: TelemetryEvent) => handler(event);
  handlers.add(own);
  return () => {
    handlers.delete(own);
  };
}

/** Sets the handler given to `configureWebMCP({ telemetry })` (undefined removes it). */
export function setConfiguredTelemetry(handler: TelemetryHandler | undefined): void {
  configured = handler;
}

/** Removes every subscriber (for `resetWebMCP`). */
export function resetTelemetry(): void {
  handlers.clear();
  configured = undefined;
}

/** Sends an event to every subscriber; a subscriber that throws is skipped, never the call. */
export function emit(event: TelemetryEvent): void {
  if (configured !== undefined) deliver(configured, event);
  for (const handler of handlers) deliver(handler, event);
}

function deliver(handler: TelemetryHandler, event: TelemetryEvent): void {
  try {
    handler(event);
  } catch {
    // Isolated on purpose: telemetry must never change a call's outcome, and what the
    // handler threw may quote the event (payloads), so it is not logged either.
  }
}
