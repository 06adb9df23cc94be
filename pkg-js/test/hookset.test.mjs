// A hook set of plain functions is filed without the core when its client has no engine yet
// (hookset.ts, `bareFunctions`): the TS layer writes down how the core files such a set, and the
// core checks and stores it when the engine is made. These tests hold that filing equal to the
// core's for sets of every shape the shortcut takes, and show every other shape still goes to
// the core at once (where it is checked, and refused when it must be).
import test from 'node:test';
import assert from 'node:assert/strict';
import { ClientState, answered } from '../lib/client/client.js';
import { bareFunctions, compileHookSet, filing } from '../lib/client/hookset.js';
import { core } from '../lib/boundary/core.js';
import { EVENTS } from '../lib/boundary/codes.js';
import { encode } from '../lib/boundary/wire.js';
import { createTool } from '../lib/api/tool.js';
import { configure } from '../lib/api/config.js';

/** Deterministic pseudo-random sets of plain functions under some of the events, keys in any order. */
function* bareSets(count) {
  let seed = 7;
  const next = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), Math.floor(seed / 65536) % n);
  const shared = () => {};
  for (let i = 0; i < count; i++) {
    const hooks = {};
    // Keys in a shuffled order: the core files by its order of events, not the object's.
    const events = [...EVENTS];
    for (let k = events.length - 1; k > 0; k--) {
      const j = next(k + 1);
      [events[k], events[j]] = [events[j], events[k]];
    }
    for (const event of events) {
      if (next(2) === 0) continue;
      // Empty arrays, one function, the same function twice.
      hooks[event] = Array.from({ length: next(4) }, (_, k) => (k === 1 && next(2) === 0 ? shared : () => k));
    }
    yield hooks;
  }
}

test('a set of plain functions is filed without the core exactly as the core files it', () => {
  const engine = core.engineNew();
  let set = 1000;
  let hooksSeen = 0;
  for (const hooks of bareSets(300)) {
    const bare = bareFunctions(hooks);
    assert.ok(bare !== undefined, 'a set of plain functions takes the shortcut');
    // As compileHookSet encodes it: handles in the order the encoder meets the functions.
    const taken = [];
    let handle = set * 100;
    const spec = encode(bare, { fn: () => (taken.push(++handle), handle) });
    const predicted = filing(bare, taken);
    const answer = answered(core.defineHookSet(engine, ++set, spec, 'hooks'));
    assert.deepEqual(predicted, answer.hooks, JSON.stringify(Object.fromEntries(Object.entries(hooks).map(([k, v]) => [k, v.length]))));
    hooksSeen += predicted.length;
  }
  core.engineDrop(engine);
  assert.ok(hooksSeen > 300, 'the sets held hooks');
});

test('a tool with such a set loads no core at webmcp(); once it does, its hooks run as if the core had checked them at once', async () => {
  let compared = 0;
  for (const all of bareSets(60)) {
    // A tool's own hooks hold tool events only (webmcp() says so before the core is asked).
    const { resourceRead, promptGet, ...hooks } = all;
    if ((hooks.before?.length ?? 0) + (hooks.after?.length ?? 0) < 2) continue;
    const run = async (client) => {
      const ran = [];
      const labelled = Object.fromEntries(Object.entries(hooks).map(([event, list]) => [event, list.map((_, i) => () => void ran.push(`${event}${i}`))]));
      const tool = client.webmcp(() => 'ok', { name: 'probe', description: 'Probes.', hooks: labelled });
      const engineAtDefinition = client.engineMade();
      const outcome = await tool.invoke({});
      return { ran, ok: outcome.ok, engineAtDefinition };
    };
    const logged = new ClientState();
    const checked = new ClientState();
    checked.engine();
    const client = (w) => ({ webmcp: (fn, options) => createTool(w, fn, options), engineMade: () => w.hasEngine });
    const a = await run(client(logged));
    const b = await run(client(checked));
    assert.equal(a.engineAtDefinition, false, 'defining the tool made no engine');
    assert.deepEqual(a, { ...b, engineAtDefinition: false });
    compared++;
  }
  assert.ok(compared > 10, `compared ${compared} sets`);
});

test('global hooks of plain functions, the server id and the return contract need no engine either, and run in the same order', async () => {
  const run = async (w) => {
    const ran = [];
    const hook = (label) => () => void ran.push(label);
    configure(w, { hooks: { before: [hook('g1')], after: [hook('g2')] }, serverId: 'shop', hookReturns: 'strict' });
    configure(w, { hooks: { before: [hook('g3')] } });
    const tool = createTool(w, () => 'ok', { name: 'probe', description: 'Probes.', hooks: { before: [hook('t1')], after: [hook('t2')] } });
    const engineAtDefinition = w.hasEngine;
    const first = await tool.invoke({});
    // Replacing the global hooks drops the earlier sets, logged or not.
    configure(w, { hooks: { before: [hook('g4')] }, replace: true });
    ran.push('|');
    const second = await tool.invoke({});
    return { ran, engineAtDefinition, ok: [first.ok, second.ok], server: first.result.provenance?.serverId, sets: w.counts().sets };
  };
  const logged = await run(new ClientState());
  const eager = new ClientState();
  eager.engine();
  const checked = await run(eager);
  assert.equal(logged.engineAtDefinition, false, 'configuring and defining made no engine');
  assert.deepEqual(logged, { ...checked, engineAtDefinition: false });
  assert.deepEqual(logged.ran, ['g1', 'g3', 't1', 't2', 'g2', '|', 'g4', 't1', 't2']);
});

test('every other shape goes to the core at once, which checks it', () => {
  const shapes = [
    ['a hook object', { before: [{ run: () => {} }] }, undefined],
    ['an unknown event', { befor: [() => {}] }, 'unknown_hook_event'],
    ['a non-array', { before: () => {} }, 'invalid_hooks'],
    ['a hole', { before: [, () => {}] }, 'invalid_hook'],
    ['a string entry', { before: ['x'] }, 'invalid_hook'],
    ['a class instance', new (class Hooks { before = [() => {}]; })(), undefined],
    ['a throwing getter', { get before() { throw new Error('no'); } }, 'invalid_hooks'],
  ];
  for (const [what, hooks, code] of shapes) {
    const w = new ClientState();
    let thrown;
    try {
      compileHookSet(w, hooks, 'hooks');
    } catch (err) {
      thrown = err;
    }
    assert.equal(w.hasEngine, true, `${what}: the core was asked`);
    if (code === undefined) continue;
    assert.equal(thrown?.name, 'ConfigurationError', `${what}: ${thrown}`);
    assert.equal(thrown.code, code, `${what}: ${thrown.message}`);
  }
});
