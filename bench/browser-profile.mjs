// Where the first `webmcp()` of a fresh page spends its time, in Chromium: a CPU profile of that
// one synchronous call (sampled every 20 µs) over many fresh page loads, summed by function. The
// tool has a before hook, which the core must check at once: the path that loads the core
// synchronously (a tool without hooks loads nothing until register(); client.ts, `defineTool`).
// Used to find the cold start's hot spots (bench/RESULTS.md); not part of `npm run bench`:
//   npm run build && node bench/browser-profile.mjs [--runs 20] [--top 40]
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, startStaticServer, stopServer } from '../pkg-js/test-browser/demo-serve.mjs';
import { toolSchema } from './fixtures.mjs';
import { buildVitePage, pkgUrl } from './pkg.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const RUNS = arg('runs', 20);
const TOP = arg('top', 40);

const INDEX = '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module" src="/main.js"></script></body></html>\n';
const MAIN = `import { webmcp } from 'webmcp-warden';
const schema = ${JSON.stringify(toolSchema)};
window.__webmcp = () => new Promise((resolve) => setTimeout(function firstWebmcp() {
  const start = performance.now();
  webmcp((input) => ({ found: input.query.length }), { name: 'search_products', description: 'Searches the catalogue', inputSchema: schema, hooks: { before: [() => {}] } });
  resolve(performance.now() - start);
}, 0));
window.__ready = true;
`;

const pkgDir = fileURLToPath(pkgUrl('.'));
// Unminified, so the profile names the package's functions.
const dir = await buildVitePage({ pkgDir, index: INDEX, main: MAIN, prefix: 'warden-browser-profile-', minify: false });
const served = await startStaticServer(path.join(dir, 'dist'));
const browser = await launchChromium();
const self = new Map();
const inclusive = new Map();
const walls = [];
let sampled = 0;
try {
  for (let i = 0; i <= RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await page.goto(served.url);
    await page.waitForFunction(() => window.__ready === true);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 20 });
    await cdp.send('Profiler.start');
    const wall = await page.evaluate(() => window.__webmcp());
    const { profile } = await cdp.send('Profiler.stop');
    await context.close();
    if (i === 0) continue; // warm-up of the server and the OS cache
    walls.push(wall);
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const name = (node) => {
      const { functionName, url, lineNumber } = node.callFrame;
      return `${functionName || '(anonymous)'} ${url ? path.basename(url) + ':' + (lineNumber + 1) : ''}`.trim();
    };
    // Only the samples taken inside the timed call (under `firstWebmcp`); a sample's time is the
    // delta to the next sample.
    profile.samples.forEach((id, k) => {
      const stack = [];
      for (let at = id; at !== undefined; at = parent.get(at)) stack.push(nodes.get(at));
      if (!stack.some((node) => node.callFrame.functionName === 'firstWebmcp')) return;
      const dt = (profile.timeDeltas[k + 1] ?? 0) / 1000;
      self.set(name(stack[0]), (self.get(name(stack[0])) ?? 0) + dt);
      // Inclusive time: once per function on the stack.
      for (const key of new Set(stack.map(name))) inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
      sampled += dt;
    });
  }
} finally {
  await browser.close();
  await stopServer(served.server);
  rmSync(dir, { recursive: true, force: true });
}
walls.sort((a, b) => a - b);
console.log(`first webmcp(), ${RUNS} fresh loads (unminified Vite build): median ${walls[Math.floor(RUNS / 2)].toFixed(1)} ms; sampled ${(sampled / RUNS).toFixed(1)} ms per load`);
console.log('| self ms per load | function |\n|---:|---|');
for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`| ${(ms / RUNS).toFixed(2)} | ${key} |`);
console.log('\n| inclusive ms per load | function |\n|---:|---|');
for (const [key, ms] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`| ${(ms / RUNS).toFixed(2)} | ${key} |`);
