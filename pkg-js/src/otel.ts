// `webmcp-warden/otel`: every governed call as an OpenTelemetry span, following the GenAI
// semantic conventions' `execute_tool` span (pinned: GEN_AI_SEMCONV_VERSION below), with the
// decision record as our own `webmcp_warden.*` attributes, span events and child spans.
//
// A separate entry point on purpose: the main entry never imports this file, so a page that
// does not trace pays nothing, and `@opentelemetry/api` stays an optional peer dependency.
//
// How a call becomes a span: the client tells the instrumentation when a call starts,
// synchronously on the agent path (`CallInstrumentation` in telemetry.ts), which is when the
// caller's span is the active one, so that span becomes the parent; the call, the approval wait
// and the tool then run with our spans active (a tool's own spans nest under its run). Everything
// else comes from the ordinary telemetry events, whose `tool_call.stop` decision record fills in
// the attributes and ends the spans.
//
// Why hooks and the policy decision are span events while the approval wait and the tool run
// are child spans: trace UIs (Jaeger, Tempo, Honeycomb, Datadog…) draw child spans as bars in the
// waterfall, which is where a reader looks for time, and draw span events as marks on the
// parent's bar with their attributes in a side panel. Hooks and policy take microseconds, and a
// call can run many hooks: as spans they would bury the two parts that do take time (a person
// deciding, the tool working) under bars too thin to see, and cost a span each on every call.
import { context, trace, SpanKind, SpanStatusCode, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { getDefaultWarden, internalOf, type WardenClient } from './api/api.js';
import { instrument, type CallStart, type CallTrace, type DecisionStep, type PayloadReader, type TelemetryEvent, type ToolCallStopEvent, type TracedStep } from './client/telemetry.js';
import type { CallOutcome } from './types/types.js';

/**
 * The OpenTelemetry semantic conventions release whose GenAI `execute_tool` span the spans
 * follow (span name, kind and `gen_ai.*` / `error.type` attribute names). The GenAI conventions
 * are at status Development, so names may change in later releases; this is the one we emit.
 */
export const GEN_AI_SEMCONV_VERSION = '1.41.0';

/** The schema URL of {@link GEN_AI_SEMCONV_VERSION}, given to the default tracer. */
export const SEMCONV_SCHEMA_URL = `https://opentelemetry.io/schemas/${GEN_AI_SEMCONV_VERSION}`;

/** The name of the child span for an approval wait (an `ask` settled by the approver or a person). */
export const APPROVAL_SPAN_NAME = 'webmcp_warden.approval';

/** The name of the child span for the tool's own run (the page's function). */
export const TOOL_RUN_SPAN_NAME = 'webmcp_warden.tool_run';

/** Options of {@link instrumentWebMCP}. */
export interface InstrumentWebMCPOptions {
  /**
   * The tracer spans are made with; default the global tracer provider's tracer
   * `'webmcp-warden'` (with the conventions' schema URL).
   */
  tracer?: Tracer;
  /**
   * Record the arguments the tool received (`gen_ai.tool.call.arguments`: after before-hook
   * rewrites and validation, or the call's final arguments when the tool did not run) and, for
   * a call that succeeded, the result the caller received (`gen_ai.tool.call.result`), as JSON
   * text of at most 16 384 characters (a longer payload, or one JSON cannot say, is recorded as
   * a notice). Off by default: both may hold personal data. Independent of the client's own
   * `capturePayloads` (which governs `onTelemetry` events). What a hook or a tool threw is
   * never recorded.
   */
  capturePayloads?: boolean;
  /**
   * What captured payloads go through first: `redact(value, where)` gets a copy of the arguments
   * (`where: 'arguments'`) or the result (`'result'`) and answers what to record (`undefined`:
   * nothing). Synchronous; a throw records a notice. Independent of the client's `redact`.
   */
  redact?: (value: unknown, where: 'arguments' | 'result') => unknown;
  /** The client whose calls are traced (from `createWarden()`); default the page's default client. */
  client?: WardenClient;
}

const OPTION_KEYS = new Set(['tracer', 'capturePayloads', 'redact', 'client']);

/** One call being traced. */
interface Followed {
  readonly invocationId: string;
  readonly span: Span;
  /** The parent context with our span set: the call runs in it. */
  readonly ctx: Context;
  /** When each hook of the call started, as the live hook events told (matched to the record). */
  readonly hooks: { event: string; hookId: string; at: number }[];
  decidedAt?: number;
  approval?: Child;
  run?: Child;
  /** Reads the call's payloads (offered as the call ends), when payloads are captured. */
  read?: PayloadReader;
  /** When `tool_call.stop` arrived; the span ends then. */
  stoppedAt?: number;
  settled: boolean;
  closed: boolean;
}

interface Child {
  readonly span: Span;
  endedAt?: number;
}

/**
 * Traces every governed call of a client as an OpenTelemetry span named
 * `execute_tool <tool name>` (kind `INTERNAL`), following the GenAI semantic conventions
 * ({@link GEN_AI_SEMCONV_VERSION}). The span's parent is the span active when the agent path was
 * entered (`tool.invoke()`, `invokeTool()`, the browser's `execute`), so an in-page agent's own
 * span wraps the tool's. An approval wait and the tool's run are child spans; hooks, the policy
 * decision and an abort are span events; the decision, the outcome, validation failure counts
 * and shaping are `webmcp_warden.*` attributes (listed in the repository's docs/otel.md).
 *
 * Calls that started before this, listings (`toolsListed` hooks) and calls rejected for invalid
 * call options make no span. `resetWebMCP()` / `client.reset()` remove the instrumentation, as
 * they remove telemetry subscribers.
 *
 * @returns A function that stops tracing (calls in flight still end their spans).
 */
export function instrumentWebMCP(options: InstrumentWebMCPOptions = {}): () => void {
  if (options === null || typeof options !== 'object') throw new TypeError('instrumentWebMCP expects an options object');
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new TypeError(`instrumentWebMCP: unknown option "${key}" (expected tracer, capturePayloads, redact, client)`);
  }
  const { tracer: given, capturePayloads, redact, client } = options;
  if (given !== undefined && (given === null || typeof (given as Partial<Tracer>).startSpan !== 'function')) {
    throw new TypeError('instrumentWebMCP: tracer must be an OpenTelemetry Tracer');
  }
  if (capturePayloads !== undefined && typeof capturePayloads !== 'boolean') throw new TypeError('instrumentWebMCP: capturePayloads must be a boolean');
  if (redact !== undefined && typeof redact !== 'function') throw new TypeError('instrumentWebMCP: redact must be a function');
  const w = internalOf(client ?? getDefaultWarden());
  if (w === undefined) throw new TypeError('instrumentWebMCP: client must be a client made by createWarden()');
  // The global provider is a proxy: a provider registered after this call still gets the spans.
  const tracer = given ?? trace.getTracerProvider().getTracer('webmcp-warden', undefined, { schemaUrl: SEMCONV_SCHEMA_URL });
  const capture = capturePayloads === true;
  const calls = new Map<string, Followed>();

  const callStarted = (call: CallStart): CallTrace => {
    const startedAt = now();
    const parent = context.active();
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.tool,
      'gen_ai.tool.call.id': call.invocationId,
      // "function": the agent fills in the parameters of a predefined function that the client
      // side (here, the page) executes, which is what a WebMCP tool is.
      'gen_ai.tool.type': 'function',
      'webmcp_warden.server.id': call.serverId,
    };
    const span = tracer.startSpan(`execute_tool ${call.tool}`, { kind: SpanKind.INTERNAL, startTime: startedAt, attributes }, parent);
    const followed: Followed = { invocationId: call.invocationId, span, ctx: trace.setSpan(parent, span), hooks: [], settled: false, closed: false };
    calls.set(call.invocationId, followed);
    return {
      step: (step, run) => runStep(followed, step, run),
      payloads: (read) => {
        if (capture) followed.read = read;
      },
    };
  };

  function runStep<T>(followed: Followed, step: TracedStep, run: () => T): T {
    if (step === 'call') {
      const result = context.with(followed.ctx, run);
      whenSettled(result, (value) => {
        followed.settled = true;
        const outcome = value as CallOutcome | undefined;
        const read = followed.read;
        if (read !== undefined) {
          isolated(() => {
            const args = textOf(read('arguments', redact));
            if (args !== undefined) followed.span.setAttribute('gen_ai.tool.call.arguments', args);
            // The conventions record a result only for an execution that succeeded.
            const result = outcome?.ok === true ? textOf(read('result', redact)) : undefined;
            if (result !== undefined) followed.span.setAttribute('gen_ai.tool.call.result', result);
          });
        }
        if (followed.stoppedAt === undefined) isolated(() => outcomeFromResult(followed.span, outcome));
        close(followed);
      });
      return result;
    }
    const name = step === 'approval' ? APPROVAL_SPAN_NAME : TOOL_RUN_SPAN_NAME;
    const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: now() }, followed.ctx);
    const child: Child = { span };
    if (step === 'approval') followed.approval = child;
    else followed.run = child;
    const result = context.with(trace.setSpan(followed.ctx, span), run);
    whenSettled(result, () => {
      child.endedAt ??= now();
    });
    return result;
  }

  function onEvent(event: TelemetryEvent): void {
    const followed = 'invocationId' in event ? calls.get(event.invocationId) : undefined;
    if (followed === undefined || followed.closed) return;
    const at = now();
    switch (event.name) {
      case 'hook.stop':
      case 'hook.exception':
        followed.hooks.push({ event: event.event, hookId: event.hookId, at: at - event.durationMs });
        return;
      case 'policy.decision':
        followed.decidedAt = at;
        return;
      case 'tool_call.stop':
        followed.stoppedAt = at;
        isolated(() => applyStop(followed, event, at));
        if (followed.settled) close(followed);
        return;
    }
  }

  function close(followed: Followed): void {
    if (followed.closed) return;
    followed.closed = true;
    calls.delete(followed.invocationId);
    const end = followed.stoppedAt ?? now();
    // Each span ends on its own: a tracer that throws for one must not leave the others open.
    for (const child of [followed.approval, followed.run]) {
      if (child !== undefined) isolated(() => child.span.end(child.endedAt ?? end));
    }
    isolated(() => followed.span.end(end));
  }

  const unsubscribe = w.telemetry.subscribe(onEvent);
  const uninstrument = instrument(w.telemetry, { callStarted });
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    uninstrument();
    unsubscribe();
  };
}

/** What `tool_call.stop` says, written onto the span, its events and its children. */
function applyStop(followed: Followed, event: ToolCallStopEvent, stoppedAt: number): void {
  const { span } = followed;
  const attributes: Attributes = {};
  setOutcome(span, attributes, event.status === 'ok' ? undefined : { kind: event.errorKind ?? '_OTHER', reason: event.errorReason });
  for (const step of event.record) {
    switch (step.step) {
      case 'hook': {
        const hook: Attributes = {
          'webmcp_warden.hook.id': step.hookId,
          'webmcp_warden.hook.event': step.event,
          'webmcp_warden.hook.outcome': step.outcome,
          'webmcp_warden.hook.duration_ms': step.durationMs,
        };
        if (step.skipped) hook['webmcp_warden.hook.skipped'] = true;
        span.addEvent('webmcp_warden.hook', hook, takeHookStart(followed, step) ?? stoppedAt);
        break;
      }
      case 'validation': {
        const prefix = `webmcp_warden.validation.${step.target}`;
        attributes[`${prefix}.ok`] = step.ok;
        if (!step.ok) {
          // Counts and schema keywords only: paths may name the caller's keys, messages may quote values.
          const diagnostics = step.diagnostics ?? [];
          attributes[`${prefix}.failures`] = diagnostics.length;
          attributes[`${prefix}.keywords`] = [...new Set(diagnostics.map((d) => d.keyword))];
        }
        break;
      }
      case 'policy': {
        const decision = decisionAttributes(step.decision);
        Object.assign(attributes, decision);
        const explanation = (step.decision as { explanation?: unknown } | null)?.explanation;
        const marked: Attributes = { ...decision };
        if (typeof explanation === 'string') marked['webmcp_warden.decision.explanation'] = explanation;
        span.addEvent('webmcp_warden.policy.decision', marked, followed.decidedAt ?? stoppedAt);
        break;
      }
      case 'approval': {
        attributes['webmcp_warden.approval.outcome'] = step.outcome;
        const child = followed.approval?.span;
        if (child !== undefined) {
          child.setAttribute('webmcp_warden.approval.outcome', step.outcome);
          // A person or approver who says no answered; one that timed out, failed or was
          // aborted did not, and that is the approval step's error.
          if (step.outcome === 'timeout' || step.outcome === 'failed' || step.outcome === 'aborted') {
            child.setAttribute('error.type', step.outcome);
            child.setStatus({ code: SpanStatusCode.ERROR, message: step.outcome });
          }
        }
        break;
      }
      case 'tool': {
        attributes['webmcp_warden.tool.outcome'] = step.outcome;
        const child = followed.run?.span;
        if (child !== undefined) {
          child.setAttribute('webmcp_warden.tool.outcome', step.outcome);
          if (step.outcome !== 'returned') {
            child.setAttribute('error.type', step.outcome);
            child.setStatus({ code: SpanStatusCode.ERROR, message: step.outcome });
          }
        }
        break;
      }
      case 'aborted':
        span.addEvent('webmcp_warden.aborted', undefined, stoppedAt);
        break;
      case 'shape':
        attributes['webmcp_warden.shape.flags'] = [...step.flags];
        attributes['webmcp_warden.shape.truncated'] = step.truncated;
        break;
    }
  }
  span.setAttributes(attributes);
}

/** The outcome attributes and, for a failure, `error.type` and the span's error status. */
function setOutcome(span: Span, attributes: Attributes, failure: { kind: string; reason: string | undefined } | undefined): void {
  if (failure === undefined) {
    // Left UNSET, not OK: the conventions' "Recording Errors" asks instrumentations not to set OK.
    attributes['webmcp_warden.outcome.kind'] = 'ok';
    return;
  }
  attributes['webmcp_warden.outcome.kind'] = failure.kind;
  if (failure.reason !== undefined) attributes['webmcp_warden.outcome.reason'] = failure.reason;
  attributes['error.type'] = failure.kind;
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.reason ?? failure.kind });
}

/** The outcome of a call whose `tool_call.stop` never reached us (tracing stopped mid-call). */
function outcomeFromResult(span: Span, outcome: CallOutcome | undefined): void {
  const attributes: Attributes = {};
  setOutcome(span, attributes, outcome === undefined || outcome.ok ? undefined : { kind: outcome.error.kind, reason: outcome.error.reason });
  span.setAttributes(attributes);
}

function decisionAttributes(decision: unknown): Attributes {
  const attributes: Attributes = {};
  if (decision === null || typeof decision !== 'object') return attributes;
  const { effect, reason, rule } = decision as { effect?: unknown; reason?: unknown; rule?: { list?: unknown; index?: unknown; id?: unknown } };
  if (typeof effect === 'string') attributes['webmcp_warden.decision.effect'] = effect;
  if (typeof reason === 'string') attributes['webmcp_warden.decision.reason'] = reason;
  if (rule !== undefined && rule !== null) {
    if (typeof rule.list === 'string') attributes['webmcp_warden.decision.rule.list'] = rule.list;
    if (typeof rule.index === 'number') attributes['webmcp_warden.decision.rule.index'] = rule.index;
    if (typeof rule.id === 'string') attributes['webmcp_warden.decision.rule.id'] = rule.id;
  }
  return attributes;
}

/** When the record's hook step started, from the live hook event it matches (first unused one). */
function takeHookStart(followed: Followed, step: Extract<DecisionStep, { step: 'hook' }>): number | undefined {
  const index = followed.hooks.findIndex((h) => h.event === step.event && h.hookId === step.hookId);
  if (index < 0) return undefined;
  const [found] = followed.hooks.splice(index, 1);
  return found?.at;
}

/**
 * Calls `then` once `value` settles (at once for a plain value). What `then` throws (a tracer's
 * bug) is swallowed: it runs outside the call, where it would be an unhandled rejection.
 */
function whenSettled(value: unknown, then: (value: unknown) => void): void {
  if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function') {
    (value as PromiseLike<unknown>).then(
      (settled) => isolated(() => then(settled)),
      () => isolated(() => then(undefined)),
    );
  } else {
    then(value);
  }
}

/** Runs `fn`, swallowing what it throws: tracing never fails a call or leaks an error. */
function isolated(fn: () => void): void {
  try {
    fn();
  } catch {
    // a tracer's own failure; the call and the other spans go on
  }
}

/** A recorded payload as a span attribute: its JSON text, or the notice that stands for it. */
function textOf(recorded: ReturnType<PayloadReader>): string | undefined {
  return recorded === undefined ? undefined : 'json' in recorded ? recorded.json : recorded.notice;
}

/**
 * Epoch milliseconds with the page's monotonic precision. Every time we give a span is explicit
 * and from this clock, so starts, ends and events line up whatever the SDK's own clock does.
 */
function now(): number {
  return performance.timeOrigin + performance.now();
}
