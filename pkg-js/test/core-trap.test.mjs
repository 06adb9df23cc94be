// A wasm trap (an out-of-memory, a bug) must not brick the package for the page's life: the
// call that saw it ends as data, the core instance is replaced, and every client's configuration
// is replayed into it. The trap is forced with the core's test-only export.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, invokeTool, listTools, lintPolicy, createWarden, explain } from 'webmcp-warden';
import { sleep, trackTools } from '../test-support/helpers.mjs';
// The package's own module instance (the workspace link resolves to this file).
import { core, CoreTrapped } from '../dist/core.js';

const made = trackTools();

function trap() {
  assert.throws(() => core.testTrap(), CoreTrapped);
}

test('after a trap, calls, configuration and new tools work, with the configuration restored', async () => {
  const order = [];
  configureWebMCP({
    hooks: { before: [{ id: 'g.log', run: () => void order.push('global') }] },
    policy: { deny: [{ match: 'trap_denied', reason: 'no' }], default: 'allow' },
  });
  const t = webmcp(() => 'ran', { name: 'trap_tool', description: 'd', shape: false, hooks: { after: [() => void order.push('tool after')] } });
  const denied = webmcp(() => 'never', { name: 'trap_denied', description: 'd' });
  made.push(t, denied);
  await t.register();
  await denied.register();
  assert.equal((await t.invoke({})).ok, true);
  order.length = 0;

  trap();

  const outcome = await invokeTool('trap_tool', { a: 1 });
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  assert.deepEqual(order, ['global', 'tool after'], 'hooks were replayed into the new instance');
  assert.equal((await invokeTool('trap_denied', {})).error.reason, 'rule', 'the policy was replayed');
  assert.deepEqual((await listTools()).map((d) => d.name).sort(), ['trap_denied', 'trap_tool']);
  // Configuration and new tools still validate and throw at once.
  assert.throws(() => configureWebMCP({ hooks: { before: [42] } }), /a hook must be a function/);
  const fresh = webmcp(() => 'fresh', { name: 'trap_fresh', description: 'd', shape: false });
  made.push(fresh);
  assert.equal((await fresh.invoke({})).result.content[0].text, 'fresh');
  assert.deepEqual(lintPolicy({ allow: ['*', 'x'] }).map((d) => d.code), ['shadowed_rule']);
});

test('a call in flight when the core traps ends as internal_error, never a throw', async () => {
  const t = webmcp(async () => {
    await sleep(20);
    return 'late';
  }, { name: 'trap_inflight', description: 'd', hooks: { after: [() => undefined] } });
  made.push(t);
  const pending = t.invoke({});
  await sleep(5);
  trap();
  const outcome = await pending;
  assert.deepEqual([outcome.ok, outcome.error.kind, outcome.error.reason], [false, 'tool', 'internal_error']);
  assert.equal((await t.invoke({})).ok, true, 'the next call works');
});

test('every client is restored, each with its own configuration', async () => {
  const a = createWarden({ serverId: 'a' });
  const b = createWarden({ serverId: 'b', policy: { default: 'deny' } });
  const ta = a.webmcp(() => 'a', { name: 'same_name', description: 'd' });
  const tb = b.webmcp(() => 'b', { name: 'same_name', description: 'd' });
  trap();
  assert.equal((await ta.invoke({})).ok, true);
  assert.equal((await tb.invoke({})).error.kind, 'denied');
  a.dispose();
  b.dispose();
});

test('a disposed client answers calls as data and refuses configuration', async () => {
  const client = createWarden();
  const t = client.webmcp(() => 'ran', { name: 'disposed_tool', description: 'd' });
  assert.equal((await t.invoke({})).ok, true);
  client.dispose();
  const outcome = await t.invoke({});
  assert.deepEqual([outcome.ok, outcome.error.kind, outcome.error.reason], [false, 'tool', 'disposed']);
  assert.throws(() => client.configure({ hookTimeout: 10 }), (err) => err.code === 'disposed');
  assert.throws(() => client.webmcp(() => 1, { name: 'after_dispose' }), (err) => err.code === 'disposed');
  await assert.rejects(client.listTools(), (err) => err.code === 'disposed');
  // By name too: disposed, not "unknown tool" (the registry is empty after dispose()).
  const byName = await client.invokeTool('disposed_tool', {});
  assert.deepEqual([byName.ok, byName.error.kind, byName.error.reason], [false, 'tool', 'disposed']);
  await assert.rejects(explain('disposed_tool', {}, { client }), (err) => err.code === 'disposed');
  assert.throws(() => client.onTelemetry(() => {}), (err) => err.code === 'disposed');
});
