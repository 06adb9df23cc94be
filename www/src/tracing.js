// Optional OpenTelemetry tracing of the agent calls (`webmcp-warden/otel`), for a reader who wants
// to see what a trace of this page would hold. Off until the panel's toggle turns it on; then the
// entry and the SDK are loaded on demand (dynamic import), so the shop's own bundle carries no
// OpenTelemetry code, as a page that never traces would not. The spans go to an in-page exporter
// (the trace panel) and to the browser console; a real page would export them to its backend.
import { createStore } from './warden.js';

/** `enabled`: the reader's choice (the toggle shows it at once); `loading`: the modules are on their way. */
export const traceStore = createStore({ enabled: false, loading: false, calls: [] });

let stop;
let generation = 0;
/** Child spans that ended before their `execute_tool` span did, by parent span id. */
const waiting = new Map();

const ms = (hrTime) => hrTime[0] * 1000 + hrTime[1] / 1e6;

/** What the panel shows of one finished span. */
function summarize(span) {
  return {
    id: span.spanContext().spanId,
    parent: span.parentSpanContext?.spanId,
    name: span.name,
    durationMs: ms(span.duration),
    // SpanStatusCode: 0 UNSET, 1 OK, 2 ERROR.
    error: span.status.code === 2 ? span.status.message ?? 'error' : undefined,
    attributes: { ...span.attributes },
    events: span.events.map((e) => ({ name: e.name, attributes: { ...e.attributes } })),
  };
}

function received(span) {
  const summary = summarize(span);
  if (!summary.name.startsWith('execute_tool ')) {
    waiting.set(summary.parent, [...(waiting.get(summary.parent) ?? []), summary]);
    return;
  }
  const call = { ...summary, children: waiting.get(summary.id) ?? [] };
  waiting.delete(summary.id);
  console.log(`[otel] ${call.name}`, call);
  traceStore.set((state) => ({ ...state, calls: [call, ...state.calls].slice(0, 20) }));
}

/** Turns tracing on or off (the panel's toggle). */
export async function setTracing(on) {
  const mine = ++generation;
  stop?.();
  stop = undefined;
  if (!on) {
    traceStore.set((state) => ({ ...state, enabled: false, loading: false }));
    return;
  }
  traceStore.set((state) => ({ ...state, enabled: true, loading: true }));
  const [{ instrumentWebMCP }, { BasicTracerProvider, SimpleSpanProcessor }] = await Promise.all([import('webmcp-warden/otel'), import('@opentelemetry/sdk-trace-base')]);
  if (mine !== generation) return; // toggled again while loading
  // ExportResultCode.SUCCESS is 0.
  const exporter = { export: (spans, done) => (spans.forEach(received), done({ code: 0 })), shutdown: async () => {} };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const uninstrument = instrumentWebMCP({ tracer: provider.getTracer('kettle-demo') });
  stop = () => {
    uninstrument();
    void provider.shutdown();
  };
  traceStore.set((state) => ({ ...state, enabled: true, loading: false }));
}

export function clearTraces() {
  traceStore.set((state) => ({ ...state, calls: [] }));
}

import.meta.hot?.dispose(() => stop?.());
