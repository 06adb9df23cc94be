// Browser test: shaping is a chunk the page loads when it first needs it (pkg-js/src/shaper.ts).
// When that chunk cannot download, nothing unshaped reaches a model: register() rejects (a
// browser registration strips descriptions with it) and an in-page call fails closed; once it
// downloads, the next register() and call load it and work. Chromium 156 fetches a module again
// after a failed fetch (whatwg/html#10327); the test pins that a later call recovers there.
//
// Needs Debian's chromium (/usr/bin/chromium, or $CHROMIUM) and playwright-core (root devDependency).
// Without chromium the test is skipped, except under CI (env CI set), where that is a failure.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipReason, launchChromium, startStaticServer, stopServer, watchErrors } from './demo-serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');
const skipReason = browserSkipReason();

let served;
let browser;
let page;
let pageErrors = [];
/** Whether requests for the shaping chunk fail, as on a flaky network. */
let offline = true;
/** How many times the page asked for the chunk. */
let requests = 0;

before(async () => {
  if (skipReason) return;
  assert.ok(existsSync(path.join(pkgRoot, 'dist', 'shape.js')), 'pkg-js/dist/shape.js is missing: build the package first (npm run build / scripts/build.sh)');
  served = await startStaticServer(pkgRoot);
  browser = await launchChromium();
  page = await browser.newPage();
  ({ page: pageErrors } = watchErrors(page));
  await page.route('**/dist/shape.js', (route) => {
    requests++;
    return offline ? route.abort('internetdisconnected') : route.continue();
  });
  await page.goto(`${served.url}/test-browser/shaping-page.html`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await stopServer(served?.server);
});

test('without the shaping chunk, register() rejects and a call fails closed; with it, both work', { skip: skipReason }, async () => {
  const refused = await page.evaluate(() => window.__register());
  assert.equal(refused.status, 'error');
  assert.equal(refused.code, 'internal_error');
  assert.match(refused.message, /shaping module did not load/);
  assert.deepEqual(await page.evaluate(() => document.modelContext.getTools().then((tools) => tools.map((t) => t.name))), [], 'nothing was registered with the browser');

  const failed = await page.evaluate(() => window.__invoke());
  assert.equal(failed.ok, false);
  assert.equal(failed.reason, 'internal_error');
  assert.ok(!failed.text.includes('secret') && !failed.text.includes('se\u200bcret'), `the answer is withheld: ${failed.text}`);
  assert.ok(requests >= 1, 'the page asked for the chunk');

  offline = false;
  const called = await page.evaluate(() => window.__invoke());
  assert.deepEqual(called, { ok: true, text: 'secret', reason: undefined }, 'the next call loaded the chunk and shaped the answer');
  const registered = await page.evaluate(() => window.__register());
  assert.equal(registered.status, 'registered');
  const agent = await page.evaluate(async () => {
    const [tool] = (await document.modelContext.getTools()).filter((t) => t.name === 'leaky');
    return JSON.parse(await document.modelContext.executeTool(tool, {}));
  });
  assert.equal(agent.content[0].text, 'secret', 'the agent reads the shaped answer');
  assert.deepEqual(pageErrors, [], 'no uncaught page errors');
});
