// Browser test of webmcp-warden/devtools in Chromium: the panel (in a shadow root) shows a call
// with its decision; an ask waiting for the page's approver is approved from the panel; the
// grant that approval recorded is revoked from the panel; the kill switch denies the next call
// with its reason; the panel collapses with the keyboard; and the page's own styles are
// untouched. The page (devtools-page.js) is bundled with esbuild against the built package.
//
// Needs the built package (pkg-js/dist), Debian's chromium and playwright-core + esbuild.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipReason, launchChromium, startStaticServer, stopServer, watchErrors } from './demo-serve.mjs';
import { waitFor } from './page-helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');
const skipReason = browserSkipReason();

let outDir;
let served;
let browser;
let page;
let errors;

before(async () => {
  if (skipReason) return;
  assert.ok(existsSync(path.join(pkgRoot, 'dist', 'devtools.js')), 'pkg-js/dist/devtools.js is missing: build the package first');
  const { build } = await import('esbuild');
  outDir = mkdtempSync(path.join(os.tmpdir(), 'warden-devtools-'));
  await build({ entryPoints: [path.join(here, 'devtools-page.js')], bundle: true, format: 'esm', splitting: true, outdir: outDir, logLevel: 'error' });
  writeFileSync(
    path.join(outDir, 'index.html'),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>devtools</title>' +
      '<style>button.page { border: 3px solid red; }</style></head>' +
      '<body><button class="page">the page\'s own button</button><div id="panel"></div><script type="module" src="./devtools-page.js"></script></body></html>',
  );
  served = await startStaticServer(outDir, { headers: { 'Content-Security-Policy': "script-src 'self' 'wasm-unsafe-eval'" } });
  browser = await launchChromium();
  page = await browser.newPage();
  errors = watchErrors(page);
  await page.goto(`${served.url}/`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 15_000 });
});

after(async () => {
  await browser?.close();
  await stopServer(served?.server);
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** The panel's elements (Playwright's CSS selectors pierce its open shadow root). */
const inPanel = (selector) => page.locator(`webmcp-warden-devtools ${selector}`);

test('the panel lives in a shadow root and leaves the page\'s styles alone', { skip: skipReason }, async () => {
  assert.equal(await page.evaluate(() => document.querySelector('webmcp-warden-devtools').shadowRoot !== null), true);
  assert.equal(await page.evaluate(() => window.__page.pageStyle()), '3px');
  // The page's CSS does not reach the panel's buttons either.
  assert.notEqual(await inPanel('button[data-key="kill"]').evaluate((el) => getComputedStyle(el).borderTopWidth), '3px');
  assert.equal(await inPanel('[data-tool="add_to_cart"]').count(), 1, 'the registered tool is listed');
  assert.match(await inPanel('[data-tool="add_to_cart"]').textContent(), /add_to_cart · registered · [0-9a-f]{12}/);
});

test('a call appears with its decision and its steps', { skip: skipReason }, async () => {
  const outcome = await page.evaluate(() => window.__page.call(1));
  assert.equal(outcome.ok, true);
  const call = inPanel('[data-call]').first();
  await call.waitFor({ timeout: 5000 });
  assert.match(await call.locator('summary').textContent(), /add_to_cart · ok · allow \(default\)/);
  await call.locator('summary').click();
  const steps = await call.locator('li').allTextContents();
  assert.ok(steps.some((line) => /^validation of the input: valid/.test(line)), steps.join('\n'));
  assert.ok(steps.some((line) => /^policy: allow \(default\)/.test(line)), steps.join('\n'));
  assert.ok(steps.some((line) => /^tool: returned/.test(line)), steps.join('\n'));
});

test('an ask waiting for the approver is approved from the panel, and its grant revoked there', { skip: skipReason }, async () => {
  await page.evaluate(() => window.__page.start('big', 6));
  const ask = inPanel('[data-ask]');
  await ask.waitFor({ timeout: 5000 });
  assert.match(await ask.textContent(), /Large orders need your approval — quantity 6/);
  assert.match(await ask.textContent(), /Asked by ask\[0\] \("big-orders"\)/);
  await ask.locator('button', { hasText: 'Always' }).click();
  await waitFor(async () => (await page.evaluate(() => window.__page.settled('big'))) !== undefined, 'the approved call settled');
  const outcome = await page.evaluate(() => window.__page.settled('big'));
  assert.deepEqual([outcome.ok, outcome.result.structuredContent], [true, { inCart: 6 }]);
  assert.equal(await inPanel('[data-ask]').count(), 0, 'the ask left the panel');
  const grant = inPanel('[data-grant="page/add_to_cart"]');
  await grant.waitFor({ timeout: 5000 });
  assert.equal((await page.evaluate(() => window.__page.grants())).length, 1);
  await grant.locator('button', { hasText: 'Revoke' }).click();
  await waitFor(async () => (await page.evaluate(() => window.__page.grants())).length === 0, 'the grant was revoked');
  await waitFor(async () => (await inPanel('[data-grant]').count()) === 0, 'the grant left the panel');
});

test('the kill switch denies the next call with its reason, and resumes', { skip: skipReason }, async () => {
  await inPanel('button[data-key="kill"]').click();
  await waitFor(async () => /agents suspended/.test(await inPanel('header').textContent()), 'the panel says the agents are suspended');
  const denied = await page.evaluate(() => window.__page.call(1));
  assert.deepEqual([denied.ok, denied.error.kind, denied.error.reason], [false, 'denied', 'suspended']);
  assert.equal(denied.result.content[0].text, 'Denied: Suspended from the webmcp-warden devtools.');
  await inPanel('button[data-key="kill"]').click();
  assert.equal((await page.evaluate(() => window.__page.call(1))).ok, true);
});

test('the panel collapses and expands from the keyboard', { skip: skipReason }, async () => {
  const toggle = inPanel('button[data-key="toggle"]');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await waitFor(async () => (await inPanel('button[data-key="toggle"]').getAttribute('aria-expanded')) === 'false', 'collapsed');
  assert.equal(await inPanel('#body').isHidden(), true);
  await page.keyboard.press('Enter');
  await waitFor(async () => (await inPanel('button[data-key="toggle"]').getAttribute('aria-expanded')) === 'true', 'expanded, the focus kept on the toggle');
  assert.deepEqual(errors.page, [], 'no page errors');
});
