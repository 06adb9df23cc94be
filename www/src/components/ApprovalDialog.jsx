import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useApprovals } from 'webmcp-warden/react';
import { cartLines, cartTotal, formatPrice, getShopState, subscribeShop } from '../shop.js';

function short(hex) {
  return typeof hex === 'string' ? `${hex.slice(0, 10)}…` : '—';
}

/** One pending ask. Remounted per ask (key), so the deny reason starts empty each time. */
function Ask({ ask, queued }) {
  const shop = useSyncExternalStore(subscribeShop, getShopState);
  const [reason, setReason] = useState('');
  const denyRef = useRef(null);
  useEffect(() => denyRef.current?.focus(), []);
  const { call, decision } = ask;
  const lines = call.name === 'checkout' ? cartLines(shop.cart) : [];
  const denyReason = reason.trim() || 'The user declined.';
  return (
    <div className="overlay">
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="approval-title"
        data-testid="approval-dialog"
        data-tool={call.name}
        onKeyDown={(e) => e.key === 'Escape' && ask.deny(denyReason)}
      >
        <div className="dialog-kicker">An agent asks to run {queued > 0 && <span className="queued">+{queued} more waiting</span>}</div>
        <h2 id="approval-title">
          <code data-testid="approval-tool">
            {call.serverId}/{call.name}
          </code>
        </h2>
        <p className="dialog-why" data-testid="approval-explanation">
          <span className={`effect effect-${decision?.effect ?? 'ask'}`}>{decision?.effect ?? 'ask'}</span>
          {decision?.explanation}
        </p>
        {lines.length > 0 && (
          <div className="dialog-box">
            <div className="label">This order</div>
            <ul className="dialog-lines">
              {lines.map((l) => (
                <li key={l.productId}>
                  {l.quantity}× {l.name} <span className="num">{formatPrice(l.subtotal)}</span>
                </li>
              ))}
              <li className="total">
                Total <span className="num">{formatPrice(cartTotal(shop.cart))}</span>
              </li>
            </ul>
          </div>
        )}
        <div className="dialog-box">
          <div className="label">Arguments (exactly what the tool will receive)</div>
          <pre data-testid="approval-args">{JSON.stringify(call.arguments, null, 2)}</pre>
        </div>
        <label className="field">
          <span className="label">Reason, if you deny (the agent reads it)</span>
          <input data-testid="deny-reason" value={reason} placeholder="The user declined." onChange={(e) => setReason(e.target.value)} />
        </label>
        <div className="dialog-actions">
          <button type="button" ref={denyRef} className="btn btn-danger" data-testid="approval-deny" onClick={() => ask.deny(denyReason)}>
            Deny
          </button>
          <button type="button" className="btn btn-ghost" data-testid="approval-deny-halt" onClick={() => ask.deny(denyReason, { halt: true })}>
            Deny &amp; stop agent
          </button>
          <span className="spacer" />
          <button type="button" className="btn" data-testid="approval-always" onClick={() => ask.approve('always')}>
            Always allow
          </button>
          <button type="button" className="btn btn-primary" data-testid="approval-once" onClick={() => ask.approve('once')}>
            Approve once
          </button>
        </div>
        <div className="dialog-foot">
          tool fingerprint <code>{short(call.fingerprint)}</code> · arguments digest <code>{short(call.argsDigest)}</code>
          {call.principal ? <> · for <code>{call.principal}</code></> : null}
        </div>
      </div>
    </div>
  );
}

/** Asks from tools in this provider's subtree wait here until a person answers. */
export function ApprovalDialog() {
  const { pending } = useApprovals();
  if (pending.length === 0) return null;
  const ask = pending[0];
  return <Ask key={ask.id} ask={ask} queued={pending.length - 1} />;
}
