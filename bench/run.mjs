// Benchmarks of webmcp-warden against its peers (issue 8): one command, Node 20, one table of
// ratios. Never a timed assertion: this prints numbers; the README keeps the latest table.
//   npm run bench            (after `npm run build`)
import { readFileSync } from 'node:fs';
import { webmcp, configureWebMCP, resetWebMCP } from 'webmcp-warden';
import { fmt, measure, measureSync } from './harness.mjs';
import { peerExecute } from './peer-hooks.mjs';

const rows = [];
function row(name, ours, peer, target) {
  rows.push({ name, ours, peer, target });
}

// --- the floor: a bare function call ----------------------------------------------------------
{
  const add = ({ a, b }) => ({ sum: a + b });
  const ns = measureSync((i) => add({ a: i, b: 1 }), { iterations: 200000 });
  rows.push({ name: 'floor: bare function call', ours: ns, peer: undefined, target: 'reference' });
}

// --- governed call, hooks only -------------------------------------------------------------------
{
  resetWebMCP();
  const audit = [];
  const globalBefore = (ctx) => { ctx.metadata.t = 1; };
  const globalAfter = () => { audit.length = 0; };
  const toolBefore = (ctx) => ({ input: { ...ctx.input, b: ctx.input.b + 1 } });
  configureWebMCP({ hooks: { before: [globalBefore], after: [globalAfter] } });
  const fn = ({ a, b }) => ({ sum: a + b });
  const tool = webmcp(fn, { name: 'add', description: 'Adds', hooks: { before: [toolBefore] } });
  const peer = peerExecute(fn, () => ({ before: [globalBefore], after: [globalAfter] }), { before: [toolBefore] });
  const check = await tool.invoke({ a: 1, b: 1 });
  if (!check.ok || !check.result.content[0].text.includes('"sum": 3')) throw new Error('hooks-only bench: wrong result ' + JSON.stringify(check));
  const peerNs = await measure((i) => peer({ a: i, b: 1 }));
  const oursNs = await measure((i) => tool.invoke({ a: i, b: 1 }));
  row('governed call, 3 hooks (no policy/validation/shaping)', oursNs, peerNs, { max: 1.3 });
  resetWebMCP();
}

// --- size of the modules -------------------------------------------------------------------------
const sizes = JSON.parse(readFileSync(new URL('../pkg-js/wasm/sizes.json', import.meta.url), 'utf8'));

console.log(`\nwebmcp-warden benchmarks — Node ${process.version}, ${process.platform}/${process.arch}\n`);
console.log('| case | webmcp-warden | peer | ratio (ours / peer) | target |');
console.log('|---|---:|---:|---:|---|');
for (const r of rows) {
  const ratio = r.peer === undefined ? '—' : (r.ours / r.peer).toFixed(2) + '×';
  const target = typeof r.target === 'string' ? r.target : r.target.max !== undefined ? `≤ ${r.target.max}×` : `≥ ${r.target.min}× faster`;
  const met = typeof r.target === 'string' ? '' : (r.target.max !== undefined ? r.ours / r.peer <= r.target.max : r.peer / r.ours >= r.target.min) ? ' ✓' : ' ✗';
  console.log(`| ${r.name} | ${fmt(r.ours)} | ${r.peer === undefined ? '—' : fmt(r.peer)} | ${ratio} | ${target}${met} |`);
}
console.log('\n| module | raw | gzip | brotli |\n|---|---:|---:|---:|');
for (const m of sizes) {
  console.log(`| ${m.name}.wasm | ${m.wasm.raw} | ${m.wasm.gzip} | ${m.wasm.brotli} |`);
  console.log(`| ${m.name} embedded (base64 .js) | ${m.embeddedJs.raw} | ${m.embeddedJs.gzip} | ${m.embeddedJs.brotli} |`);
}
