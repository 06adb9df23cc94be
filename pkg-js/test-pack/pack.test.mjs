// Packaging tests: `npm pack` the built package ONCE, install the tarball into projects outside
// the repository (temp dirs, removed afterwards), and use it the way users do:
//   (a) a Node ESM project: core entry, testing entry, react entry, otel entry (its optional peer
//       installed after the package);
//   (d) a page without a bundler, served with `Content-Security-Policy: script-src 'self'
//       'wasm-unsafe-eval'`: tools register with Chromium's WebMCP and run, including one with a
//       JSON Schema (the lazily loaded validator module);
//   (b) a Vite + React app built with `vite build` and loaded in Chromium (StrictMode, same CSP);
//   (c) a TypeScript project that type-checks its use of the public API with `tsc --noEmit`
//       (strict; bundler and nodenext resolution), a file of deliberate misuse that tsc must
//       reject, and the package's own .d.ts files compiled with skipLibCheck: false;
//   (e) production builds (`vite build`, `esbuild --minify`) of an app whose tools are named in
//       its source register exactly those names, and a tool without a name fails start-up
//       saying what to write;
//   (f) publint and @arethetypeswrong/cli (ESM-only profile) find nothing wrong with the package,
//       whose tarball carries its README, LICENSE and repository metadata.
// Catches a wrong "files" list, a broken exports map, missing or wrong type declarations, a core
// that only works inside the repository, and code a bundler or a strict CSP cannot take.
//
// The consumer projects install exactly the versions the repository's own node_modules hold
// (react, react-dom, vite, @vitejs/plugin-react, typescript, @types/react) with --prefer-offline,
// so npm's cache (filled by the repository's `npm ci`) serves them.
// Browser parts need Debian's chromium: skipped without it, except under CI (a failure there).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipReason, startStaticServer, stopServer, watchErrors } from '../test-browser/demo-serve.mjs';
import {
  CSP, agentCall, closeBrowser, fixtures, getBrowser, packTarball, pinned, pkgRoot, removeTemps, repoRoot, run, runAllowingFailure, tempDir, textOf, toolNames,
} from './harness.mjs';

// The CSP probe the csp-page and vite-app pages load as ./probe.js is the browser test's, copied
// into each project next to the fixture (a page, or vite's public/).
const cspProbe = path.join(pkgRoot, 'test-browser', 'csp-probe.js');
const resultsDir = path.join(repoRoot, 'test-results');
const browserSkip = browserSkipReason();

after(async () => {
  await closeBrowser();
  removeTemps();
});

let tarball; // the one tarball of this run
let project; // (a): the tarball and react only

test('npm pack produces a tarball that installs into an empty project', { timeout: 180_000 }, (t) => {
  const packed = packTarball();
  const info = packed.info;
  assert.equal(info.name, 'webmcp-warden');
  tarball = packed.tarball;
  const size = statSync(tarball).size;
  const files = info.files.map((f) => f.path);
  t.diagnostic(`tarball ${info.filename}: ${size} bytes packed, ${info.unpackedSize} bytes unpacked, ${files.length} files`);
  assert.ok(files.includes('package.json'));
  for (const entry of ['dist/index.js', 'dist/types/index.d.ts', 'dist/react.js', 'dist/types/react.d.ts', 'dist/testing.js', 'dist/types/testing.d.ts', 'dist/otel.js', 'dist/types/otel.d.ts', 'dist/wasm/warden_core.d.ts']) {
    assert.ok(files.includes(entry), `the tarball ships ${entry}`);
  }
  assert.ok(!files.some((f) => f.startsWith('test') || f.startsWith('src/') || f.startsWith('lib/') || f.startsWith('wasm/') || f.includes('node_modules')),
    `only built files are shipped (not lib/, the tests' tree), got: ${files.join(', ')}`);
  // The npm page: what it is, how to use it, its licence, where it lives.
  for (const page of ['README.md', 'LICENSE']) assert.ok(files.includes(page), `the tarball ships ${page}`);
  assert.ok(files.includes('dist/slim/slim.js') && files.includes('dist/slim/warden_core.wasm') && files.includes('dist/types/slim.d.ts'), 'the tarball ships webmcp-warden/slim and its core as a file');
  const manifest = JSON.parse(readFileSync(path.join(pkgRoot, 'package.json'), 'utf8'));
  assert.equal(manifest.license, 'MIT');
  assert.match(readFileSync(path.join(pkgRoot, 'LICENSE'), 'utf8'), /^MIT License/);
  assert.ok(manifest.repository?.url && manifest.homepage && manifest.keywords?.length > 0, 'repository, homepage and keywords are set');

  project = tempDir('warden-consumer-');
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
  // The package has no runtime dependencies, so this needs no registry access. React (an
  // optional peer) is linked from the repository's node_modules when it is there, so the
  // react entry can be loaded too.
  const reactDir = path.join(repoRoot, 'node_modules', 'react');
  const installArgs = ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball];
  if (existsSync(path.join(reactDir, 'package.json'))) installArgs.push(reactDir);
  run('npm', installArgs, project);
  assert.ok(existsSync(path.join(project, 'node_modules', 'webmcp-warden', 'package.json')));
});

test('(a) Node ESM: the installed package governs a call through the fake modelContext', { timeout: 60_000 }, () => {
  assert.ok(project, 'the install step must have succeeded');
  writeFileSync(path.join(project, 'main.mjs'), `
import { webmcp } from 'webmcp-warden';
import { installFakeModelContext } from 'webmcp-warden/testing';
const { modelContext } = installFakeModelContext();
const t = webmcp(({ x }) => x * 2, {
  name: 'double',
  description: 'Doubles x',
  hooks: { before: [ctx => ({ input: { x: ctx.input.x + 1 } })] },
});
await t.register();
const [tool] = await modelContext.getTools();
const r = await modelContext.executeTool(tool, { x: 4 });
console.log(r);
`);
  const stdout = run(process.execPath, ['main.mjs'], project);
  // Agent-path results are shaped for a model: their provenance says where they came
  // from, in `_meta` once the result leaves the page (MCP's place for it; docs/mcp-b.md).
  assert.deepEqual(JSON.parse(stdout.trim()), {
    content: [{ type: 'text', text: '10' }],
    _meta: { 'webmcp-warden/provenance': { serverId: 'page', truncated: false, flags: [] } },
  });
});

/**
 * The entries of the package's `exports`, by subpath, but `/otel`: its peer (@opentelemetry/api)
 * is not installed in this project (test/otel-entry.test.mjs bundles that entry).
 */
const ENTRY_SUBPATHS = ['', '/react', '/testing', '/devtools', '/devtools/react', '/forms', '/limits', '/presence', '/slim'];

test('(a) Node ESM: every entry imports from the installed package; how many modules Node loads for it', { timeout: 60_000 }, (t) => {
  assert.ok(project, 'the install step must have succeeded');
  // Node's loader hooks (module.register) see every module the process loads; the child
  // counts the package's, at import of every entry, and for import + a first governed call.
  writeFileSync(path.join(project, 'count-hooks.mjs'), `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) {
  if (url.includes('/node_modules/webmcp-warden/')) port.postMessage(url);
  return next(url, context);
}
`);
  writeFileSync(path.join(project, 'count.mjs'), `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const loaded = new Set();
port1.on('message', (url) => loaded.add(url));
port1.unref();
register('./count-hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
// The hooks run on their own thread: a round trip through it after each step flushes its messages.
const flush = async () => { await import('data:text/javascript,export default 0;'); await new Promise((resolve) => setTimeout(resolve, 20)); };
const out = {};
const { webmcp } = await import('webmcp-warden');
await flush();
out.atImport = loaded.size;
const tool = webmcp(({ a, b }) => a + b, { name: 'add', description: 'Adds', hooks: { before: [(ctx) => { ctx.metadata.seen = true; }] } });
const outcome = await tool.invoke({ a: 1, b: 2 });
await flush();
out.firstCall = loaded.size;
out.answer = outcome.result.content[0].text;
const entries = {};
for (const sub of ${JSON.stringify(ENTRY_SUBPATHS)}) entries[sub || '.'] = Object.keys(await import('webmcp-warden' + sub)).length;
await flush();
out.entries = entries;
out.everyEntry = loaded.size;
out.files = [...loaded].map((url) => url.split('/node_modules/webmcp-warden/').pop());
console.log(JSON.stringify(out));
`);
  const out = JSON.parse(run(process.execPath, ['count.mjs'], project).trim().split('\n').pop());
  t.diagnostic(`modules Node loads: ${out.atImport} at import('webmcp-warden'), ${out.firstCall} through a first governed call, ${out.everyEntry} for every entry`);
  assert.equal(out.answer, '3');
  for (const sub of ENTRY_SUBPATHS) assert.ok(out.entries[sub || '.'] > 0, `webmcp-warden${sub} exports something`);
  assert.ok(out.files.every((file) => /^dist\/(node|slim)\//.test(file)), `only the Node build's modules (the package's \`node\` condition), and /slim's own: ${out.files.join(', ')}`);
  assert.ok(out.firstCall >= out.atImport && out.everyEntry >= out.firstCall);
  // The Node build (pkg-js/bundle.mjs, buildForNode): the main entry is one file re-exporting
  // warden.js, which holds its lazily loaded modules too (ARCHITECTURE.md, "Build outputs").
  assert.deepEqual(out.files.slice(0, out.atImport).sort(), ['dist/node/index.js', 'dist/node/warden.js'], 'two modules at import');
  assert.equal(out.firstCall, out.atImport, 'and no other module through a first call');
});

test('(a) Node ESM: webmcp-warden/slim from the installed package: before init() what needs the core says not_initialized; after await init() a call is governed', { timeout: 60_000 }, () => {
  assert.ok(project, 'the install step must have succeeded');
  writeFileSync(path.join(project, 'slim.mjs'), `
import { init, configureWebMCP, webmcp } from 'webmcp-warden/slim';
let before;
try { configureWebMCP({ policy: { default: 'allow' } }); before = 'configured'; } catch (err) { before = err.code; }
await init();
configureWebMCP({ policy: { deny: [{ match: 'page/divide', when: { arg: '/by', equals: 0 }, reason: 'Division by zero.' }], default: 'allow' } });
const divide = webmcp(({ a, by }) => a / by, { name: 'divide', description: 'Divides', inputSchema: { type: 'object', properties: { a: { type: 'number' }, by: { type: 'number' } }, required: ['a', 'by'] } });
const ok = await divide.invoke({ a: 6, by: 3 });
const denied = await divide.invoke({ a: 6, by: 0 });
const invalid = await divide.invoke({ a: 'six', by: 3 });
const file = import.meta.resolve('webmcp-warden/slim/warden_core.wasm');
console.log(JSON.stringify({ before, ok: ok.result.content[0].text, denied: denied.result.content[0].text, invalid: invalid.error?.reason, file: file.split('/node_modules/webmcp-warden/').pop() }));
`);
  const out = JSON.parse(run(process.execPath, ['slim.mjs'], project).trim());
  assert.deepEqual(out, { before: 'not_initialized', ok: '2', denied: 'Denied: Division by zero.', invalid: 'invalid_arguments', file: 'dist/slim/warden_core.wasm' });
});

test('(a) Node ESM: a JSON Schema tool validates (the validator module loads from the installed package)', { timeout: 60_000 }, () => {
  assert.ok(project, 'the install step must have succeeded');
  writeFileSync(path.join(project, 'validate.mjs'), `
import { webmcp, configureWebMCP, invokeTool } from 'webmcp-warden';
configureWebMCP({ policy: { deny: [{ match: 'page/divide', when: { arg: '/by', equals: 0 }, reason: 'Division by zero.' }], default: 'allow' } });
const divide = webmcp(({ a, by }) => a / by, {
  name: 'divide',
  description: 'Divides',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, by: { type: 'number' } }, required: ['a', 'by'] },
});
await divide.register();
const ok = await invokeTool('divide', { a: 6, by: 3 });
const invalid = await invokeTool('divide', { a: 'six', by: 3 });
const denied = await invokeTool('divide', { a: 6, by: 0 });
console.log(JSON.stringify({ ok: ok.result.content[0].text, invalid: invalid.ok ? null : invalid.error.reason, denied: denied.result.content[0].text }));
`);
  const out = JSON.parse(run(process.execPath, ['validate.mjs'], project).trim());
  assert.deepEqual(out, { ok: '2', invalid: 'invalid_arguments', denied: 'Denied: Division by zero.' });
});

test('(a) Node ESM: validateJson and shapeForModel, documented for use outside a call, are exported by the package entry and work', { timeout: 60_000 }, () => {
  assert.ok(project, 'the install step must have succeeded');
  writeFileSync(path.join(project, 'outside-a-call.mjs'), `
import * as warden from 'webmcp-warden';
const { validateJson, shapeForModel } = warden;
const schema = { type: 'object', properties: { n: { type: 'number', maximum: 10 } }, required: ['n'] };
console.log(JSON.stringify({
  types: [typeof validateJson, typeof shapeForModel],
  valid: await validateJson(schema, { n: 3 }),
  invalid: await validateJson(schema, { n: 11 }),
  cycle: await validateJson(schema, (() => { const v = { n: 1 }; v.self = v; return v; })()),
  shaped: await shapeForModel({ content: [{ type: 'text', text: 'pa\\u200by now' }] }, 'page', 1024),
}));
`);
  const out = JSON.parse(run(process.execPath, ['outside-a-call.mjs'], project).trim());
  assert.deepEqual(out.types, ['function', 'function'], "'webmcp-warden' exports both");
  assert.deepEqual(out.valid, { valid: true });
  assert.deepEqual(out.invalid, { valid: false, diagnostics: [{ path: '/n', keyword: 'maximum', message: 'must be <= 10' }] });
  assert.deepEqual(out.cycle, { valid: false, diagnostics: [{ path: '/self', keyword: 'json', message: 'refers to itself (a cycle); JSON cannot carry it' }] });
  // The zero-width space is stripped and named.
  assert.deepEqual(out.shaped.result.content, [{ type: 'text', text: 'pay now' }]);
  assert.deepEqual(out.shaped.flags, ['zero_width']);
  assert.equal(out.shaped.truncated, false);
});

test('(a) the react entry resolves, and loads in Node (no document: the SSR case)', { timeout: 60_000 }, () => {
  assert.ok(project, 'the install step must have succeeded');
  writeFileSync(path.join(project, 'react-check.mjs'), `
const url = import.meta.resolve('webmcp-warden/react');
let loaded = 'react not installed';
try { import.meta.resolve('react'); loaded = null; } catch {}
if (loaded === null) {
  const mod = await import('webmcp-warden/react');
  loaded = Object.keys(mod).sort();
}
console.log(JSON.stringify({ url, loaded }));
`);
  const out = JSON.parse(run(process.execPath, ['react-check.mjs'], project).trim());
  assert.ok(out.url.startsWith('file:'), out.url);
  assert.ok(out.url.includes('/node_modules/webmcp-warden/'), out.url);
  assert.ok(existsSync(fileURLToPath(out.url)), `${out.url} exists`);
  assert.ok(Array.isArray(out.loaded), `react is linked, so the entry loads: ${JSON.stringify(out.loaded)}`);
  for (const name of ['WebMCPProvider', 'useWebMCP', 'useApprovals']) {
    assert.ok(out.loaded.includes(name), `webmcp-warden/react exports ${name} (exports: ${out.loaded.join(', ')})`);
  }
});

test('(a) the otel entry: the package installed without @opentelemetry/api (an optional peer), then with it, traces a call', { timeout: 60_000 }, () => {
  assert.ok(project, 'the install step must have succeeded');
  assert.ok(!existsSync(path.join(project, 'node_modules', '@opentelemetry', 'api')), 'the optional peer was not installed with the package');
  // The API from the repository's node_modules (linked, like react): no registry access.
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(repoRoot, 'node_modules', '@opentelemetry', 'api')], project);
  writeFileSync(path.join(project, 'otel-check.mjs'), `
import { webmcp } from 'webmcp-warden';
import { instrumentWebMCP, GEN_AI_SEMCONV_VERSION } from 'webmcp-warden/otel';
// A tracer that records what it is asked for (the SDK is not installed here; the API is).
const started = [];
const span = (name) => ({
  spanContext: () => ({ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', traceFlags: 1 }),
  setAttribute() { return this; }, setAttributes() { return this; }, addEvent() { return this; },
  setStatus() { return this; }, updateName() { return this; }, isRecording: () => true,
  recordException() {}, end() { started.push('end ' + name); },
});
const tracer = { startSpan: (name) => (started.push(name), span(name)), startActiveSpan() { throw new Error('unused'); } };
instrumentWebMCP({ tracer });
const t = webmcp(({ x }) => x * 2, { name: 'double', description: 'Doubles x' });
const outcome = await t.invoke({ x: 2 });
await new Promise((resolve) => setTimeout(resolve, 0));
console.log(JSON.stringify({ ok: outcome.ok, started, version: GEN_AI_SEMCONV_VERSION }));
`);
  const out = JSON.parse(run(process.execPath, ['otel-check.mjs'], project).trim());
  assert.deepEqual(out, {
    ok: true,
    started: ['execute_tool double', 'webmcp_warden.tool_run', 'end webmcp_warden.tool_run', 'end execute_tool double'],
    version: '1.41.0',
  });
});

/** Loads `url` in a fresh page of the shared browser; answers the page and its error lists. */
async function openPage(url, readyExpr) {
  const page = await (await getBrowser()).newPage({ viewport: { width: 1000, height: 700 } });
  const errors = watchErrors(page);
  await page.goto(url);
  await page.waitForFunction(readyExpr, null, { timeout: 20_000 });
  return { page, errors };
}

/** The CSP probe's findings: eval must be blocked, and nothing else may be. */
async function assertCspHeld(page) {
  const csp = await page.evaluate(() => ({ evalBlocked: window.__evalBlocked, violations: window.__cspViolations }));
  assert.equal(csp.evalBlocked, true, 'the CSP is in force (no unsafe-eval)');
  assert.deepEqual(csp.violations.filter((v) => !v.endsWith(' eval')), [], 'no CSP violations');
}

test("(d) strict CSP (script-src 'self' 'wasm-unsafe-eval'), no bundler: tools register and run, JSON Schema included", { timeout: 60_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  cpSync(path.join(fixtures, 'csp-page'), path.join(project, 'csp-page'), { recursive: true });
  cpSync(cspProbe, path.join(project, 'csp-page', 'probe.js'));
  const served = await startStaticServer(project, { headers: { 'Content-Security-Policy': CSP } });
  try {
    const { page, errors } = await openPage(`${served.url}/csp-page/`, () => window.__ready === true);
    assert.equal(await page.evaluate(() => window.__error ?? null), null, 'the page loaded the package');
    assert.deepEqual(await page.evaluate(() => window.__status), { ping: 'registered', divide: 'registered' });
    assert.deepEqual(await toolNames(page), ['divide', 'ping']);
    assert.equal(await page.evaluate(() => window.__validatorAfterPing), false, 'a tool without a JSON Schema does not fetch the validator');
    assert.ok(served.requests.some((r) => r.includes('warden_validate')), 'the validator module was fetched (under the CSP) for the tool with a schema');

    assert.equal(textOf(await agentCall(page, 'ping', {})), 'pong');
    assert.deepEqual(JSON.parse(textOf(await agentCall(page, 'divide', { a: 6, by: 3 }))), { quotient: 2 });
    const invalid = await agentCall(page, 'divide', { a: 6, by: 3, extra: true });
    assert.equal(invalid.isError, true);
    assert.match(textOf(invalid), /^Error: Validation failed: /);
    assert.equal(textOf(await agentCall(page, 'divide', { a: 6, by: 0 })), 'Denied: Division by zero.');

    await assertCspHeld(page);
    assert.deepEqual(errors.page, [], 'no uncaught page errors');
    assert.deepEqual(errors.console, [], 'no console errors');
    await page.close();
  } finally {
    await stopServer(served.server);
  }
});

let app; // (b) and (c): a project with the tarball, react, vite, typescript and @opentelemetry/api installed

test('(b) a Vite + React app: npm install, vite build, and in Chromium (StrictMode, strict CSP) its tools register once and run', { timeout: 240_000 }, async (t) => {
  assert.ok(tarball, 'the pack step must have succeeded');
  app = tempDir('warden-vite-app-');
  cpSync(path.join(fixtures, 'vite-app'), app, { recursive: true });
  cpSync(cspProbe, path.join(app, 'public', 'probe.js'));
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'vite-consumer', private: true, type: 'module' }, null, 2));
  // @opentelemetry/api: the optional peer, so (c) can type-check a use of webmcp-warden/otel.
  const pins = pinned('react', 'react-dom', 'vite', '@vitejs/plugin-react', 'typescript', '@types/react', '@opentelemetry/api');
  let started = Date.now();
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...pins], app);
  t.diagnostic(`npm install (${pins.join(' ')}): ${Date.now() - started} ms`);

  started = Date.now();
  const built = await runAllowingFailure(process.execPath, [path.join(app, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], app);
  t.diagnostic(`vite build: ${Date.now() - started} ms`);
  assert.equal(built.code, 0, `vite build failed:\n${built.stdout}\n${built.stderr}`);
  const assets = readdirSync(path.join(app, 'dist', 'assets'));
  assert.ok(assets.some((f) => f.startsWith('warden_validate')), `the validator is a chunk of its own: ${assets.join(', ')}`);

  if (browserSkip) {
    t.diagnostic(`browser part skipped: ${browserSkip}`);
    return;
  }
  const served = await startStaticServer(path.join(app, 'dist'), { headers: { 'Content-Security-Policy': CSP } });
  try {
    const { page, errors } = await openPage(served.url, () =>
      document.getElementById('greet-status')?.textContent === 'registered' && document.getElementById('shout-status')?.textContent === 'registered');
    assert.deepEqual(await toolNames(page), ['greet', 'shout'], 'each tool registered exactly once under StrictMode');

    assert.equal(textOf(await agentCall(page, 'greet', { name: 'Ada' })), 'Hello, Ada!');
    const invalid = await agentCall(page, 'greet', { name: '' });
    assert.equal(invalid.isError, true);
    assert.match(textOf(invalid), /^Error: Validation failed: \/name /);
    assert.deepEqual(await page.evaluate(() => window.__calls), { greet: 1, shout: 0, hook: 2 }, 'the invalid call never reached the tool; the global hook ran twice');

    // Re-rendering with inline options must not re-register (no churn), and the tool still runs.
    await page.click('#rerender');
    await page.click('#rerender');
    assert.deepEqual(await toolNames(page), ['greet', 'shout']);
    assert.equal(textOf(await agentCall(page, 'shout', { text: 'hi' })), 'HI');
    assert.equal(textOf(await agentCall(page, 'shout', { text: 'my secret' })), 'Denied: No secrets.');
    assert.equal(await page.evaluate(() => window.__calls.shout), 1);

    await assertCspHeld(page);
    assert.deepEqual(errors.page, [], 'no uncaught page errors');
    assert.deepEqual(errors.console, [], 'no console errors');
    mkdirSync(resultsDir, { recursive: true });
    await page.screenshot({ path: path.join(resultsDir, 'pack-vite-app.png') });
    await page.close();
  } finally {
    await stopServer(served.server);
  }
});

/** Parses tsc's `file(line,col): error TSnnnn: message` lines. */
function tscErrors(output) {
  return [...output.matchAll(/^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/gm)].map((m) => ({
    file: m[1].replaceAll('\\', '/'),
    line: Number(m[2]),
    code: m[4],
    message: m[5],
  }));
}

let tsDir; // the TypeScript project, inside the Vite app's install

function tscProject() {
  assert.ok(app && existsSync(path.join(app, 'node_modules', 'typescript')), 'the Vite app install (with typescript) must have succeeded');
  if (tsDir === undefined) {
    tsDir = path.join(app, 'ts-app');
    cpSync(path.join(fixtures, 'ts-app'), tsDir, { recursive: true });
  }
  return { dir: tsDir, tsc: path.join(app, 'node_modules', 'typescript', 'bin', 'tsc') };
}

test('(c) TypeScript: tsc --noEmit --strict accepts the public API as documented, and rejects misuse', { timeout: 120_000 }, async (t) => {
  const { dir, tsc } = tscProject();
  t.diagnostic(run(process.execPath, [tsc, '--version'], dir).trim());

  // The good files, under bundler resolution and under Node's (nodenext) resolution.
  for (const config of ['tsconfig.json', 'tsconfig.node.json']) {
    const started = Date.now();
    const good = await runAllowingFailure(process.execPath, [tsc, '-p', config, '--noEmit', '--strict', '--pretty', 'false'], dir);
    t.diagnostic(`tsc -p ${config}: exit ${good.code} in ${Date.now() - started} ms`);
    assert.equal(good.code, 0, `tsc -p ${config} reported errors:\n${good.stdout}${good.stderr}`);
  }

  // The deliberate misuse: every marked line is reported with its code, and nothing else.
  const wrongFile = path.join(dir, 'wrong', 'misuse.ts');
  const expected = readFileSync(wrongFile, 'utf8').split('\n').flatMap((text, i) => {
    const m = text.match(/\/\/ expect (TS\d+)/);
    return m ? [{ line: i + 1, code: m[1] }] : [];
  });
  assert.ok(expected.length >= 3);
  const wrong = await runAllowingFailure(process.execPath, [tsc, '-p', 'tsconfig.wrong.json', '--noEmit', '--strict', '--pretty', 'false'], dir);
  assert.notEqual(wrong.code, 0, 'tsc must fail on wrong/misuse.ts');
  const reported = tscErrors(wrong.stdout + wrong.stderr);
  assert.ok(reported.every((e) => e.file.endsWith('wrong/misuse.ts')), `errors only in misuse.ts:\n${wrong.stdout}`);
  assert.deepEqual(
    [...new Set(reported.map((e) => `${e.line}:${e.code}`))].sort(),
    expected.map((e) => `${e.line}:${e.code}`).sort(),
    `tsc reported exactly the marked errors:\n${wrong.stdout}`,
  );
});

test('(c) TypeScript: the package\'s own declaration files compile (skipLibCheck: false, lib es2022 + dom)', { timeout: 120_000 }, async () => {
  const { dir, tsc } = tscProject();
  const checked = await runAllowingFailure(process.execPath, [tsc, '-p', 'tsconfig.libcheck.json', '--noEmit', '--strict', '--pretty', 'false'], dir);
  const inPackage = tscErrors(checked.stdout + checked.stderr).filter((e) => e.file.includes('webmcp-warden/'));
  assert.deepEqual(
    inPackage.map((e) => `${e.file.slice(e.file.indexOf('webmcp-warden/'))}(${e.line}): ${e.code} ${e.message}`),
    [],
    'declaration files shipped in the package must compile for a project that checks libraries',
  );
  assert.equal(checked.code, 0, `tsc -p tsconfig.libcheck.json reported errors:\n${checked.stdout}${checked.stderr}`);
});

/** Runs a production bundle of the names-app in Node; answers what it printed. */
function runBundle(file, cwd) {
  const out = run(process.execPath, [file], cwd).trim().split('\n').pop();
  return JSON.parse(out);
}

/** What every production build of the names-app must show. */
function assertNamesKept(result, build) {
  assert.deepEqual(result.listed, ['get_cart', 'remove_item', 'search_products'], `${build}: the agent sees the names written in the source`);
  // The build did rename functions (else this test would prove nothing).
  assert.notEqual(result.functionName, 'getCart', `${build} kept function names; the fixture must be minified`);
  assert.match(result.cart, /mug/, `${build}: the tool runs`);
  assert.equal(result.unnamed.code, 'missing_name', `${build}: a tool without a name fails start-up: ${JSON.stringify(result.unnamed)}`);
  assert.equal(result.unnamed.name, 'ConfigurationError', `${build}: the error keeps its class name`);
  // Keyed by the classes' names after the build (renamed), valued by their errors' names.
  assert.deepEqual(Object.values(result.errorNames), ['WardenError', 'ConfigurationError', 'RegistrationError', 'NotSupportedError', 'CallFailure'], `${build}: every exported error keeps its name: ${JSON.stringify(result.errorNames)}`);
  assert.match(result.unnamed.message, /give the tool a name, such as webmcp\(fn, \{ name: "[a-z0-9_]+", description: "…" \}\)/);
  assert.match(result.unnamed.message, /production builds rename functions/);
  // In a large bundle a function gets a three-character name: refused, or kept with a warning.
  assert.equal(result.shortFunctionName.length, 3, `${build}: the filler should leave viewOrders a three-character name, got ${JSON.stringify(result.shortFunctionName)}`);
  if (result.short.code !== undefined) {
    assert.equal(result.short.code, 'missing_name', `${build}: ${JSON.stringify(result.short)}`);
    assert.match(result.short.message, /give the tool a name/);
  } else {
    assert.equal(result.short.warnings.length, 1, `${build}: the tool ${JSON.stringify(result.short.toolName)} was renamed silently`);
    assert.match(result.short.warnings[0], /minifiers give functions names this short.*name: "/);
  }
}

/** Thousands of functions, each used more often than `viewOrders`, for names-app's filler.js. */
function fillerModule(count) {
  const lines = [];
  for (let i = 0; i < count; i++) lines.push(`function f${i}(x) { return x * ${i + 1}; }`);
  const uses = [];
  for (let i = 0; i < count; i++) uses.push(`s += f${i}(1) + f${i}(2) + f${i}(3);`);
  return `${lines.join('\n')}\nexport function fill() {\n  let s = 0;\n  ${uses.join('\n  ')}\n  return s;\n}\n`;
}

test('(e) production builds keep the names the source gives: vite build and esbuild --minify; a tool without a name fails start-up, saying what to write', { timeout: 180_000 }, async (t) => {
  assert.ok(app && existsSync(path.join(app, 'node_modules', 'vite')), 'the Vite app install must have succeeded');
  const dir = path.join(app, 'names-app');
  cpSync(path.join(fixtures, 'names-app'), dir, { recursive: true });
  writeFileSync(path.join(dir, 'src', 'filler.js'), fillerModule(4000));

  let started = Date.now();
  const vite = await runAllowingFailure(process.execPath, [path.join(app, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], dir);
  t.diagnostic(`vite build: ${Date.now() - started} ms`);
  assert.equal(vite.code, 0, `vite build failed:\n${vite.stdout}\n${vite.stderr}`);
  const viteResult = runBundle(path.join(dir, 'dist-vite', 'main.js'), dir);
  t.diagnostic(`vite build: getCart became ${JSON.stringify(viteResult.functionName)}; ${viteResult.unnamed.message}`);
  assertNamesKept(viteResult, 'vite build');

  // esbuild as the repository pins it (pkg-js's devDependency), through its API (what
  // `esbuild src/main.js --bundle --minify` runs), on the installed package.
  const { build } = await import('esbuild');
  started = Date.now();
  const outfile = path.join(dir, 'dist-esbuild', 'main.mjs');
  await build({ entryPoints: [path.join(dir, 'src', 'main.js')], bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2022', outfile, logLevel: 'warning', absWorkingDir: dir });
  t.diagnostic(`esbuild --minify: ${Date.now() - started} ms`);
  const esbuildResult = runBundle(outfile, dir);
  t.diagnostic(`esbuild --minify: getCart became ${JSON.stringify(esbuildResult.functionName)}`);
  assertNamesKept(esbuildResult, 'esbuild --minify');
});

test('(f) publint (strict) and @arethetypeswrong/cli (ESM-only profile) find no problem', { timeout: 120_000 }, async (t) => {
  assert.ok(tarball, 'the pack step must have succeeded');
  const publint = await runAllowingFailure(process.execPath, [path.join(repoRoot, 'node_modules', 'publint', 'src', 'cli.js'), pkgRoot, '--strict'], pkgRoot);
  t.diagnostic(publint.stdout.trim().split('\n').pop());
  assert.equal(publint.code, 0, `publint:\n${publint.stdout}\n${publint.stderr}`);
  assert.match(publint.stdout, /All good!/, publint.stdout);

  // `./slim/warden_core.wasm` is an asset (the /slim core as a file), not a module: no types to check.
  const attw = await runAllowingFailure(process.execPath, [path.join(repoRoot, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js'), tarball, '--profile', 'esm-only', '--format', 'json', '--exclude-entrypoints', './slim/warden_core.wasm'], pkgRoot);
  assert.equal(attw.code, 0, `attw:\n${attw.stdout}\n${attw.stderr}`);
  const report = JSON.parse(attw.stdout);
  // The ESM-only profile ignores CommonJS and node10 resolution (the package has no CJS build).
  const ignored = new Set(['node10', 'node16-cjs']);
  const problems = Object.values(report.problems ?? {}).flat().filter((p) => !ignored.has(p.resolutionKind));
  t.diagnostic(`attw: ${problems.length} problems outside the ignored resolutions`);
  assert.deepEqual(problems, [], 'no type problem for ESM consumers (node16 from ESM, bundler)');
});
