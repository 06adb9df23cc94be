// Experiment behind a design note in RESULTS.md (not part of `npm run bench`): start-up of the
// package as built (dist/, one ES module per source file) against the same code bundled into
// one ES module by esbuild (the validator stays a lazily imported chunk), each in fresh
// processes, with the core module alone as the reference.
//   node bench/startup-bundle.mjs      (needs node_modules/.bin/esbuild, installed with www/'s Vite)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './harness.mjs';
import { pkgUrl } from './pkg.mjs';

const esbuild = fileURLToPath(new URL('../node_modules/.bin/esbuild', import.meta.url));
if (!existsSync(esbuild)) throw new Error('esbuild not found: run npm install at the repository root');
const out = mkdtempSync(join(tmpdir(), 'warden-bundle-'));
const entry = fileURLToPath(pkgUrl('dist/index.js'));
execFileSync(esbuild, [entry, '--bundle', '--splitting', '--format=esm', '--platform=neutral', `--outdir=${out}`, '--log-level=warning']);

const call = (specifier) => `const t0 = performance.now(); const { webmcp } = await import(${JSON.stringify(specifier)});
const tool = webmcp(({ a, b }) => a + b, { name: 'add', description: 'Adds', hooks: { before: [(ctx) => { ctx.metadata.seen = 1; }] } });
await tool.invoke({ a: 1, b: 2 }); console.log(performance.now() - t0);`;
const moduleOnly = `const t0 = performance.now(); const { WASM_LZMA_BASE64 } = await import(${JSON.stringify(pkgUrl('wasm/warden_core_bytes.js').href)});
const { unlzma } = await import(${JSON.stringify(pkgUrl('dist/boundary/unlzma.js').href)});
new WebAssembly.Module(unlzma(Buffer.from(WASM_LZMA_BASE64, 'base64'))); console.log(performance.now() - t0);`;
const sample = (code) => Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }).trim());
const samples = { module: [], files: [], bundle: [] };
for (let i = 0; i < 9; i++) {
  samples.module.push(sample(moduleOnly));
  samples.files.push(sample(call(pkgUrl('dist/index.js').href)));
  samples.bundle.push(sample(call(join(out, 'index.js'))));
}
const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
console.log(`| start-up to the first governed call (median of 9 fresh processes) | ms | × the core module alone |\n|---|---:|---:|`);
console.log(`| core module alone: import the compressed bytes + decode (unlzma) + compile | ${m.module.toFixed(1)} | 1.00× |`);
console.log(`| package as built (dist/, one module per file) | ${m.files.toFixed(1)} | ${(m.files / m.module).toFixed(2)}× |`);
console.log(`| the same code bundled into one ES module (esbuild; validator a separate chunk) | ${m.bundle.toFixed(1)} | ${(m.bundle / m.module).toFixed(2)}× |`);
