// Experiment behind a design note in RESULTS.md (not part of `npm run bench`): start-up of the
// package as shipped (dist/, one ES module per source file, as lib/) against esbuild's bundle of
// it (dist-bundled/: an entry, its shared chunks, the lazy chunks; `node pkg-js/bundle.mjs
// --bundled` makes it), each in fresh processes, with the core module alone as the reference.
//   node bench/startup-bundle.mjs      (BENCH_PKG=<a copy of pkg-js> for another build)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './harness.mjs';
import { internalUrl, pkgUrl } from './pkg.mjs';

if (!existsSync(fileURLToPath(pkgUrl('dist-bundled/index.js')))) throw new Error('pkg-js/dist-bundled/ is missing: node pkg-js/bundle.mjs --bundled');
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
  samples.files.push(sample(call(pkgUrl('dist/index.js').href)));
  samples.bundle.push(sample(call(pkgUrl('dist-bundled/index.js').href)));
}
const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
console.log(`| start-up to the first governed call (median of 9 fresh processes) | ms | × the core module alone |\n|---|---:|---:|`);
console.log(`| core module alone: import the compressed bytes + decode (unlzma) + compile | ${m.module.toFixed(1)} | 1.00× |`);
console.log(`| dist/ as shipped (one module per source file) | ${m.files.toFixed(1)} | ${(m.files / m.module).toFixed(2)}× |`);
console.log(`| dist-bundled/ (esbuild's bundle: entries, shared and lazy chunks) | ${m.bundle.toFixed(1)} | ${(m.bundle / m.module).toFixed(2)}× |`);
