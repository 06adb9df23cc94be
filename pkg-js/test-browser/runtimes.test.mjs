// Browser test: every WebMCP runtime Chromium 156 can run (docs/runtimes.md), and governed
// declarative forms. Native WebMCP, MCP-B's `@mcp-b/webmcp-polyfill` and `@mcp-b/global` 5.1.0
// (in a Chromium without native WebMCP): after `unregister()` the runtime no longer lists the
// tool and an `execute` it kept answers `not_found` without running the function; registering
// again works; a polyfill that starts after the tools gets them without `register()`; a schema
// with `$ref` and `format` is sent compatible and still validated in full. Forms: Playwright's
// `page.webmcp` (the browser's own agent path, over CDP) calls a `<form toolname>`; a denied
// submit never reaches the page, an approved one reaches it once, a user's own submit is
// untouched, and the agent reads shaped text. The Node runs of the same: runtime-shapes.test.mjs,
// schema-compat.test.mjs, forms.test.mjs.
//
// Needs the built package (pkg-js/dist), Debian's chromium (/usr/bin/chromium, or $CHROMIUM) and
// the pinned devDependencies. Without chromium the test is skipped, except under CI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipReason, launchChromium, startStaticServer, stopServer, watchErrors } from './demo-serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');
const skipReason = browserSkipReason();

let outDir;
let served;
const browsers = {};

before(async () => {
  if (skipReason) return;
  assert.ok(existsSync(path.join(pkgRoot, 'dist', 'index.js')), 'pkg-js/dist/index.js is missing: build the package first');
  const { build } = await import('esbuild');
  outDir = mkdtempSync(path.join(os.tmpdir(), 'warden-runtimes-'));
  await build({ entryPoints: [path.join(here, 'runtimes-page.js')], bundle: true, format: 'esm', platform: 'browser', outdir: outDir, logLevel: 'error' });
  copyFileSync(path.join(here, 'mcp-b-options.js'), path.join(outDir, 'mcp-b-options.js'));
  writeFileSync(
    path.join(outDir, 'index.html'),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>webmcp-warden runtimes</title>' +
      '<script src="./mcp-b-options.js"></script></head><body><script type="module" src="./runtimes-page.js"></script></body></html>',
  );
  served = await startStaticServer(outDir);
  browsers.native = await launchChromium();
  browsers.plain = await launchChromium({ nativeWebMCP: false });
});

after(async () => {
  await browsers.native?.close();
  await browsers.plain?.close();
  await stopServer(served?.server);
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** A fresh page of `browser`, ready; `run(scenario, ...args)` runs one of runtimes-page.js's. */
async function open(browser) {
  const page = await browsers[browser].newPage();
  const errors = watchErrors(page);
  await page.goto(`${served.url}/`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 15_000 });
  const run = (scenario, ...args) => page.evaluate(([s, a]) => window.__rt[s](...a), [scenario, args]);
  return { page, errors, run };
}

const UNKNOWN = { isError: true, text: 'Error: Unknown tool "delete_account"' };
const unknownOf = (result) => ({ isError: result.isError, text: result.content?.[0]?.text });

test('native WebMCP: the agent (page.webmcp) calls; after unregister() it is gone and a kept execute runs nothing; it registers again', { skip: skipReason }, async () => {
  const { page, errors, run } = await open('native');
  try {
    const setup = await run('setup', 'native');
    assert.deepEqual(setup, { status: 'registered', listed: ['delete_account'], runs: 0 });
    const tools = await page.webmcp.tools();
    const shown = tools.find((t) => t.name === 'delete_account');
    assert.equal(shown.annotations?.consequential, true, "Chromium got destructiveHint as consequentialHint");
    const result = await page.webmcp.callTool('delete_account', { id: 'a1' });
    assert.equal(result.content[0].text, 'deleted a1');
    assert.deepEqual(await run('unregister'), { runs: 1 });
    assert.deepEqual((await page.webmcp.tools()).map((t) => t.name), [], 'Chromium no longer lists it');
    const { stale, runs } = await run('callCaptured');
    assert.deepEqual(unknownOf(stale), UNKNOWN);
    assert.equal(runs, 1, 'the function did not run');
    assert.deepEqual(errors.page, []);
  } finally {
    await page.close();
  }
});

for (const runtime of ['polyfill', 'global']) {
  test(`${runtime === 'polyfill' ? '@mcp-b/webmcp-polyfill' : '@mcp-b/global'} (Chromium without native WebMCP): unregister removes, a kept execute runs nothing, registering again works`, { skip: skipReason }, async () => {
    const { page, errors, run } = await open('plain');
    try {
      const setup = await run('setup', runtime);
      assert.deepEqual(setup, { status: 'registered', listed: ['delete_account'], runs: 0 });
      const out = await run('lifecycle');
      assert.equal(out.first, 'deleted a1');
      assert.deepEqual(out.after, [], 'the runtime no longer lists it');
      assert.deepEqual(unknownOf(out.stale), UNKNOWN);
      assert.equal(out.runsAfterStale, 1, 'the kept execute ran nothing');
      assert.equal(out.status, 'registered');
      assert.equal(out.again, 'deleted a3');
      assert.equal(out.runs, 2);
      assert.deepEqual(errors.page, []);
    } finally {
      await page.close();
    }
  });
}

test('a polyfill initialized after the tools picks them up without register()', { skip: skipReason }, async (t) => {
  const { page, run } = await open('plain');
  try {
    const out = await run('late');
    assert.equal(out.before, 'unsupported');
    assert.deepEqual(out.listed, ['early_tool']);
    assert.equal(out.text, 'early');
    // The polls back off: 0.1 s, 0.3 s, 0.7 s, 1.5 s, … after the registration found no runtime.
    t.diagnostic(`picked up ${out.pickedUpMs} ms after the polyfill started`);
  } finally {
    await page.close();
  }
});

test("native WebMCP: browserSchema 'compatible' sends no $ref or format; the validator still enforces both", { skip: skipReason }, async () => {
  const { page, run } = await open('native');
  try {
    const out = await run('compatible');
    assert.equal(out.status, 'registered');
    assert.equal(JSON.stringify(out.shown).includes('$ref'), false);
    assert.equal(JSON.stringify(out.shown).includes('"format"'), false);
    assert.equal(out.shown.properties.email.description, 'format: email');
    assert.equal(out.ok, 'ok a@example.com Oslo');
    assert.equal(out.badEmail.isError, true);
    assert.equal(out.badCity.isError, true);
  } finally {
    await page.close();
  }
});

test('declarative forms (native, page.webmcp as the agent): denied never submits, approved submits once, the user is untouched, the agent reads shaped text', { skip: skipReason }, async () => {
  const { page, errors, run } = await open('native');
  try {
    const { listed } = await run('forms');
    assert.ok(listed.includes('book_table'), 'Chromium lists the form');
    const allowed = await page.webmcp.callTool('book_table', { guests: 2, name: 'Ada' });
    assert.equal(allowed.content[0].text, 'Booked for 2 (Ada)', 'shaped: the hidden character is gone');
    assert.deepEqual(allowed._meta['webmcp-warden/provenance'].flags, ['zero_width']);
    let state = await run('seen');
    assert.deepEqual(state.seen, [{ agentInvoked: true, isTrusted: false, values: { guests: '2', name: 'Ada' } }], 'the page got one submit, agent-invoked');

    const denied = await page.webmcp.callTool('book_table', { guests: 12, name: 'Bo' });
    assert.equal(denied.isError, true);
    assert.equal(denied.content[0].text, 'Denied: Parties over 8 book by phone.');
    const refused = await page.webmcp.callTool('book_table', { guests: 6, name: 'no' });
    assert.equal(refused.content[0].text, 'Denied: Not tonight.');
    const approved = await page.webmcp.callTool('book_table', { guests: 6, name: 'ok' });
    assert.equal(approved.content[0].text, 'Booked for 6 (ok)');
    state = await run('seen');
    assert.equal(state.seen.length, 2, 'denied and refused submits never reached the page; the approved one did, once');
    assert.deepEqual(state.asked, [{ guests: 6, name: 'no' }, { guests: 6, name: 'ok' }]);
    assert.deepEqual(state.events, ['book_table:ok', 'book_table:error', 'book_table:error', 'book_table:ok']);

    // The user's own submit: straight to the page, not agent-invoked, nothing governed.
    await page.fill('#book [name=guests]', '15');
    await page.fill('#book [name=name]', 'me');
    await page.click('#book button');
    state = await run('seen');
    assert.deepEqual(state.seen.at(-1), { agentInvoked: false, isTrusted: true, values: { guests: '15', name: 'me' } });
    assert.equal(state.events.length, 4, 'no governed call for it');
    assert.deepEqual(errors.page, []);
  } finally {
    await page.close();
  }
});
