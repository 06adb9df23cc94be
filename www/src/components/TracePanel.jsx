import { useSyncExternalStore } from 'react';
import { clearTraces, setTracing, traceStore } from '../tracing.js';

/** The attributes worth a glance; the full span is in the console. */
const SHOWN = ['webmcp_warden.decision.effect', 'webmcp_warden.decision.rule.id', 'webmcp_warden.outcome.kind', 'webmcp_warden.outcome.reason', 'error.type'];

function SpanLine({ span, child }) {
  return (
    <div className={`span-line${child ? ' span-child' : ''}`} data-testid={child ? 'trace-child' : 'trace-span'} data-name={span.name} data-error={span.error ?? ''}>
      <code>{span.name}</code>
      <span className="muted"> {span.durationMs.toFixed(1)} ms</span>
      {span.error && <span className="span-error"> ERROR {span.error}</span>}
    </div>
  );
}

function Call({ call }) {
  const shown = SHOWN.filter((key) => call.attributes[key] !== undefined);
  return (
    <li className="trace-call">
      <SpanLine span={call} />
      {call.children.map((child) => (
        <SpanLine key={child.id} span={child} child />
      ))}
      <div className="span-attrs">
        {shown.map((key) => (
          <span key={key} className="chip">
            {key.replace('webmcp_warden.', '')}={String(call.attributes[key])}
          </span>
        ))}
        {call.events.map((e, i) => (
          <span key={i} className="chip chip-event" title={JSON.stringify(e.attributes)}>
            ● {e.name.replace('webmcp_warden.', '')}
            {e.attributes['webmcp_warden.hook.id'] ? ` ${e.attributes['webmcp_warden.hook.id']}` : ''}
          </span>
        ))}
      </div>
    </li>
  );
}

export function TracePanel() {
  const { enabled, loading, calls } = useSyncExternalStore(traceStore.subscribe, traceStore.get);
  return (
    <section className="panel" aria-labelledby="trace-title">
      <div className="panel-head">
        <h2 id="trace-title">Trace (OpenTelemetry)</h2>
        <label className="muted trace-toggle">
          <input type="checkbox" data-testid="trace-toggle" checked={enabled} disabled={loading} onChange={(e) => void setTracing(e.target.checked)} /> record spans
        </label>
      </div>
      <p className="hint">
        With <code>webmcp-warden/otel</code> each agent call is an <code>execute_tool</code> span; the approval wait and the tool run are child spans,
        hooks and the decision span events. Loaded only when turned on; every span is also logged to the console.
      </p>
      {calls.length > 0 && (
        <>
          <ol className="trace" data-testid="trace-list">
            {calls.map((call) => (
              <Call key={call.id} call={call} />
            ))}
          </ol>
          <button type="button" className="btn-link" onClick={clearTraces}>
            clear
          </button>
        </>
      )}
    </section>
  );
}
