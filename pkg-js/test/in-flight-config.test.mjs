// Configuration that changes while a call is in flight (found by the core's step_machine fuzz
// target; the core's side is tests/fuzz_regressions.rs). The client frees a dropped hook set's
// handles at once and hands them to what it defines next; the call keeps the plan it started
// with, so it must never ask for a dropped hook, nor run another hook now under its handle.
import test from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, resetWebMCP } from '../lib/index.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test('hooks replaced while a call waits: the call runs no hook it was not planned with, and fails closed', async () => {
  resetWebMCP();
  const log = [];
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  configureWebMCP({
    hooks: {
      before: [async () => { log.push('old before'); await gate; }],
      after: [() => void log.push('old after')],
    },
  });
  const tool = webmcp(() => 'ok', { name: 'inflight', description: 'A tool called while its hooks change.' });
  const pending = tool.invoke({});
  // The process's first call loads the pipeline chunk before it starts.
  for (let waited = 0; log.length === 0 && waited < 200; waited++) await tick();
  assert.deepEqual(log, ['old before'], 'the call waits in its before-hook');
  // Replaced: the old set is dropped and its handles freed; a new tool's hooks take them.
  configureWebMCP({ hooks: { before: [() => void log.push('new before')], after: [() => void log.push('new after')] }, replace: true });
  const other = webmcp(() => 'x', { name: 'other', description: 'x', hooks: { before: [() => void log.push('intruder')], after: [() => void log.push('intruder')] } });
  release();
  const outcome = await pending;
  assert.deepEqual(log, ['old before'], 'no hook ran in the place of the dropped after-hook');
  assert.equal(outcome.ok, false, 'the after-hook it was planned with is gone: the result is withheld');
  assert.equal(outcome.error.reason, 'hook_failed');
  assert.equal(outcome.error.cause, 'removed');
  // A call that starts now runs the new hooks.
  log.length = 0;
  assert.equal((await tool.invoke({})).ok, true);
  assert.deepEqual(log, ['new before', 'new after']);
  assert.ok(other);
  resetWebMCP();
});

test('policy predicate handles stop at what an action can carry: too_many_handles, never a wrapped handle', async () => {
  const { Predicates } = await import('../lib/client/predicates.js');
  const table = new Predicates(3);
  const running = () => 1; // a call in progress: released handles are not reused yet
  const handles = [0, 1, 2, 3].map(() => table.handleOf(() => true, running));
  assert.deepEqual(handles, [0, 1, 2, 3]);
  assert.throws(() => table.handleOf(() => true, running), (err) => err.name === 'ConfigurationError' && err.code === 'too_many_handles' && /policy predicate functions/.test(err.message));
  const same = table.table[2];
  assert.equal(table.handleOf(same, running), 2, 'a function already held keeps its handle');
});
