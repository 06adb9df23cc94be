// webmcp-warden/presence in Node, against a fake platform authenticator made of WebCrypto (a real
// P-256 key: the approver checks real signatures), and the entry's weight: a page that does not
// import it bundles nothing of it, and it imports nothing of the package. Chromium's own virtual
// authenticator drives the same approver in pkg-js/test-browser/presence.test.mjs.
//
// Build first: `node pkg-js/build.mjs`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { webmcp, configureWebMCP, invokeTool, listGrants, resetWebMCP } from 'webmcp-warden';
import { presenceApprover, registerPresence } from 'webmcp-warden/presence';

const { subtle } = globalThis.crypto;
const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
const sha256 = async (bytes) => new Uint8Array(await subtle.digest('SHA-256', bytes));

/** WebCrypto's raw `r || s` signature as the DER `SEQUENCE { INTEGER r, INTEGER s }` an authenticator sends. */
function toDer(raw) {
  const integer = (bytes) => {
    let at = 0;
    while (at < bytes.length - 1 && bytes[at] === 0) at++;
    const body = bytes[at] & 0x80 ? [0, ...bytes.slice(at)] : [...bytes.slice(at)];
    return [0x02, body.length, ...body];
  };
  const body = [...integer(raw.slice(0, 32)), ...integer(raw.slice(32))];
  return new Uint8Array([0x30, body.length, ...body]);
}

/**
 * A platform authenticator: `create` makes a P-256 credential, `get` asserts it. `verified` says
 * whether the person passes user verification; `cancel` makes `get` reject as a cancelled prompt.
 */
function fakeAuthenticator() {
  const state = { verified: true, cancel: false, gets: 0, tamper: undefined, keys: undefined, id: new Uint8Array([1, 2, 3, 4]) };
  const credentials = {
    async create({ publicKey }) {
      assert.equal(publicKey.authenticatorSelection.userVerification, 'required');
      state.keys = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
      const spki = await subtle.exportKey('spki', state.keys.publicKey);
      return { rawId: state.id.buffer, response: { getPublicKey: () => spki, getPublicKeyAlgorithm: () => -7 } };
    },
    async get({ publicKey, signal }) {
      state.gets++;
      state.last = publicKey;
      assert.equal(publicKey.userVerification, 'required');
      if (signal?.aborted || state.cancel) throw new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError');
      const client = new TextEncoder().encode(JSON.stringify({ type: 'webauthn.get', challenge: b64url(state.tamper === 'challenge' ? new Uint8Array(32) : publicKey.challenge), origin: 'http://localhost' }));
      const data = new Uint8Array(37);
      data.set(await sha256(new TextEncoder().encode(publicKey.rpId)));
      data[32] = state.verified ? 0x05 : 0x01;
      const signed = new Uint8Array([...data, ...(await sha256(client))]);
      const signer = state.tamper === 'key' ? (await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign'])).privateKey : state.keys.privateKey;
      const raw = new Uint8Array(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, signer, signed));
      return { rawId: state.id.buffer, response: { clientDataJSON: client.buffer, authenticatorData: data.buffer, signature: toDer(raw).buffer } };
    },
  };
  return { state, credentials };
}

function memoryStorage() {
  const values = new Map();
  return { getItem: (k) => (values.has(k) ? values.get(k) : null), setItem: (k, v) => values.set(k, String(v)), removeItem: (k) => values.delete(k), values };
}

async function setup(options = {}) {
  resetWebMCP();
  const { state, credentials } = fakeAuthenticator();
  const storage = memoryStorage();
  const credential = await registerPresence({ rpId: 'localhost', storage, credentials });
  let runs = 0;
  const tool = webmcp(() => ++runs, { name: 'wire_money', description: 'Send money', shape: false });
  await tool.register();
  let now = 1_000_000;
  const approver = presenceApprover({ storage, credentials, clock: () => now, ...options });
  configureWebMCP({ policy: { ask: ['*'] }, onAsk: approver });
  return { state, storage, credential, approver, tool, runs: () => runs, advance: (ms) => (now += ms), call: (input = {}) => invokeTool('wire_money', input) };
}

describe('presenceApprover', () => {
  test('registerPresence keeps the credential; a verified person approves, with a fresh challenge each time', async () => {
    const page = await setup();
    assert.deepEqual(Object.keys(page.credential).sort(), ['algorithm', 'id', 'publicKey', 'rpId']);
    assert.deepEqual(JSON.parse(page.storage.getItem('webmcp-warden:presence')), page.credential);
    assert.equal((await page.call()).ok, true);
    const first = b64url(page.state.last.challenge);
    assert.equal((await page.call()).ok, true);
    assert.notEqual(b64url(page.state.last.challenge), first);
    assert.deepEqual(page.state.last.allowCredentials.map((c) => b64url(c.id)), [page.credential.id]);
    assert.equal(page.runs(), 2);
  });

  test('without user verification, cancelled, signed by another key, or for another challenge: denied, presence_failed', async () => {
    const page = await setup({ attempts: 10 });
    const cases = [
      () => (page.state.verified = false),
      () => ((page.state.verified = true), (page.state.cancel = true)),
      () => ((page.state.cancel = false), (page.state.tamper = 'key')),
      () => (page.state.tamper = 'challenge'),
    ];
    for (const make of cases) {
      make();
      const outcome = await page.call();
      assert.deepEqual([outcome.error?.reason, outcome.error?.code], ['ask_denied', 'presence_failed']);
      assert.equal(outcome.result.content[0].text, 'Denied: the person at the device did not confirm');
    }
    assert.equal(page.runs(), 0);
    page.state.tamper = undefined;
    assert.equal((await page.call()).ok, true, 'a good confirmation again');
  });

  test('locked after N failures within the window: no confirmation is asked until the window passed, even after a reload', async () => {
    const page = await setup({ attempts: 3, windowMs: 60_000 });
    page.state.verified = false;
    for (let i = 0; i < 3; i++) {
      assert.equal((await page.call()).error.code, 'presence_failed');
      page.advance(1_000);
    }
    assert.equal(page.state.gets, 3);
    page.state.verified = true;
    const locked = await page.call();
    assert.deepEqual([locked.error.reason, locked.error.code], ['ask_denied', 'presence_locked']);
    assert.match(locked.error.message, /locked after 3 failed attempts; try again in 57 s/);
    assert.equal(page.state.gets, 3, 'a locked approver asks no confirmation');
    assert.ok(page.approver.lockedUntil() > 0);
    // A page reload makes a new approver over the same storage: still locked.
    const again = presenceApprover({ storage: page.storage, credentials: {
      get: () => assert.fail('asked while locked'),
    }, clock: () => 1_000_000 + 3_000 });
    assert.ok(again.lockedUntil() > 1_000_000 + 3_000);
    page.advance(57_000);
    assert.equal(page.approver.lockedUntil(), 0, 'the first failure left the window');
    assert.equal((await page.call()).ok, true);
    assert.equal(page.storage.getItem('webmcp-warden:presence:failures'), null, 'a confirmation clears the failures');
  });

  test('failures outside the window do not add up; unlock() forgets them', async () => {
    const page = await setup({ attempts: 2, windowMs: 10_000 });
    page.state.verified = false;
    await page.call();
    page.advance(11_000);
    await page.call();
    page.state.verified = true;
    assert.equal((await page.call()).ok, true, 'one failure in the window: not locked');
    page.state.verified = false;
    await page.call();
    await page.call();
    assert.equal((await page.call()).error.code, 'presence_locked');
    page.approver.unlock();
    page.state.verified = true;
    assert.equal((await page.call()).ok, true);
  });

  test("the page's dialog shows first: its deny stands without a confirmation, its allow stands only once presence confirms", async () => {
    const shown = [];
    let says = { deny: 'the person clicked No' };
    const page = await setup({ dialog: (call) => (shown.push(call.arguments), says) });
    const denied = await page.call({ amount: 10 });
    assert.deepEqual([denied.error.reason, denied.error.message, denied.error.code], ['ask_denied', 'the person clicked No', undefined]);
    assert.equal(page.state.gets, 0);
    says = { allow: 'always', scope: 'arguments' };
    page.state.verified = false;
    assert.equal((await page.call({ amount: 10 })).error.code, 'presence_failed', 'the dialog allowed, presence did not confirm');
    assert.deepEqual(await listGrants(), []);
    page.state.verified = true;
    assert.equal((await page.call({ amount: 10 })).ok, true);
    assert.deepEqual((await listGrants()).map((g) => g.scope), ['arguments']);
    assert.equal((await page.call({ amount: 10 })).ok, true, 'the grant settles the same arguments');
    assert.equal(page.state.gets, 2);
    assert.deepEqual(shown, [{ amount: 10 }, { amount: 10 }, { amount: 10 }]);
  });

  test('no credential: denied, presence_unregistered; bad options throw', async () => {
    resetWebMCP();
    const tool = webmcp(() => 'ran', { name: 'wire_money', description: 'Send money', shape: false });
    await tool.register();
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: presenceApprover({ storage: memoryStorage(), credentials: { get: () => assert.fail('no credential to ask for') } }) });
    const outcome = await invokeTool('wire_money', {});
    assert.equal(outcome.error.code, 'presence_unregistered');
    assert.throws(() => presenceApprover({ attempts: 0 }), TypeError);
    assert.throws(() => presenceApprover({ windowMs: -1 }), TypeError);
  });

  test('an aborted call is no failed confirmation', async () => {
    const page = await setup({ attempts: 1 });
    const controller = new AbortController();
    page.state.cancel = true;
    const pending = invokeTool('wire_money', {}, { signal: controller.signal });
    controller.abort();
    assert.equal((await pending).error.kind, 'aborted');
    assert.equal(page.approver.lockedUntil(), 0);
  });
});

describe('the presence entry weighs nothing on pages without it', () => {
  const bundle = async (entry) => {
    const result = await build({
      stdin: { contents: `export * from '${entry}';`, resolveDir: new URL('.', import.meta.url).pathname, loader: 'js' },
      bundle: true, write: false, format: 'esm', platform: 'browser', metafile: true, logLevel: 'silent', splitting: true, outdir: '/out',
    });
    return { text: result.outputFiles.map((f) => f.text).join('\n'), inputs: Object.keys(result.metafile.inputs) };
  };

  test('the main entry bundles none of it', async () => {
    const { text, inputs } = await bundle('webmcp-warden');
    assert.deepEqual(inputs.filter((file) => /presence/.test(file)), []);
    for (const needle of ['presence_locked', 'webauthn.get', 'userVerification']) assert.ok(!text.includes(needle), `the main bundle holds ${needle}`);
  });

  test('it imports nothing of the package (its weight is its own)', async () => {
    const { inputs } = await bundle('webmcp-warden/presence');
    assert.deepEqual(inputs.map((file) => file.replace(/^.*dist\//, 'dist/')).filter((file) => file !== '<stdin>'), ['dist/presence.js']);
  });

  test('package.json publishes ./presence with types', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.deepEqual(pkg.exports['./presence'], { types: './dist/types/presence.d.ts', node: './dist/node/presence.js', default: './dist/presence.js' });
  });
});
