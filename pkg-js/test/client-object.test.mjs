// A client is one object (ARCHITECTURE.md, "Handles, clients and lifecycle"): `createWarden()`
// answers an instance of one class that holds all of the client's state, its public methods
// bound to it, so a destructured method works; no table keyed by a client holds any of it, so
// two clients share nothing (grants, registration syncs, console notes, suspension).
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigurationError, createWarden, explain, getDefaultWarden, readResource } from '../lib/index.js';
import { installFakeModelContext } from '../lib/testing.js';
import { internalOf } from '../lib/api/api.js';
import { captureConsole, sleep, textOf } from '../test-support/lib-helpers.mjs';

const made = [];
/** A client disposed after the test. */
function client(options) {
  const c = createWarden(options);
  made.push(c);
  return c;
}
afterEach(() => {
  for (const c of made.splice(0)) c.dispose();
});

test('a client is one object: what the package keeps of it is the client itself, and a copy of one is not a client', async () => {
  const c = client();
  assert.equal(internalOf(c), c, 'the client holds its own state');
  assert.equal(internalOf(getDefaultWarden()), getDefaultWarden());
  const tool = c.webmcp(() => 'ok', { name: 'one_object', description: 'd' });
  await tool.register();
  assert.equal((await c.invokeTool('one_object', {})).ok, true);
  tool.unregister();
  // A spread copy carries the bound methods, an object inheriting from a client reads its
  // fields: neither is a client the package made, and both are refused as one.
  for (const fake of [{ ...c }, Object.create(c), new Proxy(c, {})]) {
    assert.equal(internalOf(fake), undefined);
    await assert.rejects(explain('one_object', {}, { client: fake }), (err) => err instanceof ConfigurationError && err.path === 'client');
    await assert.rejects(readResource('app://x', { client: fake }), (err) => err instanceof ConfigurationError && err.path === 'client');
  }
});

test('destructured methods of a created client (and of the default client) work', async () => {
  const c = client();
  const { webmcp, configure, invokeTool, listTools, onTelemetry, listGrants, revokeGrant, clearGrants, getGlobalHooks, resetGlobalHooks, suspendAgents, resumeAgents, suspension, reset, dispose } = c;
  const events = [];
  const stop = onTelemetry((event) => events.push(event.name));
  configure({ hooks: { before: [{ id: 'global', run: () => undefined }] }, policy: { ask: [{ match: 'pay' }], default: 'allow' }, onAsk: () => ({ allow: 'always' }) });
  assert.deepEqual(Object.keys(getGlobalHooks()), ['before']);
  await webmcp(() => 'paid', { name: 'pay', description: 'Pays' }).register();
  assert.deepEqual((await listTools()).map((tool) => tool.name), ['pay']);
  assert.equal(textOf(await invokeTool('pay', {})), 'paid');
  assert.equal((await listGrants()).length, 1, 'the approval was recorded as a grant');
  assert.equal(await revokeGrant({ tool: 'pay' }), 1);
  await clearGrants();
  assert.deepEqual(await listGrants(), []);
  suspendAgents('maintenance');
  assert.equal(suspension(), 'maintenance');
  assert.equal((await invokeTool('pay', {})).error.reason, 'suspended');
  resumeAgents();
  assert.equal(suspension(), null);
  resetGlobalHooks();
  assert.deepEqual(getGlobalHooks(), {});
  assert.ok(events.includes('agents.suspended') && events.includes('agents.resumed'), events.join());
  stop();
  reset();
  assert.deepEqual(await listTools(), [], 'reset unregistered the tool');
  dispose();
  assert.throws(() => webmcp(() => 1, { name: 'late', description: 'd' }), (err) => err instanceof ConfigurationError && err.code === 'disposed');
  assert.equal((await invokeTool('pay', {})).error.reason, 'disposed');

  // The default client's methods are bound the same way (the top-level functions are them).
  const { webmcp: make, invokeTool: call } = getDefaultWarden();
  const t = make(() => 'default', { name: 'destructured_default', description: 'd' });
  await t.register();
  assert.equal(textOf(await call('destructured_default', {})), 'default');
  t.unregister();
});

test('two clients share no grants and no suspension', async () => {
  const policy = { ask: [{ match: 'pay' }], default: 'allow' };
  const a = client({ policy, onAsk: () => ({ allow: 'always' }) });
  const b = client({ policy, onAsk: () => ({ deny: 'not here' }) });
  await a.webmcp(() => 'paid', { name: 'pay', description: 'Pays' }).register();
  await b.webmcp(() => 'paid', { name: 'pay', description: 'Pays' }).register();
  assert.equal((await a.invokeTool('pay', {})).ok, true);
  assert.equal((await a.listGrants()).length, 1);
  assert.deepEqual(await b.listGrants(), [], "a's grant is not in b's book");
  assert.equal((await b.invokeTool('pay', {})).error.reason, 'ask_denied', "b asks its own approver: a's grant does not reach it");
  await b.clearGrants();
  assert.equal((await a.listGrants()).length, 1, "clearing b's grants leaves a's");
  a.suspendAgents('a only');
  assert.equal((await a.invokeTool('pay', {})).error.reason, 'suspended');
  assert.equal(b.suspension(), null);
  assert.equal((await b.invokeTool('pay', {})).error.reason, 'ask_denied', 'b is not suspended');
});

test('two clients write their console notes each once, apart', async () => {
  const boom = () => {
    throw new Error('boom');
  };
  const a = client({ debug: true });
  const b = client({ debug: true });
  const hooks = { before: [{ id: 'audit', run: boom }] };
  const ta = a.webmcp(() => 'ran', { name: 'audited', description: 'd', hooks });
  const tb = b.webmcp(() => 'ran', { name: 'audited', description: 'd', hooks });
  const written = [];
  const restore = captureConsole(written);
  try {
    await ta.invoke({});
    await ta.invoke({});
    await sleep(20);
    assert.equal(written.length, 1, written.join('\n'));
    await tb.invoke({});
    await sleep(20);
    assert.equal(written.length, 2, 'b writes the note a wrote: notes are written once per client');
    await tb.invoke({});
    await ta.invoke({});
    await sleep(20);
    assert.equal(written.length, 2, written.join('\n'));
  } finally {
    restore();
  }
  assert.match(written[1], /before hook "audit" \(tool "audited"\) threw/);
});

test("two clients' registrations sync apart: one client's changes leave the other's registrations as they are", async () => {
  const fake = installFakeModelContext();
  try {
    const a = client();
    const b = client();
    const names = async () => (await fake.modelContext.getTools()).map((tool) => tool.name).sort();
    const ta = a.webmcp(() => 'a', { name: 'from_a', description: 'd' });
    const tb = b.webmcp(() => 'b', { name: 'from_b', description: 'd' });
    await Promise.all([ta.register(), tb.register()]);
    assert.deepEqual(await names(), ['from_a', 'from_b']);
    // A filter on a hides a's tool: a syncs, b's registration is untouched.
    a.configure({ tools: () => false });
    for (let i = 0; i < 50 && (await names()).includes('from_a'); i++) await sleep(10);
    assert.deepEqual(await names(), ['from_b']);
    assert.equal(tb.status, 'registered');
    a.dispose();
    assert.deepEqual(await names(), ['from_b']);
    assert.equal(textOf(await b.invokeTool('from_b', {})), 'b');
  } finally {
    fake.uninstall();
  }
});
