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
const { webmcp } = await import('../dist/index.js');
const { getDefaultWarden, internalOf } = await import('../dist/api.js');
const { installFakeModelContext } = await import('../dist/testing.js');

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

    let peak = 0;
    for (let i = 0; i < 10_000; i++) {
      let tool = webmcp(() => 'ok', { name: `cycle_${i % 4}`, description: 'A tool that comes and goes.', hooks: { before: [() => undefined], after: [{ id: 'audit', run: () => undefined }] } });
      await tool.register();
      if (i % 500 === 0) assert.equal((await tool.invoke({})).ok, true, 'the tool works while it lives');
      tool.unregister();
      tool = undefined;
      peak = Math.max(peak, held().tools);
    }
    assert.ok(peak > start.tools, 'tools were alive in the core while referenced (the count can see them)');
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
  const { configureWebMCP, resetWebMCP } = await import('../dist/index.js');
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
