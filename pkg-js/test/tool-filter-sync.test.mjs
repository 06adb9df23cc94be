// A hidden tool is never listed, also when the filter changes after registration:
// the browser's registrations follow configureWebMCP({ tools }).
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, resetWebMCP, invokeTool, listTools } from 'webmcp-warden';
import { installFakeModelContext } from 'webmcp-warden/testing';

let fake;
let tools = [];
beforeEach(() => {
  resetWebMCP();
  fake = installFakeModelContext();
});
afterEach(() => {
  for (const t of tools) t.unregister();
  tools = [];
  fake.uninstall();
  resetWebMCP();
});

const names = async () => (await fake.modelContext.getTools()).map((t) => t.name);
/**
 * Waits until `check` passes: the registration sync a configuration change starts is
 * asynchronous, and under load it can take longer than any fixed wait. Fails with the last
 * assertion after 5 s.
 */
async function settled(check) {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

test('hiding a registered tool removes it from the browser; showing it again registers it again', async () => {
  const search = webmcp(() => 'found', { name: 'search', description: 'Search' });
  const remove = webmcp(() => 'gone', { name: 'delete_cart', description: 'Delete the cart' });
  tools.push(search, remove);
  const unregisterRemove = await remove.register();
  await search.register();
  assert.deepEqual(await names(), ['delete_cart', 'search']);

  configureWebMCP({ tools: { exclude: ['delete_*'] } });
  await settled(async () => {
    assert.deepEqual(await names(), ['search'], 'the browser no longer lists the hidden tool');
    assert.equal(remove.status, 'unregistered');
  });
  assert.equal((await invokeTool('delete_cart', {})).error.reason, 'unknown_tool');
  assert.deepEqual((await listTools()).map((t) => t.name), ['search']);

  configureWebMCP({ tools: null });
  await settled(async () => {
    assert.deepEqual(await names(), ['delete_cart', 'search'], 'visible again: registered again');
    assert.equal(remove.status, 'registered');
  });
  assert.equal((await invokeTool('delete_cart', {})).ok, true);

  // The function the first register() returned still unregisters the tool.
  unregisterRemove();
  await settled(async () => {
    assert.deepEqual(await names(), ['search']);
    assert.equal(remove.status, 'unregistered');
  });
});

test('a tool registered while hidden reaches the browser when the filter lets it through', async () => {
  configureWebMCP({ tools: (tool) => tool.name !== 'secret' });
  const secret = webmcp(() => 's', { name: 'secret', description: 'Secret' });
  tools.push(secret);
  await secret.register();
  assert.deepEqual(await names(), []);
  assert.equal(secret.status, 'unregistered');
  configureWebMCP({ tools: () => true });
  await settled(async () => {
    assert.deepEqual(await names(), ['secret']);
    assert.equal(secret.status, 'registered');
  });
});

test('a failing toolsListed hook leaves registrations as they were; a tool not yet registered gets status error and register() rejects with hook_failed', async () => {
  const kept = webmcp(() => 'kept', { name: 'kept_tool', description: 'Kept' });
  tools.push(kept);
  await kept.register();
  assert.deepEqual(await names(), ['kept_tool']);
  configureWebMCP({ hooks: { toolsListed: [{ id: 'list.fails', run: () => { throw new Error('no list'); } }] } });
  const late = webmcp(() => 'late', { name: 'late_tool', description: 'Late' });
  tools.push(late);
  await assert.rejects(late.register(), (err) => err.code === 'hook_failed' && err.message.includes('"list.fails"'));
  assert.equal(late.status, 'error');
  assert.deepEqual(await names(), ['kept_tool'], 'the browser keeps what it had');
});

test('a filter function runs for registered names only; a hidden tool and an unknown name answer the same', async () => {
  const asked = [];
  configureWebMCP({ tools: (contract) => (asked.push(contract.name), contract.name !== 'hidden_tool') });
  const hidden = webmcp(() => 'h', { name: 'hidden_tool', description: 'Hidden' });
  tools.push(hidden);
  await hidden.register();
  asked.length = 0;
  const fromHidden = await invokeTool('hidden_tool', {});
  const fromUnknown = await invokeTool('no_such_tool', {});
  assert.deepEqual(asked, ['hidden_tool'], 'the filter ran for the registered name, not for the unknown one (docs/behaviour.md says what that tells)');
  const named = (outcome, name) => JSON.parse(JSON.stringify(outcome).replaceAll(name, 'X'));
  assert.deepEqual(named(fromHidden, 'hidden_tool'), named(fromUnknown, 'no_such_tool'));
  assert.deepEqual([fromHidden.error.kind, fromHidden.error.reason], ['not_found', 'unknown_tool']);
});
