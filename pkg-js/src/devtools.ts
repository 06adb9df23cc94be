// webmcp-warden/devtools: a panel a developer drops into the page to watch the governor live:
// the registered tools (status, fingerprint, schema), each call with its steps (hooks with
// durations, validation, the decision and its rule, the approval, shaping flags) and outcome,
// the pending asks (approve or deny them), the grants (revoke them), and a kill switch
// (`suspendAgents` / `resumeAgents`).
//
// An entry of its own: nothing else in the package imports it, so a page that does not import it
// downloads none of it, and a production bundle holds it only where the page imports it. The
// panel lives in a shadow root (its styles cannot reach the page's, nor the page's its own),
// is built with DOM calls (never HTML strings: tool names, hook ids, arguments and reasons are
// text), and uses native buttons and <details>, so the keyboard reaches everything.
import { getDefaultWarden, internalOf, type WardenClient } from './api/api.js';
import { asksOf } from './client/asks.js';
import type { Ask } from './client/asks.js';
import type { ToolRecord } from './client/client.js';
import { ConfigurationError } from './util/errors.js';
import type { Grant } from './client/grant-stores.js';
import type { DecisionStep, TelemetryEvent } from './client/telemetry.js';

/** Options of {@link mountWardenDevtools}. */
export interface WardenDevtoolsOptions {
  /** The client to watch (made by `createWarden()`); the default client when absent. */
  client?: WardenClient;
  /** Start collapsed (default `false`). */
  collapsed?: boolean;
  /** How many finished calls the panel keeps (default 50). */
  maxCalls?: number;
}

/** A mounted panel. */
export interface WardenDevtools {
  /** Removes the panel and stops watching. */
  unmount(): void;
}

/** One finished call, as the panel shows it. */
interface CallView {
  name: string;
  tool: string;
  invocationId: string;
  status: string;
  errorKind?: string;
  errorReason?: string;
  durationMs: number;
  record: readonly DecisionStep[];
}

const STYLE = `
:host { all: initial; display: block; font: 12px/1.4 system-ui, sans-serif; color: #1b1b1f; }
section { border: 1px solid #c8c8d0; border-radius: 6px; background: #fafafc; max-height: 70vh; overflow: auto; }
header { display: flex; gap: 8px; align-items: center; padding: 6px 8px; background: #ececf2; position: sticky; top: 0; }
header .title { font-weight: 600; flex: 1; }
button { font: inherit; padding: 2px 8px; border: 1px solid #8a8a99; border-radius: 4px; background: #fff; color: inherit; cursor: pointer; }
button:focus-visible, summary:focus-visible { outline: 2px solid #3858d6; outline-offset: 1px; }
button.danger { border-color: #b3261e; color: #b3261e; }
.suspended { color: #b3261e; font-weight: 600; }
h3 { font-size: 12px; margin: 8px 8px 4px; }
ul { list-style: none; margin: 0 8px 8px; padding: 0; }
li { border-top: 1px solid #e2e2ea; padding: 4px 0; }
.ok { color: #1d6b2f; } .error { color: #b3261e; }
code, pre { font: 11px/1.35 ui-monospace, monospace; }
pre { white-space: pre-wrap; word-break: break-all; margin: 4px 0; }
.muted { color: #5d5d6b; }
`;

/**
 * Mounts the webmcp-warden devtools panel into `element` (in a shadow root of its own) for the
 * default client, or `options.client`; answers how to unmount it. Call it only in development
 * builds (`if (import.meta.env.DEV)`, or behind `process.env.NODE_ENV !== 'production'`), or
 * import the module lazily there: the panel can approve asks and suspend agents.
 */
export function mountWardenDevtools(element: Element, options: WardenDevtoolsOptions = {}): WardenDevtools {
  if (element === null || typeof element !== 'object' || typeof (element as Element).appendChild !== 'function') {
    throw new ConfigurationError('invalid_options', 'mountWardenDevtools(element): element must be a DOM element');
  }
  const client = options.client ?? getDefaultWarden();
  const found = internalOf(client);
  if (found === undefined) throw new ConfigurationError('invalid_options', 'mountWardenDevtools: client must be a client made by createWarden()', 'client');
  const w = found;
  const maxCalls = options.maxCalls ?? 50;
  const doc = element.ownerDocument;
  const host = doc.createElement('webmcp-warden-devtools');
  const shadow = host.attachShadow({ mode: 'open' });
  const style = doc.createElement('style');
  style.textContent = STYLE;
  shadow.append(style);
  const root = doc.createElement('section');
  root.setAttribute('aria-label', 'webmcp-warden devtools');
  shadow.append(root);
  element.append(host);

  let collapsed = options.collapsed === true;
  const calls: CallView[] = [];
  /** The <details> a person opened (calls, tools), kept open across renders. */
  const opened = new Set<string>();
  let grants: Grant[] = [];
  let grantsProblem: string | undefined;
  let live = true;
  const book = asksOf(w);

  /** An element with attributes and children (strings become text nodes). */
  const h = (tag: string, attrs: Record<string, string | boolean | ((event: Event) => void)> = {}, ...children: (Node | string | null | undefined | false)[]): HTMLElement => {
    const node = doc.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (typeof value === 'function') node.addEventListener(key, value);
      else if (value === true) node.setAttribute(key, '');
      else if (value !== false) node.setAttribute(key, value);
    }
    for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(typeof child === 'string' ? doc.createTextNode(child) : child);
    return node;
  };
  const button = (key: string, label: string, onClick: () => void, className = '') => h('button', { type: 'button', 'data-key': key, class: className, click: onClick }, label);

  const refreshGrants = () => {
    client.listGrants().then(
      (list) => {
        grants = list;
        grantsProblem = undefined;
        schedule();
      },
      (err: unknown) => {
        grantsProblem = err instanceof Error ? err.message : String(err);
        schedule();
      },
    );
  };

  let scheduled = false;
  function schedule(): void {
    if (scheduled || !live) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      if (live) render();
    });
  }

  function render(): void {
    const focused = (shadow.activeElement as HTMLElement | null)?.dataset?.key;
    const suspended = client.suspension();
    const header = h(
      'header',
      {},
      button('toggle', collapsed ? '▸' : '▾', () => {
        collapsed = !collapsed;
        render();
      }),
      h('span', { class: 'title', id: 'title' }, 'webmcp-warden'),
      suspended === null ? h('span', { class: 'muted' }, 'agents may act') : h('span', { class: 'suspended', role: 'status' }, `agents suspended: ${suspended}`),
      suspended === null
        ? button('kill', 'Suspend agents', () => client.suspendAgents('Suspended from the webmcp-warden devtools.'), 'danger')
        : button('kill', 'Resume agents', () => client.resumeAgents()),
    );
    header.querySelector('[data-key="toggle"]')?.setAttribute('aria-expanded', String(!collapsed));
    header.querySelector('[data-key="toggle"]')?.setAttribute('aria-controls', 'body');
    header.querySelector('[data-key="toggle"]')?.setAttribute('aria-label', collapsed ? 'Expand the webmcp-warden devtools' : 'Collapse the webmcp-warden devtools');
    const body = h('div', { id: 'body', hidden: collapsed });
    if (!collapsed) body.append(...sections());
    root.replaceChildren(header, body);
    // Found by comparing keys, not by a selector: a key holds tool names and ask ids.
    if (focused !== undefined) Array.from(shadow.querySelectorAll<HTMLElement>('[data-key]')).find((node) => node.dataset.key === focused)?.focus();
  }

  function sections(): HTMLElement[] {
    const asks = book.getSnapshot().pending;
    const records = [...w.registry.values()] as ToolRecord[];
    return [
      h('h3', {}, `Pending approvals (${asks.length})`),
      h('ul', { 'aria-label': 'pending approvals' }, ...(asks.length === 0 ? [h('li', { class: 'muted' }, 'none')] : asks.map(askItem))),
      h('h3', {}, `Tools (${records.length})`),
      h('ul', { 'aria-label': 'tools' }, ...(records.length === 0 ? [h('li', { class: 'muted' }, 'none registered')] : records.map(toolItem))),
      h('h3', {}, `Calls (${calls.length})`),
      h('ul', { 'aria-label': 'calls' }, ...(calls.length === 0 ? [h('li', { class: 'muted' }, 'none yet')] : calls.map(callItem))),
      h('h3', {}, `Grants (${grants.length})`),
      h(
        'ul',
        { 'aria-label': 'grants' },
        ...(grantsProblem !== undefined ? [h('li', { class: 'error' }, `the grant store cannot be read: ${grantsProblem}`)] : []),
        ...(grants.length === 0 ? [h('li', { class: 'muted' }, 'none')] : grants.map(grantItem)),
      ),
    ];
  }

  function askItem(ask: Ask): HTMLElement {
    const left = Math.max(0, Math.ceil((ask.deadline - Date.now()) / 1000));
    return h(
      'li',
      { 'data-ask': ask.id },
      h('div', {}, h('strong', {}, ask.summary.text)),
      h('div', { class: 'muted' }, `${ask.explanation} · ${left} s left`),
      button(`approve:${ask.id}`, 'Approve once', () => ask.approve('once')),
      ' ',
      button(`always:${ask.id}`, 'Always', () => ask.approve('always')),
      ' ',
      button(`deny:${ask.id}`, 'Deny', () => ask.deny('Denied from the webmcp-warden devtools.'), 'danger'),
    );
  }

  /** A <details> that stays open across renders once a person opened it. */
  function openable(key: string): Record<string, boolean | ((event: Event) => void)> {
    return { open: opened.has(key), toggle: (event: Event) => void ((event.target as HTMLDetailsElement).open ? opened.add(key) : opened.delete(key)) };
  }

  function toolItem(record: ToolRecord): HTMLElement {
    let fingerprint = '';
    try {
      fingerprint = record.fingerprint;
    } catch {
      fingerprint = '(unavailable)';
    }
    const { contract } = record;
    return h(
      'li',
      { 'data-tool': contract.name },
      h(
        'details',
        openable(`tool:${contract.name}`),
        h('summary', { 'data-key': `tool:${contract.name}` }, h('code', {}, contract.name), ` · ${record.status} · `, h('code', { title: fingerprint }, fingerprint.slice(0, 12))),
        h('pre', {}, JSON.stringify({ description: contract.description, inputSchema: contract.inputSchema, outputSchema: contract.outputSchema, annotations: contract.annotations }, null, 2)),
      ),
    );
  }

  function callItem(call: CallView): HTMLElement {
    const outcome = call.status === 'ok' ? 'ok' : `${call.errorKind ?? 'error'} / ${call.errorReason ?? ''}`;
    const decision = call.record.find((step): step is Extract<DecisionStep, { step: 'policy' }> => step.step === 'policy')?.decision as { effect?: string; reason?: string; rule?: { list: string; index: number; id?: string } } | undefined;
    const details = h(
      'details',
      { 'data-call': call.invocationId, ...openable(`call:${call.invocationId}`) },
      h(
        'summary',
        { 'data-key': `call:${call.invocationId}` },
        h('code', {}, call.tool),
        ' · ',
        h('span', { class: call.status === 'ok' ? 'ok' : 'error' }, outcome),
        decision?.effect === undefined ? '' : ` · ${decision.effect}${decision.rule === undefined ? ` (${decision.reason ?? ''})` : ` by ${decision.rule.list}[${decision.rule.index}]${decision.rule.id === undefined ? '' : ` "${decision.rule.id}"`}`}`,
        ` · ${call.durationMs.toFixed(1)} ms`,
      ),
      h('ul', {}, ...call.record.map((step) => h('li', {}, stepText(step)))),
    );
    return h('li', {}, details);
  }

  function grantItem(grant: Grant): HTMLElement {
    const who = grant.principal === null ? '(no principal)' : grant.principal;
    return h(
      'li',
      { 'data-grant': `${grant.server}/${grant.tool}` },
      h('code', {}, `${grant.server}/${grant.tool}`),
      ` for ${who}, until ${new Date(grant.expiresAt).toLocaleString()} `,
      button(`revoke:${grant.server}/${grant.tool}/${who}`, 'Revoke', () => {
        void client.revokeGrant({ principal: grant.principal, server: grant.server, tool: grant.tool }).then(refreshGrants, refreshGrants);
      }, 'danger'),
    );
  }

  const onEvent = (event: TelemetryEvent) => {
    if (event.name === 'tool_call.stop' || event.name === 'resource_read.stop' || event.name === 'prompt_get.stop') {
      calls.unshift({ name: event.name, tool: event.tool, invocationId: event.invocationId, status: event.status, errorKind: event.errorKind, errorReason: event.errorReason, durationMs: event.durationMs, record: event.record });
      if (calls.length > maxCalls) calls.length = maxCalls;
      refreshGrants();
    }
    if (event.name === 'agents.suspended' || event.name === 'agents.resumed' || event.name === 'tool_call.stop') schedule();
  };
  const unsubscribe = client.onTelemetry(onEvent);
  const unwatchAsks = book.subscribe(schedule);
  // Registrations and countdowns change without an event: once a second, the panel renders
  // again when an ask waits (its time left) or a tool's registration changed.
  let seen = '';
  const timer = setInterval(() => {
    const now = ([...w.registry.values()] as ToolRecord[]).map((record) => `${record.contract.name}:${record.status}`).join();
    if (now !== seen || book.getSnapshot().pending.length > 0) schedule();
    seen = now;
  }, 1000);
  refreshGrants();
  render();

  return {
    unmount() {
      if (!live) return;
      live = false;
      clearInterval(timer);
      unsubscribe();
      unwatchAsks();
      host.remove();
    },
  };
}

/** One step of a call's decision record, in words. */
function stepText(step: DecisionStep): string {
  switch (step.step) {
    case 'hook':
      return `${step.event} hook "${step.hookId}": ${step.outcome}${step.skipped ? ' (skipped)' : ''}, ${step.durationMs.toFixed(1)} ms`;
    case 'validation':
      return `validation of the ${step.target}: ${step.ok ? 'valid' : `invalid (${(step.diagnostics ?? []).map((d) => (d.path === undefined ? d.keyword : `${d.path || '(root)'} ${d.keyword}`)).join(', ')})`}`;
    case 'policy': {
      const decision = step.decision as { effect?: string; reason?: string; explanation?: string };
      return `policy: ${decision.effect ?? '?'} (${decision.reason ?? '?'}): ${decision.explanation ?? ''}`;
    }
    case 'approval':
      return `approval: ${step.outcome}${step.durationMs === undefined ? '' : `, ${step.durationMs.toFixed(1)} ms`}`;
    case 'tool':
    case 'read':
    case 'get':
      return `${step.step}: ${step.outcome}, ${step.durationMs.toFixed(1)} ms`;
    case 'aborted':
      return 'aborted';
    case 'shape':
      return `shaping: ${step.flags.length === 0 ? 'nothing removed' : `removed ${step.flags.join(', ')}`}${step.truncated ? ', truncated' : ''}`;
  }
}
