// Browser start-up of webmcp-warden: what the page's main thread pays for the first
// webmcp() (the embedded core decoded and compiled synchronously), for register() of a tool with
// a JSON Schema, and for the tool's first call through document.modelContext.executeTool (the
// validator module fetched and compiled in whichever of the two first needs it), over N fresh page
// loads of a Vite-built page in Debian's Chromium with native WebMCP. Prints a table; never
// asserts a time (speed goals are measured here, not in tests).
//   npm run build && node bench/browser-startup.mjs [--runs 15] [--ready] [--hooks] [--json out.json]
//   node bench/browser-startup.mjs --against /path/to/an/older/pkg-js   (side by side: page loads
//                                   of the two builds alternate, so load on the machine hits both)
//
// Two clocks per phase:
//   wall         performance.now() in the page, from the phase's start until it is done (for the
//                synchronous webmcp() this is exactly the time the main thread was blocked);
//   main thread  the renderer main thread's busy time during the phase: the difference of the
//                DevTools protocol's `TaskDuration` metric (Performance.getMetrics) taken before
//                and after, minus the same difference for an empty page.evaluate (the harness's own
//                task), so an asynchronous phase counts only the time it really held the thread; for
//                the import, the renderer's whole task time from the page's creation until its
//                modules were evaluated (a fresh context each time).
// Long tasks (> 50 ms, PerformanceObserver 'longtask', observed from the page's first script) are
// attributed to the phase they overlap most.
//
// BENCH_PKG=/path/to/a/copy/of/pkg-js measures a copy (bench/pkg.mjs) as "this build".
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, startStaticServer, stopServer } from '../pkg-js/test-browser/demo-serve.mjs';
import { toolSchema, validInstance } from './fixtures.mjs';
import { buildVitePage, pkgUrl } from './pkg.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const RUNS = Number(arg('runs', 15));
// `--ready`: the page calls `ready()` right after importing the package (the warm-up the README
// suggests), so the core is decoded and compiled off the main thread before the first webmcp().
const READY = process.argv.includes('--ready');
// `--hooks`: the tool has a before hook, which the core must check at once, so the first
// webmcp() loads the core synchronously; without hooks (the default) it loads nothing, and
// register() loads the core off the main thread.
const HOOKS = process.argv.includes('--hooks');
const PHASES = ['import', 'webmcp', 'register', 'firstCall'];
const LABELS = {
  import: 'navigation → the page\'s modules evaluated (network included)',
  webmcp: `first \`webmcp()\` of a tool ${HOOKS ? 'with a before hook' : 'without hooks'}${READY ? ', after `ready()`' : ''} (synchronous: whatever it loads is loaded on the main thread)`,
  register: '`register()` of the tool with a JSON Schema (the validator loaded, and the core if not loaded yet)',
  firstCall: 'first call: `executeTool()` → result',
};

// The page: a long-task observer first (a classic inline script, so it runs before any module),
// then the app, which imports the package and waits for the harness to drive each phase.
const INDEX = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>start-up</title>
<script>
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration }); })
    .observe({ type: 'longtask', buffered: true });
</script></head><body><script type="module" src="/main.js"></script></body></html>
`;
const MAIN = `import { webmcp, ready } from 'webmcp-warden';
window.__warm = ${READY} ? ready() : Promise.resolve();
const schema = ${JSON.stringify(toolSchema)};
const marks = {};
let tool;
// Each phase starts in a task of the page's own (a timer), not in the DevTools task that asked for
// it: Chromium reports long tasks only for the page's tasks.
const phase = (name, work) => new Promise((resolve, reject) => setTimeout(async () => {
  try {
    const start = performance.now();
    await work();
    marks[name] = { start, end: performance.now() };
    resolve(marks[name].end - start);
  } catch (err) {
    reject(err);
  }
}, 0));
window.__bench = {
  marks,
  webmcp: () => phase('webmcp', () => {
    tool = webmcp((input) => ({ found: input.query.length }), { name: 'search_products', description: 'Searches the catalogue', inputSchema: schema${HOOKS ? ', hooks: { before: [() => {}] }' : ''} });
  }),
  register: () => phase('register', () => tool.register()),
  firstCall: (input) => phase('firstCall', async () => {
    const [listed] = (await document.modelContext.getTools()).filter((t) => t.name === 'search_products');
    const answer = JSON.parse(await document.modelContext.executeTool(listed, input));
    if (answer.isError) throw new Error('the first call failed: ' + JSON.stringify(answer));
  }),
};
marks.import = { start: 0, end: performance.now() };
window.__ready = true;
`;

/** The renderer main thread's cumulative task time, in ms (DevTools protocol). */
async function taskMs(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'TaskDuration').value * 1000;
}

/** One fresh page load (its own browser context): each phase's wall and main-thread ms, and the long tasks. */
async function sample(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(String(err)));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__ready === true);
    await page.evaluate(() => window.__warm);
    // Up to here: every task of the fresh renderer since the page was created (navigation, parsing,
    // evaluating the modules), plus the polling of waitForFunction.
    const atReady = await taskMs(cdp);
    // The harness's own cost: one empty evaluate between two metric reads.
    let before = await taskMs(cdp);
    await page.evaluate(() => 0);
    const overhead = (await taskMs(cdp)) - before;
    const out = { wall: {}, main: {} };
    for (const name of ['webmcp', 'register', 'firstCall']) {
      before = await taskMs(cdp);
      out.wall[name] = await page.evaluate(([n, input]) => window.__bench[n](input), [name, validInstance]);
      out.main[name] = Math.max(0, (await taskMs(cdp)) - before - overhead);
    }
    const { marks, longTasks, validator } = await page.evaluate(() => ({
      marks: window.__bench.marks,
      longTasks: window.__longTasks,
      // Any piece of the validator (its glue, its bytes as a chunk or a .wasm file): the first one.
      validator: Math.min(...performance.getEntriesByType('resource').filter((e) => e.name.includes('warden_validate')).map((e) => e.startTime)),
    }));
    out.wall.import = marks.import.end;
    out.main.import = atReady;
    // Which phase fetched the validator module, and which phase each long task overlaps most (a
    // task starts a little before the phase's first mark, which is taken inside it).
    const phaseOf = (from, to) => {
      let best = 'between phases';
      let most = -1;
      for (const p of PHASES) {
        const shared = marks[p] ? Math.min(to, marks[p].end) - Math.max(from, marks[p].start) : -1;
        if (shared >= 0 && shared > most) [best, most] = [p, shared];
      }
      return best;
    };
    out.validatorIn = validator === Infinity ? 'not fetched' : phaseOf(validator, validator);
    out.longTasks = longTasks.map((task) => ({ ...task, phase: phaseOf(task.start, task.start + task.duration) }));
    if (problems.length) throw new Error(`the page reported errors: ${problems.join('; ')}`);
    return out;
  } finally {
    await context.close();
  }
}

const quantile = (values, q) => {
  const sorted = values.filter((v) => v !== undefined).sort((a, b) => a - b);
  if (!sorted.length) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const ms = (v) => (v === undefined ? '—' : `${v.toFixed(1)} ms`);

/** The table of one build's samples. */
function table(samples) {
  const lines = ['| phase | wall, median | wall, p90 | main thread, median | main thread, p90 | long tasks (> 50 ms): loads with one · longest |', '|---|---:|---:|---:|---:|---|'];
  for (const phase of PHASES) {
    const wall = samples.map((s) => s.wall[phase]);
    const main = samples.map((s) => s.main[phase]);
    const tasks = samples.map((s) => s.longTasks.filter((t) => t.phase === phase));
    const withTask = tasks.filter((t) => t.length > 0).length;
    const longest = Math.max(0, ...tasks.flat().map((t) => t.duration));
    const mainCells = phase === 'webmcp' ? ['= wall (synchronous)', ''] : [ms(quantile(main, 0.5)), ms(quantile(main, 0.9))];
    lines.push(`| ${LABELS[phase]} | ${ms(quantile(wall, 0.5))} | ${ms(quantile(wall, 0.9))} | ${mainCells[0]} | ${mainCells[1]} | ${withTask} of ${samples.length}${withTask ? ` · ${longest.toFixed(0)} ms` : ''} |`);
  }
  const validatorIn = [...new Set(samples.map((s) => s.validatorIn))].join(', ');
  const outside = samples.flatMap((s) => s.longTasks.filter((t) => t.phase === 'between phases'));
  lines.push('', `The validator module was fetched during: ${validatorIn}. Long tasks outside the phases: ${outside.length}.`);
  return lines.join('\n');
}

const builds = [{ label: `this build (${fileURLToPath(pkgUrl('.'))})`, dir: fileURLToPath(pkgUrl('.')) }];
const against = arg('against');
if (against) builds.push({ label: `against (${path.resolve(against)})`, dir: path.resolve(against) });

const loadAtStart = os.loadavg();
const browser = await launchChromium();
const version = browser.version();
try {
  for (const b of builds) {
    b.page = await buildVitePage({ pkgDir: b.dir, index: INDEX, main: MAIN, prefix: 'warden-browser-startup-' });
    b.served = await startStaticServer(path.join(b.page, 'dist'));
    b.samples = [];
    await sample(browser, b.served.url); // warm-up: the OS file cache and the server, not the page (every sample is a fresh context)
  }
  // Alternating page loads: whatever else the machine does hits every build alike.
  for (let i = 0; i < RUNS; i++) for (const b of builds) b.samples.push(await sample(browser, b.served.url));
} finally {
  await browser.close();
  for (const b of builds) {
    if (b.served) await stopServer(b.served.server);
    if (b.page) rmSync(b.page, { recursive: true, force: true });
  }
}

const out = [`webmcp-warden in Chromium ${version} (headless, native WebMCP), Vite build, ${RUNS} fresh page loads per build; ${os.availableParallelism?.() ?? os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${loadAtStart.map((x) => x.toFixed(1)).join(' ')} at start, ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at end`];
for (const b of builds) {
  if (builds.length > 1) out.push('', `**${b.label}**`);
  out.push('', table(b.samples));
}
console.log(out.join('\n'));

const jsonAt = process.argv.indexOf('--json');
if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1], JSON.stringify({ chromium: version, runs: RUNS, builds: builds.map(({ label, samples }) => ({ label, samples })) }, null, 2));
