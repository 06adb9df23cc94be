// Grant scopes (docs/behaviour.md, "Grants"), through the BUILT package: `{ allow: 'always',
// scope: 'arguments' }` settles only calls whose arguments have the digest the person approved;
// `{ allow: 'session' }` lasts as long as the client and never reaches the store (a
// localStorage store is watched at every write); both show in listGrants() with their scope,
// are revoked like any grant, and are named in the explanation of the decision they settle. Also
// the approver's `{ deny, code }`.
//
// Build first: `node pkg-js/build.mjs`.
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { webmcp, configureWebMCP, invokeTool, explain, listGrants, revokeGrant, clearGrants, localStorageGrantStore, memoryGrantStore, onTelemetry, createWarden } from 'webmcp-warden';
import { trackTools } from '../test-support/helpers.mjs';

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

const made = trackTools();
let counter = 0;
async function tool(options = {}) {
  const runs = [];
  const name = options.name ?? `scoped_${++counter}`;
  const t = webmcp((input) => {
    runs.push(input);
    return 'ran';
  }, { shape: false, description: `The ${name} tool`, ...options, name });
  made.push(t);
  await t.register();
  return { t, name, runs };
}
function approver(answer) {
  const calls = [];
  const fn = (call, ctx) => {
    calls.push(call);
    return answer(call, ctx);
  };
  fn.calls = calls;
  return fn;
}
/** A `Storage` that keeps every value ever written, so a test sees what reached it. */
function watchedStorage() {
  const values = new Map();
  const writes = [];
  return {
    writes,
    getItem: (key) => (values.has(key) ? values.get(key) : null),
    setItem: (key, value) => {
      writes.push(String(value));
      values.set(key, String(value));
    },
    removeItem: (key) => values.delete(key),
  };
}
let events = [];
let unsubscribe = () => {};
beforeEach(() => {
  events = [];
  unsubscribe = onTelemetry((event) => events.push(event));
});
afterEach(() => unsubscribe());
const lastDecision = () => events.filter((e) => e.name === 'tool_call.stop').at(-1).record.find((s) => s.step === 'policy').decision;

describe("scope: 'arguments'", () => {
  test('settles only the same arguments (by digest); a changed argument asks again', async () => {
    const { t, name, runs } = await tool();
    const onAsk = approver(() => ({ allow: 'always', scope: 'arguments' }));
    configureWebMCP({ policy: { ask: ['*'] }, onAsk, clock: () => 1_000 });
    assert.equal((await invokeTool(name, { to: 'alice', amount: 5 })).ok, true);
    assert.equal(onAsk.calls.length, 1);
    const digest = onAsk.calls[0].argsDigest;
    assert.equal(digest, sha256('{"amount":5,"to":"alice"}'));
    const [grant] = await listGrants();
    assert.deepEqual(grant, { principal: null, server: 'page', tool: name, fingerprint: t.fingerprint, expiresAt: 1_000 + 86_400_000, grantedAt: 1_000, scope: 'arguments', argsDigest: digest, session: false });
    // The same arguments, in another key order: the grant settles the ask.
    assert.equal((await invokeTool(name, { amount: 5, to: 'alice' })).ok, true);
    assert.equal(onAsk.calls.length, 1);
    assert.match(lastDecision().explanation, /^Allowed by a live grant for these exact arguments, which settles the ask from ask\[0\]\.$/);
    // Any change asks again.
    for (const changed of [{ to: 'alice', amount: 50 }, { to: 'mallory', amount: 5 }, { to: 'alice', amount: 5, note: '' }]) {
      await invokeTool(name, changed);
    }
    assert.equal(onAsk.calls.length, 4);
    assert.equal((await listGrants()).length, 4, 'each approval is a grant of its own arguments');
    assert.equal(runs.length, 5);
    // explain() finds the grant by the digest too.
    assert.equal((await explain(name, { to: 'alice', amount: 5 })).reason, 'grant');
    assert.equal((await explain(name, { to: 'alice', amount: 6 })).effect, 'ask');
  });

  test('a grant of the tool covers every argument; one of exact arguments does not lift the pin of a changed definition', async () => {
    const { name } = await tool();
    const onAsk = approver((call) => (call.arguments.scope === 'tool' ? { allow: 'always' } : { allow: 'always', scope: 'arguments' }));
    configureWebMCP({ policy: { ask: ['*'] }, onAsk });
    await invokeTool(name, { scope: 'arguments' });
    await invokeTool(name, { scope: 'tool' });
    await invokeTool(name, { scope: 'something else' });
    assert.equal(onAsk.calls.length, 2, 'the tool grant settled the third call');
    assert.deepEqual((await listGrants()).map((g) => g.scope).sort(), ['arguments', 'tool']);
  });

  test('persists like any grant: a reloaded store settles the same arguments only', async () => {
    const storage = watchedStorage();
    const { name } = await tool();
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: () => ({ allow: 'always', scope: 'arguments' }), grantStore: localStorageGrantStore('k', storage) });
    await invokeTool(name, { id: 1 });
    const stored = JSON.parse(storage.getItem('k'));
    assert.equal(stored.length, 1);
    assert.equal(stored[0].scope, 'arguments');
    // A fresh client reading the same storage (a reload).
    const w = createWarden();
    const again = w.webmcp(() => 'ran', { name, description: `The ${name} tool`, shape: false });
    await again.register();
    const onAsk = approver(() => ({ deny: 'no' }));
    w.configure({ policy: { ask: ['*'] }, onAsk, grantStore: localStorageGrantStore('k', storage) });
    assert.equal((await again.invoke({ id: 1 })).ok, true);
    assert.equal((await again.invoke({ id: 2 })).ok, false);
    assert.equal(onAsk.calls.length, 1);
    again.unregister();
    w.dispose();
  });

  test("an unknown scope, or a scope on 'once', is a bad answer (ask_failed)", async () => {
    const { name, runs } = await tool();
    for (const answer of [{ allow: 'always', scope: 'forever' }, { allow: 'always', scope: 1 }, { allow: 'once', scope: 'arguments' }, { deny: 'no', scope: 'tool' }, { allow: 'sometimes' }]) {
      configureWebMCP({ policy: { ask: ['*'] }, onAsk: () => answer });
      const outcome = await invokeTool(name, {});
      assert.equal(outcome.error?.reason, 'ask_failed', JSON.stringify(answer));
    }
    assert.equal(runs.length, 0);
    assert.deepEqual(await listGrants(), []);
  });
});

describe("allow: 'session'", () => {
  test('lasts as long as the client, never reaches a localStorage store, and is listed and revocable', async () => {
    const storage = watchedStorage();
    let now = 1_000;
    const { name, runs } = await tool();
    const onAsk = approver(() => ({ allow: 'session' }));
    configureWebMCP({ policy: { ask: ['*'] }, onAsk, grantStore: localStorageGrantStore('session-test', storage), grantTtl: 10, clock: () => now });
    assert.equal((await invokeTool(name, {})).ok, true);
    now = 1_009; // within grantTtl: a session grant lasts as long as the client, and at most that
    assert.equal((await invokeTool(name, {})).ok, true);
    assert.equal(onAsk.calls.length, 1);
    assert.match(lastDecision().explanation, /^Allowed by a live grant for this session, which settles/);
    const [grant] = await listGrants();
    assert.deepEqual([grant.session, grant.scope, grant.expiresAt], [true, 'tool', 1_010]);
    // Every write the store saw: no session grant, ever.
    assert.ok(storage.writes.length > 0, 'the store was written (after the approval)');
    for (const written of storage.writes) assert.deepEqual(JSON.parse(written), []);
    assert.equal(storage.getItem('session-test'), '[]');
    assert.equal(await revokeGrant({ tool: name }), 1);
    await invokeTool(name, {});
    assert.equal(onAsk.calls.length, 2, 'revoked: the next call asks again');
    await clearGrants();
    await invokeTool(name, {});
    assert.equal(onAsk.calls.length, 3, 'cleared: asks again');
    now = 1_009 + 10;
    await invokeTool(name, {});
    assert.equal(onAsk.calls.length, 4, 'expired at grantTtl: asks again');
    assert.equal(runs.length, 5);
    for (const written of storage.writes) assert.equal(JSON.parse(written).filter((g) => g.session !== false).length, 0);
  });

  test("with scope: 'arguments', for exactly these arguments, beside stored grants that stay stored", async () => {
    const storage = watchedStorage();
    const { name } = await tool();
    const onAsk = approver((call) => (call.arguments.keep ? { allow: 'always' } : { allow: 'session', scope: 'arguments' }));
    configureWebMCP({ policy: { ask: [{ match: '*', when: { arg: '/keep', exists: false } }, { match: name, id: 'kept' }] }, onAsk, grantStore: localStorageGrantStore('mixed', storage) });
    await invokeTool(name, { x: 1 });
    await invokeTool(name, { x: 1 });
    await invokeTool(name, { x: 2 });
    assert.equal(onAsk.calls.length, 2, 'the same arguments asked once, other ones again');
    await invokeTool(name, { keep: true });
    assert.equal(onAsk.calls.length, 3);
    const listed = await listGrants();
    assert.deepEqual(listed.map((g) => [g.scope, g.session]).sort(), [['arguments', true], ['arguments', true], ['tool', false]]);
    const stored = JSON.parse(storage.getItem('mixed'));
    assert.deepEqual(stored.map((g) => [g.scope, g.session]), [['tool', false]]);
  });

  test('a stored entry claiming to be a session grant approves nothing', async () => {
    const store = memoryGrantStore();
    const { t, name } = await tool();
    await store.save([{ principal: null, server: 'page', tool: name, fingerprint: t.fingerprint, expiresAt: 1e15, grantedAt: 0, scope: 'tool', session: true }]);
    configureWebMCP({ policy: { ask: ['*'] }, grantStore: store });
    assert.equal((await invokeTool(name, {})).error?.reason, 'no_approver');
    assert.deepEqual(await listGrants(), []);
  });

  test('a session grant is the client\'s: another client does not see it, and it ends with the client', async () => {
    const { name } = await tool();
    const w = createWarden();
    const own = w.webmcp(() => 'ran', { name, description: 'x', shape: false });
    await own.register();
    const onAsk = approver(() => ({ allow: 'session' }));
    w.configure({ policy: { ask: ['*'] }, onAsk });
    await own.invoke({});
    await own.invoke({});
    assert.equal(onAsk.calls.length, 1);
    assert.equal((await w.listGrants()).length, 1);
    assert.deepEqual(await listGrants(), [], 'the default client has none');
    own.unregister();
    w.dispose();
  });
});

describe("the approver's { deny, code }", () => {
  test('the code reaches the outcome, the denied hooks and telemetry; a non-string code is a bad answer', async () => {
    const { name } = await tool();
    const denied = [];
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: () => ({ deny: 'locked out', code: 'presence_locked' }), hooks: { denied: [(ctx) => void denied.push(ctx.code)] } });
    const outcome = await invokeTool(name, {});
    assert.deepEqual({ kind: outcome.error.kind, reason: outcome.error.reason, code: outcome.error.code, message: outcome.error.message }, { kind: 'denied', reason: 'ask_denied', code: 'presence_locked', message: 'locked out' });
    assert.deepEqual(denied, ['presence_locked']);
    configureWebMCP({ onAsk: () => ({ deny: 'no', code: 7 }), hooks: {}, replace: true });
    assert.equal((await invokeTool(name, {})).error.reason, 'ask_failed');
    configureWebMCP({ onAsk: () => ({ deny: 'stop', code: 'halted', halt: true }) });
    const halted = await invokeTool(name, {});
    assert.deepEqual([halted.error.reason, halted.error.code], ['ask_halt', 'halted']);
  });
});
