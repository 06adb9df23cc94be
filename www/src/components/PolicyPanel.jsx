import { useEffect, useState, useSyncExternalStore } from 'react';
import { clearGrants, listGrants, revokeGrant } from 'webmcp-warden';
import { logStore, POLICY, POLICY_LINT } from '../warden.js';

function describeWhen(when) {
  if (!when) return null;
  const list = Array.isArray(when) ? when : [when];
  return list
    .map((w) => {
      if (w.annotation) return Object.entries(w.annotation).map(([k, v]) => `${k} = ${v}`).join(', ');
      if (w.arg) return `${w.arg} ${'max' in w ? `≤ ${w.max}` : 'min' in w ? `≥ ${w.min}` : 'matches'}`;
      return typeof w === 'string' ? w : JSON.stringify(w);
    })
    .join(' and ');
}

function Rule({ effect, rule }) {
  const when = describeWhen(rule.when);
  return (
    <li className="rule">
      <span className={`effect effect-${effect}`}>{effect}</span>
      <code>{rule.match}</code>
      {when && <span className="when">when {when}</span>}
      {rule.id && <span className="rule-id">#{rule.id}</span>}
    </li>
  );
}

export function PolicyPanel() {
  const log = useSyncExternalStore(logStore.subscribe, logStore.get);
  const [grants, setGrants] = useState([]);
  useEffect(() => {
    let live = true;
    listGrants().then((g) => live && setGrants(g));
    return () => {
      live = false;
    };
  }, [log]);
  const refresh = () => listGrants().then(setGrants);
  return (
    <section className="panel" aria-labelledby="policy-title">
      <div className="panel-head">
        <h2 id="policy-title">Policy</h2>
        <span className={`hint ${POLICY_LINT.length ? 'bad' : ''}`} data-testid="policy-lint">
          {POLICY_LINT.length ? `${POLICY_LINT.length} lint problem(s)` : 'lint: every rule can fire'}
        </span>
      </div>
      <ol className="rules" data-testid="policy">
        {POLICY.deny.map((r, i) => <Rule key={`d${i}`} effect="deny" rule={r} />)}
        {POLICY.ask.map((r, i) => <Rule key={`a${i}`} effect="ask" rule={r} />)}
        {POLICY.allow.map((r, i) => <Rule key={`l${i}`} effect="allow" rule={r} />)}
        <li className="rule">
          <span className={`effect effect-${POLICY.default}`}>{POLICY.default}</span>
          <span className="when">anything else</span>
        </li>
      </ol>
      <h3 className="sub">Standing approvals</h3>
      {grants.length === 0 ? (
        <p className="empty" data-testid="grants-empty">None. “Always allow” in the approval dialog records one.</p>
      ) : (
        <ul className="grants" data-testid="grants">
          {grants.map((g) => (
            <li key={`${g.server}/${g.tool}/${g.principal}`}>
              <code>
                {g.server}/{g.tool}
              </code>{' '}
              until {new Date(g.expiresAt).toLocaleTimeString()}
              <button type="button" className="btn-link" onClick={() => revokeGrant({ server: g.server, tool: g.tool }).then(refresh)}>
                revoke
              </button>
            </li>
          ))}
          <li>
            <button type="button" className="btn-link" onClick={() => clearGrants().then(refresh)}>
              forget all
            </button>
          </li>
        </ul>
      )}
    </section>
  );
}
