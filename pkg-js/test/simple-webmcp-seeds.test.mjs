// The simple-webmcp hook reference's examples, run as a simple-webmcp user writes them: only
// the module name changes (`simple-webmcp` → `webmcp-warden`). What each example's comment
// promises is asserted. The React provider example is in test-browser/ and react-ssr.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, getGlobalHooks, resetGlobalHooks, mergeHooks, mergeHooksOrdered, createHookedExecute, genInvocationId, resetWebMCP } from 'webmcp-warden';

test('webmcp.configure accumulates global hooks unless replace: true; the named exports are the same singleton', () => {
  resetWebMCP();
  const a = () => {};
  const b = () => {};
  const c = () => {};
  webmcp.configure({ hooks: { before: [a] } });
  webmcp.configure({ hooks: { before: [b] } }); // => [a,b]
  assert.deepEqual(getGlobalHooks().before, [a, b]);
  webmcp.configure({ hooks: { before: [c] }, replace: true }); // => [c]
  assert.deepEqual(getGlobalHooks().before, [c]);
  const hooks = { after: [a] };
  configureWebMCP({ hooks });
  assert.deepEqual(getGlobalHooks(), { before: [c], after: [a] }); // current global hooks
  resetGlobalHooks(); // clear — use in tests
  assert.deepEqual(getGlobalHooks(), {});
});

test('WebMCPOptions.hooks re-wraps via concat', async () => {
  resetWebMCP();
  const order = [];
  const a = () => void order.push('a');
  const b = () => void order.push('b');
  const fn = async function addToCart() {
    return 'added';
  };
  // As the example writes it, no name given: the tool's name is derived from the function's,
  // in snake_case (addToCart → add_to_cart).
  const t1 = webmcp(fn, { hooks: { before: [a] } });
  const t2 = webmcp(t1, { hooks: { before: [b] } }); // before = [a,b]
  assert.equal(t1.toolName, 'add_to_cart', 'the name is derived from the function: snake_case of addToCart');
  assert.equal(t2.toolName, 'add_to_cart', 're-wrapping keeps the name');
  await t2.invoke({});
  assert.deepEqual(order, ['a', 'b']);
});

test('hooks that return what their work happens to return, as simple-webmcp users write them', async () => {
  resetWebMCP();
  const log = [];
  const analytics = { track: (name) => ({ queued: true, name }) };
  const audit = () => Promise.resolve({ ok: true, status: 204 }); // what fetch('/audit', …) resolves to, near enough
  configureWebMCP({
    hooks: {
      before: [(ctx) => log.push(ctx.tool.toolName), (ctx) => analytics.track(`tool:${ctx.tool.toolName}`)],
      after: [(ctx) => audit(ctx.output)],
      error: [(ctx) => log.push(ctx.error)],
      denied: [(ctx) => log.push(ctx.reason)],
    },
  });
  const t = webmcp(async function getCart() {
    return { items: 2 };
  }, { name: 'get_cart', description: 'The cart' });
  const outcome = await t.invoke({});
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  assert.equal(t.toolName, 'get_cart');
  assert.deepEqual(log, ['get_cart']);
  resetWebMCP();
});

test('a before-hook deny stops the chain, runs denied[], and the agent reads an isError result', async () => {
  resetWebMCP();
  const seen = [];
  const t = webmcp(async function deleteAccount() {
    return 'deleted';
  }, {
    name: 'delete_account',
    hooks: {
      before: [() => ({ action: 'deny', message: 'Not allowed', code: 'E_POLICY' })],
      denied: [(ctx) => void seen.push([ctx.reason, ctx.code])],
    },
  });
  const outcome = await t.invoke({});
  assert.equal(outcome.result.isError, true);
  assert.equal(outcome.result.content[0].text, 'Denied: Not allowed');
  assert.deepEqual(seen, [['Not allowed', 'E_POLICY']]);
});

test('metadata is the same reference across all hooks in one invocation', async () => {
  resetWebMCP();
  const ids = [];
  const t = webmcp(async function ping() {
    return 'pong';
  }, {
    name: 'ping',
    hooks: {
      before: [(ctx) => { ctx.metadata.requestId = genInvocationId(); }],
      after: [(ctx) => { ids.push(ctx.metadata.requestId); }],
    },
  });
  await t.invoke({});
  assert.equal(typeof ids[0], 'string');
});

test('mergeHooks concatenates per phase; mergeHooksOrdered orders scopes; createHookedExecute runs them', async () => {
  const order = [];
  const mark = (label) => () => void order.push(label);
  const a = { before: [mark('a.before')], after: [mark('a.after')] };
  const b = { before: [mark('b.before')], after: [mark('b.after')] };
  assert.deepEqual(mergeHooks(a, b).before.length, 2); // concat a+b per phase
  const globalHooks = { before: [mark('global before')], after: [mark('global after')] };
  const scopedHooks = { before: [mark('scoped before')], after: [mark('scoped after')] };
  const toolHooks = { before: [mark('tool before')], after: [mark('tool after')] };
  const ordered = mergeHooksOrdered({ globalHooks, scopedHooks, toolHooks });
  // => { before:[global,scoped,tool], after:[tool,scoped,global], error:[tool,scoped,global], denied:[tool,scoped,global] }
  assert.deepEqual(Object.keys(ordered).sort(), ['after', 'before', 'denied', 'error', 'toolsListed']);

  class ValidationError extends Error {}
  const standard = { '~standard': { version: 1, vendor: 'test', validate: (input) => (typeof input.q === 'string' ? { value: input } : { issues: [{ message: 'q must be a string' }] }) } };
  const fn = async (input) => `searched ${input.q}`;
  const tool = webmcp(fn, { name: 'search' });
  const contract = tool.definition;
  const execute = createHookedExecute(fn, tool, contract, {
    getHooks: () => mergeHooksOrdered({ globalHooks, scopedHooks, toolHooks }),
    validate: (input) => { // after before enrichment, before fn
      const r = standard['~standard'].validate(input);
      if ('issues' in r) throw new ValidationError(r.issues[0].message);
    },
  });
  const result = await execute({ q: 'mugs' });
  assert.deepEqual(result, { content: [{ type: 'text', text: 'searched mugs' }] });
  assert.deepEqual(order, ['global before', 'scoped before', 'tool before', 'tool after', 'scoped after', 'global after']);
  const invalid = await execute({ q: 7 });
  assert.equal(invalid.isError, true);
  assert.equal(invalid.content[0].text, 'Error: q must be a string');
  assert.equal(typeof genInvocationId(), 'string'); // crypto.randomUUID() || fallback
});
