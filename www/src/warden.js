// The page's governance: global hooks, the policy, and the stores the panels read (the decision
// log fed by telemetry, the audit trail fed by the global hook, denial notices).
import { configureWebMCP, lintPolicy, onTelemetry } from 'webmcp-warden';

/** A tiny external store for useSyncExternalStore. */
export function createStore(initial) {
  let value = initial;
  const listeners = new Set();
  return {
    get: () => value,
    set(next) {
      value = typeof next === 'function' ? next(value) : next;
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

// --- policy -------------------------------------------------------------------------------
// deny > pin > ask > allow > default; within a list the first matching rule decides.
export const POLICY = {
  deny: [
    {
      match: 'shop/delete_*',
      id: 'no-deletes',
      reason: 'Agents may not delete anything here; account deletion is done by a person in Settings.',
    },
  ],
  ask: [
    {
      match: 'shop/checkout',
      id: 'checkout-needs-human',
      reason: 'Checking out spends the customer’s money, so a person confirms every order.',
    },
  ],
  allow: [
    { match: 'shop/*', id: 'reads', when: { annotation: { readOnlyHint: true } } },
    { match: 'shop/add_to_cart', id: 'small-carts', when: { arg: '/quantity', max: 5 } },
  ],
  default: 'ask',
};

/** What lintPolicy says about POLICY (shown on the page; empty when every rule can fire). */
export const POLICY_LINT = lintPolicy(POLICY);

// --- audit trail (the global hook) ---------------------------------------------------------
export const auditStore = createStore([]);
export const noticeStore = createStore([]);
let noticeSeq = 0;

export function dismissNotice(id) {
  noticeStore.set((list) => list.filter((n) => n.id !== id));
}

/** The provider's scoped hooks: tell the person on the page when an agent was refused. */
export const SHOP_SCOPE_HOOKS = {
  denied: [
    {
      id: 'notify-denial',
      run: (ctx) => {
        const id = ++noticeSeq;
        noticeStore.set((list) => [...list.slice(-1), { id, tool: ctx.contract.name, reason: ctx.reason ?? 'denied' }]);
        setTimeout(() => dismissNotice(id), 6000);
      },
    },
  ],
};

// --- decision log (telemetry) --------------------------------------------------------------
export const logStore = createStore([]);

function summarize(result) {
  const blocks = result?.content ?? [];
  const text = blocks.filter((b) => b.type === 'text').map((b) => b.text).join(' ');
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/** Turns a `tool_call.stop` event into one row of the decision log. */
export function toLogEntry(event) {
  const record = event.record ?? [];
  const policy = record.find((s) => s.step === 'policy')?.decision;
  const approval = record.find((s) => s.step === 'approval');
  const shape = record.find((s) => s.step === 'shape');
  const tool = record.find((s) => s.step === 'tool');
  const validation = record.filter((s) => s.step === 'validation');
  return {
    id: event.invocationId,
    at: new Date(),
    tool: event.tool,
    serverId: event.serverId,
    status: event.status,
    errorKind: event.errorKind,
    errorReason: event.errorReason,
    durationMs: event.durationMs,
    effect: policy?.effect,
    reason: policy?.reason,
    rule: policy?.rule?.id ?? (policy?.rule ? `${policy.rule.list}[${policy.rule.index}]` : undefined),
    explanation: policy?.explanation,
    approval: approval?.outcome,
    hooks: record.filter((s) => s.step === 'hook').map((s) => ({ id: s.hookId, event: s.event, outcome: s.outcome })),
    validation: validation.map((s) => ({ target: s.target, ok: s.ok })),
    ran: tool !== undefined,
    flags: shape?.flags ?? [],
    truncated: shape?.truncated ?? false,
    arguments: event.arguments,
    summary: summarize(event.result),
  };
}

export function clearLog() {
  logStore.set([]);
}

// --- configuration -------------------------------------------------------------------------
// `replace: true` keeps this idempotent when Vite hot-reloads the module.
configureWebMCP({
  replace: true,
  hooks: {
    before: [
      {
        id: 'audit',
        run: (ctx) => {
          auditStore.set((list) => [...list.slice(-99), { at: Date.now(), tool: ctx.contract.name, invocationId: ctx.invocationId }]);
        },
      },
    ],
  },
  policy: POLICY,
  capturePayloads: true, // so the log can show each call's arguments and what the agent read
});

// Every finished call arrives as `tool_call.stop`, with the steps it took.
const unsubscribe = onTelemetry((event) => {
  if (event.name === 'tool_call.stop') logStore.set((list) => [toLogEntry(event), ...list].slice(0, 60));
});
import.meta.hot?.dispose(unsubscribe);
