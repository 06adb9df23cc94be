// Call options that are not what `CallOptions` says end the call as data, with a message naming the
// option, and the tool never runs (a misuse must not become an exception out of invoke()).
import { test, beforeEach, describe } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, resetWebMCP, invokeTool, WardenError } from 'webmcp-warden';

let ran = 0;
let tool;
beforeEach(async () => {
  resetWebMCP();
  ran = 0;
  tool?.unregister();
  tool = webmcp(() => ++ran, { name: 'count', description: 'Counts' });
  await tool.register();
});

const cases = [
  ['a non-object', 7, /call options must be an object/],
  ['a number principal', { principal: 5 }, /principal must be a string/],
  ['a signal that is not an AbortSignal', { signal: {} }, /signal must be an AbortSignal/],
  ['an unknown shape', { shape: 'html' }, /shape must be 'llm' or false/],
  ['null assigns', { assigns: null }, /assigns must be an object/],
];

for (const [what, options, message] of cases) {
  test(`${what} ends the call as invalid_options`, async () => {
    for (const outcome of [await tool.invoke({}, options), await invokeTool('count', {}, options)]) {
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error.kind, 'validation');
      assert.equal(outcome.error.reason, 'invalid_options');
      assert.match(outcome.error.message, message);
      assert.equal(outcome.result.content[0].text, 'Error: ' + outcome.error.message);
    }
    assert.equal(ran, 0, 'the tool never ran');
  });
}

test('null options mean no options', async () => {
  const outcome = await tool.invoke({}, null);
  assert.equal(outcome.ok, true);
  assert.equal(ran, 1);
});

// ---- hostile options: read once, defensively, every misuse data (never a throw, never a hang) ----

const boom = () => {
  throw new Error('SECRET-getter');
};
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const realSignal = () => new AbortController().signal;
/** An iterable that never ends. */
const endless = { *[Symbol.iterator]() { for (;;) yield 'web'; } };

const hostile = [
  ['a throwing getter', () => ({ get principal() { return boom(); } }), /cannot be read: a getter or proxy threw/],
  ['a proxy whose ownKeys trap throws', () => new Proxy({}, { ownKeys: boom }), /cannot be read/],
  ['a proxy whose get trap throws', () => new Proxy({ principal: 'p' }, { get: boom }), /cannot be read/],
  ['a revoked proxy', revoked, /cannot be read/],
  ['an endless taint iterable', () => ({ taint: endless }), /taint has more than 1024 entries/],
  ['a taint of 1025 ids', () => ({ taint: Array.from({ length: 1025 }, (_, i) => `s${i}`) }), /taint has more than 1024 entries/],
  ['a huge sparse taint array', () => ({ taint: new Array(1e9) }), /taint/],
  ['a taint iterable that throws', () => ({ taint: { *[Symbol.iterator]() { yield 'a'; boom(); } } }), /taint must be an array or Set/],
  ['a taint whose iterator getter throws', () => ({ taint: { get [Symbol.iterator]() { return boom(); } } }), /taint/],
  ['a proxy around a real signal', () => ({ signal: new Proxy(realSignal(), { get: boom }) }), /signal must be an AbortSignal/],
  ['a signal with an aborted getter of its own', () => ({ signal: Object.defineProperty(realSignal(), 'aborted', { get: boom }) }), /signal must be an AbortSignal/],
  ['a revoked proxy as the signal', () => ({ signal: revoked() }), /signal must be an AbortSignal/],
  ['a timeout of 2^31 ms', () => ({ timeout: 2 ** 31 }), /timeout must be a positive number of milliseconds, at most 2147483647.*not 2147483648/],
  ['a timeout of 1e300 ms', () => ({ timeout: 1e300 }), /at most 2147483647/],
  ['an Infinity timeout', () => ({ timeout: Infinity }), /not Infinity/],
  ['a NaN timeout', () => ({ timeout: NaN }), /not NaN/],
  ['a negative timeout', () => ({ timeout: -5 }), /not -5/],
  ['a zero timeout', () => ({ timeout: 0 }), /not 0/],
  ['a timeout that is a string', () => ({ timeout: '20' }), /not string/],
];

for (const [what, make, message] of hostile) {
  test(`${what} ends tool.invoke and invokeTool as invalid_options, without reading it twice or running the tool`, async () => {
    for (const outcome of [await tool.invoke({}, make()), await invokeTool('count', {}, make())]) {
      assert.deepEqual([outcome.ok, outcome.error.kind, outcome.error.reason], [false, 'validation', 'invalid_options'], outcome.error.message);
      assert.match(outcome.error.message, message);
      assert.ok(!outcome.error.message.includes('SECRET'), 'what a getter threw is never quoted');
    }
    assert.equal(ran, 0, 'the tool never ran');
  });
}

test('each option is read exactly once (own keys only; inherited ones are not options)', async () => {
  const reads = {};
  const options = {};
  for (const [key, value] of [['principal', 'ann'], ['taint', ['web']], ['shape', false], ['assigns', {}], ['timeout', 1000]]) {
    Object.defineProperty(options, key, { enumerable: true, get: () => ((reads[key] = (reads[key] ?? 0) + 1), value) });
  }
  const outcome = await tool.invoke({}, options);
  assert.equal(outcome.ok, true);
  assert.deepEqual(reads, { principal: 1, taint: 1, shape: 1, assigns: 1, timeout: 1 });
  // A taint whose second reading would differ: only the first counts.
  let readings = 0;
  const shifty = { *[Symbol.iterator]() { readings++; yield readings === 1 ? 'web' : 'page'; } };
  let seen;
  const t = webmcp(() => 'ok', { name: 'taint_seen', description: 'd', shape: false, hooks: { before: [(ctx) => void (seen = [...ctx.taint])] } });
  await t.invoke({}, { taint: shifty });
  assert.deepEqual([seen, readings], [['web'], 1]);
  const inherited = Object.create({ principal: 7 });
  assert.equal((await tool.invoke({}, inherited)).ok, true, 'an inherited key is not an option');
});

test('a timeout of 2^31 − 1 ms is accepted, and its timer and signal listener go when the call ends', async () => {
  const { getEventListeners } = await import('node:events');
  const controller = new AbortController();
  for (let i = 0; i < 20; i++) {
    const outcome = await tool.invoke({}, { timeout: 2 ** 31 - 1, signal: controller.signal });
    assert.equal(outcome.ok, true, 'the call did not time out at once');
  }
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'no listener is left on a signal that outlives its calls');
  assert.equal(ran, 20);
});

describe('the other entry points read their options the same way', () => {
  test('readResource, getPrompt and their methods answer invalid_options as data', async () => {
    const { webmcpResource, webmcpPrompt, readResource, getPrompt } = await import('webmcp-warden');
    let reads = 0;
    const resource = webmcpResource(() => void reads++, { uri: 'notes://a', name: 'notes' });
    const prompt = webmcpPrompt(() => void reads++, { name: 'greet' });
    await resource.register();
    await prompt.register();
    try {
      for (const [what, make, message] of hostile) {
        for (const outcome of [await readResource('notes://a', make()), await resource.read('notes://a', make()), await getPrompt('greet', {}, make()), await prompt.get({}, make())]) {
          assert.deepEqual([outcome.ok, outcome.error.reason], [false, 'invalid_options'], what);
          assert.match(outcome.error.message, message, what);
        }
      }
      assert.equal(reads, 0);
    } finally {
      resource.unregister();
      prompt.unregister();
    }
  });

  test('listTools and explain reject with WardenError(invalid_options)', async () => {
    const { listTools, explain } = await import('webmcp-warden');
    for (const [what, make] of hostile) {
      const listingKeys = /taint|timeout/.test(what) ? undefined : make;
      if (listingKeys) await assert.rejects(listTools(make()), (err) => err instanceof WardenError && err.code === 'invalid_options', `listTools: ${what}`);
      await assert.rejects(explain('count', {}, make()), (err) => err instanceof WardenError && err.code === 'invalid_options' && !err.message.includes('SECRET'), `explain: ${what}`);
    }
    await assert.rejects(listTools({ taint: ['web'] }), (err) => err.code === 'invalid_options' && /unknown listing option "taint"/.test(err.message));
    assert.deepEqual((await listTools({ principal: 'p', shape: false })).map((t) => t.name), ['count']);
  });

  test("the browser's execute: a second argument that throws or holds no real signal is read as no signal, never a throw", async () => {
    // The runtime, not the agent, passes it: Firefox's shape passes a client object, the MCP-B
    // polyfill nothing at all (docs/runtimes.md). So anything but a real AbortSignal is ignored.
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'document');
    let descriptor;
    globalThis.document = { modelContext: { registerTool: (d) => void (descriptor = d) } };
    try {
      const browserTool = webmcp(() => ++ran, { name: 'browser_count', description: 'Counts' });
      await browserTool.register();
      let expected = 0;
      for (const extra of [{ get signal() { return boom(); } }, { signal: new Proxy(realSignal(), { get: boom }) }, { signal: {} }, new Proxy({}, { get: boom })]) {
        const result = await descriptor.execute({}, extra);
        assert.equal(result.isError, undefined);
        assert.equal(result.content[0].text, String(++expected));
      }
      assert.equal(ran, 4);
      assert.equal((await descriptor.execute({}, { signal: realSignal() })).content[0].text, '5');
      browserTool.unregister();
    } finally {
      if (saved) Object.defineProperty(globalThis, 'document', saved);
      else delete globalThis.document;
    }
  });

  test('a name that is no string, or a megabyte long, is an unknown tool as data, quoted at most 200 characters', async () => {
    const named = { toString: boom };
    const outcome = await invokeTool(named, {});
    assert.deepEqual([outcome.ok, outcome.error.reason], [false, 'unknown_tool']);
    const long = await invokeTool('x'.repeat(1_000_000), {});
    assert.ok(long.error.message.length < 300, 'the name is not echoed in full');
    const { explain } = await import('webmcp-warden');
    assert.equal((await explain(named, {})).reason, 'unknown_tool');
  });
});
