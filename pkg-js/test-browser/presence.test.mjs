// Browser test: `webmcp-warden/presence` against Chromium's own WebAuthn stack, with a virtual
// platform authenticator (CDP `WebAuthn.addVirtualAuthenticator`, through playwright-core) that
// stands in for the person: `registerPresence()` makes a credential, an ask is approved when the
// authenticator verifies the user, refused when it does not (`WebAuthn.setUserVerified`), and
// after three failures within the window the approver is locked: it denies without asking.
// Served from `localhost` (a secure context, and a relying party id: an IP address is not).
//
// Needs Debian's chromium (/usr/bin/chromium, or $CHROMIUM) and playwright-core; without chromium
// the test is skipped, except under CI (env CI set).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipReason, launchChromium, startStaticServer, stopServer, watchErrors } from './demo-serve.mjs';

const pkgRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const skipReason = browserSkipReason();

let served;
let browser;
let page;
let cdp;
let authenticatorId;
let errors;

before(async () => {
  if (skipReason) return;
  assert.ok(existsSync(path.join(pkgRoot, 'dist', 'presence.js')), 'pkg-js/dist/presence.js is missing: build the package first');
  served = await startStaticServer(pkgRoot);
  browser = await launchChromium();
  page = await browser.newPage();
  errors = watchErrors(page);
  cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  }));
  await page.goto(`${served.url.replace('127.0.0.1', 'localhost')}/test-browser/presence-page.html`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await stopServer(served?.server);
});

const call = (input) => page.evaluate((i) => window.__call(i), input);
const verified = (isUserVerified) => cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified });

test('registerPresence makes a credential on the platform authenticator', { skip: skipReason }, async () => {
  const registered = await page.evaluate(() => window.__register());
  assert.equal(registered.ok, true, registered.error);
  assert.equal(registered.credential.rpId, 'localhost');
  assert.ok(registered.credential.publicKey, 'the public key, to check signatures with');
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.equal(credentials.length, 1);
  assert.equal(Buffer.from(credentials[0].credentialId, 'base64').toString('base64url'), registered.credential.id);
});

test('an ask is approved when the person is verified, after the page dialog showed the call', { skip: skipReason }, async () => {
  await verified(true);
  const gets = await page.evaluate(() => window.__gets);
  assert.deepEqual(await call({ amount: 5 }), { ok: true, text: 'sent 5' });
  assert.equal(await page.evaluate(() => window.__gets), gets + 1, 'one confirmation');
  // `{ allow: 'always', scope: 'arguments' }` from the dialog stands once presence confirms.
  assert.deepEqual(await call({ amount: 7, remember: true }), { ok: true, text: 'sent 7' });
  assert.deepEqual(await page.evaluate(() => window.__grants()), ['arguments']);
  const dialogs = await page.evaluate(() => window.__dialogs());
  assert.deepEqual(await call({ amount: 7, remember: true }), { ok: true, text: 'sent 7' }, 'the grant settles the same arguments');
  assert.equal(await page.evaluate(() => window.__dialogs()), dialogs, 'without a dialog or a confirmation');
});

test('without user verification the ask is denied; after three failures presence is locked', { skip: skipReason }, async () => {
  await verified(false);
  for (let i = 0; i < 3; i++) {
    const denied = await call({ amount: 100 + i });
    assert.deepEqual([denied.ok, denied.reason, denied.code], [false, 'ask_denied', 'presence_failed'], JSON.stringify(denied));
  }
  const gets = await page.evaluate(() => window.__gets);
  await verified(true);
  const locked = await call({ amount: 200 });
  assert.deepEqual([locked.ok, locked.reason, locked.code], [false, 'ask_denied', 'presence_locked'], JSON.stringify(locked));
  assert.match(locked.message, /locked after 3 failed attempts/);
  assert.equal(await page.evaluate(() => window.__gets), gets, 'a locked approver asks no confirmation');
  // The lock is kept in storage: a reload does not lift it.
  await page.reload();
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
  const still = await call({ amount: 300 });
  assert.equal(still.code, 'presence_locked');
  // The person unlocks it another way (the page's own settings, say): confirmations work again.
  await page.evaluate(() => window.__approver.unlock());
  assert.deepEqual(await call({ amount: 300 }), { ok: true, text: 'sent 300' });
  assert.deepEqual(errors.page, [], 'no uncaught page error');
});
