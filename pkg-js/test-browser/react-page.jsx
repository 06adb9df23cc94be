// Test page of react.test.mjs: bundled by esbuild (React's development build, so StrictMode
// double-invokes effects) and driven from the test through `window.__react.<scenario>(runtime)`.
// `runtime` is 'native' (Chromium's document.modelContext) or 'fake' (webmcp-warden/testing,
// which honours abort signals like Chrome). Each scenario cleans up after itself and answers
// plain JSON for the test to check.
import { StrictMode, useLayoutEffect, useState, version as reactVersion } from 'react';

// Which React the page was bundled with (react18.test.mjs runs this suite against React 18).
window.__reactVersion = reactVersion;
import { flushSync } from 'react-dom';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { webmcp, configureWebMCP, resetWebMCP, createWarden, getDefaultWarden, invokeTool, listTools } from 'webmcp-warden';
import { WebMCPProvider, useWebMCP, useApprovals, useAgentActivity, useWardenClient, ApprovalDialog } from 'webmcp-warden/react';
import { installFakeModelContext } from 'webmcp-warden/testing';
import { sleep, waitFor } from './page-helpers.js';

/** Installs the runtime and counts registerTool calls per tool name. */
function useRuntime(runtime) {
  const fake = runtime === 'fake' ? installFakeModelContext({ origin: location.origin }) : undefined;
  const mc = document.modelContext;
  if (!mc) throw new Error(`no document.modelContext for runtime ${runtime}`);
  const original = mc.registerTool;
  const calls = {};
  mc.registerTool = function (tool, options) {
    calls[tool.name] = (calls[tool.name] ?? 0) + 1;
    return original.call(this, tool, options);
  };
  return {
    mc,
    calls,
    /** How many live registrations `getTools()` lists under `name`. */
    async live(name) {
      const tools = await mc.getTools();
      return tools.filter((t) => t.name === name).length;
    },
    /** Calls the tool as an agent would, through the browser's API. */
    async execute(name, input) {
      const tools = await mc.getTools();
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`${name} is not registered`);
      const raw = await mc.executeTool(tool, input);
      const result = typeof raw === 'string' ? JSON.parse(raw) : raw;
      return result.content?.[0]?.text;
    },
    done() {
      if (fake) fake.uninstall();
      else delete mc.registerTool;
    },
  };
}

function mountRoot() {
  const element = document.createElement('div');
  document.body.append(element);
  const root = createRoot(element);
  return {
    element,
    render: (node) => flushSync(() => root.render(node)),
    unmount: () => {
      root.unmount();
      element.remove();
    },
  };
}

const addSchema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };

// StrictMode: mount → unmount → mount must leave exactly one live registration and a truthful
// status, with a JSON Schema (register() awaits the validator first) and without (it goes straight
// to registerTool), for a tool made per mount and for a shared tool.
async function strict(runtime) {
  resetWebMCP();
  const rt = useRuntime(runtime);
  const root = mountRoot();
  const seen = {};
  const hookRuns = [];
  const shared = webmcp(({ text }) => `echo ${text}`, { name: `strict_shared_${runtime}`, description: 'Echo' });
  function Tools() {
    seen.schema = useWebMCP(({ a, b }) => a + b, { name: `strict_schema_${runtime}`, description: 'Add', inputSchema: addSchema });
    seen.plain = useWebMCP(() => 'plain', { name: `strict_plain_${runtime}`, description: 'Plain' });
    seen.shared = useWebMCP(shared);
    return <output>{`${seen.schema.status} ${seen.plain.status} ${seen.shared.status}`}</output>;
  }
  try {
    root.render(
      <StrictMode>
        <WebMCPProvider hooks={{ before: [(ctx) => void hookRuns.push(ctx.contract.name)] }}>
          <Tools />
        </WebMCPProvider>
      </StrictMode>,
    );
    const names = [`strict_schema_${runtime}`, `strict_plain_${runtime}`, `strict_shared_${runtime}`];
    await waitFor(() => seen.schema.status === 'registered' && seen.plain.status === 'registered' && seen.shared.status === 'registered', 'registered');
    await sleep(50); // let any stale registration promise settle: it must not change the status
    const after = {
      statuses: [seen.schema.status, seen.plain.status, seen.shared.status],
      toolStatuses: [seen.schema.tool.status, seen.plain.tool.status, shared.status],
      registered: [seen.schema.registered, seen.plain.registered, seen.shared.registered],
      errors: [seen.schema.error, seen.plain.error, seen.shared.error].map((e) => (e ? String(e) : null)),
      supported: seen.plain.supported,
      live: await Promise.all(names.map((n) => rt.live(n))),
      registerCalls: names.map((n) => rt.calls[n] ?? 0),
      text: root.element.textContent,
      executed: await rt.execute(`strict_schema_${runtime}`, { a: 2, b: 3 }),
      hookRuns: [...hookRuns],
    };
    root.unmount();
    await sleep(20);
    const unmounted = {
      live: await Promise.all(names.map((n) => rt.live(n))),
      toolStatuses: [seen.schema.tool.status, seen.plain.tool.status, shared.status],
    };
    return { after, unmounted };
  } finally {
    rt.done();
  }
}

// Re-renders with inline option literals, inline hooks and an inline function: no re-registration,
// the same tool, and every call uses the latest committed function and hook.
async function rerender(runtime) {
  resetWebMCP();
  const rt = useRuntime(runtime);
  const root = mountRoot();
  const name = `rerender_${runtime}`;
  let setCount;
  let setWord;
  const seen = { tools: new Set(), hookSaw: [] };
  function Counter() {
    const [count, set] = useState(0);
    const [word, setW] = useState('Counts');
    setCount = set;
    setWord = setW;
    const result = useWebMCP(() => `count=${count}`, {
      name,
      description: `${word} clicks`,
      annotations: { readOnlyHint: true },
      hooks: { before: [() => void seen.hookSaw.push(count)] },
    });
    seen.result = result;
    seen.tools.add(result.tool);
    return <span>{count}</span>;
  }
  try {
    root.render(
      <WebMCPProvider hooks={{ after: [() => undefined] }}>
        <Counter />
      </WebMCPProvider>,
    );
    await waitFor(() => seen.result.status === 'registered', 'registered');
    const first = { calls: rt.calls[name], text: await rt.execute(name, {}) };
    for (let i = 1; i <= 5; i++) {
      flushSync(() => setCount(i));
      await sleep(0);
    }
    await sleep(30);
    const afterRenders = {
      calls: rt.calls[name],
      tools: seen.tools.size,
      status: seen.result.status,
      live: await rt.live(name),
      text: await rt.execute(name, {}),
      invoked: (await seen.result.tool.invoke({})).result.content[0].text,
    };
    // A real change of the definition makes a new tool, registered in place of the old one.
    flushSync(() => setWord('Tallies'));
    await waitFor(() => seen.tools.size === 2 && seen.result.status === 'registered', 'the new tool registered');
    const tools = await rt.mc.getTools();
    const changed = {
      calls: rt.calls[name],
      live: await rt.live(name),
      description: tools.find((t) => t.name === name)?.description,
      text: await rt.execute(name, {}),
      oldStatus: [...seen.tools][0].status,
    };
    root.unmount();
    return { first, afterRenders, changed, hookSaw: seen.hookSaw };
  } finally {
    rt.done();
  }
}

// A provider re-rendered with inline hooks: calls use its latest functions, a change of the
// hooks' structure applies from the commit, and none of it re-registers the tools inside.
async function providerUpdate(runtime) {
  resetWebMCP();
  const rt = useRuntime(runtime);
  const root = mountRoot();
  const name = `provider_update_${runtime}`;
  const log = [];
  let setState;
  let tool;
  function Tool() {
    tool = useWebMCP(() => 'ok', { name, description: 'Under a changing provider' }).tool;
    return null;
  }
  function App() {
    const [state, set] = useState({ tag: 'v0', two: false });
    setState = set;
    const hooks = {
      before: [() => void log.push(`first:${state.tag}`), ...(state.two ? [{ id: 'second', run: () => void log.push(`second:${state.tag}`) }] : [])],
    };
    return (
      <WebMCPProvider hooks={hooks}>
        <Tool />
      </WebMCPProvider>
    );
  }
  try {
    root.render(<StrictMode><App /></StrictMode>);
    await waitFor(() => tool.status === 'registered', 'registered');
    await tool.invoke({});
    const callsBefore = rt.calls[name];
    for (const next of [{ tag: 'v1', two: false }, { tag: 'v2', two: true }, { tag: 'v3', two: false }]) {
      flushSync(() => setState(next));
      await rt.execute(name, {});
    }
    const out = { log, callsBefore, calls: rt.calls[name], status: tool.status, live: await rt.live(name) };
    root.unmount();
    return out;
  } finally {
    rt.done();
  }
}

// One tool mounted under two providers with different hooks.
async function twoProviders(runtime) {
  resetWebMCP();
  const rt = useRuntime(runtime);
  const root = mountRoot();
  const name = `two_${runtime}`;
  const tool = webmcp(({ who }) => `hello ${who}`, { name, description: 'Greets' });
  const log = [];
  const views = {};
  let setShowA;
  function Mount({ label }) {
    const result = useWebMCP(tool);
    views[label] = result;
    return <i>{label}</i>;
  }
  function App() {
    const [showA, set] = useState(true);
    setShowA = set;
    return (
      <>
        {showA && (
          <WebMCPProvider hooks={{ before: [(ctx) => void log.push(`A:${ctx.input.who}`)] }}>
            <Mount label="a" />
          </WebMCPProvider>
        )}
        <WebMCPProvider hooks={{ before: [(ctx) => void log.push(`B:${ctx.input.who}`)] }}>
          <Mount label="b" />
        </WebMCPProvider>
      </>
    );
  }
  try {
    root.render(<StrictMode><App /></StrictMode>);
    await waitFor(() => tool.status === 'registered', 'registered');
    await views.a.tool.invoke({ who: 'via-a' });
    await views.b.tool.invoke({ who: 'via-b' });
    const browserFirst = await rt.execute(name, { who: 'agent1' });
    const both = { live: await rt.live(name), calls: rt.calls[name], log: [...log], browserFirst };
    flushSync(() => setShowA(false));
    await sleep(30);
    const browserSecond = await rt.execute(name, { who: 'agent2' });
    const onlyB = { live: await rt.live(name), status: tool.status, log: [...log], browserSecond };
    root.unmount();
    await sleep(20);
    return { both, onlyB, end: { live: await rt.live(name), status: tool.status } };
  } finally {
    rt.done();
  }
}

// enabled: false registers nothing; toggling registers and unregisters.
async function toggle(runtime) {
  resetWebMCP();
  const rt = useRuntime(runtime);
  const root = mountRoot();
  const name = `toggle_${runtime}`;
  let setEnabled;
  let seen;
  function Tool() {
    const [enabled, set] = useState(false);
    setEnabled = set;
    seen = useWebMCP(() => 'on', { name, description: 'Toggles', enabled });
    return null;
  }
  try {
    root.render(<StrictMode><Tool /></StrictMode>);
    await sleep(30);
    const off = { status: seen.status, live: await rt.live(name), calls: rt.calls[name] ?? 0 };
    flushSync(() => setEnabled(true));
    await waitFor(() => seen.status === 'registered', 'registered');
    const on = { status: seen.status, live: await rt.live(name) };
    flushSync(() => setEnabled(false));
    await sleep(30);
    const offAgain = { status: seen.status, live: await rt.live(name) };
    root.unmount();
    return { off, on, offAgain };
  } finally {
    rt.done();
  }
}

// useApprovals: asks of tools inside <WebMCPProvider approver> wait in `pending`.
async function approvals(runtime) {
  resetWebMCP();
  configureWebMCP({ policy: { ask: ['appr_*'] }, onAsk: () => ({ deny: 'the global approver was asked' }) });
  const rt = useRuntime(runtime);
  const root = mountRoot();
  const name = `appr_pay_${runtime}`;
  let pending = [];
  let tool;
  let ran = 0;
  function Pay() {
    tool = useWebMCP(({ amount }) => {
      ran++;
      return `paid ${amount}`;
    }, { name, description: 'Pays', inputSchema: { type: 'object', properties: { amount: { type: 'number' } } } }).tool;
    return null;
  }
  function Panel() {
    pending = useApprovals().pending;
    return <ul>{pending.map((ask) => <li key={ask.id}>{`${ask.call.name} ${JSON.stringify(ask.call.arguments)}`}</li>)}</ul>;
  }
  const nextAsk = () => waitFor(() => pending[0], 'an ask');
  try {
    root.render(
      <StrictMode>
        <WebMCPProvider approver>
          <Pay />
          <Panel />
        </WebMCPProvider>
      </StrictMode>,
    );
    await waitFor(() => tool.status === 'registered', 'registered');
    const out = {};

    let call = tool.invoke({ amount: 5 });
    let ask = await nextAsk();
    out.ask = { name: ask.call.name, arguments: ask.call.arguments, effect: ask.decision?.effect, frozen: Object.isFrozen(ask.call.arguments), rendered: root.element.textContent, idIsInvocation: ask.id === ask.call.invocationId };
    ask.approve('once');
    let outcome = await call;
    out.once = { ok: outcome.ok, text: outcome.result.content[0].text, pendingAfter: pending.length };

    call = tool.invoke({ amount: 6 });
    (await nextAsk()).deny('not today');
    outcome = await call;
    out.deny = { ok: outcome.ok, reason: outcome.error?.reason, text: outcome.result.content[0].text };

    call = tool.invoke({ amount: 7 });
    ask = await nextAsk();
    ask.deny('stop', { halt: true });
    ask.approve('once'); // settled already: ignored
    outcome = await call;
    out.halt = { ok: outcome.ok, reason: outcome.error?.reason };

    // An agent's call through the browser waits for the same UI.
    const agent = rt.execute(name, { amount: 8 });
    (await nextAsk()).approve('always');
    out.agent = await agent;
    // The grant now settles the ask: nothing waits.
    outcome = await tool.invoke({ amount: 9 });
    out.granted = { ok: outcome.ok, pending: pending.length };

    // An aborted call leaves the list.
    const controller = new AbortController();
    call = tool.invoke({ amount: 10 }, { principal: 'someone-else', signal: controller.signal });
    await nextAsk();
    controller.abort();
    outcome = await call;
    await waitFor(() => pending.length === 0, 'the aborted ask to leave');
    out.aborted = { kind: outcome.error?.kind, pending: pending.length };
    out.ran = ran;

    // Unmounting the provider denies what is still pending.
    call = tool.invoke({ amount: 11 }, { principal: 'late' });
    await nextAsk();
    root.unmount();
    outcome = await call;
    out.unmounted = { reason: outcome.error?.reason, text: outcome.result.content[0].text };
    return out;
  } finally {
    rt.done();
    resetWebMCP();
  }
}

// <ApprovalDialog>: the oldest pending ask as an accessible alertdialog; Allow once, Escape
// denies, and an ask that expires while shown is announced until dismissed.
async function dialog(runtime) {
  resetWebMCP();
  configureWebMCP({ askTimeout: 1500, policy: { ask: [{ match: 'dlg_*', label: 'Big payments need your approval', when: { arg: '/amount', min: 5 } }], default: 'allow' } });
  const rt = useRuntime(runtime);
  const root = mountRoot();
  let tool;
  function Pay() {
    tool = useWebMCP(({ amount }) => `paid ${amount}`, { name: `dlg_pay_${runtime}`, title: 'Pay', description: 'Pays', inputSchema: { type: 'object', properties: { amount: { type: 'number' } } } }).tool;
    return null;
  }
  const q = (selector) => root.element.querySelector(selector);
  try {
    root.render(
      <WebMCPProvider approver>
        <Pay />
        <ApprovalDialog />
      </WebMCPProvider>,
    );
    await waitFor(() => tool?.status === 'registered', 'registered');
    const out = { idle: root.element.innerHTML };
    let call = tool.invoke({ amount: 6 });
    const dialogEl = await waitFor(() => q('[role="alertdialog"]'), 'the dialog');
    out.shown = {
      title: q('h2').textContent,
      labelledBy: document.getElementById(dialogEl.getAttribute('aria-labelledby'))?.textContent,
      describedBy: document.getElementById(dialogEl.getAttribute('aria-describedby'))?.textContent,
      args: [...root.element.querySelectorAll('dt, dd')].map((el) => el.textContent),
      time: q('[aria-live]').textContent,
      focused: document.activeElement === dialogEl,
      buttons: [...root.element.querySelectorAll('button')].map((b) => b.textContent),
    };
    [...root.element.querySelectorAll('button')].find((b) => b.textContent === 'Allow once').click();
    out.approved = (await call).result.content[0].text;
    await waitFor(() => q('[role="alertdialog"]') === null, 'the dialog to close');

    call = tool.invoke({ amount: 7 });
    const second = await waitFor(() => q('[role="alertdialog"]'), 'the dialog again');
    second.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    const denied = await call;
    out.escape = { reason: denied.error?.reason, text: denied.result.content[0].text };

    call = tool.invoke({ amount: 8 });
    await waitFor(() => q('[role="alertdialog"]'), 'the dialog a third time');
    const expired = await call;
    const alert = await waitFor(() => q('[role="alert"]'), 'the expired notice');
    out.expired = { reason: expired.error?.reason, cause: expired.error?.cause, notice: alert.textContent };
    [...root.element.querySelectorAll('button')].find((b) => b.textContent === 'Dismiss').click();
    await waitFor(() => q('[role="alert"]') === null, 'the notice to go');
    out.dismissed = root.element.innerHTML;
    return out;
  } finally {
    root.unmount();
    rt.done();
    resetWebMCP();
  }
}

window.__ready = true;

/** Counts a component's renders (function calls) and commits (StrictMode doubles only the former). */
function useCounted(counter, label) {
  counter.renders[label] = (counter.renders[label] ?? 0) + 1;
  useLayoutEffect(() => {
    counter.commits[label] = (counter.commits[label] ?? 0) + 1;
  });
}

function countsOf(counter) {
  return { renders: { ...counter.renders }, commits: { ...counter.commits } };
}

function delta(after, before) {
  const out = {};
  for (const kind of ['renders', 'commits']) {
    out[kind] = {};
    for (const label of Object.keys(after[kind])) out[kind][label] = after[kind][label] - (before[kind][label] ?? 0);
  }
  return out;
}

// Execution state: a slow tool called by an agent through the browser (and through invokeTool and
// tool.invoke), while running, after success, after a denial and after an error, with the count;
// and what it costs in renders: none while idle, none for another tool's calls.
async function execution(runtime) {
  resetWebMCP();
  const rt = useRuntime(runtime);
  const root = mountRoot();
  const slowName = `exec_slow_${runtime}`;
  const otherName = `exec_other_${runtime}`;
  const counter = { renders: {}, commits: {} };
  const gates = [];
  let hold = false;
  const seen = {};
  function Slow() {
    useCounted(counter, 'slow');
    const result = useWebMCP(
      async ({ mode }) => {
        if (hold) await new Promise((resolve) => gates.push(resolve));
        if (mode === 'throw') throw new Error('the cart service is down');
        return `done ${mode}`;
      },
      { name: slowName, description: 'Slow', inputSchema: { type: 'object', properties: { mode: { type: 'string' } } } },
    );
    seen.slow = result;
    const last = result.lastResult === undefined ? '-' : result.lastResult.ok ? 'ok' : result.lastError.kind;
    return <output id="exec-slow">{`${result.isExecuting ? 'executing' : 'idle'} ${result.executionCount} ${last}`}</output>;
  }
  function Other() {
    useCounted(counter, 'other');
    seen.other = useWebMCP(() => 'other', { name: otherName, description: 'Other' });
    return null;
  }
  function Activity() {
    useCounted(counter, 'activity');
    seen.activity = useAgentActivity();
    return <output id="exec-activity">{seen.activity.inProgress.map((call) => call.tool).join(',')}</output>;
  }
  const text = (id) => document.getElementById(id)?.textContent;
  const state = () => {
    const r = seen.slow;
    return {
      isExecuting: r.isExecuting,
      executionCount: r.executionCount,
      ok: r.lastResult?.ok ?? null,
      resultText: r.lastResult?.result.content[0].text ?? null,
      errorKind: r.lastError?.kind ?? null,
      errorReason: r.lastError?.reason ?? null,
      rendered: text('exec-slow'),
    };
  };
  try {
    root.render(
      <StrictMode>
        <WebMCPProvider hooks={{ before: [(ctx) => (ctx.input?.mode === 'deny' ? { action: 'deny', message: 'not now' } : undefined)] }}>
          <Slow />
          <Other />
          <Activity />
        </WebMCPProvider>
      </StrictMode>,
    );
    await waitFor(() => seen.slow.status === 'registered' && seen.other.status === 'registered', 'registered');
    await sleep(50);
    const out = { initial: state() };

    let mark = countsOf(counter);
    await sleep(300);
    out.idle = delta(countsOf(counter), mark);

    mark = countsOf(counter);
    for (let i = 0; i < 3; i++) await rt.execute(otherName, {});
    await waitFor(() => seen.other.executionCount === 3, 'three calls of the other tool');
    await sleep(20);
    out.otherCalls = { ...delta(countsOf(counter), mark), otherCount: seen.other.executionCount, tools: [...seen.activity.tools.keys()] };

    mark = countsOf(counter);
    hold = true;
    const agent = rt.execute(slowName, { mode: 'ok' });
    await waitFor(() => seen.slow.isExecuting, 'the call to show as executing');
    // One DOM read: the tool's state and the page-wide activity must agree (no tearing).
    out.running = { ...state(), inProgress: seen.activity.inProgress.map((call) => call.tool), activityText: text('exec-activity'), running: seen.activity.tools.get(slowName)?.running };
    await waitFor(() => gates.length === 1, 'the tool to wait');
    gates.shift()();
    hold = false;
    out.success = { agent: await agent, ...(await waitFor(() => seen.slow.executionCount === 1 && state(), 'the success')) };
    out.afterSuccess = { activityText: text('exec-activity'), inProgress: seen.activity.inProgress.length };

    out.denied = { agent: await rt.execute(slowName, { mode: 'deny' }), ...(await waitFor(() => seen.slow.executionCount === 2 && state(), 'the denial')) };
    out.failed = { agent: await rt.execute(slowName, { mode: 'throw' }), ...(await waitFor(() => seen.slow.executionCount === 3 && state(), 'the error')) };
    const byName = await invokeTool(slowName, { mode: 'by-name' });
    const own = await seen.slow.tool.invoke({ mode: 'own' });
    out.otherPaths = { byName: byName.ok, own: own.ok, ...(await waitFor(() => seen.slow.executionCount === 5 && state(), 'two more calls')) };
    await sleep(20);
    out.fiveCalls = delta(countsOf(counter), mark);

    mark = countsOf(counter);
    await sleep(300);
    out.idleAgain = delta(countsOf(counter), mark);
    root.unmount();
    return out;
  } finally {
    rt.done();
  }
}

// Two clients on one page (<WebMCPProvider client>), next to the default client: each keeps its
// tools, hooks, policy and activity to itself; all three reach the browser.
async function twoClients(runtime) {
  resetWebMCP();
  const rt = useRuntime(runtime);
  const root = mountRoot();
  const log = [];
  const a = createWarden({ hooks: { before: [() => void log.push('a:global')] } });
  const b = createWarden();
  const names = { a: `clients_a_${runtime}`, b: `clients_b_${runtime}`, bInner: `clients_b_inner_${runtime}`, def: `clients_default_${runtime}` };
  const counter = { renders: {}, commits: {} };
  const seen = {};
  function ToolOf({ label }) {
    seen[label] = useWebMCP(({ n }) => `${label}:${n}`, { name: names[label], description: label });
    seen[`${label}Client`] = useWardenClient();
    return null;
  }
  function ActivityOf({ label }) {
    useCounted(counter, label);
    seen[`${label}Activity`] = useAgentActivity();
    return null;
  }
  try {
    root.render(
      <StrictMode>
        <WebMCPProvider client={a} hooks={{ before: [() => void log.push('a:scoped')] }}>
          <ToolOf label="a" />
          <ActivityOf label="a" />
        </WebMCPProvider>
        <WebMCPProvider client={b} hooks={{ before: [() => void log.push('b:scoped')] }}>
          <ToolOf label="b" />
          <ActivityOf label="b" />
          <WebMCPProvider hooks={{ before: [() => void log.push('b:inner')] }}>
            <ToolOf label="bInner" />
          </WebMCPProvider>
        </WebMCPProvider>
        <ToolOf label="def" />
        <ActivityOf label="def" />
      </StrictMode>,
    );
    await waitFor(() => ['a', 'b', 'bInner', 'def'].every((label) => seen[label].status === 'registered'), 'registered');
    const sorted = (tools) => tools.map((tool) => tool.name).sort();
    const out = {
      browser: (await Promise.all(Object.values(names).map((name) => rt.live(name)))),
      listed: { a: sorted(await a.listTools()), b: sorted(await b.listTools()), def: sorted(await listTools()) },
      clients: { a: seen.aClient === a, b: seen.bClient === b, bInner: seen.bInnerClient === b, def: seen.defClient === getDefaultWarden() },
    };
    await sleep(30);
    const mark = countsOf(counter);
    out.agentA = await rt.execute(names.a, { n: 1 });
    out.logA = log.splice(0);
    await waitFor(() => seen.a.executionCount === 1, 'a counted');
    await sleep(20);
    out.afterA = {
      counts: { a: seen.a.executionCount, b: seen.b.executionCount, bInner: seen.bInner.executionCount, def: seen.def.executionCount },
      activity: { a: [...seen.aActivity.tools.keys()], b: [...seen.bActivity.tools.keys()], def: [...seen.defActivity.tools.keys()] },
      commits: delta(countsOf(counter), mark).commits,
    };
    out.agentBInner = await rt.execute(names.bInner, { n: 2 });
    out.logBInner = log.splice(0);
    out.agentDef = await rt.execute(names.def, { n: 3 });
    out.logDef = log.splice(0);
    out.cross = { aCallsB: (await a.invokeTool(names.b, {})).error?.kind, defCallsA: (await invokeTool(names.a, {})).error?.kind, bCallsBInner: (await b.invokeTool(names.bInner, { n: 4 })).ok };
    log.splice(0);
    a.configure({ policy: { deny: [{ match: '*', reason: 'a is closed' }] } });
    out.afterPolicy = { a: await rt.execute(names.a, { n: 5 }), b: await rt.execute(names.b, { n: 6 }), def: await rt.execute(names.def, { n: 7 }) };
    root.unmount();
    await sleep(30);
    out.end = await Promise.all(Object.values(names).map((name) => rt.live(name)));
    return out;
  } finally {
    a.dispose();
    b.dispose();
    rt.done();
  }
}

// Hydration of server HTML (what react-ssr.test.mjs renders for the same tree: idle execution
// state, unregistered, not supported): no mismatch, then the live state takes over.
async function hydrate(runtime) {
  resetWebMCP();
  const rt = useRuntime(runtime);
  const name = `hydrate_${runtime}`;
  const seen = {};
  const recoverable = [];
  function Tool() {
    const result = useWebMCP(() => 'hydrated', { name, description: 'Hydrated' });
    const activity = useAgentActivity();
    seen.result = result;
    return <output>{`${result.status} ${result.supported} ${result.isExecuting} ${result.executionCount} ${activity.inProgress.length}`}</output>;
  }
  const element = document.createElement('div');
  element.innerHTML = '<output>unregistered false false 0 0</output>';
  document.body.append(element);
  let root;
  try {
    root = hydrateRoot(
      element,
      <StrictMode>
        <WebMCPProvider>
          <Tool />
        </WebMCPProvider>
      </StrictMode>,
      { onRecoverableError: (error) => recoverable.push(String(error)) },
    );
    await waitFor(() => seen.result?.status === 'registered', 'registered');
    await sleep(20);
    const hydrated = element.textContent;
    const agent = await rt.execute(name, {});
    await waitFor(() => seen.result.executionCount === 1, 'the call counted');
    await sleep(20);
    return { recoverable, hydrated, agent, after: element.textContent };
  } finally {
    root?.unmount();
    element.remove();
    rt.done();
  }
}

window.__react = { strict, rerender, providerUpdate, twoProviders, toggle, approvals, dialog, execution, twoClients, hydrate };
window.__ready = true;
