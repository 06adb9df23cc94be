// The validator module through bundlers with NO configuration, from the packed package: esbuild
// with `--splitting`, Vite's dev server (dependency pre-bundling on) and `vite build`. In
// Chromium, under `script-src 'self' 'wasm-unsafe-eval'` for the built pages, a tool whose JSON
// Schema has a look-ahead pattern validates, the validator chunk is loaded, and there is no failed
// request, no console warning or error and no page error. (webpack 5 and Next.js were checked the
// same way by hand when this loader was written; they are not devDependencies.)
//
// Installs exactly the vite and esbuild versions the repository's node_modules hold, with
// --prefer-offline (npm's cache, filled by the repository's `npm ci`, serves them).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { browserSkipReason, launchChromium, startStaticServer, stopServer } from '../test-browser/demo-serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');
const repoRoot = path.resolve(pkgRoot, '..');
const CSP = "script-src 'self' 'wasm-unsafe-eval'";
const browserSkip = browserSkipReason();
const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
const repoVersion = (name) => JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version;

const temps = [];
let browser;
after(async () => {
  await browser?.close();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const APP = `// The page: a tool whose JSON Schema has a look-ahead pattern (Zod 4's hostname).
import { webmcp } from 'webmcp-warden';
const tool = webmcp(({ host }) => 'ok ' + host, {
  name: 'check_host',
  description: 'Checks a host name.',
  inputSchema: { type: 'object', properties: { host: { type: 'string', pattern: '^(?=.{1,253}\\\\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\\\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*$' } }, required: ['host'] },
});
(async () => {
  const good = await tool.invoke({ host: 'shop.example.com' });
  const bad = await tool.invoke({ host: 'BAD HOST' });
  window.__result = { good: good.ok, bad: bad.ok ? 'ok' : bad.error.reason, keyword: bad.ok ? '' : bad.error.diagnostics[0].keyword };
})().catch((err) => { window.__result = { error: String((err && err.stack) || err) }; });
`;
const page = (src) => `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bundled</title></head><body><script type="module" src="${src}"></script></body></html>\n`;

let project;
test('the packed package installs with vite and esbuild', { timeout: 180_000 }, () => {
  assert.ok(existsSync(path.join(pkgRoot, 'dist', 'index.js')), 'build the package first (node pkg-js/build.mjs)');
  const packDir = mkdtempSync(path.join(os.tmpdir(), 'warden-bundlers-pack-'));
  temps.push(packDir);
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], pkgRoot));
  project = mkdtempSync(path.join(os.tmpdir(), 'warden-bundlers-'));
  temps.push(project);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'bundlers', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(packDir, packed.filename), `vite@${repoVersion('vite')}`, `esbuild@${repoVersion('esbuild')}`], project);
  mkdirSync(path.join(project, 'src'));
  writeFileSync(path.join(project, 'src', 'main.js'), APP);
  writeFileSync(path.join(project, 'index.html'), page('/src/main.js'));
});

/** Loads `url` in Chromium; answers the page's result, what went wrong, and the scripts fetched. */
async function visit(url) {
  browser ??= await launchChromium();
  const tab = await browser.newPage();
  const problems = [];
  const scripts = [];
  tab.on('console', (m) => { if (m.type() === 'warning' || m.type() === 'error') problems.push(`console.${m.type()}: ${m.text()}`); });
  tab.on('pageerror', (err) => problems.push(`page error: ${err}`));
  tab.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  tab.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    else if (r.request().resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  await tab.goto(url);
  await tab.waitForFunction(() => window.__result !== undefined, null, { timeout: 30_000 });
  const result = await tab.evaluate(() => window.__result);
  await tab.close();
  return { result, problems, scripts };
}

function assertValidated({ result, problems, scripts }) {
  assert.deepEqual(result, { good: true, bad: 'invalid_arguments', keyword: 'pattern' });
  assert.deepEqual(problems, []);
  assert.ok(scripts.some((s) => s.includes('warden_validate_deflate')), `the validator chunk was loaded: ${scripts.join(', ')}`);
}

test('esbuild --bundle --splitting: the validator is a chunk of its own, and loads', { timeout: 120_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  const out = path.join(project, 'esbuild');
  run(path.join(project, 'node_modules', '.bin', 'esbuild'), ['src/main.js', '--bundle', '--splitting', '--format=esm', `--outdir=${path.join(out, 'out')}`, '--log-level=warning'], project);
  assert.ok(readdirSync(path.join(out, 'out')).some((f) => f.startsWith('warden_validate_deflate')));
  writeFileSync(path.join(out, 'index.html'), page('./out/main.js'));
  const served = await startStaticServer(out, { headers: { 'Content-Security-Policy': CSP } });
  try {
    assertValidated(await visit(`${served.url}/`));
  } finally {
    await stopServer(served.server);
  }
});

test('Vite dev server, no config (dependency pre-bundling on): the validator loads', { timeout: 120_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  const vite = await import(pathToFileURL(path.join(project, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const server = await vite.createServer({ root: project, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } });
  await server.listen();
  try {
    assertValidated(await visit(server.resolvedUrls.local[0]));
  } finally {
    await server.close();
  }
});

test('vite build, no config: the validator is a chunk of its own, and loads under a strict CSP', { timeout: 120_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  const vite = await import(pathToFileURL(path.join(project, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const outDir = path.join(project, 'vite-dist');
  await vite.build({ root: project, configFile: false, logLevel: 'silent', build: { outDir } });
  assert.ok(readdirSync(path.join(outDir, 'assets')).some((f) => f.startsWith('warden_validate_deflate')));
  const served = await startStaticServer(outDir, { headers: { 'Content-Security-Policy': CSP } });
  try {
    assertValidated(await visit(`${served.url}/`));
  } finally {
    await stopServer(served.server);
  }
});
