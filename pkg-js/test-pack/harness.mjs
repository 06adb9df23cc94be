// Shared by the packaging tests (pack, bundlers, size), not a test file itself: pack the built
// package, install the tarball into throwaway projects outside the repository, drive the result in
// Debian's Chromium with native WebMCP as the agent does, and watch everything a page fetched.
//
// Consumer projects install exactly the versions the repository's own node_modules hold
// (`pinned()`), with --prefer-offline, so npm's cache (filled by the repository's `npm ci`) serves
// them and a run never picks up a newer release by surprise.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { launchChromium } from '../test-browser/demo-serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** `pkg-js/`: the package that is packed. */
export const pkgRoot = path.resolve(here, '..');
/** The repository's root (its node_modules decide the versions consumer projects install). */
export const repoRoot = path.resolve(pkgRoot, '..');
/** `pkg-js/test-pack/fixtures/`. */
export const fixtures = path.join(here, 'fixtures');
/** The strict CSP the built pages are served with: no eval, wasm compilation allowed. */
export const CSP = "script-src 'self' 'wasm-unsafe-eval'";

/**
 * The one-tool page on `webmcp-warden/slim` (fixtures/one-tool-slim/main.js with the host check
 * and the test's hooks of fixtures/one-tool), written into `<project>/<name>` with `html` as its index.html; answers
 * the app's directory.
 */
export function slimApp(project, name, html) {
  const app = path.join(project, name);
  mkdirSync(app, { recursive: true });
  for (const file of ['check-host.js', 'page-hooks.js']) cpSync(path.join(fixtures, 'one-tool', file), path.join(app, file));
  cpSync(path.join(fixtures, 'one-tool-slim', 'main.js'), path.join(app, 'main.js'));
  writeFileSync(path.join(app, 'index.html'), html);
  return app;
}

/** npm without its network chatter (update check, funding, audit), and Next.js without telemetry. */
export const npmEnv = {
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  NEXT_TELEMETRY_DISABLED: '1',
};

const temps = [];

/** A new directory under the OS's temp dir, removed by {@link removeTemps}. */
export function tempDir(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** Removes every directory {@link tempDir} made (call it from `after()`). */
export function removeTemps() {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Runs a command to completion and answers its stdout; throws (with stderr) when it fails. */
export function run(cmd, args, cwd, { env = npmEnv } = {}) {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env, maxBuffer: 64 * 1024 * 1024 });
}

/** Runs a command and answers `{ code, stdout, stderr }` without throwing. */
export function runAllowingFailure(cmd, args, cwd, { env = npmEnv } = {}) {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The version of `name` in the repository's node_modules: consumer projects pin exactly it. */
export function repoVersion(name) {
  const file = path.join(repoRoot, 'node_modules', name, 'package.json');
  assert.ok(existsSync(file), `${name} is missing from the repository's node_modules (run npm ci / scripts/setup.sh)`);
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

/** `name@version` for each name, at the repository's versions (see {@link repoVersion}). */
export function pinned(...names) {
  return names.map((name) => `${name}@${repoVersion(name)}`);
}

/**
 * `npm pack`s the built package into a temp dir (with --ignore-scripts: exactly what the build
 * produced). Answers `{ tarball, info }`, `info` being npm's JSON description of the pack.
 */
export function packTarball() {
  assert.ok(
    existsSync(path.join(pkgRoot, 'dist', 'index.js')),
    'pkg-js/dist/index.js is missing: build the package first (npm run build / scripts/build.sh)',
  );
  const packDir = tempDir('warden-pack-');
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], pkgRoot));
  assert.equal(packed.length, 1);
  return { tarball: path.join(packDir, packed[0].filename), info: packed[0] };
}

/**
 * A new project (temp dir, `"type": "module"`) with `specs` installed: the tarball and the
 * `name@version` pins, from npm's cache where it can. Answers the project's directory.
 */
export function installProject(prefix, specs) {
  const dir = tempDir(prefix);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir).toLowerCase(), private: true, type: 'module' }, null, 2));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], dir);
  return dir;
}

/** A free TCP port on 127.0.0.1 (for servers that cannot be told to take port 0). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

let browser;

/** The one Chromium (native WebMCP) of this test file, launched on first use. */
export async function getBrowser() {
  browser ??= await launchChromium();
  return browser;
}

/** Closes the browser {@link getBrowser} launched, if any. */
export async function closeBrowser() {
  await browser?.close();
  browser = undefined;
}

const CODE_PATH = /\.(m?js|wasm)$/;

/**
 * Watches a page from before its navigation: collects `problems` (a console warning or error, an
 * uncaught error, a failed request, an HTTP status ≥ 400, HTML answered for a script or a
 * .js/.wasm URL: what a dev server's fallback does for a path it does not know) and `responses`,
 * every JS and wasm response with its body (`body`: a promise of a Buffer). `idle()` resolves once
 * no request has been in flight for `quietMs`.
 */
export function watchPage(page) {
  const problems = [];
  const responses = [];
  let inFlight = 0;
  let lastChange = Date.now();
  const settle = () => {
    inFlight -= 1;
    lastChange = Date.now();
  };
  page.on('console', (m) => {
    if (m.type() === 'warning' || m.type() === 'error') problems.push(`console.${m.type()}: ${m.text()}${m.location()?.url ? ` (${m.location().url})` : ''}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err}`));
  page.on('request', () => {
    inFlight += 1;
    lastChange = Date.now();
  });
  page.on('requestfinished', settle);
  page.on('requestfailed', (r) => {
    settle();
    problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`);
  });
  page.on('response', (r) => {
    const url = new URL(r.url());
    const type = r.headers()['content-type'] ?? '';
    const isCode = CODE_PATH.test(url.pathname) || r.request().resourceType() === 'script' || /javascript|wasm/.test(type);
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    else if (isCode && type.startsWith('text/html')) problems.push(`HTML answered for code: ${r.url()}`);
    else if (isCode && r.status() < 300) responses.push({ url: r.url(), path: url.pathname, body: r.body().catch((err) => Promise.reject(new Error(`no body for ${r.url()}: ${err}`))) });
  });
  const idle = async (quietMs = 300, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (inFlight > 0 || Date.now() - lastChange < quietMs) {
      if (Date.now() > deadline) throw new Error(`the page still had ${inFlight} request(s) in flight after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { problems, responses, idle };
}

/**
 * Opens `url` in a fresh page (its own browser context: no cache shared with other pages), watched
 * by {@link watchPage} from the start, and waits for `ready` (a function evaluated in the page).
 */
export async function openWatched(url, ready, { timeout = 30_000 } = {}) {
  const page = await (await getBrowser()).newPage({ viewport: { width: 1000, height: 700 } });
  const watch = watchPage(page);
  await page.goto(url);
  await page.waitForFunction(ready, null, { timeout });
  return { page, ...watch };
}

/** The agent: `getTools()` → `executeTool()`, as a model's runtime does; answers the parsed result. */
export async function agentCall(page, name, args) {
  const raw = await page.evaluate(
    async ([n, a]) => {
      const tool = (await document.modelContext.getTools()).find((t) => t.name === n);
      if (!tool) throw new Error(`getTools() has no ${n}`);
      return document.modelContext.executeTool(tool, a);
    },
    [name, args],
  );
  assert.equal(typeof raw, 'string', `executeTool resolves with a JSON string, got ${raw}`);
  return JSON.parse(raw);
}

/** The names `document.modelContext.getTools()` lists, sorted. */
export const toolNames = (page) => page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name).sort());

/** A tool result's text blocks, joined. */
export const textOf = (result) => result.content.map((b) => b.text).join('\n');

/**
 * The shared one-tool app (fixtures/one-tool) through the agent: a good call answers the tool's
 * result, and a call whose argument breaks the schema's look-ahead `pattern` answers the
 * validator's failure (so the validator module really loaded and ran, on the page's RegExp).
 */
export async function assertCheckHostValidates(page) {
  assert.deepEqual(await toolNames(page), ['check_host']);
  const good = await agentCall(page, 'check_host', { host: 'shop.example.com' });
  assert.equal(good.isError ?? false, false, `a valid call succeeds: ${JSON.stringify(good)}`);
  assert.equal(textOf(good), 'ok shop.example.com');
  const bad = await agentCall(page, 'check_host', { host: 'BAD HOST' });
  assert.equal(bad.isError, true, `an invalid call fails: ${JSON.stringify(bad)}`);
  assert.match(textOf(bad), /^Error: Validation failed: \/host .*pattern/);
}

/** Raw, gzip (level 9) and brotli (quality 11) byte counts of `bytes`: what a server could send. */
export function compressedSizes(bytes) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length } }).length,
  };
}
