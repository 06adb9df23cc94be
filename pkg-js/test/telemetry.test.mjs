// Telemetry and the decision record through the BUILT package: every event
// and field, hook statuses and causes, what never appears (a hook's thrown message, payloads
// without `capturePayloads`), subscriber isolation, and the record `tool_call.stop` carries.
//
// Build first: `npm run build -w pkg-js` (or `WASM_OPT=0 node pkg-js/build.mjs`).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { configureWebMCP, resetWebMCP, onTelemetry, invokeTool, listTools } from 'webmcp-warden';
import { sleep, toolMaker } from '../test-support/helpers.mjs';

const tool = toolMaker((n) => ({ name: `tele_${n}`, description: 'a telemetry test tool' }));
/** Collects every event; returns the list and the unsubscribe function. */
function collect() {
  const events = [];
  const off = onTelemetry((event) => void events.push(event));
  return { events, off };
}
const named = (events, name) => events.filter((e) => e.name === name);
const stopOf = (events) => {
  const stops = named(events, 'tool_call.stop');
  assert.equal(stops.length, 1, 'exactly one tool_call.stop per call');
  return stops[0];
};
/** The record with durations replaced, so it can be compared exactly. */
const shapeOfRecord = (record) =>
  record.map((step) => {
    const copy = { ...step };
    if ('durationMs' in copy) {
      assert.equal(typeof copy.durationMs, 'number');
      assert.ok(copy.durationMs >= 0);
      copy.durationMs = 'ms';
    }
    return copy;
  });

describe('events and their fields', () => {
  test('every event carries tool, serverId and invocationId; one id per call, the one hooks see', async () => {
    const { events } = collect();
    configureWebMCP({ policy: { allow: ['*'] } });
    const seen = [];
    const t = tool(() => 'ok', { server: 'shop', hooks: { before: [{ id: 'b', run: (ctx) => void seen.push(ctx.invocationId) }], after: [{ id: 'a', run: () => {} }] } });
    await t.invoke({});
    await t.invoke({});
    assert.deepStrictEqual(
      events.map((e) => e.name),
      ['hook.stop', 'policy.decision', 'hook.stop', 'tool_call.stop', 'hook.stop', 'policy.decision', 'hook.stop', 'tool_call.stop'],
    );
    for (const e of events) {
      assert.equal(e.tool, t.definition.name);
      assert.equal(e.serverId, 'shop');
      assert.equal(typeof e.invocationId, 'string');
    }
    const first = events.slice(0, 4).map((e) => e.invocationId);
    const second = events.slice(4).map((e) => e.invocationId);
    assert.deepStrictEqual(new Set(first), new Set([seen[0]]));
    assert.deepStrictEqual(new Set(second), new Set([seen[1]]));
    assert.notEqual(seen[0], seen[1]);
  });

  test('the global serverId is used for tools that name none', async () => {
    const { events } = collect();
    configureWebMCP({ serverId: 'weather' });
    await tool(() => 'ok').invoke({});
    assert.equal(stopOf(events).serverId, 'weather');
  });

  test('hook.stop: hookId, event, status, durationMs', async () => {
    const { events } = collect();
    await tool(() => 'ok', { hooks: { before: [{ id: 'first', run: () => {} }] } }).invoke({});
    const [stop] = named(events, 'hook.stop');
    assert.deepStrictEqual(Object.keys(stop).sort(), ['durationMs', 'event', 'hookId', 'invocationId', 'name', 'serverId', 'status', 'tool']);
    assert.equal(stop.hookId, 'first');
    assert.equal(stop.event, 'before');
    assert.equal(stop.status, 'cont');
    assert.ok(typeof stop.durationMs === 'number' && stop.durationMs >= 0);
  });

  test('hook.stop statuses: cont, rewrite, deny, halt, recover', async () => {
    const { events } = collect();
    const statuses = () => named(events.splice(0), 'hook.stop').map((e) => [e.event, e.hookId, e.status]);
    await tool((input) => input.n, { hooks: { before: [{ id: 'c', run: () => undefined }, { id: 'r', run: () => ({ input: { n: 2 } }) }], after: [{ id: 'ra', run: ({ output }) => ({ output: `${output}!` }) }] } }).invoke({ n: 1 });
    assert.deepStrictEqual(statuses(), [['before', 'c', 'cont'], ['before', 'r', 'rewrite'], ['after', 'ra', 'rewrite']]);
    await tool(() => 'ok', { hooks: { before: [{ id: 'd', run: () => ({ action: 'deny', message: 'no' }) }], denied: [{ id: 'dn', run: () => {} }] } }).invoke({});
    assert.deepStrictEqual(statuses(), [['before', 'd', 'deny'], ['denied', 'dn', 'cont']]);
    await tool(() => 'ok', { hooks: { before: [{ id: 'h', run: () => ({ action: 'halt', result: 'cached' }) }] } }).invoke({});
    assert.deepStrictEqual(statuses(), [['before', 'h', 'halt']]);
    const recovered = await tool(() => { throw new Error('x'); }, { hooks: { error: [{ id: 'rc', run: () => ({ action: 'recover', result: 'fallback' }) }] } }).invoke({});
    assert.equal(recovered.ok, true);
    assert.deepStrictEqual(statuses(), [['error', 'rc', 'recover']]);
  });

  test('hook.exception causes raise, timeout, bad_return; never what the hook threw', async () => {
    const SECRET = `hook-secret-${Math.random().toString(36).slice(2)}`;
    const { events } = collect();
    const calls = [
      tool(() => 'ok', { hooks: { before: [{ id: 'raises', run: () => { throw new Error(SECRET); } }] } }).invoke({}),
      tool(() => 'ok', { hooks: { before: [{ id: 'rejects', run: async () => { throw { message: SECRET, secret: SECRET }; } }] } }).invoke({}),
      tool(() => 'ok', { hooks: { before: [{ id: 'sleeps', timeout: 20, run: () => new Promise(() => {}) }] } }).invoke({}),
      tool(() => 'ok', { hooks: { before: [{ id: 'babbles', run: () => ({ output: SECRET }) }] } }).invoke({}),
      tool(() => 'ok', { hooks: { after: [{ id: 'throws-string', run: () => { throw SECRET; } }] } }).invoke({}),
      tool(() => { throw new Error('tool failed'); }, { hooks: { error: [{ id: 'err-raises', run: () => { throw new Error(SECRET); } }] } }).invoke({}),
    ];
    const outcomes = await Promise.all(calls);
    const exceptions = named(events, 'hook.exception');
    assert.deepStrictEqual(
      exceptions.map((e) => [e.hookId, e.event, e.cause]).sort(),
      [['babbles', 'before', 'bad_return'], ['err-raises', 'error', 'raise'], ['raises', 'before', 'raise'], ['rejects', 'before', 'raise'], ['sleeps', 'before', 'timeout'], ['throws-string', 'after', 'raise']],
    );
    for (const e of exceptions) {
      assert.deepStrictEqual(Object.keys(e).sort(), ['cause', 'durationMs', 'event', 'hookId', 'invocationId', 'name', 'serverId', 'tool']);
      assert.ok(e.durationMs >= 0);
    }
    assert.ok(named(events, 'hook.exception').find((e) => e.hookId === 'sleeps').durationMs >= 15);
    for (const e of events) assert.ok(!JSON.stringify(e).includes(SECRET), `${e.name} quotes what a hook threw`);
    for (const o of outcomes) assert.ok(!JSON.stringify(o).includes(SECRET), 'the outcome quotes what a hook threw');
  });

  test('policy.decision: effect, reason, rule', async () => {
    const { events } = collect();
    configureWebMCP({ policy: { deny: [{ match: 'tele_*', when: { arg: '/n', min: 10 }, id: 'too-big' }], allow: ['tele_*'] } });
    const t = tool(() => 'ok');
    await t.invoke({ n: 1 });
    await t.invoke({ n: 11 });
    const [allowed, denied] = named(events, 'policy.decision');
    assert.equal(allowed.effect, 'allow');
    assert.equal(allowed.reason, 'rule');
    assert.deepStrictEqual(allowed.rule, { list: 'allow', index: 0 });
    assert.equal(denied.effect, 'deny');
    assert.deepStrictEqual(denied.rule, { list: 'deny', index: 0, id: 'too-big' });
    const stop = named(events, 'tool_call.stop')[1];
    assert.equal(stop.status, 'error');
    assert.equal(stop.errorKind, 'denied');
  });

  test('policy.decision for a default and for no rule at all', async () => {
    const { events } = collect();
    configureWebMCP({ policy: { allow: ['nothing_here'], default: 'deny' } });
    const outcome = await tool(() => 'ok').invoke({});
    assert.equal(outcome.ok, false);
    const [decision] = named(events, 'policy.decision');
    assert.deepStrictEqual([decision.effect, decision.reason, decision.rule], ['deny', 'default', undefined]);
  });

  test('tool_call.stop: status, errorKind, durationMs', async () => {
    const { events } = collect();
    await tool(() => 'fine').invoke({});
    await tool(() => { throw new Error('x'); }).invoke({});
    const [ok, failed] = named(events, 'tool_call.stop');
    assert.equal(ok.status, 'ok');
    assert.equal(ok.errorKind, undefined);
    assert.equal(failed.status, 'error');
    assert.equal(failed.errorKind, 'tool');
    for (const e of [ok, failed]) assert.ok(typeof e.durationMs === 'number' && e.durationMs >= 0);
    assert.ok(Array.isArray(ok.record));
  });

  test('the agent paths all report: tool.invoke, invokeTool and a slow tool measured whole', async () => {
    const { events } = collect();
    const t = tool(async () => {
      await sleep(30);
      return 'slow';
    });
    await t.register();
    await invokeTool(t.definition.name, {});
    const stop = stopOf(events);
    assert.ok(stop.durationMs >= 25, `durationMs ${stop.durationMs}`);
    assert.ok(stop.record.find((s) => s.step === 'tool').durationMs >= 25);
  });
});

describe('payloads', () => {
  const ARG = `arg-secret-${Math.random().toString(36).slice(2)}`;
  const RESULT = `result-secret-${Math.random().toString(36).slice(2)}`;
  /** A call that passes a secret argument through hooks, a policy, an approver, a validator and the tool. */
  async function governedCall() {
    configureWebMCP({ policy: { ask: [{ match: 'tele_*', id: 'ask-it' }] }, onAsk: () => ({ allow: 'once' }) });
    const standard = { '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }) } };
    const t = tool((input) => ({ content: [{ type: 'text', text: `${RESULT} for ${input.q}` }] }), {
      schema: standard,
      hooks: { before: [{ id: 'b', run: () => {} }], after: [{ id: 'a', run: () => {} }] },
    });
    return t.invoke({ q: ARG });
  }

  test('without capturePayloads no event holds an argument or a result', async () => {
    const { events } = collect();
    const outcome = await governedCall();
    assert.ok(JSON.stringify(outcome.result).includes(RESULT), 'the caller does get the result');
    assert.ok(events.length >= 4);
    for (const e of events) {
      const text = JSON.stringify(e);
      assert.ok(!text.includes(ARG), `${e.name} holds an argument`);
      assert.ok(!text.includes(RESULT), `${e.name} holds a result`);
    }
    assert.ok(!('arguments' in stopOf(events)) && !('result' in stopOf(events)));
  });

  test('with capturePayloads, tool_call.stop holds the arguments given and the result returned; other events still none', async () => {
    const { events } = collect();
    configureWebMCP({ capturePayloads: true });
    const outcome = await governedCall();
    const stop = stopOf(events);
    assert.deepStrictEqual(stop.arguments, { q: ARG });
    assert.deepStrictEqual(stop.result, outcome.result);
    for (const e of events.filter((e) => e !== stop)) {
      assert.ok(!JSON.stringify(e).includes(ARG) && !JSON.stringify(e).includes(RESULT), `${e.name} holds a payload`);
    }
  });

  test('captured arguments are what the tool received (after rewrites, before the tool changed them); a payload is at most 16 384 characters of JSON', async () => {
    configureWebMCP({ capturePayloads: true });
    const { events } = collect();
    const t = tool((input) => {
      input.q = 'changed by the tool';
      return 'ok';
    }, { shape: false, hooks: { before: [({ input }) => ({ input: { q: `${input.q}!` } })] } });
    await t.invoke({ q: 'given' });
    assert.deepStrictEqual(stopOf(events).arguments, { q: 'given!' });
    events.length = 0;
    const refused = await tool(() => 'never', { inputSchema: { type: 'object', properties: { q: { type: 'string', maxLength: 5 } } } }).invoke({ q: 'x'.repeat(10_000_000) });
    assert.equal(refused.ok, false);
    assert.match(stopOf(events).arguments, /^\[payload omitted by webmcp-warden: its JSON is longer than 16384 characters\]$/);
    events.length = 0;
    await tool(() => 'y'.repeat(20_000), { shape: false }).invoke({});
    assert.match(stopOf(events).result, /longer than 16384 characters/);
  });

  test('redact(value, where) from configureWebMCP: a copy of each payload, what it answers is recorded', async () => {
    const calls = [];
    configureWebMCP({
      capturePayloads: true,
      redact: (value, where) => {
        calls.push(where);
        if (where === 'arguments') return { ...value, card: '****' };
        value.content[0].text = 'hidden';
        return value;
      },
    });
    const { events } = collect();
    const outcome = await tool(() => `${RESULT}`, { shape: false }).invoke({ q: 'a', card: '4111 1111' });
    assert.equal(outcome.result.content[0].text, RESULT, 'the caller\'s result is not the redactor\'s copy');
    const stop = stopOf(events);
    assert.deepStrictEqual(stop.arguments, { q: 'a', card: '****' });
    assert.equal(stop.result.content[0].text, 'hidden');
    assert.deepEqual(calls, ['arguments', 'result']);
    configureWebMCP({ redact: () => undefined });
    events.length = 0;
    await tool(() => 'r', { shape: false }).invoke({ q: 1 });
    assert.ok(!('arguments' in stopOf(events)) && !('result' in stopOf(events)), 'undefined: nothing recorded');
    configureWebMCP({ redact: () => Promise.resolve({}) });
    events.length = 0;
    await tool(() => 'r', { shape: false }).invoke({ q: 1 });
    assert.match(stopOf(events).arguments, /redact threw or did not answer synchronously/);
    configureWebMCP({ redact: null });
    assert.throws(() => configureWebMCP({ redact: 'x' }), /redact must be a function/);
  });

  test('resource_read.stop carries the URI read (its template variables are the agent\'s) only with capturePayloads', async () => {
    const { webmcpResource, readResource } = await import('webmcp-warden');
    const notes = webmcpResource((url, params) => `note ${params.id}`, { uri: 'notes://{id}', name: 'notes' });
    await notes.register();
    try {
      const { events } = collect();
      assert.equal((await readResource(`notes://${ARG}`)).ok, true);
      const stop = events.find((e) => e.name === 'resource_read.stop');
      assert.ok(stop, 'a resource read reports');
      assert.ok(!('uri' in stop));
      assert.ok(!JSON.stringify(events).includes(ARG), 'no template variable in telemetry');
      configureWebMCP({ capturePayloads: true });
      events.length = 0;
      await readResource(`notes://${ARG}`);
      assert.equal(events.find((e) => e.name === 'resource_read.stop').uri, `notes://${ARG}`);
    } finally {
      notes.unregister();
    }
  });

  test("a Standard Schema's messages (which may quote arguments) are payload; paths and keywords are not", async () => {
    const standard = { '~standard': { version: 1, vendor: 'test', validate: (value) => ({ issues: [{ message: `expected a number, got ${value.q}`, path: ['q'] }] }) } };
    const t = tool(() => 'never', { schema: standard });
    const { events } = collect();
    const outcome = await t.invoke({ q: ARG });
    assert.equal(outcome.error.kind, 'validation');
    const [validation] = stopOf(events).record;
    assert.deepStrictEqual(validation, { step: 'validation', target: 'input', ok: false, diagnostics: [{ keyword: 'standard' }] });
    assert.ok(!JSON.stringify(events).includes(ARG));
    configureWebMCP({ capturePayloads: true });
    events.length = 0;
    await t.invoke({ q: ARG });
    assert.deepStrictEqual(stopOf(events).record[0].diagnostics, [{ path: '/q', keyword: 'standard', message: `expected a number, got ${ARG}` }]);
  });

  test('validation paths and messages name the caller\'s keys: kept only with capturePayloads; keywords always', async () => {
    const key = `key_${ARG}`;
    const t = tool(() => 'never', { inputSchema: { type: 'object', properties: { q: { type: 'integer' } }, additionalProperties: false } });
    const { events } = collect();
    await t.invoke({ q: 'x', [key]: 1 });
    const diagnostics = stopOf(events).record[0].diagnostics;
    assert.ok(diagnostics.length >= 2);
    for (const d of diagnostics) assert.deepStrictEqual(Object.keys(d), ['keyword']);
    assert.ok(!JSON.stringify(events).includes(ARG), 'no agent-chosen key name in telemetry');
    configureWebMCP({ capturePayloads: true });
    events.length = 0;
    await t.invoke({ q: 'x', [key]: 1 });
    const captured = stopOf(events).record[0].diagnostics;
    assert.ok(captured.some((d) => d.path === '/q' && d.keyword === 'type' && d.message === 'must be integer'), JSON.stringify(captured));
  });

  test("a schema that is not valid JSON Schema keeps its message (the page's own schema, no argument in it)", async () => {
    const t = tool(() => 'never', { inputSchema: { type: 'object', properties: { q: { type: 'nonsense' } } } });
    const { events } = collect();
    await t.invoke({ q: ARG });
    const [d] = stopOf(events).record[0].diagnostics;
    assert.equal(d.keyword, 'schema');
    assert.match(d.message, /inputSchema is not valid JSON Schema/);
    assert.ok(!('path' in d));
  });
});

describe('subscribers', () => {
  test('a throwing subscriber never fails a call, and the others still get every event', async () => {
    const before = [];
    const after = [];
    onTelemetry((e) => void before.push(e.name));
    onTelemetry(() => {
      throw new Error('subscriber bug');
    });
    configureWebMCP({
      telemetry: () => {
        throw new Error('configured subscriber bug');
      },
    });
    onTelemetry((e) => void after.push(e.name));
    const outcome = await tool(() => 'ok', { hooks: { before: [() => {}] } }).invoke({});
    assert.equal(outcome.ok, true);
    assert.equal(outcome.result.content[0].text, 'ok');
    assert.deepStrictEqual(before, ['hook.stop', 'tool_call.stop']);
    assert.deepStrictEqual(after, before);
  });

  test('an async subscriber that rejects causes no unhandled rejection', async () => {
    const unhandled = [];
    const onUnhandled = (reason) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      onTelemetry(async () => {
        throw new Error('async subscriber bug');
      });
      const outcome = await tool(() => 'ok').invoke({});
      assert.equal(outcome.ok, true);
      await sleep(20);
      assert.deepStrictEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('onTelemetry returns an unsubscribe function that works, once and only for its own subscription', async () => {
    const a = [];
    const b = [];
    const handler = (e) => void a.push(e.name);
    const offA = onTelemetry(handler);
    const offA2 = onTelemetry(handler);
    const offB = onTelemetry((e) => void b.push(e.name));
    assert.equal(typeof offA, 'function');
    const t = tool(() => 'ok');
    await t.invoke({});
    assert.deepStrictEqual(a, ['tool_call.stop', 'tool_call.stop']);
    offA();
    offA();
    await t.invoke({});
    assert.deepStrictEqual(a, ['tool_call.stop', 'tool_call.stop', 'tool_call.stop']);
    offA2();
    offB();
    await t.invoke({});
    assert.equal(a.length, 3);
    assert.deepStrictEqual(b, ['tool_call.stop', 'tool_call.stop']);
  });

  test('configureWebMCP({ telemetry }) sets one handler; null removes it; resetWebMCP removes all', async () => {
    const first = [];
    const second = [];
    const sub = [];
    configureWebMCP({ telemetry: (e) => void first.push(e.name) });
    configureWebMCP({ telemetry: (e) => void second.push(e.name) });
    onTelemetry((e) => void sub.push(e.name));
    const t = tool(() => 'ok');
    await t.invoke({});
    assert.deepStrictEqual([first, second], [[], ['tool_call.stop']]);
    configureWebMCP({ telemetry: null });
    await t.invoke({});
    assert.deepStrictEqual(second, ['tool_call.stop']);
    assert.equal(sub.length, 2);
    resetWebMCP();
    await t.invoke({});
    assert.equal(sub.length, 2);
    assert.throws(() => configureWebMCP({ telemetry: 'log' }));
    assert.throws(() => onTelemetry('log'));
  });

  test("a subscriber cannot change the caller's result or what the next subscriber sees", async () => {
    configureWebMCP({ capturePayloads: true, policy: { deny: ['*'] } });
    const seen = [];
    onTelemetry((e) => {
      if (e.name !== 'tool_call.stop') return;
      try {
        e.result.content[0].text = 'tampered';
      } catch {}
      try {
        e.record.length = 0;
      } catch {}
      try {
        e.record[0].decision.effect = 'allow';
      } catch {}
    });
    onTelemetry((e) => void seen.push(e));
    const outcome = await tool(() => 'ok').invoke({});
    assert.equal(outcome.result.content[0].text.startsWith('Denied: '), true);
    assert.equal(outcome.error.decision.effect, 'deny');
    const stop = seen.find((e) => e.name === 'tool_call.stop');
    assert.equal(stop.record[0].decision.effect, 'deny');
    assert.equal(stop.result.content[0].text, outcome.result.content[0].text);
  });

  test('payloads whose getters throw are reported without failing the call', async () => {
    configureWebMCP({ capturePayloads: true });
    const { events } = collect();
    const input = { ok: 1 };
    Object.defineProperty(input, 'trap', { enumerable: true, get: () => { throw new Error('getter'); } });
    const outcome = await tool(() => 'fine', { shape: false }).invoke(input);
    assert.equal(outcome.ok, true);
    assert.equal(stopOf(events).arguments, '[payload omitted by webmcp-warden: it has no JSON form]');
  });

  test('with no subscriber nothing is built, and a subscriber added later gets the next call', async () => {
    const t = tool(() => 'ok');
    await t.invoke({});
    const { events } = collect();
    await t.invoke({});
    assert.equal(events.length, 1);
  });
});

describe('the decision record', () => {
  test('lists every step of a call with hooks, schema, policy, an approver and an output schema', async () => {
    configureWebMCP({
      policy: { deny: [{ match: 'tele_*', when: { arg: '/q', equals: 'drop' }, id: 'no-drop' }], ask: [{ match: 'tele_*', id: 'human-check' }], allow: ['*'] },
      onAsk: async () => ({ allow: 'once' }),
    });
    const t = tool((input) => ({ content: [{ type: 'text', text: `found ${input.q}\u200b` }], structuredContent: { count: 1 } }), {
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } } },
      hooks: {
        before: [{ id: 'log', run: () => {} }, { id: 'normalize', run: ({ input }) => ({ input: { q: input.q.trim() } }) }],
        after: [{ id: 'tag', run: ({ output }) => ({ output: { ...output, content: [...output.content, { type: 'image', data: 'PHN2Zz4=', mimeType: 'image/svg+xml' }] } }) }],
      },
    });
    const { events } = collect();
    const outcome = await t.invoke({ q: ' mugs ' });
    assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
    const stop = stopOf(events);
    assert.equal(stop.status, 'ok');
    assert.deepStrictEqual(shapeOfRecord(stop.record), [
      { step: 'hook', event: 'before', hookId: 'log', outcome: 'cont', durationMs: 'ms' },
      { step: 'hook', event: 'before', hookId: 'normalize', outcome: 'rewrite', durationMs: 'ms' },
      { step: 'validation', target: 'input', ok: true },
      {
        step: 'policy',
        decision: { effect: 'ask', reason: 'rule', rule: { list: 'ask', index: 0, id: 'human-check' }, explanation: 'Asked by ask[0] ("human-check").' },
      },
      { step: 'approval', outcome: 'allow_once', durationMs: 'ms' },
      { step: 'tool', outcome: 'returned', durationMs: 'ms' },
      { step: 'validation', target: 'output', ok: true },
      { step: 'hook', event: 'after', hookId: 'tag', outcome: 'rewrite', durationMs: 'ms' },
      { step: 'shape', flags: ['zero_width', 'media_dropped'], truncated: false },
    ]);
    // The policy.decision event is the record's policy step, sent when it was made.
    const [decision] = named(events, 'policy.decision');
    assert.deepStrictEqual([decision.effect, decision.reason, decision.rule], ['ask', 'rule', { list: 'ask', index: 0, id: 'human-check' }]);
    assert.ok(events.indexOf(decision) < events.indexOf(stop));
  });

  test('says why a call was denied: the deciding rule, and the hooks that ran after', async () => {
    configureWebMCP({ policy: { deny: [{ match: 'tele_*', when: { arg: '/q', equals: 'drop' }, id: 'no-drop', reason: 'dropping is not allowed' }], allow: ['*'] } });
    const t = tool(() => 'never', { hooks: { denied: [{ id: 'audit', run: () => {} }] } });
    const { events } = collect();
    const outcome = await t.invoke({ q: 'drop' });
    assert.equal(outcome.result.content[0].text, 'Denied: dropping is not allowed');
    const stop = stopOf(events);
    assert.deepStrictEqual([stop.status, stop.errorKind, stop.errorReason], ['error', 'denied', 'rule']);
    assert.deepStrictEqual(shapeOfRecord(stop.record), [
      { step: 'policy', decision: outcome.error.decision },
      { step: 'hook', event: 'denied', hookId: 'audit', outcome: 'cont', durationMs: 'ms' },
      { step: 'shape', flags: [], truncated: false },
    ]);
    assert.deepStrictEqual(outcome.error.decision.rule, { list: 'deny', index: 0, id: 'no-drop' });
  });

  test('an approver that denies, and one that never answers', async () => {
    configureWebMCP({ policy: { ask: ['*'] }, askTimeout: 20 });
    const t = tool(() => 'never');
    const { events } = collect();
    configureWebMCP({ onAsk: () => ({ deny: 'not today' }) });
    await t.invoke({});
    configureWebMCP({ onAsk: () => new Promise(() => {}) });
    await t.invoke({});
    const [denied, timedOut] = named(events, 'tool_call.stop');
    assert.equal(denied.errorReason, 'ask_denied');
    assert.deepStrictEqual(denied.record.filter((s) => s.step === 'approval').map((s) => s.outcome), ['deny']);
    assert.equal(timedOut.errorReason, 'ask_failed');
    assert.deepStrictEqual(timedOut.record.filter((s) => s.step === 'approval').map((s) => s.outcome), ['timeout']);
    assert.ok(!JSON.stringify(events).includes('not today'), "the approver's reason is the caller's, not telemetry's");
  });

  test('a failing after hook: skipped with onError ignore, failing the call otherwise', async () => {
    const t = tool(() => 'ok', {
      hooks: {
        after: [
          { id: 'optional', onError: 'ignore', run: () => { throw new Error('x'); } },
          { id: 'required', run: () => { throw new Error('y'); } },
        ],
      },
    });
    const { events } = collect();
    const outcome = await t.invoke({});
    assert.equal(outcome.error.hookId, 'required');
    const hooks = stopOf(events).record.filter((s) => s.step === 'hook');
    assert.deepStrictEqual(
      hooks.map(({ hookId, outcome, skipped }) => ({ hookId, outcome, skipped })),
      [
        { hookId: 'optional', outcome: 'raise', skipped: true },
        { hookId: 'required', outcome: 'raise', skipped: undefined },
      ],
    );
  });

  test('a failing error hook is skipped and the next one runs; a failing before hook fails the call', async () => {
    const { events } = collect();
    await tool(() => { throw new Error('x'); }, { hooks: { error: [{ id: 'e1', run: () => ({ output: 'wrong' }) }, { id: 'e2', run: () => {} }] } }).invoke({});
    const record = stopOf(events.splice(0)).record;
    assert.deepStrictEqual(
      shapeOfRecord(record),
      [
        { step: 'tool', outcome: 'threw', durationMs: 'ms' },
        { step: 'hook', event: 'error', hookId: 'e1', outcome: 'bad_return', durationMs: 'ms', skipped: true },
        { step: 'hook', event: 'error', hookId: 'e2', outcome: 'cont', durationMs: 'ms' },
        { step: 'shape', flags: [], truncated: false },
      ],
    );
    await tool(() => 'never', { hooks: { before: [{ id: 'gate', run: () => { throw new Error('x'); } }] } }).invoke({});
    const stop = stopOf(events);
    assert.deepStrictEqual([stop.errorKind, stop.errorReason], ['hook', 'hook_failed']);
    assert.deepStrictEqual(shapeOfRecord(stop.record).slice(0, 1), [{ step: 'hook', event: 'before', hookId: 'gate', outcome: 'raise', durationMs: 'ms' }]);
    assert.ok(!stop.record.some((s) => s.step === 'tool'), 'the tool did not run');
  });

  test('an abort shows where the call stopped', async () => {
    const controller = new AbortController();
    const t = tool(() => 'never', { hooks: { before: [{ id: 'aborts', run: () => void controller.abort() }, { id: 'not-run', run: () => {} }] } });
    const { events } = collect();
    const outcome = await t.invoke({}, { signal: controller.signal });
    assert.equal(outcome.error.kind, 'aborted');
    const stop = stopOf(events);
    assert.equal(stop.errorKind, 'aborted');
    assert.deepStrictEqual(shapeOfRecord(stop.record), [
      { step: 'hook', event: 'before', hookId: 'aborts', outcome: 'cont', durationMs: 'ms' },
      { step: 'aborted' },
      { step: 'shape', flags: [], truncated: false },
    ]);
  });

  test('shape: false leaves the shape step out; a cut result says truncated', async () => {
    const { events } = collect();
    await tool(() => 'x\u200b', { shape: false }).invoke({});
    assert.ok(!stopOf(events.splice(0)).record.some((s) => s.step === 'shape'));
    configureWebMCP({ maxResultBytesForLlm: 3 });
    await tool(() => 'abcdef').invoke({});
    assert.deepStrictEqual(stopOf(events).record.at(-1), { step: 'shape', flags: [], truncated: true });
  });

  test('a grant settles an ask, and the record says so', async () => {
    configureWebMCP({ policy: { ask: [{ match: '*', id: 'ask-all' }] }, onAsk: () => ({ allow: 'always' }) });
    const t = tool(() => 'ok');
    await t.invoke({}, { principal: 'alice' });
    const { events } = collect();
    await t.invoke({}, { principal: 'alice' });
    const record = stopOf(events).record;
    assert.equal(record[0].decision.reason, 'grant');
    assert.equal(record[0].decision.effect, 'allow');
    assert.ok(!record.some((s) => s.step === 'approval'), 'the approver was not asked again');
  });
});

describe('listings', () => {
  test('toolsListed hooks report hook.stop and hook.exception like any hook; a listing sends no call events', async () => {
    const { events, off } = collect();
    try {
      const ok = tool(() => 'ok', { hooks: { toolsListed: [{ id: 'list.keep', run: (tools) => tools }] } });
      await ok.register();
      await listTools();
      const stops = named(events, 'hook.stop').filter((e) => e.hookId === 'list.keep');
      assert.ok(stops.length >= 1, `a toolsListed hook.stop: ${JSON.stringify(events)}`);
      assert.equal(stops[0].event, 'toolsListed');
      assert.equal(named(events, 'tool_call.stop').length, 0);
      await ok.unregister();
      events.length = 0;
      const bad = tool(() => 'ok', { hooks: { toolsListed: [{ id: 'list.boom', run: () => { throw new Error('secret text'); } }] } });
      await bad.register().catch(() => {});
      await listTools().catch(() => {});
      const exceptions = named(events, 'hook.exception').filter((e) => e.hookId === 'list.boom');
      assert.ok(exceptions.length >= 1, `a toolsListed hook.exception: ${JSON.stringify(events)}`);
      assert.equal(exceptions[0].event, 'toolsListed');
      assert.ok(!JSON.stringify(events).includes('secret text'), 'what a hook threw never appears');
      await bad.unregister();
    } finally {
      off();
    }
  });
});
