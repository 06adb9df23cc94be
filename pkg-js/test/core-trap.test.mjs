// A wasm trap (an out-of-memory, a bug) must not brick the package for the page's life: the
// call that saw it ends as data, the core instance is replaced, and every client's configuration
// is replayed into it. The trap is forced with the core's test-only export.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, invokeTool, listTools, lintPolicy, createWarden, explain } from '../lib/index.js';
import { sleep, trackTools } from '../test-support/lib-helpers.mjs';
// The package's own module instance (the workspace link resolves to this file).
import { core, CoreTrapped } from '../lib/boundary/core.js';

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

// A fresh engine is sent only the settings that differ from its defaults (client.ts, #replay), so
// each setting is checked here on both sides of a trap: one that was set comes back, and a client
// left at its defaults keeps them.
test('each setting comes back after a trap, and defaults stay defaults', async () => {
  const seen = [];
  const configured = createWarden({
    serverId: 'shop',
    hookReturns: 'strict',
    tools: { exclude: ['hidden_*'] },
    policy: { deny: [{ match: 'shop/refused', reason: 'no' }], default: 'allow' },
    approvedFingerprints: { pinned: 'not-its-fingerprint' },
    onAsk: () => ({ deny: 'changed' }),
    hooks: { before: [{ id: 'shop.only', match: 'shop/*', run: (ctx) => void seen.push(ctx.serverId) }] },
  });
  const plain = createWarden();
  // A before hook that returns an incidental number: a bad return under the strict contract only.
  const incidental = { before: [(ctx) => [ctx.input].push(1)] };
  const tools = {
    strict: configured.webmcp(() => 'ran', { name: 'incidental', description: 'd', hooks: incidental }),
    hidden: configured.webmcp(() => 'ran', { name: 'hidden_tool', description: 'd' }),
    refused: configured.webmcp(() => 'ran', { name: 'refused', description: 'd' }),
    pinned: configured.webmcp(() => 'ran', { name: 'pinned', description: 'd' }),
    lenient: plain.webmcp(() => 'ran', { name: 'incidental', description: 'd', hooks: incidental }),
    page: plain.webmcp(() => 'ran', { name: 'refused', description: 'd' }),
  };
  const observe = async () => ({
    strict: (await tools.strict.invoke({})).error?.cause,
    hidden: (await configured.invokeTool('hidden_tool', {})).error?.reason,
    refused: (await tools.refused.invoke({})).error?.kind,
    pinned: (await tools.pinned.invoke({})).error?.decision?.reason,
    lenient: (await tools.lenient.invoke({})).ok,
    page: (await tools.page.invoke({})).ok,
  });
  const expected = { strict: 'bad_return', hidden: 'unknown_tool', refused: 'denied', pinned: 'fingerprint_changed', lenient: true, page: true };
  try {
    await tools.hidden.register();
    // Registered, so only the filter hides it.
    configured.configure({ tools: null });
    assert.equal((await configured.invokeTool('hidden_tool', {})).ok, true);
    configured.configure({ tools: { exclude: ['hidden_*'] } });
    seen.length = 0;
    assert.deepEqual(await observe(), expected, 'before the trap');
    assert.deepEqual(seen, ['shop', 'shop', 'shop']);
    trap();
    seen.length = 0;
    assert.deepEqual(await observe(), expected, 'after the trap');
    assert.deepEqual(seen, ['shop', 'shop', 'shop'], 'the server id and the matcher that reads it came back');
  } finally {
    configured.dispose();
    plain.dispose();
  }
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
