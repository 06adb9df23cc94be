// webmcp-warden/react on a server (SPEC §12): renderToString with no `document` registers
// nothing and does not throw; provider hooks are checked when the provider renders; and the
// scopes a render builds already govern calls made through `result.tool.invoke` (so scoped
// hooks and per-provider approvers are tested here without a DOM; registration, StrictMode and
// re-renders are tested in Chromium by test-browser/react.test.mjs).
//
// Build first: `WASM_OPT=0 node pkg-js/build.mjs`.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { webmcp, configureWebMCP, resetWebMCP, listTools, invokeTool, ConfigurationError } from 'webmcp-warden';
import { WebMCPProvider, WebMCPHooksContext, useWebMCP, useApprovals, useWebMCPHooksContext } from 'webmcp-warden/react';

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

// Nested providers merge additively (`[...outer, ...inner]`) into one scoped level, and SPEC §4
// keeps declaration order inside a level for after-hooks too (simple-webmcp's mergeHooksOrdered).
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
  // The same module instance the package uses (the workspace link resolves to this file).
  const { getDefaultWarden, internalOf } = await import('../dist/api.js');
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
