// Browser test of webmcp-warden/react (README, "React") in Chromium, against both the native
// `document.modelContext` (--enable-features=WebMCP) and the fake of webmcp-warden/testing.
// The page (react-page.jsx) is bundled with esbuild into a temp dir, with React's development
// build so StrictMode double-invokes effects, and served under the same strict CSP as
// native-webmcp.test.mjs.
//
// Needs the built package (pkg-js/dist), Debian's chromium (/usr/bin/chromium, or $CHROMIUM) and
// playwright-core + esbuild (root devDependencies). Without chromium the test is skipped, except
// under CI (env CI set), where that is a failure.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipReason, launchChromium, startStaticServer, stopServer, watchErrors } from './demo-serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');
const CSP = "script-src 'self' 'wasm-unsafe-eval'";
const skipReason = browserSkipReason();

let outDir;
let served;
let browser;
let page;
let pageErrors = [];
let consoleErrors = [];

async function bundlePage() {
  const { build } = await import('esbuild');
  outDir = mkdtempSync(path.join(os.tmpdir(), 'warden-react-'));
  await build({
    entryPoints: [path.join(here, 'react-page.jsx')],
    bundle: true,
    format: 'esm',
    splitting: true,
    outdir: outDir,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"development"' },
    logLevel: 'error',
    // WARDEN_REACT_DIR=<a node_modules holding react and react-dom>: run against another React
    // (for example 18.3.1, to check the layer uses only APIs React 18 has).
    ...(process.env.WARDEN_REACT_DIR
      ? { alias: { react: path.join(process.env.WARDEN_REACT_DIR, 'react'), 'react-dom': path.join(process.env.WARDEN_REACT_DIR, 'react-dom') } }
      : {}),
  });
  writeFileSync(
    path.join(outDir, 'index.html'),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>webmcp-warden/react test</title></head>' +
      '<body><script type="module" src="./react-page.js"></script></body></html>',
  );
}

before(async () => {
  if (skipReason) return;
  assert.ok(existsSync(path.join(pkgRoot, 'dist', 'react.js')), 'pkg-js/dist/react.js is missing: build the package first');
  await bundlePage();
  served = await startStaticServer(outDir, { headers: { 'Content-Security-Policy': CSP } });
  browser = await launchChromium();
  page = await browser.newPage();
  ({ page: pageErrors, console: consoleErrors } = watchErrors(page));
  await page.goto(`${served.url}/`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 15_000 });
  if (process.env.WARDEN_REACT_EXPECT) {
    assert.equal(await page.evaluate(() => window.__reactVersion), process.env.WARDEN_REACT_EXPECT, 'the page runs the React under test');
  }
});

after(async () => {
  await browser?.close();
  await stopServer(served?.server);
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

const run = (scenario, runtime) => page.evaluate(([s, r]) => window.__react[s](r), [scenario, runtime]);

for (const runtime of ['native', 'fake']) {
  test(`[${runtime}] StrictMode mount → unmount → mount leaves exactly one registration and a true status`, { skip: skipReason }, async () => {
    if (runtime === 'native') assert.equal(await page.evaluate(() => 'modelContext' in document), true, 'Chromium should expose document.modelContext');
    const { after: mounted, unmounted } = await run('strict', runtime);
    assert.deepEqual(mounted.errors, [null, null, null]);
    assert.deepEqual(mounted.statuses, ['registered', 'registered', 'registered']);
    assert.deepEqual(mounted.toolStatuses, ['registered', 'registered', 'registered']);
    assert.deepEqual(mounted.registered, [true, true, true]);
    assert.equal(mounted.supported, true);
    assert.deepEqual(mounted.live, [1, 1, 1], 'getTools() lists each tool exactly once');
    assert.ok(mounted.registerCalls.every((n) => n >= 1 && n <= 2), `registerTool calls: ${mounted.registerCalls}`);
    assert.equal(mounted.text, 'registered registered registered', 'the rendered status is the committed one');
    assert.equal(mounted.executed, '5', 'an agent call through the browser runs the tool');
    assert.deepEqual(mounted.hookRuns, [`strict_schema_${runtime}`], 'the provider hook ran once, for that call');
    assert.deepEqual(unmounted.live, [0, 0, 0], 'unmount unregisters');
    assert.deepEqual(unmounted.toolStatuses, ['unregistered', 'unregistered', 'unregistered']);
  });

  test(`[${runtime}] re-renders with inline options cause no re-registration; calls use the latest function and hooks`, { skip: skipReason }, async () => {
    const r = await run('rerender', runtime);
    assert.equal(r.first.calls, 1);
    assert.equal(r.first.text, 'count=0');
    assert.equal(r.afterRenders.calls, 1, 'five re-renders, no registerTool call');
    assert.equal(r.afterRenders.tools, 1, 'the same tool on every render');
    assert.equal(r.afterRenders.status, 'registered');
    assert.equal(r.afterRenders.live, 1);
    assert.equal(r.afterRenders.text, 'count=5', 'the browser calls the latest committed function');
    assert.equal(r.afterRenders.invoked, 'count=5');
    assert.deepEqual(r.hookSaw.slice(0, 3), [0, 5, 5], 'the inline hook is the latest one too');
    assert.equal(r.changed.calls, 2, 'a changed description registers once more');
    assert.equal(r.changed.live, 1);
    assert.equal(r.changed.description, 'Tallies clicks');
    assert.equal(r.changed.text, 'count=5');
    assert.equal(r.changed.oldStatus, 'unregistered');
  });

  test(`[${runtime}] a provider re-rendered with inline hooks: latest functions, new structure at commit, no re-registration`, { skip: skipReason }, async () => {
    const r = await run('providerUpdate', runtime);
    assert.deepEqual(r.log, ['first:v0', 'first:v1', 'first:v2', 'second:v2', 'first:v3']);
    assert.equal(r.calls, r.callsBefore, 'the provider\'s changes never re-register the tool');
    assert.equal(r.status, 'registered');
    assert.equal(r.live, 1);
  });

  test(`[${runtime}] one tool under two providers keeps each provider's hooks apart`, { skip: skipReason }, async () => {
    const { both, onlyB, end } = await run('twoProviders', runtime);
    assert.equal(both.live, 1, 'one browser registration for two mounts');
    assert.deepEqual(both.log, ['A:via-a', 'B:via-b', 'A:agent1'], 'each mount its own hooks; the browser uses the first live mount');
    assert.equal(both.browserFirst, 'hello agent1');
    assert.equal(onlyB.live, 1, 'still registered while another mount is live');
    assert.equal(onlyB.status, 'registered');
    assert.deepEqual(onlyB.log.slice(3), ['B:agent2'], 'the next live mount\'s hooks take over');
    assert.deepEqual(end, { live: 0, status: 'unregistered' });
  });

  test(`[${runtime}] enabled: false registers nothing; toggling registers and unregisters`, { skip: skipReason }, async () => {
    const r = await run('toggle', runtime);
    assert.deepEqual(r.off, { status: 'unregistered', live: 0, calls: 0 });
    assert.deepEqual(r.on, { status: 'registered', live: 1 });
    assert.deepEqual(r.offAgain, { status: 'unregistered', live: 0 });
  });
}

test('useApprovals: approve once / always, deny, deny with halt, abort, and unmount', { skip: skipReason }, async () => {
  const r = await run('approvals', 'native');
  assert.equal(r.ask.name, 'appr_pay_native');
  assert.deepEqual(r.ask.arguments, { amount: 5 });
  assert.equal(r.ask.effect, 'ask');
  assert.equal(r.ask.frozen, true);
  assert.equal(r.ask.idIsInvocation, true);
  assert.match(r.ask.rendered, /appr_pay_native \{"amount":5\}/, 'the panel renders the pending ask');
  assert.deepEqual(r.once, { ok: true, text: 'paid 5', pendingAfter: 0 });
  assert.deepEqual(r.deny, { ok: false, reason: 'ask_denied', text: 'Denied: not today' });
  assert.deepEqual(r.halt, { ok: false, reason: 'ask_halt' });
  assert.equal(r.agent, 'paid 8', 'an agent call through the browser settles through the same UI');
  assert.deepEqual(r.granted, { ok: true, pending: 0 }, 'approve("always") recorded a grant');
  assert.deepEqual(r.aborted, { kind: 'aborted', pending: 0 });
  assert.equal(r.ran, 3, 'the tool ran only for approved calls');
  assert.equal(r.unmounted.reason, 'ask_denied');
  assert.equal(r.unmounted.text, 'Denied: the approval UI was closed', 'unmounting cancels what is still pending');
});

test('<ApprovalDialog>: the ask as an alertdialog with its summary; Allow once; Escape denies; an expired ask is announced until dismissed', { skip: skipReason }, async () => {
  const r = await run('dialog', 'native');
  assert.equal(r.idle, '', 'nothing is rendered while no ask waits');
  assert.equal(r.shown.title, 'Big payments need your approval', "the rule's own label");
  assert.equal(r.shown.labelledBy, r.shown.title);
  assert.equal(r.shown.describedBy, 'Big payments need your approval — amount 6');
  assert.deepEqual(r.shown.args, ['/amount', '6'], 'the argument that decided');
  assert.match(r.shown.time, /^[12] s left$/);
  assert.equal(r.shown.focused, true, 'the dialog takes the focus');
  assert.deepEqual(r.shown.buttons, ['Allow once', 'Always allow', 'Deny']);
  assert.equal(r.approved, 'paid 6');
  assert.deepEqual(r.escape, { reason: 'ask_denied', text: 'Denied: The user declined.' });
  assert.deepEqual([r.expired.reason, r.expired.cause], ['ask_failed', 'timeout']);
  assert.match(r.expired.notice, /The request from Pay expired before anyone answered it/);
  assert.equal(r.dismissed, '');
});

const NO_CHANGE = { renders: { slow: 0, other: 0, activity: 0 }, commits: { slow: 0, other: 0, activity: 0 } };

for (const runtime of ['native', 'fake']) {
  test(`[${runtime}] execution state: while a slow call runs, after success, denial and error, with the count, on every agent path`, { skip: skipReason }, async () => {
    const r = await run('execution', runtime);
    assert.deepEqual(r.initial, { isExecuting: false, executionCount: 0, ok: null, resultText: null, errorKind: null, errorReason: null, rendered: 'idle 0 -' });
    assert.equal(r.running.isExecuting, true);
    assert.equal(r.running.executionCount, 0);
    assert.equal(r.running.rendered, 'executing 0 -');
    assert.deepEqual(r.running.inProgress, [`exec_slow_${runtime}`]);
    assert.equal(r.running.activityText, `exec_slow_${runtime}`, 'the tool and the page-wide activity agree in one commit');
    assert.equal(r.running.running, 1);
    assert.deepEqual(r.success, { agent: 'done ok', isExecuting: false, executionCount: 1, ok: true, resultText: 'done ok', errorKind: null, errorReason: null, rendered: 'idle 1 ok' });
    assert.deepEqual(r.afterSuccess, { activityText: '', inProgress: 0 });
    assert.equal(r.denied.agent, 'Denied: not now');
    assert.deepEqual(r.denied, { agent: 'Denied: not now', isExecuting: false, executionCount: 2, ok: false, resultText: 'Denied: not now', errorKind: 'denied', errorReason: 'hook_denied', rendered: 'idle 2 denied' });
    assert.deepEqual(r.failed, { agent: 'Error: the cart service is down', isExecuting: false, executionCount: 3, ok: false, resultText: 'Error: the cart service is down', errorKind: 'tool', errorReason: 'tool_error', rendered: 'idle 3 tool' }, 'lastResult is the outcome the agent got');
    assert.deepEqual({ byName: r.otherPaths.byName, own: r.otherPaths.own, count: r.otherPaths.executionCount, text: r.otherPaths.resultText, error: r.otherPaths.errorKind }, { byName: true, own: true, count: 5, text: 'done own', error: null }, 'invokeTool and tool.invoke count too');
    assert.deepEqual(r.idle, NO_CHANGE, 'no render while idle');
    assert.deepEqual(r.idleAgain, NO_CHANGE, 'no render while idle, after calls');
    assert.equal(r.otherCalls.otherCount, 3);
    assert.equal(r.otherCalls.renders.slow, 0, 'another tool\'s calls do not render this tool\'s component');
    assert.equal(r.otherCalls.commits.slow, 0);
    assert.ok(r.otherCalls.commits.other >= 3 && r.otherCalls.commits.other <= 6, `the other tool: ${r.otherCalls.commits.other} commits for 3 calls (one or two each)`);
    assert.deepEqual(r.otherCalls.tools, [`exec_other_${runtime}`]);
    assert.ok(r.fiveCalls.commits.slow >= 5 && r.fiveCalls.commits.slow <= 10, `one or two commits per call (start, finish): ${r.fiveCalls.commits.slow} for 5 calls`);
    assert.equal(r.fiveCalls.commits.other, 0, 'the other tool\'s component: no commit');
  });

  test(`[${runtime}] two clients on one page (<WebMCPProvider client>) are kept apart`, { skip: skipReason }, async () => {
    const r = await run('twoClients', runtime);
    assert.deepEqual(r.browser, [1, 1, 1, 1], 'every client\'s tools reach the browser');
    assert.deepEqual(r.listed, { a: [`clients_a_${runtime}`], b: [`clients_b_${runtime}`, `clients_b_inner_${runtime}`].sort(), def: [`clients_default_${runtime}`] });
    assert.deepEqual(r.clients, { a: true, b: true, bInner: true, def: true });
    assert.equal(r.agentA, 'a:1');
    assert.deepEqual(r.logA, ['a:global', 'a:scoped'], 'client a\'s global and scoped hooks only');
    assert.deepEqual(r.afterA.counts, { a: 1, b: 0, bInner: 0, def: 0 });
    assert.deepEqual(r.afterA.activity, { a: [`clients_a_${runtime}`], b: [], def: [] });
    assert.equal(r.afterA.commits.b, 0, 'another client\'s activity does not render');
    assert.equal(r.afterA.commits.def, 0);
    assert.equal(r.agentBInner, 'bInner:2');
    assert.deepEqual(r.logBInner, ['b:scoped', 'b:inner'], 'a nested provider inherits its parent\'s client and scope');
    assert.equal(r.agentDef, 'def:3');
    assert.deepEqual(r.logDef, []);
    assert.deepEqual(r.cross, { aCallsB: 'not_found', defCallsA: 'not_found', bCallsBInner: true });
    assert.deepEqual(r.afterPolicy, { a: 'Denied: a is closed', b: 'b:6', def: 'def:7' }, 'one client\'s policy leaves the others alone');
    assert.deepEqual(r.end, [0, 0, 0, 0]);
  });

  test(`[${runtime}] hydrating server HTML: the idle execution state matches, then the live state takes over`, { skip: skipReason }, async () => {
    const r = await run('hydrate', runtime);
    assert.deepEqual(r.recoverable, [], 'no hydration mismatch');
    assert.equal(r.hydrated, 'registered true false 0 0');
    assert.equal(r.agent, 'hydrated');
    assert.equal(r.after, 'registered true false 1 0');
  });
}

test('no uncaught page errors or console errors', { skip: skipReason }, () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});
