// What users of simple-webmcp and ConduitMCP rely on, beyond the shared fixtures: warnings for
// bad returns, return values that throw when read, ctx.error as the thrown value for each
// thrower, the call timeout, call options, and resetWebMCP() emptying the registry.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, invokeTool, listTools, resetWebMCP, CallFailure, WardenError } from '../lib/index.js';
import { installFakeModelContext } from '../lib/testing.js';
import { captureConsole, sleep, textOf, trackTools } from '../test-support/lib-helpers.mjs';

const made = trackTools();
let counter = 0;
const tool = (fn, options = {}) => {
  const t = webmcp(fn, { name: `contract_${++counter}`, description: 'd', shape: false, ...options });
  made.push(t);
  return t;
};

describe('a bad return is warned about once per hook, never quoting the value', () => {
  const written = [];
  let restore;
  before(() => {
    restore = captureConsole(written);
  });
  after(() => restore());

  test('one console.warn per hook id, naming the hook, the event and the shapes it may return', async () => {
    const SECRET = 'SECRET-value-7f3a';
    const t = tool(() => 'ran', { hooks: { before: [{ id: 'guard', run: () => ({ output: SECRET }) }] } });
    written.length = 0;
    for (let i = 0; i < 3; i++) assert.equal((await t.invoke({})).error.cause, 'bad_return');
    assert.equal(written.length, 1, written.join('\n'));
    const [line] = written;
    assert.match(line, /before hook "guard"/);
    assert.match(line, /\{ action: 'deny', message\?, code\? \}/);
    assert.ok(!line.includes(SECRET));
    // An incidental value is no bad return: nothing is written.
    const quiet = tool(() => 'ran', { hooks: { before: [(ctx) => [ctx.tool.toolName].push('x')] } });
    written.length = 0;
    assert.equal((await quiet.invoke({})).ok, true);
    assert.deepEqual(written, []);
  });

  test('the warning says what the failure did: withheld, or skipped (onError: ignore, an error hook), with the hook id', async () => {
    const withheld = tool(() => 'ran', { hooks: { after: [{ id: 'strict_audit', run: () => ({ action: 'halt' }) }] } });
    const ignored = tool(() => 'ran', { hooks: { after: [{ id: 'loose_audit', run: () => ({ action: 'halt' }), onError: 'ignore' }] } });
    const observer = tool(() => { throw new Error('boom'); }, { hooks: { error: [{ id: 'observer', run: () => ({ action: 'halt' }) }] } });
    written.length = 0;
    assert.equal((await withheld.invoke({})).error.reason, 'hook_failed');
    assert.equal((await ignored.invoke({})).ok, true, 'the ignored failure leaves the result');
    assert.equal((await observer.invoke({})).error.kind, 'tool');
    assert.equal(written.length, 3, written.join('\n'));
    assert.match(written[0], /after hook "strict_audit" .* so the result was withheld/);
    assert.match(written[1], /after hook "loose_audit" .* so the hook was skipped/);
    assert.match(written[2], /error hook "observer" .* so the hook was skipped/);
  });

  test('the approver too: an approval is never implied, and the developer is told why', async () => {
    const t = tool(() => 'ran');
    await t.register();
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: () => ({ allow: 'yes please' }) });
    written.length = 0;
    const outcome = await invokeTool(t.toolName, {});
    assert.deepEqual([outcome.error.reason, outcome.error.cause], ['ask_failed', 'bad_return']);
    assert.equal(written.length, 1);
    assert.match(written[0], /the approver \(onAsk\)/);
    assert.ok(!written[0].includes('yes please'));
  });
});

describe("reading what a hook or the approver returned is part of it: a throw there is that step's raise, never quoted", () => {
  const SECRET = 'SECRET-9b2e-read-from-a-return';
  /** Every error the hostile returns threw, in order. */
  const thrown = [];
  const boom = () => {
    const err = new Error(SECRET, { cause: SECRET });
    thrown.push(err);
    throw err;
  };
  /** Return values that throw when read; `key` is one the event reads. */
  const HOSTILE = {
    'a getter on a key the event reads': (key) => ({ get [key]() { return boom(); } }),
    'a Proxy whose ownKeys trap throws': () => new Proxy({}, { ownKeys: boom }),
    'a Proxy whose has trap throws': () => new Proxy({}, { has: boom }),
    'a Proxy whose get trap throws': () => new Proxy({}, { get: boom }),
    'a then getter that throws': () => ({ get then() { return boom(); } }),
  };
  /** Each hostile return from a sync hook and resolved by an async one: `[label, run]`. */
  const variants = (key, hostile = HOSTILE) =>
    Object.entries(hostile).flatMap(([label, make]) => [
      [label, () => make(key)],
      [`${label} (resolved by an async hook)`, async () => make(key)],
    ]);

  /** Whether `value` mentions the secret anywhere: own properties (enumerable or not: an Error's message and stack), deeply. */
  function mentionsSecret(value, seen = new Set()) {
    if (typeof value === 'string') return value.includes(SECRET);
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
    if (seen.has(value)) return false;
    seen.add(value);
    if (value instanceof Map || value instanceof Set) return [...value].some((entry) => mentionsSecret(entry, seen));
    return Reflect.ownKeys(value).some((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      return descriptor !== undefined && 'value' in descriptor && mentionsSecret(descriptor.value, seen);
    });
  }

  const written = [];
  const events = [];
  let restore;
  before(() => {
    restore = captureConsole(written, { format: (a) => (typeof a === 'string' ? a : mentionsSecret(a) ? SECRET : 'value') });
  });
  after(() => {
    restore();
    // Only the diagnostics of raises (debug is on in development): a raise is not a bad return,
    // and what was thrown is never written (assertNotQuoted checks each line).
    assert.ok(written.length > 0, 'the raises were diagnosed');
    for (const line of written) assert.match(line, /^webmcp-warden: .* threw(,| for tool "[^"]*",) so /);
  });
  const observe = () => configureWebMCP({ telemetry: (e) => void events.push(e) });
  const assertNotQuoted = (label, ...values) => {
    for (const value of values) assert.ok(!mentionsSecret(value), `${label}: ${JSON.stringify(value)}`);
    assert.ok(!mentionsSecret(events), `${label}: telemetry quoted it`);
    assert.ok(!written.some((line) => line.includes(SECRET)), `${label}: the console quoted it`);
  };

  test('before: the call fails as hook_failed, cause raise; the tool does not run; error hooks run with ctx.error the thrown error', async () => {
    for (const [label, run] of variants('input')) {
      observe();
      thrown.length = 0;
      const seen = [];
      let runs = 0;
      const t = tool(() => ++runs, { hooks: { before: [{ id: 'reader', run }], error: [(ctx) => void seen.push({ error: ctx.error, failure: ctx.failure })] } });
      await t.register();
      for (const outcome of [await t.invoke({ q: 1 }), await invokeTool(t.toolName, { q: 1 })]) {
        assert.deepEqual([outcome.ok, outcome.error.kind, outcome.error.reason, outcome.error.hookId, outcome.error.cause], [false, 'hook', 'hook_failed', 'reader', 'raise'], label);
        assert.equal(textOf(outcome), 'Error: before hook "reader" failed (raise)', label);
        assertNotQuoted(label, outcome);
      }
      assert.equal(runs, 0, `${label}: the tool ran`);
      assert.equal(thrown.length, 2, `${label}: read once per call`);
      assert.equal(seen.length, 2, `${label}: the error hook ran`);
      seen.forEach(({ error, failure }, i) => {
        assert.ok(error === thrown[i], `${label}: ctx.error is the very error the read threw`);
        assert.equal(failure.cause, 'raise', label);
        assertNotQuoted(label, failure);
      });
    }
    assert.ok(events.some((e) => e.name === 'hook.stop'), 'telemetry was observed');
  });

  test('after: the result is withheld, cause raise; error hooks run without the raw result, and may recover', async () => {
    const RAW = 'raw-result-4e1d';
    for (const [label, run] of variants('output')) {
      observe();
      thrown.length = 0;
      const seen = [];
      let runs = 0;
      const t = tool(() => (++runs, RAW), { hooks: { after: [{ id: 'reader', run }], error: [(ctx) => void seen.push({ error: ctx.error, failure: ctx.failure, output: ctx.output })] } });
      const outcome = await t.invoke({});
      assert.deepEqual([outcome.ok, outcome.error.kind, outcome.error.reason, outcome.error.hookId, outcome.error.cause], [false, 'hook', 'hook_failed', 'reader', 'raise'], label);
      assert.equal(textOf(outcome), 'Error: result withheld (after hook "reader" failed)', label);
      assert.ok(!JSON.stringify(outcome).includes(RAW), `${label}: the raw result leaked`);
      assertNotQuoted(label, outcome);
      assert.equal(runs, 1, label);
      assert.equal(seen.length, 1, `${label}: the error hook ran`);
      assert.ok(seen[0].error === thrown[0], `${label}: ctx.error is the very error the read threw`);
      assert.equal(seen[0].failure.cause, 'raise', label);
      assert.notEqual(seen[0].output, RAW, `${label}: the raw result reached the error hook`);

      const recovered = await tool(() => RAW, { hooks: { after: [{ id: 'reader', run }], error: [() => ({ action: 'recover', result: 'recovered' })] } }).invoke({});
      assert.deepEqual([recovered.ok, textOf(recovered)], [true, 'recovered'], `${label}: an error hook may recover`);
      const ignored = await tool(() => RAW, { hooks: { after: [{ id: 'reader', run, onError: 'ignore' }] } }).invoke({});
      assert.deepEqual([ignored.ok, textOf(ignored)], [true, RAW], `${label}: onError ignore skips the hook and keeps the output`);
    }
  });

  test('the approver (onAsk): the ask is denied as ask_failed, cause raise; the tool does not run; denied hooks run', async () => {
    for (const [label, run] of variants('allow')) {
      thrown.length = 0;
      const seen = [];
      let runs = 0;
      configureWebMCP({ policy: { ask: ['*'] }, onAsk: run, hooks: { denied: [(ctx) => void seen.push(ctx.failure)] }, telemetry: (e) => void events.push(e) });
      const t = tool(() => ++runs);
      await t.register();
      for (const outcome of [await t.invoke({}), await invokeTool(t.toolName, {})]) {
        assert.deepEqual([outcome.ok, outcome.error.kind, outcome.error.reason, outcome.error.cause], [false, 'denied', 'ask_failed', 'raise'], label);
        assert.equal(textOf(outcome), 'Denied: the approval failed (raise)', label);
        assertNotQuoted(label, outcome);
      }
      assert.equal(runs, 0, `${label}: the tool ran`);
      assert.equal(thrown.length, 2, label);
      assert.deepEqual(seen.map((failure) => [failure.reason, failure.cause]), [['ask_failed', 'raise'], ['ask_failed', 'raise']], `${label}: denied hooks ran`);
      assertNotQuoted(label, seen);
      resetWebMCP();
    }
  });

  test('error and denied hooks: the hook is skipped, the next one runs, the error or denial stands', async () => {
    for (const [label, run] of variants('result')) {
      observe();
      thrown.length = 0;
      const seen = [];
      const failing = tool(() => { throw new Error('tool broke'); }, {
        hooks: { error: [{ id: 'reader', run }, (ctx) => void seen.push(ctx.error.message)] },
      });
      const outcome = await failing.invoke({});
      assert.deepEqual([outcome.error?.kind, outcome.error?.reason], ['tool', 'tool_error'], label);
      assert.deepEqual(seen, ['tool broke'], `${label}: the next error hook ran, with the original error`);
      const recovering = tool(() => { throw new Error('tool broke'); }, {
        hooks: { error: [{ id: 'reader', run }, () => ({ action: 'recover', result: 'recovered' })] },
      });
      assert.equal(textOf(await recovering.invoke({})), 'recovered', `${label}: a later error hook may still recover`);
      const denying = tool(() => 'ran', {
        hooks: { before: [() => ({ action: 'deny', message: 'not today' })], denied: [{ id: 'reader', run }, (ctx) => void seen.push(ctx.reason)] },
      });
      const denied = await denying.invoke({});
      assert.deepEqual([denied.error?.reason, textOf(denied)], ['hook_denied', 'Denied: not today'], label);
      assert.deepEqual(seen, ['tool broke', 'not today'], `${label}: the next denied hook ran`);
      assert.equal(thrown.length, 3, label);
      assertNotQuoted(label, outcome, denied);
    }
  });

  test('toolsListed: listTools() rejects with hook_failed naming the hook, never an empty list', async () => {
    const listed = {
      ...HOSTILE,
      'a getter on a listed tool': () => [{ get name() { return boom(); } }],
      'an array item getter': () => Object.defineProperty([undefined], 0, { get: boom, enumerable: true }),
    };
    delete listed['a getter on a key the event reads'];
    for (const [label, run] of variants(undefined, listed)) {
      observe();
      thrown.length = 0;
      const t = tool(() => 'ran', { hooks: { toolsListed: [{ id: 'lister', run }] } });
      await t.register();
      const caught = await listTools().then(() => undefined, (err) => err);
      assert.ok(caught instanceof WardenError, `${label}: ${caught}`);
      assert.equal(caught.code, 'hook_failed', label);
      assert.equal(caught.message, 'toolsListed hook "lister" failed (raise)', label);
      assert.equal(thrown.length, 1, label);
      assertNotQuoted(label, caught, String(caught.stack), String(caught.cause));
      resetWebMCP();
    }
  });
});

describe('ctx.error is what was thrown; ctx.failure is the structured failure', () => {
  const seen = (t) => {
    const got = [];
    return [got, webmcp(t, { hooks: { error: [(ctx) => void got.push({ error: ctx.error, failure: ctx.failure })] } })];
  };

  test('for each thrower: the tool, a before hook, an after hook, a Standard Schema validator (sync and async)', async () => {
    // Each thrower records the object it throws; ctx.error must be that very object (===).
    const thrown = [];
    const throwing = (message) => {
      const err = Object.assign(new Error(message), { code: 'E_THROWN' });
      thrown.push(err);
      return err;
    };
    const validator = (validate) => ({ '~standard': { version: 1, vendor: 't', validate } });
    const cases = [
      ['tool', {}, () => { throw throwing('tool broke'); }, 'tool'],
      ['before', { hooks: { before: [() => { throw throwing('before broke'); }] } }, () => 'ran', 'hook'],
      ['after', { hooks: { after: [() => { throw throwing('after broke'); }] } }, () => 'ran', 'hook'],
      ['standard (sync)', { schema: validator(() => { throw throwing('validator broke'); }) }, () => 'ran', 'validation'],
      ['standard (async)', { schema: validator(async () => { throw throwing('async validator broke'); }) }, () => 'ran', 'validation'],
    ];
    for (const [label, options, fn, kind] of cases) {
      thrown.length = 0;
      const [got, t] = seen(tool(fn, options));
      const outcome = await t.invoke({});
      assert.equal(outcome.ok, false, label);
      assert.equal(outcome.error.kind, kind, label);
      assert.equal(got.length, 1, label);
      assert.equal(thrown.length, 1, `${label}: the thrower threw once`);
      assert.ok(got[0].error instanceof Error && !(got[0].error instanceof CallFailure), `${label}: ctx.error is the thrown Error`);
      assert.ok(got[0].error === thrown[0], `${label}: ctx.error is the very object that was thrown`);
      assert.equal(got[0].error.code, 'E_THROWN', label);
      assert.match(got[0].error.message, /broke/);
      assert.equal(got[0].failure.kind, kind, `${label}: ctx.failure is the structured failure`);
      assert.ok(Object.isFrozen(got[0].failure));
      // What the agent reads does not quote a hook's or validator's throw.
      if (label !== 'tool') assert.ok(!textOf(outcome).includes('broke'), textOf(outcome));
    }
  });

  test('for failures nothing threw (timeout, bad return, validation, abort), an Error subclass with kind, reason and message', async () => {
    const [got, t] = seen(tool(() => 'ran', { hooks: { before: [{ run: () => sleep(200), timeout: 10 }] } }));
    await t.invoke({});
    assert.ok(got[0].error instanceof CallFailure);
    assert.deepEqual([got[0].error.kind, got[0].error.reason, got[0].error.message], ['hook', 'hook_failed', 'before hook "before:0" failed (timeout)']);
    assert.equal(got[0].failure.cause, 'timeout');
  });
});

describe('call options', () => {
  test('timeout ends a longer call as { kind: aborted, reason: timeout } and aborts its signal', async () => {
    let signal;
    const t = tool(async (input, extra) => {
      signal = extra.signal;
      await sleep(500);
      return 'late';
    });
    const started = Date.now();
    const outcome = await t.invoke({}, { timeout: 20 });
    assert.ok(Date.now() - started < 400);
    assert.deepEqual([outcome.ok, outcome.error.kind, outcome.error.reason], [false, 'aborted', 'timeout']);
    assert.equal(signal.aborted, true);
    assert.equal((await t.invoke({}, { timeout: 2000 })).ok, true, 'a call within its timeout is not affected');
  });

  test('an unknown option or a value of the wrong type is invalid_options, and the tool does not run', async () => {
    let runs = 0;
    const t = tool(() => ++runs);
    for (const options of [{ tiemout: 5 }, { timeout: -1 }, { taint: { web: true } }, { taint: true }, { taint: 1 }, { taint: [1] }, { principal: 7 }]) {
      const outcome = await t.invoke({}, options);
      assert.deepEqual([outcome.error.kind, outcome.error.reason], ['validation', 'invalid_options'], JSON.stringify(options));
    }
    assert.equal(runs, 0);
    assert.equal((await t.invoke({}, { taint: new Set(['web']) })).ok, true);
    assert.equal((await t.invoke({}, { taint: 'web' })).ok, true, 'one server id');
  });
});

describe('resetWebMCP() means reset', () => {
  test('the registry is empty: listTools() is [] and invokeTool of an earlier tool is not_found; tool.invoke still works', async () => {
    const installed = installFakeModelContext();
    try {
      const t = tool(() => 'ran');
      await t.register();
      assert.equal(t.status, 'registered');
      assert.deepEqual((await listTools()).map((d) => d.name), [t.toolName]);
      assert.deepEqual((await installed.modelContext.getTools()).map((d) => d.name), [t.toolName], 'the browser lists the tool');
      resetWebMCP();
      assert.deepEqual(await listTools(), []);
      assert.deepEqual(await installed.modelContext.getTools(), [], 'the browser lists nothing after reset');
      assert.equal((await invokeTool(t.toolName, {})).error.kind, 'not_found');
      assert.equal(t.status, 'unregistered');
      assert.equal((await t.invoke({})).ok, true, 'the tool object still works in-page');
    } finally {
      installed.uninstall();
    }
  });
});

describe('configureWebMCP({ hooks }) given the same hooks again', () => {
  const written = [];
  let restore;
  before(() => {
    restore = captureConsole(written);
  });
  after(() => restore());

  test('a hook already among the global hooks is kept once (by identity), with one console warning', async () => {
    resetWebMCP();
    const { getDefaultWarden } = await import('../lib/index.js');
    const { internalOf } = await import('../lib/api/api.js');
    const setsBefore = internalOf(getDefaultWarden()).counts().sets;
    written.length = 0;
    let runs = 0;
    const audit = () => void runs++;
    const object = { id: 'logged', run: () => void runs++ };
    // A React effect that configures on every render, 20,000 renders.
    for (let i = 0; i < 20_000; i++) configureWebMCP({ hooks: { before: [audit], after: [object] } });
    const { getGlobalHooks } = await import('../lib/index.js');
    assert.deepEqual([getGlobalHooks().before.length, getGlobalHooks().after.length], [1, 1]);
    assert.equal(internalOf(getDefaultWarden()).counts().sets, setsBefore + 1, 'one hook set: the repeats made none');
    const t = tool(() => 'ran');
    assert.equal((await t.invoke({})).ok, true);
    assert.equal(runs, 2, 'each hook ran once');
    assert.equal(written.length, 1, written.join('\n'));
    assert.match(written[0], /already among the global hooks; each is kept once \(replace: true sets them instead\)/);
    // New functions are new hooks: they add up, as before (replace: true is the way to set them).
    configureWebMCP({ hooks: { before: [() => {}] } });
    configureWebMCP({ hooks: { before: [() => {}] } });
    assert.equal(getGlobalHooks().before.length, 3);
    configureWebMCP({ replace: true, hooks: { before: [audit] } });
    configureWebMCP({ replace: true, hooks: { before: [audit] } });
    assert.equal(getGlobalHooks().before.length, 1);
    resetWebMCP();
  });
});
