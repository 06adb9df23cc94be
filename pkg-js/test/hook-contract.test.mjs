// What users of simple-webmcp and ConduitMCP rely on, beyond the shared fixtures: warnings for
// bad returns, ctx.error as the thrown value for each thrower, the call timeout, call options,
// and resetWebMCP() emptying the registry.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, invokeTool, listTools, resetWebMCP, CallFailure } from 'webmcp-warden';
import { installFakeModelContext } from 'webmcp-warden/testing';
import { captureConsole, sleep, textOf, trackTools } from '../test-support/helpers.mjs';

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
