// Browser test: the built package (pkg-js/dist/index.js, no bundler) registers a governed tool
// with Chromium's native WebMCP (`document.modelContext`), under a strict CSP, and the test,
// acting as the agent, lists and executes it through the browser API.
//
// Needs Debian's chromium (/usr/bin/chromium, or $CHROMIUM) and playwright-core (root devDependency).
// Without chromium the test is skipped, except under CI (env CI set), where that is a failure.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipReason, launchChromium, startStaticServer, stopServer, watchErrors } from './demo-serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');
const repoRoot = path.resolve(pkgRoot, '..');
const resultsDir = path.join(repoRoot, 'test-results');
const CSP = "script-src 'self' 'wasm-unsafe-eval'";
const skipReason = browserSkipReason();

let served;
let browser;
let page;
let pageErrors = [];
let consoleErrors = [];

before(async () => {
  if (skipReason) return;
  assert.ok(
    existsSync(path.join(pkgRoot, 'dist', 'index.js')),
    'pkg-js/dist/index.js is missing: build the package first (npm run build / scripts/build.sh)',
  );
  // pkg-js/ served with the strict CSP header: the page loads ../dist/index.js as it is built.
  served = await startStaticServer(pkgRoot, { headers: { 'Content-Security-Policy': CSP } });
  browser = await launchChromium();
  page = await browser.newPage();
  ({ page: pageErrors, console: consoleErrors } = watchErrors(page));
  await page.goto(`${served.url}/test-browser/page.html`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await stopServer(served?.server);
});

/** The agent's view: tools named `name` from document.modelContext.getTools(). */
function agentTools(name) {
  return page.evaluate(async (n) => {
    const tools = await document.modelContext.getTools();
    return tools.filter((t) => t.name === n).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : t.inputSchema,
    }));
  }, name);
}

test('a governed tool registers natively and an agent call runs the before-hook (strict CSP)', { skip: skipReason }, async () => {
  const state = await page.evaluate(() => ({
    error: window.__error ?? null,
    status: window.__status,
    hasModelContext: 'modelContext' in document,
    evalBlocked: window.__evalBlocked,
    violations: window.__cspViolations.filter((v) => !v.endsWith(' eval')),
  }));
  assert.equal(state.hasModelContext, true, 'Chromium should expose document.modelContext (--enable-features=WebMCP)');
  assert.equal(state.error, null, `the page failed: ${state.error}`);
  assert.equal(state.evalBlocked, true, 'the CSP must be in force (no unsafe-eval)');
  assert.deepEqual(state.violations, [], 'no CSP violations');
  assert.equal(state.status, 'registered');

  const listed = await agentTools('add');
  assert.equal(listed.length, 1, 'getTools() lists add exactly once');
  assert.equal(listed[0].description, 'Add two numbers');
  assert.deepEqual(listed[0].inputSchema.required, ['a', 'b']);

  const raw = await page.evaluate(async () => {
    const [t] = (await document.modelContext.getTools()).filter((x) => x.name === 'add');
    return await document.modelContext.executeTool(t, { a: 2, b: 3 });
  });
  assert.equal(typeof raw, 'string', 'executeTool resolves with a JSON string');
  const result = JSON.parse(raw);
  assert.ok(Array.isArray(result.content), `an MCP result, got ${raw}`);
  assert.equal(result.isError, undefined, `not an error result: ${raw}`);
  assert.equal(result.content[0].type, 'text');
  assert.deepEqual(JSON.parse(result.content[0].text), { sum: 6 }, 'the hook added 1 to b');
  assert.equal(await page.evaluate(() => window.__hookRan), 1, 'the before-hook ran exactly once');

  mkdirSync(resultsDir, { recursive: true });
  await page.screenshot({ path: path.join(resultsDir, 'browser-native.png') });
  assert.deepEqual(pageErrors, [], 'no uncaught page errors');
  assert.deepEqual(consoleErrors, [], 'no console errors');
});

/** Polls `getTools()` until `check(tools)` holds (the browser may apply changes asynchronously). */
async function agentSees(check, what) {
  const deadline = Date.now() + 5_000;
  let tools;
  for (;;) {
    tools = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => ({ name: t.name, description: t.description, title: t.title })));
    if (check(tools) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(check(tools), `${what}: getTools() answered ${JSON.stringify(tools)}`);
  return tools;
}

test('toolsListed hooks shape what the browser lists, registrations follow the hooks, and text is stripped at registration', { skip: skipReason }, async () => {
  const statuses = await page.evaluate(async () => {
    const { webmcp, configureWebMCP } = window.__api;
    configureWebMCP({
      hooks: {
        toolsListed: [
          {
            id: 'g.shape',
            run: (tools) =>
              tools
                .filter((t) => t.name !== 'dropped_by_hook')
                .map((t) => (t.name === 'annotated' ? { ...t, description: 'Annotated\u200b by the page', title: 'Annotated\u202e' } : t)),
          },
        ],
      },
    });
    const made = ['annotated', 'dropped_by_hook', 'sneaky'].map((name) =>
      webmcp(() => name, { name, description: name === 'sneaky' ? 'Reads\u200b\u2066 the cart\u{E0041}' : `The ${name} tool` }),
    );
    window.__listed = made;
    for (const t of made) await t.register();
    return made.map((t) => t.status);
  });
  assert.deepEqual(statuses, ['registered', 'unregistered', 'registered'], 'a tool a toolsListed hook drops is not registered');
  const tools = await agentSees((list) => list.some((t) => t.name === 'annotated') && !list.some((t) => t.name === 'dropped_by_hook'), 'the hook dropped one tool');
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.annotated.description, 'Annotated by the page', 'what the hook annotated, stripped of hidden characters');
  assert.equal(byName.annotated.title, 'Annotated');
  assert.equal(byName.sneaky.description, 'Reads the cart', 'hidden and direction-changing characters are stripped at registration');
  // The hooks change: the registrations follow.
  await page.evaluate(() => window.__api.resetGlobalHooks());
  const after = await agentSees((list) => list.some((t) => t.name === 'dropped_by_hook') && list.find((t) => t.name === 'annotated')?.description === 'The annotated tool', 'registrations followed the hooks');
  assert.equal(after.filter((t) => t.name === 'annotated').length, 1, 'exactly one registration per tool');
  assert.deepEqual(await page.evaluate(() => window.__listed.map((t) => t.status)), ['registered', 'registered', 'registered']);
  // A failing toolsListed hook leaves the browser's registrations as they were.
  await page.evaluate(() => window.__api.configureWebMCP({ hooks: { toolsListed: [() => { throw new Error('boom'); }] } }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  await agentSees((list) => ['annotated', 'dropped_by_hook', 'sneaky'].every((name) => list.some((t) => t.name === name)), 'a failing hook changes nothing');
  await page.evaluate(async () => {
    window.__api.resetGlobalHooks();
    for (const t of window.__listed) t.unregister();
  });
  assert.deepEqual(pageErrors, [], 'no uncaught page errors');
});

test('unregister() removes the tool from the browser', { skip: skipReason }, async () => {
  assert.equal((await agentTools('add')).length, 1);
  await page.evaluate(async () => { await window.__add.unregister(); });
  // The browser may apply the removal asynchronously: poll briefly.
  const deadline = Date.now() + 5_000;
  let listed = await agentTools('add');
  while (listed.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    listed = await agentTools('add');
  }
  assert.deepEqual(listed, [], 'getTools() no longer lists add');
  assert.equal(await page.evaluate(() => window.__add.status), 'unregistered');
  assert.deepEqual(pageErrors, [], 'no uncaught page errors');
});
