// Browser test: the call path is two chunks the page loads when it first needs them: the
// pipeline (pkg-js/src/api/pipeline-loader.ts: calls, listings, the browser registration, shaping's
// code) and, for a page without a JSON Schema, the shaping module (pkg-js/src/shape/shape-module.ts,
// loaded by pkg-js/src/shape/shape-loader.ts). When either cannot download, nothing unshaped reaches a model
// and nothing is half registered: register() rejects with `internal_error` and an in-page call
// fails closed; once it downloads, the next register() and call load it and work. Chromium 156
// fetches a module again after a failed fetch (whatwg/html#10327); the test pins that a later
// call recovers there.
// Both trees: lib/ (one module per source file) and dist/, the shipped bundle, whose lazy chunks
// must stay lazy and recoverable the same way.
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

before(async () => {
  if (skipReason) return;
  for (const chunk of ['shape/shape-module.js', 'pipeline/pipeline.js']) assert.ok(existsSync(path.join(pkgRoot, 'lib', chunk)), `pkg-js/lib/${chunk} is missing: build the package first (npm run build / scripts/build.sh)`);
  assert.ok(existsSync(path.join(pkgRoot, 'dist', 'index.js')), 'pkg-js/dist/ is missing: build the package first');
  served = await startStaticServer(pkgRoot);
  browser = await launchChromium();
});

/**
 * A fresh page of the test app, loading `tree` (lib/, or the shipped bundle dist/), whose requests
 * for the chunk `glob` (under that tree) fail until `online()`; `requests` counts them.
 */
async function pageWithout(tree, glob) {
  const page = await browser.newPage();
  const { page: errors } = watchErrors(page);
  const state = { page, errors, offline: true, requests: 0, online: () => void (state.offline = false) };
  await page.route(`**/${tree}/${glob}`, (route) => {
    state.requests++;
    return state.offline ? route.abort('internetdisconnected') : route.continue();
  });
  await page.goto(`${served.url}/test-browser/lazy-chunks-page.html?tree=${tree}`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
  return state;
}

after(async () => {
  await browser?.close();
  await stopServer(served?.server);
});

// lib/ names each chunk by its source module; dist/ (the bundle) by the module and a hash.
const CASES = [
  ['lib', 'shape/shape-module.js', /shaping module did not load/],
  ['lib', 'pipeline/pipeline.js', /pipeline chunk did not load/],
  ['dist', 'chunks/shape-module-*.js', /shaping module did not load/],
  ['dist', 'chunks/pipeline-*.js', /pipeline chunk did not load/],
];
for (const [tree, chunk, says] of CASES) {
  test(`${tree}/: without ${chunk}, register() rejects and a call fails closed; with it, both work`, { skip: skipReason }, async () => {
    const state = await pageWithout(tree, chunk);
    const { page } = state;
    const refused = await page.evaluate(() => window.__register());
    assert.equal(refused.status, 'error');
    assert.equal(refused.code, 'internal_error');
    assert.match(refused.message, says);
    assert.deepEqual(await page.evaluate(() => document.modelContext.getTools().then((tools) => tools.map((t) => t.name))), [], 'nothing was registered with the browser');

    const failed = await page.evaluate(() => window.__invoke());
    assert.equal(failed.ok, false);
    assert.equal(failed.reason, 'internal_error');
    assert.ok(!failed.text.includes('secret') && !failed.text.includes('se\u200bcret'), `the answer is withheld: ${failed.text}`);
    assert.equal(failed.text, 'Error: internal error in webmcp-warden', 'the agent reads the generic text only, no chunk URL');
    assert.ok(state.requests >= 1, 'the page asked for the chunk');

    state.online();
    const called = await page.evaluate(() => window.__invoke());
    assert.deepEqual(called, { ok: true, text: 'secret', reason: undefined }, 'the next call loaded the chunk and shaped the answer');
    const registered = await page.evaluate(() => window.__register());
    assert.equal(registered.status, 'registered');
    const agent = await page.evaluate(async () => {
      const [tool] = (await document.modelContext.getTools()).filter((t) => t.name === 'leaky');
      return JSON.parse(await document.modelContext.executeTool(tool, {}));
    });
    assert.equal(agent.content[0].text, 'secret', 'the agent reads the shaped answer');
    assert.deepEqual(state.errors, [], 'no uncaught page errors');
    await page.close();
  });
}
