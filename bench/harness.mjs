// Measurement for a shared, loaded 2-core machine: both sides of a case are timed in
// alternating short windows (A B, B A, A B, …) so drift hits both alike. Other processes only
// ever add time to a window (a preempted window can take 10× longer), so each side's time is a
// low percentile of its windows (the 20th: "best of" without trusting one lucky window), and a
// ratio is the quotient of those two numbers.
//
// BENCH_QUICK=1 runs fewer and shorter windows (a smoke test of the harness, not numbers).

const QUICK = process.env.BENCH_QUICK === '1';
export const DEFAULTS = QUICK ? { windows: 5, windowMs: 5, warmupMs: 10 } : { windows: 21, windowMs: 20, warmupMs: 80 };

let sink; // keeps results alive so no call is optimized away

function isThenable(value) {
  return value !== null && typeof value === 'object' && typeof value.then === 'function';
}

/** Runs `fn` `n` times; awaits each call when `fn` is asynchronous. Returns elapsed ns. */
async function run(fn, n, async) {
  const start = process.hrtime.bigint();
  if (async) {
    for (let i = 0; i < n; i++) sink = await fn(i);
  } else {
    for (let i = 0; i < n; i++) sink = fn(i);
  }
  return Number(process.hrtime.bigint() - start);
}

/** Warms `fn` up for about `ms` and returns [ns per call, async]. */
async function calibrate(fn, ms) {
  const first = fn(0);
  const async = isThenable(first);
  if (async) await first;
  let n = 1;
  let total = 0;
  let calls = 0;
  while (total < ms * 1e6) {
    total += await run(fn, n, async);
    calls += n;
    n = Math.min(n * 2, 1 << 20);
  }
  return [total / calls, async];
}

/** The `p`-th percentile (0–1) of `values`, interpolated. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * p;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** The estimate each side reports: the 20th percentile of its windows. */
export const estimate = (values) => percentile(values, 0.2);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Times the functions of `sides` (`{ name: fn }`) in alternating windows. Returns, per side, the
 * estimated ns per call, and `ratio(a, b)`: the quotient of two sides' estimates.
 */
export async function compare(sides, options = {}) {
  const { windows, windowMs, warmupMs } = { ...DEFAULTS, ...options };
  const names = Object.keys(sides);
  const plan = {};
  for (const name of names) {
    const [ns, async] = await calibrate(sides[name], warmupMs);
    plan[name] = { async, n: Math.max(1, Math.round((windowMs * 1e6) / ns)), samples: [] };
  }
  for (let w = 0; w < windows; w++) {
    const order = w % 2 ? [...names].reverse() : names;
    for (const name of order) {
      const p = plan[name];
      p.samples.push((await run(sides[name], p.n, p.async)) / p.n);
    }
  }
  const result = { samples: {} };
  for (const name of names) {
    result[name] = estimate(plan[name].samples);
    result.samples[name] = plan[name].samples;
  }
  result.ratio = (a, b) => result[a] / result[b];
  return result;
}

/** Times one function (estimated ns per call). */
export async function time(fn, options = {}) {
  const r = await compare({ fn }, options);
  return r.fn;
}

export { median };

/** Formats ns as a short human number. */
export function fmt(ns) {
  if (ns === undefined) return '—';
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e4) return `${(ns / 1e3).toFixed(1)} µs`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** Keeps a value alive (for results the optimizer might otherwise drop). */
export function consume(value) {
  sink = value;
}
