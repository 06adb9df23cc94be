// Soak: does a long-lived page stay flat? Not a timed test: it prints figures at checkpoints and
// ends with a verdict line; bench/RESULTS.md ("Soak") records a run.
//
//   WARDEN_SETUP_DONE=1 bash scripts/build.sh      # or: node pkg-js/build.mjs
//   node --expose-gc bench/soak.mjs                # 1M calls, 100k create/drop cycles, 1M limited calls
//   node --expose-gc bench/soak.mjs --calls 200000 --cycles 20000 --limited 200000   # a shorter run
//   node --expose-gc bench/soak.mjs --bare --checkpoints 1          # cycles with no macrotask
//
// Phase 1, calls: one tool under global hooks (before + after) and a small policy, invoked
// 1,000,000 times in sequence through the whole pipeline (`tool.invoke`).
// Phase 2, cycles: 100,000 times `webmcp()` a tool with its own hooks, register it with the
// page (`document.modelContext`, the package's spec-faithful fake), unregister it and drop the
// reference; `unregister()` gives its core resources back at once, and the `FinalizationRegistry`
// its handles once it is collected. `--bare`: no WebMCP runtime, so a cycle awaits microtasks
// only and no finalizer runs between two checkpoints (a page's loop with no macrotask turn).
// Tool names cycle through a few (a page re-creates the same tools): the core keeps each name's
// first definition for rug-pull checks on purpose, so fresh names would grow by design.
// Phase 3, limits: a client of its own whose policy has limits (rate per principal, calls in
// flight per tool, a budget for the page), 1,000,000 calls, each for one of 50,000 principals in
// turn, on a clock that moves 1 ms per call: keys come and go as their windows pass, so the
// limits module's memory (`limitsMemoryBytes`) must stay flat (about a thousand keys live at
// once, 50,000 over the run: the book is pruned as it grows).
//
// At each checkpoint, after a full GC: the core module's linear memory (`memory.buffer`
// byteLength: it only grows, so flat means nothing leaked past the first high-water mark), RSS,
// JS heap used, the client's counts (core: hook sets, hooks, tools, scopes, cached plans, calls
// and listings in progress; JS: handles taken, hook functions held), and the time of one
// `configureWebMCP({ hooks, replace: true })`, which puts the same global hooks back (the issue
// this answers saw it grow to 33 ms as tools accumulated).
import { performance } from 'node:perf_hooks';
import { internalUrl } from './pkg.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const CALLS = arg('calls', 1_000_000);
const CYCLES = arg('cycles', 100_000);
const LIMITED = arg('limited', CALLS);
const CHECKPOINTS = arg('checkpoints', 10);

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc bench/soak.mjs');
  process.exit(2);
}

// Every module from the same unbundled tree (bench/pkg.mjs), so the client, the core and the fake are one instance.
const { webmcp, configureWebMCP, createWarden } = await import(internalUrl('index.js').href);
const { getDefaultWarden, internalOf } = await import(internalUrl('api/api.js').href);
const { coreMemoryBytes } = await import(internalUrl('boundary/core.js').href);
const { shaperMemoryBytes } = await import(internalUrl('shape/shaping.js').href);
const { installFakeModelContext } = await import(internalUrl('testing.js').href);
const { withLimits, limitsMemoryBytes } = await import(internalUrl('limits.js').href);

if (!process.argv.includes('--bare')) installFakeModelContext();
const counter = { before: 0, after: 0 };
const hooks = {
  before: [(ctx) => void (ctx.metadata.started = 1), { id: 'count', run: () => void counter.before++ }],
  after: [() => void counter.after++],
};
const policy = {
  deny: [{ match: 'page/delete_*', id: 'no-deletes' }],
  allow: ['*/get_*', { match: 'page/search', when: { arg: '/limit', max: 50 } }],
  default: 'deny',
};
configureWebMCP({ hooks, policy, onAsk: async () => ({ deny: 'nobody asks in a soak' }) });

const client = internalOf(getDefaultWarden());
const MiB = 1024 * 1024;
const rows = [];

async function settle() {
  // Finalizers run on their own task after a collection: collect, yield, repeat.
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The median of 7 timings: one reading on a shared machine is at the mercy of a neighbour. */
function timeConfigure() {
  const times = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    configureWebMCP({ hooks, replace: true });
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[3];
}

async function checkpoint(phase, done, started) {
  await settle();
  const configureMs = timeConfigure();
  const memory = process.memoryUsage();
  const counts = client.counts();
  const row = {
    phase,
    done,
    seconds: (performance.now() - started) / 1000,
    wasmMiB: coreMemoryBytes() / MiB,
    shapeWasmMiB: shaperMemoryBytes() / MiB,
    limitsWasmMiB: limitsMemoryBytes() / MiB,
    rssMiB: memory.rss / MiB,
    heapMiB: memory.heapUsed / MiB,
    configureMs,
    ...counts,
  };
  rows.push(row);
  console.log(
    `${phase.padEnd(6)} ${String(done).padStart(8)}  ${row.seconds.toFixed(1).padStart(6)} s  wasm ${row.wasmMiB.toFixed(2)} MiB  shaping ${row.shapeWasmMiB.toFixed(2)} MiB  limits ${row.limitsWasmMiB.toFixed(2)} MiB  rss ${row.rssMiB.toFixed(1)} MiB  heap ${row.heapMiB.toFixed(1)} MiB  configure ${configureMs.toFixed(3)} ms  ` +
      `core sets/hooks/tools/scopes/plans/calls/listings ${[counts.sets, counts.hooks, counts.tools, counts.scopes, counts.plans, counts.calls, counts.listings].join('/')}  handles ${counts.handles}  hookFunctions ${counts.hookFunctions}`,
  );
}

// ---- phase 1: governed calls ------------------------------------------------------------------

const getItem = webmcp(async ({ id }) => ({ id, name: 'mug' }), {
  name: 'get_item',
  description: 'Read an item.',
});
await getItem.register();
const first = await getItem.invoke({ id: 1 });
if (!first.ok) throw new Error(`the soak's call fails: ${JSON.stringify(first)}`);
const denied = await webmcp(() => 'gone', { name: 'delete_item', description: 'x' }).invoke({});
if (denied.ok || denied.error.reason !== 'rule') throw new Error(`the policy does not decide: ${JSON.stringify(denied)}`);

console.log(`node ${process.version}; ${CALLS} calls, then ${CYCLES} create/register/unregister/drop cycles, then ${LIMITED} calls under limits; checkpoints after a full GC`);
let started = performance.now();
await checkpoint('calls', 0, started);
const callStep = Math.max(1, Math.floor(CALLS / CHECKPOINTS));
for (let i = 1; i <= CALLS; i++) {
  const outcome = await getItem.invoke({ id: i });
  if (!outcome.ok) throw new Error(`call ${i} failed: ${JSON.stringify(outcome.error)}`);
  if (i % callStep === 0) await checkpoint('calls', i, started);
}
if (counter.before < CALLS || counter.after < CALLS) throw new Error('the hooks did not run on every call');

// ---- phase 2: create / register / unregister / drop ----------------------------------------

started = performance.now();
await checkpoint('cycles', 0, started);
const cycleStep = Math.max(1, Math.floor(CYCLES / CHECKPOINTS));
for (let i = 1; i <= CYCLES; i++) {
  let tool = webmcp(() => 'ok', { name: `cycle_${i % 8}`, description: 'A tool that comes and goes.', hooks: { before: [() => undefined], after: [{ id: `audit_${i % 8}`, run: () => undefined }] } });
  await tool.register();
  tool.unregister();
  tool = undefined;
  if (i % cycleStep === 0) await checkpoint('cycles', i, started);
}

// ---- phase 3: calls under limits ----------------------------------------------------------------

let now = 1_700_000_000_000;
const limited = createWarden({
  clock: () => now,
  policy: withLimits({
    default: 'allow',
    limits: [
      { per: 'principal', max: 5, window: 1_000, id: 'rate' },
      { per: 'tool', concurrency: 10 },
      { per: 'page', budget: 1e12, cost: 2, window: 60_000 },
    ],
  }),
});
const metered = limited.webmcp(({ n }) => n, { name: 'metered', description: 'A tool under limits.', shape: false });
await metered.register();
started = performance.now();
await checkpoint('limits', 0, started);
const limitStep = Math.max(1, Math.floor(LIMITED / CHECKPOINTS));
for (let i = 1; i <= LIMITED; i++) {
  now++;
  const outcome = await metered.invoke({ n: i }, { principal: `p${i % 50_000}` });
  if (!outcome.ok) throw new Error(`limited call ${i} failed: ${JSON.stringify(outcome.error)}`);
  if (i % limitStep === 0) await checkpoint('limits', i, started);
}
limited.dispose();

// ---- verdict ----------------------------------------------------------------------------------

const spread = (phase, key) => {
  const values = rows.filter((row) => row.phase === phase && row.done > 0).map((row) => row[key]);
  return { min: Math.min(...values), max: Math.max(...values) };
};
for (const phase of ['calls', 'cycles', 'limits']) {
  const wasm = spread(phase, 'wasmMiB');
  const shapeWasm = spread(phase, 'shapeWasmMiB');
  const limitsWasm = spread(phase, 'limitsWasmMiB');
  const heap = spread(phase, 'heapMiB');
  const configure = spread(phase, 'configureMs');
  const tools = spread(phase, 'tools');
  console.log(
    `${phase}: wasm ${wasm.min.toFixed(2)}–${wasm.max.toFixed(2)} MiB (shaping ${shapeWasm.min.toFixed(2)}–${shapeWasm.max.toFixed(2)}, limits ${limitsWasm.min.toFixed(2)}–${limitsWasm.max.toFixed(2)}), heap ${heap.min.toFixed(1)}–${heap.max.toFixed(1)} MiB, configure ${configure.min.toFixed(3)}–${configure.max.toFixed(3)} ms, core tools ${tools.min}–${tools.max}`,
  );
}
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
