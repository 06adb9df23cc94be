// A long-lived page that creates and drops tools gives everything back: the core's hook sets,
// hooks, tools and plans, and the client's handles and hook functions (issue 13, "Nothing is
// ever freed"). bench/soak.mjs runs the same cycle 100,000 times and prints memory; this test
// only counts, so it cannot be flaky about bytes.
import test from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
// The same module instances the package uses (the workspace link resolves to these files).
const { webmcp } = await import('../lib/index.js');
const { getDefaultWarden, internalOf } = await import('../lib/api/api.js');
const { installFakeModelContext } = await import('../lib/testing.js');
const { coreMemoryBytes } = await import('../lib/boundary/core.js');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('10,000 tools created, registered, unregistered and dropped give every core handle back', async () => {
  const installed = installFakeModelContext();
  try {
    const client = internalOf(getDefaultWarden());
    const held = () => {
      const { sets, hooks, tools, scopes, plans, calls, listings, handles, hookFunctions } = client.counts();
      return { sets, hooks, tools, scopes, plans, calls, listings, handles, hookFunctions };
    };
    // One tool made and dropped first, so lazily built state (the core, the registry) exists.
    let warm = webmcp(() => 'ok', { name: 'warm', description: 'x' });
    await warm.register();
    warm.unregister();
    warm = undefined;
    for (let i = 0; i < 5; i++) {
      gc();
      await sleep(5);
    }
    const start = held();
    const memoryBefore = coreMemoryBytes();

    // No macrotask turn in the loop, so no finalizer runs: what stays flat is what unregister()
    // gave back by itself.
    let peak = { tools: 0, sets: 0, hooks: 0 };
    for (let i = 0; i < 10_000; i++) {
      let tool = webmcp(() => 'ok', { name: `cycle_${i % 4}`, description: 'A tool that comes and goes.', hooks: { before: [() => undefined], after: [{ id: 'audit', run: () => undefined }] } });
      await tool.register();
      if (i % 500 === 0) assert.equal((await tool.invoke({})).ok, true, 'the tool works while it lives');
      tool.unregister();
      tool = undefined;
      const now = held();
      peak = { tools: Math.max(peak.tools, now.tools), sets: Math.max(peak.sets, now.sets), hooks: Math.max(peak.hooks, now.hooks) };
    }
    assert.deepEqual(peak, { tools: start.tools, sets: start.sets, hooks: start.hooks }, 'unregister() took each tool, its hook set and its hooks out of the core at once');
    // The handles the dropped tools keep until their finalizers run are far apart from the live
    // ones: the core's tables hold what is live, not a slot per handle (they once grew to tens
    // of MiB here).
    assert.ok(coreMemoryBytes() <= memoryBefore + 1024 * 1024, `the core's memory grew from ${memoryBefore} to ${coreMemoryBytes()} bytes`);
    assert.ok(held().handles > start.handles, 'the handles wait for the finalizers (the tool objects may still be held)');
    for (let round = 0; round < 100 && JSON.stringify(held()) !== JSON.stringify(start); round++) {
      gc();
      await sleep(10);
    }
    assert.deepEqual(held(), start, 'what 10,000 dropped tools held is back to where it started');
  } finally {
    installed.uninstall();
  }
});

test('10,000 configurations that replace hooks and policy predicates give their handles back', async () => {
  const { configureWebMCP, resetWebMCP } = await import('../lib/index.js');
  const client = internalOf(getDefaultWarden());
  const held = () => {
    const { sets, hooks, handles, hookFunctions, predicates } = client.counts();
    return { sets, hooks, handles, hookFunctions, predicates };
  };
  resetWebMCP();
  configureWebMCP({ replace: true, hooks: { before: [() => undefined] }, policy: { allow: [{ match: '*', when: () => true }] } });
  const start = held();
  for (let i = 0; i < 10_000; i++) {
    // New functions each time, as a page that configures from render code would pass.
    configureWebMCP({ replace: true, hooks: { before: [() => undefined], after: [{ id: 'audit', run: () => undefined }].slice(0, i % 2) }, policy: { allow: [{ match: '*', when: () => true }] } });
  }
  configureWebMCP({ replace: true, hooks: { before: [() => undefined] }, policy: { allow: [{ match: '*', when: () => true }] } });
  assert.deepEqual(held(), start, 'hook sets, hooks, handles, hook functions and predicates are back where they started');
  resetWebMCP();
});

test('a tool unregister() took out of the core still works: invoke, register again, re-wrap, its fingerprint and hooks', async () => {
  const { createWarden } = await import('../lib/index.js');
  const c = createWarden();
  const w = internalOf(c);
  try {
    const seen = [];
    const t = c.webmcp((input) => `got ${input.n}`, { name: 'comes_back', description: 'd', shape: false, hooks: { before: [{ id: 'own', run: () => void seen.push('own') }] } });
    await t.register();
    const fingerprint = t.fingerprint;
    const registered = w.counts();
    t.unregister();
    const detached = w.counts();
    assert.deepEqual([detached.tools, detached.sets, detached.hooks], [registered.tools - 1, registered.sets - 1, registered.hooks - 1], 'out of the core at once');
    assert.equal((await t.invoke({ n: 1 })).result.content[0].text, 'got 1', 'invoke defines it again');
    assert.equal(t.fingerprint, fingerprint);
    await t.register();
    assert.equal((await c.invokeTool('comes_back', { n: 2 })).result.content[0].text, 'got 2');
    t.unregister();
    const wrapped = c.webmcp(t, { name: 'wrapped', hooks: { after: [{ id: 'wrapper', run: () => void seen.push('wrapper') }] } });
    assert.equal((await wrapped.invoke({ n: 3 })).ok, true, 'a re-wrap of an unregistered tool brings its sets back');
    assert.deepEqual(seen, ['own', 'own', 'own', 'wrapper']);
  } finally {
    c.dispose();
  }
});

test('a call in flight when its tool is unregistered runs to its end with all its hooks (nothing is taken out of the core then)', async () => {
  const { createWarden } = await import('../lib/index.js');
  const c = createWarden();
  const w = internalOf(c);
  try {
    let release;
    const seen = [];
    const t = c.webmcp(() => new Promise((resolve) => (release = resolve)), { name: 'slow', description: 'd', shape: false, hooks: { after: [{ id: 'after', run: () => void seen.push('after') }] } });
    await t.register();
    const before = w.counts().tools;
    const pending = t.invoke({});
    await sleep(5);
    t.unregister();
    assert.equal(w.counts().tools, before, 'kept while the call is in flight');
    release('done');
    const outcome = await pending;
    assert.equal(outcome.ok, true);
    assert.deepEqual(seen, ['after'], 'the after-hook ran (its set was not taken away mid-call)');
    assert.equal(w.counts().tools, before, 'left to the finalizer, as before');
    await t.register();
    t.unregister();
    assert.equal(w.counts().tools, before - 1, 'an unregister() with no call in flight takes it out');
  } finally {
    c.dispose();
  }
});

test('a global hook added while a tool is out of the core with a hook of the same id: its next register() says so', async () => {
  const { createWarden, ConfigurationError } = await import('../lib/index.js');
  const c = createWarden();
  try {
    const t = c.webmcp(() => 'ok', { name: 'clash', description: 'd', hooks: { before: [{ id: 'audit', run: () => {} }] } });
    await t.register();
    t.unregister();
    c.configure({ hooks: { before: [{ id: 'audit', run: () => {} }] } });
    await assert.rejects(t.register(), (err) => err instanceof ConfigurationError && err.code === 'duplicate_hook_id');
    const outcome = await t.invoke({});
    assert.equal(outcome.ok, false, 'a call is data');
  } finally {
    c.dispose();
  }
});

test('10,000 tool cycles with no macrotask turn (no finalizer can run): the core holds nothing of them and its memory stays where it was', async () => {
  const { createWarden } = await import('../lib/index.js');
  const c = createWarden();
  const w = internalOf(c);
  try {
    // No WebMCP runtime: register() and unregister() await microtasks only.
    const warm = c.webmcp(() => 'ok', { name: 'warm_up', description: 'd', hooks: { before: [() => undefined] } });
    await warm.register();
    warm.unregister();
    const before = { ...w.counts(), memory: coreMemoryBytes() };
    for (let i = 0; i < 10_000; i++) {
      let tool = c.webmcp(() => 'ok', { name: `bare_${i % 8}`, description: 'd', hooks: { before: [() => undefined], after: [{ id: `audit_${i % 8}`, run: () => undefined }] } });
      await tool.register();
      tool.unregister();
      tool = undefined;
    }
    const after = w.counts();
    assert.deepEqual([after.tools, after.sets, after.hooks], [before.tools, before.sets, before.hooks]);
    assert.ok(after.handles > before.handles + 10_000, 'the handles are still taken (no finalizer ran): the test shows what it means to');
    assert.ok(coreMemoryBytes() <= before.memory + 1024 * 1024, `the core's memory grew from ${before.memory} to ${coreMemoryBytes()} bytes`);
  } finally {
    c.dispose();
  }
});
