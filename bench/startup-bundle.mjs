// Experiment behind a design note in RESULTS.md (not part of `npm run bench`): start-up of the
// package as shipped (dist/, esbuild's bundle: an entry, its shared chunks, the lazy chunks;
// pkg-js/bundle.mjs) against the same code one ES module per source file (lib/, the tests'
// tree), each in fresh processes, with the core module alone as the reference: what bundling
// buys at start-up.
//   node bench/startup-bundle.mjs      (BENCH_PKG=<a copy of pkg-js> for another build)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './harness.mjs';
import { internalUrl, pkgUrl } from './pkg.mjs';

if (!existsSync(fileURLToPath(pkgUrl('lib/index.js')))) throw new Error('pkg-js/lib/ is missing (a build from before the bundled dist/?): node pkg-js/bundle.mjs');
const call = (specifier) => `const t0 = performance.now(); const { webmcp } = await import(${JSON.stringify(specifier)});
const tool = webmcp(({ a, b }) => a + b, { name: 'add', description: 'Adds', hooks: { before: [(ctx) => { ctx.metadata.seen = 1; }] } });
await tool.invoke({ a: 1, b: 2 }); console.log(performance.now() - t0);`;
const moduleOnly = `const t0 = performance.now(); const { WASM_LZMA_BASE64 } = await import(${JSON.stringify(pkgUrl('wasm/warden_core_bytes.js').href)});
const { unlzma } = await import(${JSON.stringify(internalUrl('boundary/unlzma.js').href)});
new WebAssembly.Module(unlzma(Buffer.from(WASM_LZMA_BASE64, 'base64'))); console.log(performance.now() - t0);`;
const sample = (code) => Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }).trim());
const samples = { module: [], files: [], bundle: [] };
for (let i = 0; i < 9; i++) {
  samples.module.push(sample(moduleOnly));
  samples.files.push(sample(call(pkgUrl('lib/index.js').href)));
  samples.bundle.push(sample(call(pkgUrl('dist/index.js').href)));
}
const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
console.log(`| start-up to the first governed call (median of 9 fresh processes) | ms | × the core module alone |\n|---|---:|---:|`);
console.log(`| core module alone: import the compressed bytes + decode (unlzma) + compile | ${m.module.toFixed(1)} | 1.00× |`);
console.log(`| lib/ (one module per source file) | ${m.files.toFixed(1)} | ${(m.files / m.module).toFixed(2)}× |`);
console.log(`| dist/ as shipped (esbuild's bundle: entries, shared and lazy chunks) | ${m.bundle.toFixed(1)} | ${(m.bundle / m.module).toFixed(2)}× |`);
