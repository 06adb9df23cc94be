// webmcp-warden/react on a server (`docs/behaviour.md`, "React"): renderToString with no `document` registers
// nothing and does not throw; provider hooks are checked when the provider renders; and the
// scopes a render builds already govern calls made through `result.tool.invoke` (so scoped
// hooks and per-provider approvers are tested here without a DOM; registration, StrictMode,
// re-renders and execution state are tested in Chromium by test-browser/react.test.mjs).
// `<WebMCPProvider client>`: per-request clients keep scopes, tools and approvers apart, and
// the execution state a server renders is idle.
//
// Build first: `WASM_OPT=0 node pkg-js/build.mjs`.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { Suspense, createElement as h, use } from 'react';
import { renderToPipeableStream, renderToString } from 'react-dom/server';
import { webmcp, configureWebMCP, resetWebMCP, listTools, invokeTool, ConfigurationError, createWarden, getDefaultWarden } from '../lib/index.js';
import { WebMCPProvider, WebMCPHooksContext, useWebMCP, useApprovals, useWebMCPHooksContext, useAgentActivity, useWardenClient } from '../lib/react.js';
// The same module instance the package uses (the workspace link resolves to this file).
import { internalOf } from '../lib/api/api.js';
import { activityOf } from '../lib/react/activity.js';

let counter = 0;
const unique = (base) => `${base}_${++counter}`;
const text = (outcome) => outcome.result.content[0].text;

beforeEach(() => resetWebMCP());
afterEach(() => resetWebMCP());

/** Renders `element` and returns the markup and whatever the probes captured. */
function render(element) {
  return renderToString(element);
}

test('no document: rendering a provider and tools registers nothing and does not throw', async () => {
  assert.equal(typeof document, 'undefined');
  const name = unique('ssr_add');
  const shared = webmcp(({ a }) => a, { name: unique('ssr_shared'), description: 'Shared' });
  const seen = [];
  function Tools() {
    const fnForm = useWebMCP(({ a, b }) => a + b, { name, description: 'Add', hooks: { before: [() => undefined] } });
    const toolForm = useWebMCP(shared);
    seen.push(fnForm, toolForm);
    return h('p', null, `${fnForm.status}/${String(fnForm.supported)}/${String(fnForm.registered)}/${toolForm.status}`);
  }
  const html = render(h(WebMCPProvider, { hooks: { before: [() => undefined] }, approver: true }, h(Tools)));
  assert.match(html, /unregistered\/false\/false\/unregistered/);
  assert.deepEqual(await listTools(), [], 'nothing is visible to an in-page agent');
  assert.equal((await invokeTool(name, { a: 1, b: 2 })).error.kind, 'not_found');
  for (const result of seen) {
    assert.equal(result.error, null);
    assert.equal(result.tool.status, 'unregistered');
  }
  assert.equal(shared.status, 'unregistered');
  // The tool itself works: a direct call, and the governed path without registration.
  assert.equal(seen[0].tool({ a: 2, b: 3 }), 5);
  assert.equal(text(await seen[0].tool.invoke({ a: 2, b: 3 })), '5');
});

test('invalid provider hooks throw ConfigurationError naming the event and entry', () => {
  assert.throws(
    () => render(h(WebMCPProvider, { hooks: { before: [() => undefined, 42] } }, 'x')),
    (err) => err instanceof ConfigurationError && /before\[1\]/.test(`${err.path} ${err.message}`),
  );
  assert.throws(
    () => render(h(WebMCPProvider, { hooks: { after: [{ run: () => undefined, bogus: 1 }] } }, 'x')),
    (err) => err instanceof ConfigurationError && /after\[0\]/.test(`${err.path} ${err.message}`),
  );
  assert.throws(() => render(h(WebMCPProvider, { approver: 'yes' }, 'x')), ConfigurationError);
});

test('a hook id used by an outer provider or a global hook is rejected at mount', () => {
  const outer = { before: [{ id: 'audit', run: () => undefined }] };
  assert.throws(
    () => render(h(WebMCPProvider, { hooks: outer }, h(WebMCPProvider, { hooks: { before: [{ id: 'audit', run: () => undefined }] } }, 'x'))),
    (err) => err instanceof ConfigurationError && err.code === 'duplicate_hook_id',
  );
  configureWebMCP({ hooks: { after: [{ id: 'global-log', run: () => undefined }] } });
  assert.throws(
    () => render(h(WebMCPProvider, { hooks: { after: [{ id: 'global-log', run: () => undefined }] } }, 'x')),
    (err) => err instanceof ConfigurationError && err.code === 'duplicate_hook_id',
  );
  // Siblings do not see each other's ids.
  render(h('div', null, h(WebMCPProvider, { hooks: outer }, 'a'), h(WebMCPProvider, { hooks: outer }, 'b')));
});

test('useWebMCPHooksContext: nested providers merge additively, outer first', () => {
  const a = () => undefined;
  const b = () => undefined;
  const c = () => undefined;
  let merged;
  let outside;
  function Probe() {
    merged = useWebMCPHooksContext();
    return null;
  }
  function Outside() {
    outside = useWebMCPHooksContext();
    return null;
  }
  render(h('div', null, h(Outside), h(WebMCPProvider, { hooks: { before: [a], after: [c] } }, h(WebMCPProvider, { hooks: { before: [b] } }, h(Probe)))));
  assert.deepEqual(merged.before, [a, b]);
  assert.deepEqual(merged.after, [c]);
  assert.deepEqual(outside, {});
  assert.ok(WebMCPHooksContext, 'the context is exported');
});

// Nested providers merge additively (`[...outer, ...inner]`) into one scoped level, and the
// declaration order inside a level holds for after-hooks too (simple-webmcp's mergeHooksOrdered).
test('scoped hooks run global → scoped (outer, inner) → tool; after-hooks tool → scoped → global', async () => {
  const log = [];
  const mark = (label) => () => void log.push(label);
  configureWebMCP({ hooks: { before: [mark('global:before')], after: [mark('global:after')] } });
  let result;
  function Tool() {
    result = useWebMCP(() => log.push('tool') && 'done', {
      name: unique('ordered'),
      description: 'Ordered',
      hooks: { before: [mark('tool:before')], after: [mark('tool:after')] },
    });
    return null;
  }
  render(
    h(WebMCPProvider, { hooks: { before: [mark('outer:before')], after: [mark('outer:after')] } },
      h(WebMCPProvider, { hooks: { before: [mark('inner:before')], after: [mark('inner:after')] } }, h(Tool))),
  );
  const outcome = await result.tool.invoke({});
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  assert.deepEqual(log, [
    'global:before', 'outer:before', 'inner:before', 'tool:before',
    'tool',
    'tool:after', 'outer:after', 'inner:after', 'global:after',
  ]);
});

test('one tool under two providers keeps each provider\'s hooks apart', async () => {
  const shared = webmcp((input) => input, { name: unique('shared'), description: 'Shared', shape: false });
  const log = [];
  const views = {};
  function Mount({ label }) {
    views[label] = useWebMCP(shared).tool;
    return null;
  }
  render(
    h('div', null,
      h(WebMCPProvider, { hooks: { before: [(ctx) => void log.push(`A:${ctx.input.who}`)] } }, h(Mount, { label: 'a' })),
      h(WebMCPProvider, { hooks: { before: [(ctx) => void log.push(`B:${ctx.input.who}`)] } }, h(Mount, { label: 'b' })),
      h(Mount, { label: 'none' })),
  );
  await views.a.invoke({ who: 'a' });
  await views.b.invoke({ who: 'b' });
  await views.none.invoke({ who: 'none' });
  await views.a.invoke({ who: 'a2' });
  assert.deepEqual(log, ['A:a', 'B:b', 'A:a2'], 'no last-write-wins: each mount runs its own provider\'s hooks');
  assert.notEqual(views.a, views.b);
  assert.equal(views.a.toolName, shared.toolName);
  assert.equal(views.a.fingerprint, shared.fingerprint);
  // The tool itself, outside any mount, has no provider hooks.
  await shared.invoke({ who: 'raw' });
  assert.deepEqual(log, ['A:a', 'B:b', 'A:a2']);
});

test('an approver on a provider settles asks of its tools; others use the global approver', async () => {
  configureWebMCP({ policy: { ask: ['*'] }, onAsk: () => ({ deny: 'global says no' }) });
  const views = {};
  const asked = [];
  function Mount({ label, name }) {
    views[label] = useWebMCP(() => `ran ${label}`, { name, description: label }).tool;
    return null;
  }
  const approver = (call) => {
    asked.push(call.name);
    return { allow: 'once' };
  };
  const inner = unique('inner');
  const nested = unique('nested');
  const outside = unique('outside');
  render(
    h('div', null,
      h(WebMCPProvider, { approver },
        h(Mount, { label: 'inner', name: inner }),
        h(WebMCPProvider, { hooks: { before: [() => undefined] } }, h(Mount, { label: 'nested', name: nested })),
        h(WebMCPProvider, { approver: () => ({ deny: 'nearest says no' }) }, h(Mount, { label: 'nearest', name: unique('nearest') }))),
      h(Mount, { label: 'outside', name: outside })),
  );
  assert.equal(text(await views.inner.invoke({})), 'ran inner');
  assert.equal(text(await views.nested.invoke({})), 'ran nested', 'a provider without an approver inherits its parent\'s');
  const nearest = await views.nearest.invoke({});
  assert.equal(nearest.error.reason, 'ask_denied');
  assert.equal(text(nearest), 'Denied: nearest says no');
  const global = await views.outside.invoke({});
  assert.equal(text(global), 'Denied: global says no');
  assert.deepEqual(asked, [inner, nested]);
});

test('useApprovals: empty on the server, and only inside <WebMCPProvider approver>', () => {
  let seen;
  function Panel() {
    seen = useApprovals();
    return h('span', null, String(seen.pending.length));
  }
  assert.match(render(h(WebMCPProvider, { approver: true }, h(Panel))), /0/);
  assert.deepEqual(seen.pending, []);
  assert.throws(() => render(h(Panel)), (err) => err instanceof ConfigurationError && err.code === 'no_approver');
  assert.throws(() => render(h(WebMCPProvider, { approver: () => ({ allow: 'once' }) }, h(Panel))), ConfigurationError);
});

test('useWebMCP checks its arguments', () => {
  const tool = webmcp(() => 1, { name: unique('checked'), description: 'x' });
  function Bad({ args }) {
    useWebMCP(...args);
    return null;
  }
  assert.throws(() => render(h(Bad, { args: [tool, { description: 'no' }] })), (err) => err instanceof ConfigurationError && err.code === 'unknown_option');
  assert.throws(() => render(h(Bad, { args: [42] })), ConfigurationError);
  assert.throws(() => render(h(Bad, { args: [() => 1, { name: 'bad name!', description: 'x' }] })), (err) => err.code === 'invalid_name');
  assert.throws(() => render(h(Bad, { args: [() => 1, { name: unique('g'), description: 'x', scope: 'global' }] })), ConfigurationError);
  assert.throws(() => render(h(Bad, { args: [() => 1, { name: unique('e'), description: 'x', enabled: 'yes' }] })), ConfigurationError);
});

test('after resetWebMCP, a rendered provider\'s scope is added again', async () => {
  const log = [];
  let result;
  function Tool() {
    result = useWebMCP(() => 'ok', { name: unique('reset'), description: 'x' });
    return null;
  }
  render(h(WebMCPProvider, { hooks: { before: [() => void log.push('scoped')] } }, h(Tool)));
  await result.tool.invoke({});
  resetWebMCP();
  await result.tool.invoke({});
  assert.deepEqual(log, ['scoped', 'scoped']);
});

test('core resources of providers and per-mount tools are released when collected, not before', async () => {
  const v8 = await import('node:v8');
  const vm = await import('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const held = () => internalOf(getDefaultWarden()).counts().hookFunctions;
  const kept = [];
  let keep;
  function Tool({ name }) {
    const result = useWebMCP(() => 'ok', { name, description: 'x', hooks: { before: [() => undefined] } });
    if (keep) kept.push(result.tool);
    return null;
  }
  const renderOne = () => render(h(WebMCPProvider, { hooks: { before: [(ctx) => void (ctx.metadata.scoped = true)] } }, h(Tool, { name: unique('gc') })));
  keep = true;
  const log = [];
  render(h(WebMCPProvider, { hooks: { after: [() => void log.push('kept provider')] } }, h(Tool, { name: unique('kept') })));
  keep = false;
  const before = held();
  for (let i = 0; i < 100; i++) renderOne();
  assert.ok(held() >= before + 200, 'each render compiled a provider set and a tool set');
  for (let round = 0; round < 20 && held() > before; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(held() <= before + 4, `released after collection: ${held() - before} hook handles left`);
  // What is still referenced still works, with its provider's hooks.
  gc();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(text(await kept[0].invoke({})), 'ok');
  assert.deepEqual(log, ['kept provider']);
});

// ---------------------------------------------------------------------------------------------
// <WebMCPProvider client>, per-request clients, execution state on a server

/** Streams `element` like a server answering a request; resolves with the whole HTML. */
function stream(element) {
  return new Promise((resolve, reject) => {
    const { pipe } = renderToPipeableStream(element, {
      onAllReady() {
        const out = new PassThrough();
        let html = '';
        out.on('data', (chunk) => (html += chunk));
        out.on('end', () => resolve(html));
        pipe(out);
      },
      onShellError: reject,
      onError: reject,
    });
  });
}

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

/** Suspends until `promise` resolves (a data fetch of the request). */
function Gate({ promise, children }) {
  use(promise);
  return children;
}

const counts = (client) => internalOf(client).counts();

test('per-request clients: two interleaved server renders keep scopes, tools and approvers apart, and register nothing', async () => {
  const before = counts(getDefaultWarden());
  const requests = ['a', 'b'].map((label) => ({ label, client: createWarden(), gate: deferred(), log: [], seen: {} }));
  function Tool({ request }) {
    const result = useWebMCP((input) => `${request.label}:${input.n}`, { name: 'checkout', description: 'Pays', shape: false });
    request.seen.result = result;
    request.seen.client = useWardenClient();
    return h('i', null, result.status);
  }
  const app = (request) =>
    h(WebMCPProvider, { client: request.client, hooks: { before: [() => void request.log.push(`${request.label}:scoped`)] }, approver: () => ({ deny: `${request.label} approver` }) },
      h(Suspense, { fallback: 'loading' }, h(Gate, { promise: request.gate.promise }, h(Tool, { request }))));
  // Both requests start, both suspend inside their provider, and resume in the other order.
  const pages = requests.map((request) => stream(app(request)));
  await new Promise((resolve) => setTimeout(resolve, 10));
  requests[1].gate.resolve();
  await new Promise((resolve) => setTimeout(resolve, 10));
  requests[0].gate.resolve();
  const html = await Promise.all(pages);
  for (const [i, request] of requests.entries()) {
    assert.match(html[i], /unregistered/);
    const { result, client } = request.seen;
    assert.equal(client, request.client, 'useWardenClient() is the provider\'s client');
    assert.equal(internalOf(client), internalOf(request.client));
    assert.deepEqual(await request.client.listTools(), [], 'nothing registered');
    assert.equal(result.tool.status, 'unregistered');
    assert.equal((await result.tool.invoke({ n: 1 })).result.content[0].text, `${request.label}:1`);
    // The tool belongs to the request's client: its registry answers for it, no one else's.
    assert.equal((await request.client.invokeTool('checkout', {})).error.kind, 'not_found', 'unregistered: not callable by name');
  }
  assert.deepEqual(requests[0].log, ['a:scoped']);
  assert.deepEqual(requests[1].log, ['b:scoped']);
  for (const request of requests) {
    assert.equal(counts(request.client).scopes, 1, 'one provider scope, in this request\'s core');
    request.client.configure({ policy: { ask: ['*'] } });
    const denied = await request.seen.result.tool.invoke({ n: 2 });
    assert.equal(denied.result.content[0].text, `Denied: ${request.label} approver`, 'each provider\'s approver, in its own client');
  }
  const after = counts(getDefaultWarden());
  assert.deepEqual({ scopes: after.scopes, tools: after.tools, sets: after.sets }, { scopes: before.scopes, tools: before.tools, sets: before.sets }, 'the default client saw nothing');
  // A request ends: its client goes; what the render left is freed with it, finalizers included.
  for (const request of requests) request.client.dispose();
  assert.equal((await requests[0].seen.result.tool.invoke({})).ok, false, 'a disposed client runs nothing');
  requests.length = 0;
  const v8 = await import('node:v8');
  const vm = await import('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
});

test('nested providers inherit the nearest client; a provider of another client starts a tree of its own', async () => {
  const a = createWarden();
  const b = createWarden();
  const log = [];
  const seen = {};
  function Probe({ label }) {
    seen[label] = { client: useWardenClient(), hooks: useWebMCPHooksContext(), tool: useWebMCP(() => label, { name: `nested_${label}`, description: label }).tool };
    return null;
  }
  function Approvals({ label }) {
    try {
      useApprovals();
      seen[`${label}Approvals`] = 'ok';
    } catch (err) {
      seen[`${label}Approvals`] = err.code;
    }
    return null;
  }
  const mark = (label) => () => void log.push(label);
  const outerHook = mark('a:outer');
  render(
    h(WebMCPProvider, { client: a, hooks: { before: [outerHook] }, approver: true },
      h(Probe, { label: 'outer' }),
      h(WebMCPProvider, { hooks: { before: [mark('a:inner')] } }, h(Probe, { label: 'inner' }), h(Approvals, { label: 'inner' })),
      h(WebMCPProvider, { client: b, hooks: { before: [mark('b')] } }, h(Probe, { label: 'other' }), h(Approvals, { label: 'other' }))),
  );
  assert.equal(seen.outer.client, a);
  assert.equal(seen.inner.client, a, 'a provider without client inherits it');
  assert.equal(seen.other.client, b);
  assert.equal(seen.inner.hooks.before.length, 2);
  assert.equal(seen.inner.hooks.before[0], outerHook);
  assert.equal(seen.other.hooks.before.length, 1, 'the outer client\'s hooks do not reach into another client\'s tree');
  assert.equal(seen.innerApprovals, 'ok');
  assert.equal(seen.otherApprovals, 'no_approver', 'nor does its approval queue');
  await seen.inner.tool.invoke({});
  await seen.other.tool.invoke({});
  assert.deepEqual(log, ['a:outer', 'a:inner', 'b']);
  assert.equal(internalOf(a).counts().tools >= 2 && internalOf(b).counts().tools >= 1, true);
  a.dispose();
  b.dispose();
});

test('a tool belongs to the client it was made in: mounting it under another client is a ConfigurationError', () => {
  const a = createWarden();
  const b = createWarden();
  const ofA = a.webmcp(() => 1, { name: 'of_a', description: 'x' });
  const ofDefault = webmcp(() => 1, { name: unique('of_default'), description: 'x' });
  function Mount({ tool }) {
    useWebMCP(tool);
    return null;
  }
  const mismatch = (err) => err instanceof ConfigurationError && err.code === 'client_mismatch' && /"of_a"|"of_default_\d+"/.test(err.message) && /another webmcp-warden client/.test(err.message);
  assert.throws(() => render(h(WebMCPProvider, { client: b }, h(Mount, { tool: ofA }))), mismatch);
  assert.throws(() => render(h(WebMCPProvider, { client: a }, h(Mount, { tool: ofDefault }))), mismatch);
  assert.throws(() => render(h(Mount, { tool: ofA })), (err) => mismatch(err) && /default client/.test(err.message));
  // Under its own client, and the default tool outside any provider: fine.
  render(h(WebMCPProvider, { client: a }, h(WebMCPProvider, null, h(Mount, { tool: ofA }))));
  render(h(Mount, { tool: ofDefault }));
  assert.throws(() => render(h(WebMCPProvider, { client: {} }, 'x')), (err) => err instanceof ConfigurationError && err.path === 'client');
  // A client is one object (its state is itself): an object made to look like one is not one.
  assert.equal(internalOf(a), a);
  assert.throws(() => render(h(WebMCPProvider, { client: Object.create(a) }, 'x')), ConfigurationError, 'an object inheriting from a client is not a client');
  a.dispose();
  b.dispose();
});

test('execution state on a server is idle, even while a call is in progress; the result carries it', async () => {
  const client = createWarden();
  const store = activityOf(internalOf(client));
  const stop = store.subscribe(() => undefined);
  const gate = deferred();
  const slow = client.webmcp(() => gate.promise, { name: 'ssr_slow', description: 'Slow' });
  const running = slow.invoke({});
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(store.getSnapshot().inProgress.length, 1, 'the store sees the call');
  let fromTool;
  let fromFn;
  let activity;
  function Probe() {
    fromTool = useWebMCP(slow);
    fromFn = useWebMCP(() => 1, { name: 'ssr_fn', description: 'x' });
    activity = useAgentActivity();
    return h('b', null, `${fromTool.isExecuting}/${fromTool.executionCount}/${activity.inProgress.length}`);
  }
  const html = render(h(WebMCPProvider, { client }, h(Probe)));
  assert.match(html, /false\/0\/0/);
  for (const result of [fromTool, fromFn]) {
    assert.deepEqual(
      { isExecuting: result.isExecuting, lastResult: result.lastResult, lastError: result.lastError, executionCount: result.executionCount, error: result.error },
      { isExecuting: false, lastResult: undefined, lastError: null, executionCount: 0, error: null },
    );
  }
  assert.deepEqual(activity.inProgress, []);
  assert.equal(activity.tools.size, 0);
  assert.ok(Object.isFrozen(activity));
  gate.resolve('done');
  assert.equal((await running).ok, true);
  assert.equal(store.tool('ssr_slow').executionCount, 1, 'the store counted it (a client render would show it)');
  stop();
  client.dispose();
});

test('the server HTML test-browser/react-page.jsx hydrates (its "hydrate" scenario) is what a server renders', () => {
  function Tool() {
    const result = useWebMCP(() => 'hydrated', { name: unique('hydrate'), description: 'Hydrated' });
    const activity = useAgentActivity();
    return h('output', null, `${result.status} ${result.supported} ${result.isExecuting} ${result.executionCount} ${activity.inProgress.length}`);
  }
  assert.equal(render(h(WebMCPProvider, null, h(Tool))), '<output>unregistered false false 0 0</output>');
});
