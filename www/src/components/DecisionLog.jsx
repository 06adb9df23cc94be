import { useSyncExternalStore } from 'react';
import { clearLog, logStore } from '../warden.js';

const APPROVAL = {
  allow_once: 'approved once',
  allow_always: 'approved always',
  deny: 'denied by you',
  deny_halt: 'denied, agent halted',
  timeout: 'no answer (timed out)',
  aborted: 'call aborted',
  failed: 'approver failed',
};

const HOOK_MARK = { cont: '✓', rewrite: '✎', deny: '✕', halt: '■', recover: '↺' };

function outcomeLabel(entry) {
  if (entry.status === 'ok') return 'ok';
  return entry.errorKind === 'denied' ? 'denied' : `${entry.errorKind} error`;
}

function Entry({ entry }) {
  const decided = entry.effect !== undefined;
  return (
    <li
      className={`entry entry-${entry.status}`}
      data-testid="log-entry"
      data-tool={entry.tool}
      data-status={entry.status}
      data-effect={entry.effect ?? ''}
      data-rule={entry.rule ?? ''}
      data-approval={entry.approval ?? ''}
    >
      <div className="entry-head">
        <code className="entry-tool" data-testid="log-tool">
          {entry.tool}
        </code>
        <span className={`outcome outcome-${entry.status === 'ok' ? 'ok' : entry.errorKind}`} data-testid="log-outcome">
          {outcomeLabel(entry)}
        </span>
        {!entry.ran && entry.status !== 'ok' && <span className="not-ran">tool not run</span>}
        <span className="entry-time">
          {entry.at.toLocaleTimeString()} · {Math.round(entry.durationMs)} ms
        </span>
      </div>
      <div className="entry-line">
        <span className="label">decision</span>
        <span data-testid="log-decision">
          {decided ? (
            <>
              <span className={`effect effect-${entry.effect}`}>{entry.effect}</span>
              {entry.rule ? (
                <span className="rule-id" data-testid="log-rule">
                  #{entry.rule}
                </span>
              ) : (
                <span className="muted">{entry.reason}</span>
              )}
              {entry.approval && <span className={`approval approval-${entry.approval}`}>→ {APPROVAL[entry.approval] ?? entry.approval}</span>}
              {entry.reason === 'grant' && <span className="approval">→ standing approval</span>}
            </>
          ) : (
            <span className="muted">{entry.errorReason === 'hook_denied' ? 'stopped by a hook before policy' : entry.errorKind === 'validation' ? 'invalid arguments: policy not asked' : 'no policy step'}</span>
          )}
        </span>
      </div>
      <div className="entry-line">
        <span className="label">hooks</span>
        <span data-testid="log-hooks">
          {entry.hooks.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            entry.hooks.map((h, i) => (
              <span key={i} className={`hook hook-${h.outcome}`} title={`${h.event} hook: ${h.outcome}`}>
                {HOOK_MARK[h.outcome] ?? '!'} {h.id}
                {h.event !== 'before' && <span className="hook-event"> · {h.event}</span>}
              </span>
            ))
          )}
        </span>
      </div>
      <div className="entry-line">
        <span className="label">shaping</span>
        <span data-testid="log-flags">
          {entry.flags.length === 0 && !entry.truncated ? (
            <span className="muted">clean</span>
          ) : (
            [...entry.flags, ...(entry.truncated ? ['truncated'] : [])].map((f) => (
              <span key={f} className="chip chip-flag">
                {f}
              </span>
            ))
          )}
        </span>
      </div>
      {entry.explanation && <p className="explanation">{entry.explanation}</p>}
      {(entry.summary || entry.arguments !== undefined) && (
        <details className="payload">
          <summary>arguments and what the agent read</summary>
          <pre>{JSON.stringify(entry.arguments ?? null)}</pre>
          <pre className="agent-read">{entry.summary}</pre>
        </details>
      )}
    </li>
  );
}

export function DecisionLog() {
  const log = useSyncExternalStore(logStore.subscribe, logStore.get);
  return (
    <section className="panel panel-log" aria-labelledby="log-title">
      <div className="panel-head">
        <h2 id="log-title">
          Decision log <span className="count">{log.length}</span>
        </h2>
        <button type="button" className="btn-link" onClick={clearLog}>
          clear
        </button>
      </div>
      <p className="hint">Every agent call, live from <code>onTelemetry</code>: who decided, which hooks ran, what shaping removed.</p>
      {log.length === 0 ? (
        <p className="empty" data-testid="log-empty">
          No agent calls yet. Try the agent console, or call a tool from a WebMCP agent.
        </p>
      ) : (
        <ol className="log" data-testid="decision-log">
          {log.map((entry) => (
            <Entry key={entry.id} entry={entry} />
          ))}
        </ol>
      )}
    </section>
  );
}
