// What a page with one schema-checked tool downloads of webmcp-warden, measured the way
// a page pays for it: the smallest app (fixtures/one-tool: one tool with an inputSchema, registered
// with the browser's WebMCP, called once by the agent) is built from the packed tarball with
// esbuild (`--bundle --minify --format=esm --splitting`) and with `vite build`, served from
// 127.0.0.1 and loaded in Chromium with native WebMCP. Every JS and wasm response is recorded:
//
//   import      the page's modules loaded and the tool defined with webmcp(), nothing registered
//   register    + register() (it checks the schema, so today it loads the validator module)
//   first call  + the first document.modelContext.executeTool() of the tool
//
// The bodies are compressed here, in Node (gzip -9, brotli -q 11), as a server would send them.
// Two figures per build are held to pkg-js/size-budget.json's `page` section: `import` and
// `firstCall` (import + register + first call), each in gzip and brotli. Each has a `budget`
// (the ratchet: this test fails above it) and, where the weight goals give one, a `target`
// (the table says how far from it we are). The goals and the rule for moving a budget are in the
// README's "Size" section; `SIZE_RATCHET=1` rewrites every budget that today's build beats by
// more than the margin down to measured + 3 % (never up), and never above a target the build
// meets: once met, a target is the budget, and this test fails above it.
//
// The sizes are deterministic for a given build (no timing in them), so the budget needs no
// allowance for noise: the margin is only there so that an unrelated few-byte change does not
// turn CI red.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { browserSkipReason, startStaticServer, stopServer } from '../test-browser/demo-serve.mjs';
import {
  agentCall, closeBrowser, compressedSizes, fixtures, installProject, openWatched, packTarball, pinned, pkgRoot, removeTemps, repoRoot, run, slimApp, textOf,
} from './harness.mjs';

const browserSkip = browserSkipReason();
const BUDGET_FILE = path.join(pkgRoot, 'size-budget.json');
/** Budget = measured × (1 + MARGIN), rounded up to a whole ROUND bytes. */
const MARGIN = 0.03;
const ROUND = 1000;
const ENCODINGS = ['gzip', 'brotli'];
/** The figures held to a budget: which stages each one sums. */
const FIGURES = { import: ['import'], firstCall: ['import', 'register', 'firstCall'] };
const FIGURE_LABEL = { import: 'import', firstCall: 'import + first call' };

after(async () => {
  await closeBrowser();
  removeTemps();
});

/** The page that loads the app's entry module. */
const page = (src) => `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>one tool</title></head><body><script type="module" src="${src}"></script></body></html>\n`;

let project;
/** build name → the files the page fetched: `{ stage, path, raw, gzip, brotli }`. */
const measured = {};

test('the packed package installs with vite and esbuild', { timeout: 180_000 }, () => {
  const { tarball } = packTarball();
  project = installProject('warden-size-', [tarball, ...pinned('vite', 'esbuild')]);
  mkdirSync(path.join(project, 'src'));
  cpSync(path.join(fixtures, 'one-tool'), path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'index.html'), page('/src/main.js'));
});

/**
 * Loads the built app at `url` in a fresh page and walks it through the three stages, waiting
 * after each for the network to go quiet; answers every JS and wasm file fetched, by stage.
 */
async function measurePage(url) {
  const { page: tab, problems, responses, idle } = await openWatched(`${url}/?hold`, () => window.__status !== undefined);
  try {
    assert.equal(await tab.evaluate(() => window.__status), 'defined', 'the app defined its tool and waits');
    await idle();
    const ends = { import: responses.length };
    assert.equal(await tab.evaluate(() => window.__register()), 'registered');
    await idle();
    ends.register = responses.length;
    const result = await agentCall(tab, 'check_host', { host: 'shop.example.com' });
    assert.equal(textOf(result), 'ok shop.example.com', `the first call answers the tool's result: ${JSON.stringify(result)}`);
    await idle();
    ends.firstCall = responses.length;
    assert.deepEqual(problems, [], 'nothing failed on the page');
    const files = [];
    for (const [i, response] of responses.entries()) {
      const stage = i < ends.import ? 'import' : i < ends.register ? 'register' : 'firstCall';
      files.push({ stage, path: response.path, ...compressedSizes(await response.body) });
    }
    return files;
  } finally {
    await tab.close();
  }
}

/** Serves `dir` on 127.0.0.1 and measures the app there. */
async function measureBuild(dir) {
  const served = await startStaticServer(dir);
  try {
    return await measurePage(served.url);
  } finally {
    await stopServer(served.server);
  }
}

test('esbuild --bundle --minify --format=esm --splitting: what the page downloads', { timeout: 120_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  const out = path.join(project, 'esbuild-dist');
  run(path.join(project, 'node_modules', '.bin', 'esbuild'), ['src/main.js', '--bundle', '--minify', '--format=esm', '--splitting', `--outdir=${path.join(out, 'out')}`, '--log-level=warning'], project);
  writeFileSync(path.join(out, 'index.html'), page('./out/main.js'));
  measured.esbuild = await measureBuild(out);
});

test('vite build (no config): what the page downloads', { timeout: 120_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  const vite = await import(pathToFileURL(path.join(project, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const outDir = path.join(project, 'vite-dist');
  await vite.build({ root: project, configFile: false, logLevel: 'silent', build: { outDir } });
  assert.ok(readdirSync(path.join(outDir, 'assets')).length > 0);
  measured.vite = await measureBuild(outDir);
});

/** The /slim page's files (information, no budget): the same app on webmcp-warden/slim, built by Vite. */
let measuredSlim;

test('vite build of the one-tool page on webmcp-warden/slim (the core a .wasm asset, loaded by init()): what the page downloads', { timeout: 120_000, skip: browserSkip }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  const vite = await import(pathToFileURL(path.join(project, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const app = slimApp(project, 'slim', page('./main.js'));
  const outDir = path.join(app, 'dist');
  await vite.build({ root: app, configFile: false, logLevel: 'silent', build: { outDir } });
  measuredSlim = await measureBuild(outDir);
  assert.ok(measuredSlim.some((f) => f.path.endsWith('.wasm') && f.stage === 'import'), 'the core .wasm is fetched at import (init())');
});

/** The sum of `encoding` over the files of `stages`. */
const total = (files, stages, encoding) => files.filter((f) => stages.includes(f.stage)).reduce((sum, f) => sum + f[encoding], 0);
const kb = (bytes) => (bytes / 1000).toFixed(1);
const budgetFor = (value, target) => {
  const ratchet = Math.ceil((value * (1 + MARGIN)) / ROUND) * ROUND;
  return target !== undefined && value <= target ? Math.min(ratchet, target) : ratchet;
};

test('what a page downloads stays within pkg-js/size-budget.json (page section); the table says how far from the targets', { skip: browserSkip }, (t) => {
  const budgetFile = JSON.parse(readFileSync(BUDGET_FILE, 'utf8'));
  const pageBudget = budgetFile.page;
  assert.ok(pageBudget, 'size-budget.json has a page section');
  const builds = Object.keys(measured);
  assert.deepEqual(builds.sort(), ['esbuild', 'vite'], 'both builds were measured');

  const say = (line) => t.diagnostic(line);
  say('Files fetched (bytes; raw / gzip -9 / brotli -q 11):');
  for (const build of builds) {
    for (const f of measured[build]) {
      say(`  ${build.padEnd(8)} ${f.stage.padEnd(10)} ${f.path.padEnd(52)} ${String(f.raw).padStart(9)} ${String(f.gzip).padStart(8)} ${String(f.brotli).padStart(8)}`);
    }
  }
  say('');
  say('Figures (KB = 1,000 bytes): measured vs budget (the test fails above it) vs target (README, Size):');
  say(`  ${'build'.padEnd(8)} ${'figure'.padEnd(20)} ${'enc'.padEnd(6)} ${'raw'.padStart(8)} ${'measured'.padStart(9)} ${'budget'.padStart(10)} ${'target'.padStart(8)}  to target`);
  const over = [];
  const missing = [];
  const lowerable = [];
  for (const build of builds) {
    for (const [figure, stages] of Object.entries(FIGURES)) {
      const raw = total(measured[build], stages, 'raw');
      for (const encoding of ENCODINGS) {
        const value = total(measured[build], stages, encoding);
        const entry = pageBudget[build]?.[figure]?.[encoding];
        const where = `${build}.${figure}.${encoding}`;
        if (entry?.budget === undefined) missing.push(where);
        else if (value > entry.budget) over.push(`${where}: ${value} B > budget ${entry.budget} B`);
        else if (budgetFor(value, entry.target) < entry.budget) lowerable.push({ build, figure, encoding, to: budgetFor(value, entry.target) });
        const target = entry?.target;
        const toTarget = target === undefined ? '—' : value <= target ? 'met' : `${kb(value - target)} KB over (${((value / target) * 100).toFixed(0)} % of it)`;
        const budgetCell = entry?.budget === undefined ? 'none ✗' : `${kb(entry.budget)} ${value > entry.budget ? '✗' : '✓'}`;
        say(`  ${build.padEnd(8)} ${FIGURE_LABEL[figure].padEnd(20)} ${encoding.padEnd(6)} ${kb(raw).padStart(8)} ${kb(value).padStart(9)} ${budgetCell.padStart(10)} ${target === undefined ? '—'.padStart(8) : kb(target).padStart(8)}  ${toTarget}`);
      }
    }
    const register = ENCODINGS.map((e) => `${kb(total(measured[build], ['register'], e))} KB ${e}`).join(', ');
    say(`  ${build.padEnd(8)} (of which register() alone: ${register}; not budgeted)`);
  }

  if (process.env.SIZE_RATCHET === '1') {
    // Lower, never raise: a budget that must go up is edited by hand, with the reason in the commit.
    for (const { build, figure, encoding, to } of lowerable) pageBudget[build][figure][encoding].budget = to;
    writeFileSync(BUDGET_FILE, JSON.stringify(budgetFile, null, 2) + '\n');
    say(`SIZE_RATCHET=1: ${lowerable.length} budget(s) lowered in ${path.relative(repoRoot, BUDGET_FILE)}`);
  } else if (lowerable.length) {
    say(`${lowerable.length} budget(s) are more than ${MARGIN * 100} % above this build: lower them with SIZE_RATCHET=1 node --test pkg-js/test-pack/size.test.mjs`);
  }
  if (measuredSlim) {
    say('');
    say('webmcp-warden/slim, vite (information, no budget; the .wasm assets counted):');
    for (const f of measuredSlim) say(`  slim     ${f.stage.padEnd(10)} ${f.path.padEnd(52)} ${String(f.raw).padStart(9)} ${String(f.gzip).padStart(8)} ${String(f.brotli).padStart(8)}`);
    for (const [figure, stages] of Object.entries(FIGURES)) {
      say(`  slim     ${FIGURE_LABEL[figure].padEnd(20)} raw ${kb(total(measuredSlim, stages, 'raw'))} KB, gzip ${kb(total(measuredSlim, stages, 'gzip'))} KB, brotli ${kb(total(measuredSlim, stages, 'brotli'))} KB`);
    }
  }
  assert.deepEqual(missing, [], 'every measured figure has a budget in size-budget.json');
  assert.deepEqual(over, [], 'what a page downloads grew past its budget (see the table above; the README\'s Size section says when a budget may move)');
});
