// The package through every bundler a page is likely built with, and through none, with NO
// configuration for webmcp-warden, from the packed tarball: esbuild with `--splitting`, Vite's dev
// server (dependency pre-bundling on) and `vite build`, webpack 5, Next.js (app router, a client
// component with useWebMCP), and a plain `<script type="module">` page that serves the package's
// dist/ as is through an import map. Each app has one tool whose JSON Schema has a look-ahead
// pattern (fixtures/one-tool). In Chromium with native WebMCP, the test is the agent: through
// document.modelContext.executeTool a good call answers the result and a bad one the validator's
// failure (so the lazily loaded validator module really ran), and the page has no failed request,
// no HTML answered for a .js/.wasm URL, no console warning or error and no page error. Built pages
// are served under `script-src 'self' 'wasm-unsafe-eval'` (Next.js's own server excepted: its
// pages carry inline scripts).
//
// Versions are the repository's (harness.mjs, `pinned`): vite from www/, esbuild, webpack,
// webpack-cli, next, react and react-dom from pkg-js's devDependencies.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { browserSkipReason, startStaticServer, stopServer } from '../test-browser/demo-serve.mjs';
import {
  CSP, assertCheckHostValidates, closeBrowser, fixtures, freePort, installProject, npmEnv, openWatched, packTarball, pinned, removeTemps, run, runAllowingFailure, slimApp,
} from './harness.mjs';

const browserSkip = browserSkipReason();

after(async () => {
  await closeBrowser();
  removeTemps();
});

/** An HTML page that loads `src` (a module script unless `classic`), with optional extra head markup. */
const page = (src, { classic = false, head = '' } = {}) =>
  `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bundled</title>${head}</head><body>` +
  `<script ${classic ? 'defer' : 'type="module"'} src="${src}"></script></body></html>\n`;

let project;
test('the packed package installs with vite, esbuild, webpack, webpack-cli, next and react', { timeout: 300_000 }, (t) => {
  const { tarball } = packTarball();
  const started = Date.now();
  project = installProject('warden-bundlers-', [tarball, ...pinned('vite', 'esbuild', 'webpack', 'webpack-cli', 'next', 'react', 'react-dom')]);
  t.diagnostic(`npm install: ${Date.now() - started} ms`);
  mkdirSync(path.join(project, 'src'));
  cpSync(path.join(fixtures, 'one-tool'), path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'index.html'), page('/src/main.js'));
});

/**
 * Loads the app at `url` in a fresh page, waits for its tool to be registered (`ready`), and checks
 * it as the agent (see assertCheckHostValidates) with nothing going wrong on the page. With
 * `namedChunk`, the validator must also have come as a chunk named after its module (esbuild,
 * Vite, unbundled); webpack and Next.js name chunks by id, and there the validation failure is
 * the proof that it loaded.
 */
/** Loads the app at `url`, checks its schema-checked tool validates; answers the paths the page fetched. */
async function assertAppWorks(url, { ready = () => window.__status !== undefined, namedChunk = true } = {}) {
  const { page: tab, problems, responses, idle } = await openWatched(url, ready);
  try {
    const status = await tab.evaluate(() => window.__status ?? document.getElementById('status')?.textContent);
    assert.equal(status, 'registered');
    await assertCheckHostValidates(tab);
    await idle();
    const fetched = responses.map((r) => r.path);
    if (namedChunk) assert.ok(fetched.some((p) => p.includes('warden_validate')), `the validator chunk was loaded: ${fetched.join(', ')}`);
    assert.deepEqual(problems, []);
    return fetched;
  } finally {
    await tab.close();
  }
}

/** Serves `dir` on 127.0.0.1 (with `headers`) while `use(url)` runs. */
async function serving(dir, use, headers = { 'Content-Security-Policy': CSP }) {
  const served = await startStaticServer(dir, { headers });
  try {
    return await use(served.url);
  } finally {
    await stopServer(served.server);
  }
}

/** Runs `build` (answering `{ code, stdout, stderr }`), reports its time, and fails on a non-zero exit. */
async function timedBuild(t, label, build) {
  const started = Date.now();
  const built = await build();
  t.diagnostic(`${label}: ${Date.now() - started} ms`);
  assert.equal(built.code, 0, `${label} failed:\n${built.stdout}\n${built.stderr}`);
  return built;
}

const bin = (name) => path.join(project, 'node_modules', '.bin', name);

test('esbuild --bundle --splitting: the validator is a chunk of its own, and loads', { timeout: 120_000, skip: browserSkip }, async (t) => {
  assert.ok(project, 'the install step must have succeeded');
  const out = path.join(project, 'esbuild');
  await timedBuild(t, 'esbuild', () => runAllowingFailure(bin('esbuild'), ['src/main.js', '--bundle', '--splitting', '--format=esm', `--outdir=${path.join(out, 'out')}`, '--log-level=warning'], project));
  assert.ok(readdirSync(path.join(out, 'out')).some((f) => /^warden_validate(_judge)?_bytes-/.test(f)));
  writeFileSync(path.join(out, 'index.html'), page('./out/main.js'));
  await serving(out, (url) => assertAppWorks(`${url}/`));
});

test('Vite dev server, no config (dependency pre-bundling on): the validator loads', { timeout: 120_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  const vite = await import(pathToFileURL(path.join(project, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const server = await vite.createServer({ root: project, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } });
  await server.listen();
  try {
    await assertAppWorks(server.resolvedUrls.local[0]);
  } finally {
    await server.close();
  }
});

test('vite build, no config: the validator is a chunk of its own, and loads under a strict CSP', { timeout: 120_000, skip: browserSkip }, async (t) => {
  assert.ok(project, 'the install step must have succeeded');
  const vite = await import(pathToFileURL(path.join(project, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const outDir = path.join(project, 'vite-dist');
  await timedBuild(t, 'vite build', async () => {
    await vite.build({ root: project, configFile: false, logLevel: 'silent', build: { outDir } });
    return { code: 0 };
  });
  assert.ok(readdirSync(path.join(outDir, 'assets')).some((f) => /^warden_validate(_judge)?_bytes-/.test(f)));
  await serving(outDir, (url) => assertAppWorks(`${url}/`));
});

test('vite build, no config, of a page on webmcp-warden/slim: the core is emitted as a .wasm asset, init() loads it, and the tool is governed under a strict CSP', { timeout: 120_000, skip: browserSkip }, async (t) => {
  assert.ok(project, 'the install step must have succeeded');
  const vite = await import(pathToFileURL(path.join(project, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const app = slimApp(project, 'slim-app', page('./main.js'));
  const outDir = path.join(app, 'dist');
  await timedBuild(t, 'vite build (slim)', async () => {
    await vite.build({ root: app, configFile: false, logLevel: 'silent', build: { outDir } });
    return { code: 0 };
  });
  const assets = readdirSync(path.join(outDir, 'assets'));
  assert.ok(assets.some((f) => /^warden_core-.*\.wasm$/.test(f)), `the core is an asset: ${assets.join(', ')}`);
  const fetched = await serving(outDir, (url) => assertAppWorks(`${url}/`));
  assert.ok(fetched.some((p) => /\/assets\/warden_core-.*\.wasm$/.test(p)), `the page fetched the core's .wasm: ${fetched.join(', ')}`);
});

test('Vite dev server of a page on webmcp-warden/slim, with the documented optimizeDeps.exclude: init() finds the .wasm and the tool is governed', { timeout: 120_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  const vite = await import(pathToFileURL(path.join(project, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const app = slimApp(project, 'slim-dev', page('./main.js'));
  // Pre-bundling would move the package's module away from its .wasm (docs/behaviour.md, "The /slim entry").
  const server = await vite.createServer({ root: app, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 }, optimizeDeps: { exclude: ['webmcp-warden'] } });
  await server.listen();
  try {
    const fetched = await assertAppWorks(server.resolvedUrls.local[0]);
    assert.ok(fetched.some((p) => p.endsWith('/dist/slim/warden_core.wasm')), `the page fetched the core's .wasm: ${fetched.join(', ')}`);
  } finally {
    await server.close();
  }
});

test('webpack 5, no config (webpack-cli, production mode): the validator is a chunk of its own, and loads under a strict CSP', { timeout: 180_000, skip: browserSkip }, async (t) => {
  assert.ok(project, 'the install step must have succeeded');
  const out = path.join(project, 'webpack-dist');
  const built = await timedBuild(t, 'webpack', () => runAllowingFailure(bin('webpack'), ['--mode', 'production', '--entry', './src/main.js', '--output-path', out, '--no-color'], project));
  // Size hints (assets over 244 KiB) are webpack's advice, not a fault: reported, not failed on.
  const warnings = (built.stdout + built.stderr).match(/^WARNING in .*$/gm) ?? [];
  if (warnings.length) t.diagnostic(`webpack warnings: ${warnings.join(' | ')}`);
  assert.ok(readdirSync(out).filter((f) => f.endsWith('.js')).length >= 2, `the validator is a chunk of its own: ${readdirSync(out).join(', ')}`);
  writeFileSync(path.join(out, 'index.html'), page('./main.js', { classic: true }));
  await serving(out, (url) => assertAppWorks(`${url}/`, { namedChunk: false }));
});

test('a plain <script type="module"> page, no bundler: dist/ served as is, the package named by an import map', { timeout: 60_000, skip: browserSkip }, async (t) => {
  assert.ok(project, 'the install step must have succeeded');
  // The import map is an inline script, so the CSP allows it by its hash (and nothing else inline).
  const importMap = JSON.stringify({ imports: { 'webmcp-warden': '/node_modules/webmcp-warden/dist/index.js' } });
  const hash = createHash('sha256').update(importMap).digest('base64');
  mkdirSync(path.join(project, 'plain'));
  writeFileSync(path.join(project, 'plain', 'index.html'), page('/src/main.js', { head: `<script type="importmap">${importMap}</script>` }));
  const fetched = await serving(project, (url) => assertAppWorks(`${url}/plain/`), { 'Content-Security-Policy': `${CSP} 'sha256-${hash}'` });
  // How many of the package's modules the page fetched: a handful, dist/ being a bundle (an
  // entry, its shared chunks, the lazy chunks of a validated call), not one per source file.
  const modules = fetched.filter((p) => p.includes('/node_modules/webmcp-warden/') && p.endsWith('.js'));
  t.diagnostic(`the page fetched ${modules.length} of the package's modules: ${modules.map((p) => p.replace(/^.*\/webmcp-warden\//, '')).join(', ')}`);
  assert.ok(modules.length <= 20, `at most 20 of the package's modules through a validated call: ${modules.length}`);
});

// Next.js 16 builds with Turbopack by default; `--webpack` is its other bundler, still chosen by
// apps with webpack configuration. Both are built and served by `next start`.
for (const [label, flags] of [['Turbopack, the default', []], ['--webpack', ['--webpack']]]) {
  test(`Next.js (${label}; app router, next build + next start): a client component registers a schema-checked tool with useWebMCP, and it validates`, { timeout: 300_000, skip: browserSkip }, async (t) => {
    assert.ok(project, 'the install step must have succeeded');
    const app = path.join(project, `next-app${flags.join('')}`);
    cpSync(path.join(fixtures, 'next-app'), app, { recursive: true });
    cpSync(path.join(fixtures, 'one-tool', 'check-host.js'), path.join(app, 'app', 'check-host.js'));
    const next = path.join(project, 'node_modules', 'next', 'dist', 'bin', 'next');
    await timedBuild(t, `next build ${flags.join(' ')}`.trim(), () => runAllowingFailure(process.execPath, [next, 'build', ...flags], app));
    assert.ok(existsSync(path.join(app, '.next', 'BUILD_ID')));

    const port = await freePort();
    const server = spawn(process.execPath, [next, 'start', '--hostname', '127.0.0.1', '--port', String(port)], { cwd: app, env: npmEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    server.stdout.on('data', (d) => (log += d));
    server.stderr.on('data', (d) => (log += d));
    try {
      const started = Date.now();
      while (!/Ready in/.test(log)) {
        assert.ok(server.exitCode === null, `next start exited:\n${log}`);
        assert.ok(Date.now() - started < 30_000, `next start is not ready after 30 s:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      t.diagnostic(`next start: ready in ${Date.now() - started} ms`);
      await assertAppWorks(`http://127.0.0.1:${port}/`, { ready: () => document.getElementById('status')?.textContent === 'registered', namedChunk: false });
    } finally {
      server.kill();
    }
  });
}
