import { useState } from 'react';
import { explain, invokeTool } from 'webmcp-warden';
import { describeMedia, reveal } from '../reveal.js';
import { EXAMPLES, TOOLS } from '../tools.js';

/** What the tool itself returned, with the hidden characters marked: what shaping took out. */
function Revealed({ raw }) {
  return (
    <div className="revealed" data-testid="console-revealed">
      <div className="label">What the tool returned (hidden characters revealed)</div>
      {(raw.content ?? []).map((block, i) =>
        block.type === 'text' ? (
          <pre key={i} className="block">
            {reveal(block.text).map((part, j) =>
              part.mark ? (
                <mark key={j} title={part.title}>
                  {part.mark}
                </mark>
              ) : (
                <span key={j}>{part.text}</span>
              ),
            )}
          </pre>
        ) : (
          <pre key={i} className="block">
            <mark>{`${block.type} ${describeMedia(block).mime}`}</mark> {describeMedia(block).preview}
          </pre>
        ),
      )}
    </div>
  );
}

/** Shows a result the way an agent reads it: its text blocks, and what shaping did. */
function AgentView({ outcome, raw }) {
  const result = outcome.result ?? {};
  const flags = result.provenance?.flags ?? [];
  return (
    <div className="agent-view" data-testid="console-result">
      <div className="agent-view-head">
        <span className={`outcome outcome-${outcome.ok ? 'ok' : outcome.error.kind}`} data-testid="console-outcome">
          {outcome.ok ? 'ok' : `${outcome.error.kind} · ${outcome.error.reason}`}
        </span>
        {flags.map((f) => (
          <span key={f} className="chip chip-flag">
            {f}
          </span>
        ))}
        {result.provenance && <span className="muted">provenance: server {result.provenance.serverId}</span>}
      </div>
      <div className="label">What the agent reads</div>
      {(result.content ?? []).map((block, i) => (
        <pre key={i} className={`block block-${block.type}`}>
          {block.type === 'text' ? block.text : `[${block.type}${block.mimeType ? ` ${block.mimeType}` : ''}]`}
        </pre>
      ))}
      {raw && flags.length > 0 && <Revealed raw={raw} />}
      <details className="payload">
        <summary>raw outcome</summary>
        <pre>{JSON.stringify(outcome, null, 2)}</pre>
      </details>
    </div>
  );
}

/** For people without a WebMCP browser: call the tools the way an in-page agent would. */
export function AgentConsole() {
  const [name, setName] = useState('search_products');
  const [args, setArgs] = useState(JSON.stringify(EXAMPLES.search_products, null, 2));
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState(null);
  const [raw, setRaw] = useState(null);
  const [dryRun, setDryRun] = useState(null);
  const [parseError, setParseError] = useState(null);

  function choose(next) {
    setName(next);
    setArgs(JSON.stringify(EXAMPLES[next] ?? {}, null, 2));
    setOutcome(null);
    setRaw(null);
    setDryRun(null);
    setParseError(null);
  }

  function parsed() {
    try {
      setParseError(null);
      return { ok: true, value: args.trim() ? JSON.parse(args) : {} };
    } catch (err) {
      setParseError(String(err.message ?? err));
      return { ok: false };
    }
  }

  async function run() {
    const input = parsed();
    if (!input.ok) return;
    setBusy(true);
    setDryRun(null);
    setOutcome(null);
    setRaw(null);
    try {
      const result = await invokeTool(name, input.value);
      // For a read-only tool, also call the function directly (no warden, no shaping) to show
      // what shaping removed. Tools with effects are never called twice.
      const tool = TOOLS.find((t) => t.toolName === name);
      if (result.ok && result.result.provenance?.flags?.length && tool?.definition.annotations?.readOnlyHint) {
        setRaw(await tool(input.value));
      }
      setOutcome(result);
    } finally {
      setBusy(false);
    }
  }

  async function dry() {
    const input = parsed();
    if (!input.ok) return;
    setOutcome(null);
    setRaw(null);
    setDryRun(await explain(name, input.value));
  }

  return (
    <section className="panel" aria-labelledby="console-title">
      <div className="panel-head">
        <h2 id="console-title">Agent console</h2>
        <span className="hint">
          calls <code>invokeTool()</code>: the same governed path a WebMCP agent takes
        </span>
      </div>
      <div className="console">
        <div className="console-form">
          <label className="field">
            <span className="label">Tool</span>
            <select data-testid="console-tool" value={name} onChange={(e) => choose(e.target.value)}>
              {TOOLS.map((t) => (
                <option key={t.toolName} value={t.toolName}>
                  {t.toolName}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="label">Arguments (JSON)</span>
            <textarea data-testid="console-args" rows={4} spellCheck={false} value={args} onChange={(e) => setArgs(e.target.value)} />
          </label>
          {parseError && <p className="bad">Not JSON: {parseError}</p>}
          <div className="console-actions">
            <button type="button" className="btn btn-primary" data-testid="console-run" disabled={busy} onClick={run}>
              {busy ? 'Waiting…' : 'Call tool'}
            </button>
            <button type="button" className="btn" data-testid="console-explain" disabled={busy} onClick={dry}>
              Dry run (explain)
            </button>
          </div>
        </div>
        <div className="console-out">
          {busy && <p className="muted">Waiting for the call to finish (an ask waits for your answer in the dialog)…</p>}
          {outcome && <AgentView outcome={outcome} raw={raw} />}
          {dryRun && (
            <div className="agent-view" data-testid="console-explanation">
              <div className="agent-view-head">
                <span className={`effect effect-${dryRun.effect}`}>{dryRun.effect}</span>
                {dryRun.rule?.id && <span className="rule-id">#{dryRun.rule.id}</span>}
                <span className="muted">dry run: nothing was called</span>
              </div>
              <p className="explanation">{dryRun.explanation}</p>
            </div>
          )}
          {!busy && !outcome && !dryRun && <p className="muted">Pick a tool and call it. Try <code>read_reviews</code> to see shaping, <code>checkout</code> for an approval.</p>}
        </div>
      </div>
    </section>
  );
}
