// Measurement: time many awaited calls per window, take the median of several windows, and
// alternate the two sides so drift on a shared 2-core machine hits both alike.

/** Median of `windows` runs of `iterations` awaited calls of `fn`, in ns per call. */
export async function measure(fn, { iterations = 20000, windows = 7, warmup = 2000 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = [];
  for (let w = 0; w < windows; w++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/** Synchronous variant (no await per call). */
export function measureSync(fn, { iterations = 20000, windows = 7, warmup = 2000 } = {}) {
  for (let i = 0; i < warmup; i++) fn(i);
  const samples = [];
  for (let w = 0; w < windows; w++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/** Formats ns as a short human number. */
export function fmt(ns) {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}
