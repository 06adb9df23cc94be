// Every duration that becomes a timer is at most 2^31 − 1 ms, the longest delay `setTimeout`
// holds: a longer one fires at once, so every call would time out (or every ask be denied).
// Refused where it is given: `hookTimeout` and `askTimeout` by configureWebMCP, a hook's own
// `timeout` by the core when the hooks are given (tests/fixtures/hooks/config.json has those
// cases), the call option `timeout` as invalid_options (call-options.test.mjs). The edge itself,
// 2^31 − 1, is accepted and waits. `grantTtl` is no timer: any positive number.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { configureWebMCP, createWarden, ConfigurationError, resetWebMCP, webmcp } from 'webmcp-warden';

const MAX = 2 ** 31 - 1;
/** Settles after a macrotask (a timer that fired at once would beat it). */
const later = (value) => new Promise((resolve) => setTimeout(() => resolve(value), 5));

beforeEach(() => resetWebMCP());

test('hookTimeout and askTimeout: 2^31 − 1 accepted, 2^31, 1e300, Infinity, NaN, 0 and negatives refused', () => {
  for (const key of ['hookTimeout', 'askTimeout']) {
    for (const bad of [2 ** 31, 1e300, Infinity, NaN, 0, -1]) {
      assert.throws(() => configureWebMCP({ [key]: bad }), (err) => err instanceof ConfigurationError && err.code === 'invalid_config' && err.message.includes(key), `${key}: ${bad}`);
    }
    assert.doesNotThrow(() => configureWebMCP({ [key]: MAX }));
  }
  assert.match(String(captured(() => configureWebMCP({ hookTimeout: 2 ** 31 }))), /at most 2147483647 milliseconds/);
});

test('a hook whose timeout is 2^31 − 1 (its own or hookTimeout) waits: the call does not time out at once', async () => {
  const own = webmcp(() => 'ran', { name: 'own_max', description: 'd', shape: false, hooks: { before: [{ run: () => later(undefined), timeout: MAX }] } });
  assert.deepEqual([(await own.invoke({})).ok], [true]);
  configureWebMCP({ hookTimeout: MAX, hooks: { before: [() => later(undefined)] } });
  const global = webmcp(() => 'ran', { name: 'global_max', description: 'd', shape: false });
  const outcome = await global.invoke({});
  assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
});

test("a hook's own timeout of 2^31 ms is refused when the hooks are given", () => {
  assert.throws(() => webmcp(() => 1, { name: 'too_long', description: 'd', hooks: { before: [{ run: () => {}, timeout: 2 ** 31 }] } }), (err) => err.code === 'invalid_hook' && /at most 2147483647\), not 2147483648/.test(err.message));
  for (const timeout of [Infinity, NaN, 1e300, -1]) {
    assert.throws(() => configureWebMCP({ hooks: { after: [{ run: () => {}, timeout }] } }), (err) => err.code === 'invalid_hook' && /at most 2147483647/.test(err.message), String(timeout));
  }
  assert.doesNotThrow(() => webmcp(() => 1, { name: 'longest', description: 'd', hooks: { before: [{ run: () => {}, timeout: 2 ** 31 - 1 }] } }));
});

test('an approver under askTimeout 2^31 − 1 is waited for; grantTtl 1e300 is accepted (no timer)', async () => {
  const client = createWarden({ askTimeout: MAX, grantTtl: 1e300, policy: { default: 'ask' }, onAsk: () => later({ allow: 'always' }) });
  const t = client.webmcp(() => 'paid', { name: 'pay', description: 'Pays.', shape: false });
  const outcome = await t.invoke({});
  assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
  const [grant] = await client.listGrants();
  assert.ok(grant.expiresAt > Date.now() + 1e299, 'the grant lasts');
  client.dispose();
});

function captured(fn) {
  try {
    fn();
  } catch (err) {
    return err.message;
  }
  return undefined;
}
