// Test page of react.test.mjs: bundled by esbuild (React's development build, so StrictMode
// double-invokes effects) and driven from the test through `window.__react.<scenario>(runtime)`.
// `runtime` is 'native' (Chromium's document.modelContext) or 'fake' (webmcp-warden/testing,
// which honours abort signals like Chrome). Each scenario cleans up after itself and answers
// plain JSON for the test to check.
import { StrictMode, useState, version as reactVersion } from 'react';

// Which React the page was bundled with (react18.test.mjs runs this suite against React 18).
window.__reactVersion = reactVersion;
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { webmcp, configureWebMCP, resetWebMCP } from 'webmcp-warden';
import { WebMCPProvider, useWebMCP, useApprovals } from 'webmcp-warden/react';
import { installFakeModelContext } from 'webmcp-warden/testing';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(predicate, what, ms = 5000) {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

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

window.__react = { strict, rerender, providerUpdate, twoProviders, toggle, approvals };
window.__ready = true;
