// The direct call (`tool(input)`) bypasses the pipeline but calls the function as the agent path
// does, `fn(input, { signal })`: a function that reads its context must not throw when called
// directly (it did: "Cannot destructure property 'signal' of 'undefined'").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp } from 'webmcp-warden';

test('a direct call without a context gives the function { signal } with a signal that never aborts', async () => {
  const seen = [];
  const add = webmcp(async ({ n }, { signal }) => {
    seen.push(signal);
    return n + 1;
  }, { name: 'add_one', description: 'Adds one' });
  assert.equal(await add({ n: 1 }), 2);
  assert.ok(seen[0] instanceof AbortSignal);
  assert.equal(seen[0].aborted, false);
});

test('a direct call with a context passes it through, and other arguments stay as given', () => {
  const controller = new AbortController();
  const calls = [];
  const tool = webmcp(function (...args) {
    calls.push(args);
    return 'ok';
  }, { name: 'echo_args', description: 'Echoes' });
  tool({ a: 1 }, { signal: controller.signal });
  tool({ a: 2 }, undefined, 'third');
  assert.equal(calls[0][1].signal, controller.signal);
  assert.equal(calls[1].length, 3);
  assert.ok(calls[1][1].signal instanceof AbortSignal);
  assert.equal(calls[1][2], 'third');
});

test('the direct call runs no hook and no validation', async () => {
  let hooked = 0;
  const tool = webmcp(({ q }) => q, {
    name: 'direct_q',
    description: 'Returns q',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    hooks: { before: [() => void hooked++] },
  });
  assert.equal(tool({ q: 5 }), 5);
  assert.equal(hooked, 0);
});
