// Summarizes a `node --cpu-prof` profile: self time per function, and wasm time by family
// (regex_lite, allocation, serde_json, sha2, …; needs a core built with its name section, see
// RESULTS.md). Used to write bench/RESULTS.md:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof some-loop.mjs && node bench/cpuprofile-summary.mjs /tmp/prof/*.cpuprofile
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 25);
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  self.set(id, (self.get(id) ?? 0) + dt);
  total += dt;
});
const FAMILIES = [
  ['regex_lite', /regex_lite/],
  ['lower-casing names (matcher::loose)', /to_lowercase|CaseMapping|matcher::loose|Chars as|next_code_point|String>::push|Extend<char>/],
  ['matchers', /matcher::/],
  ['allocation (dlmalloc, Vec, String)', /dlmalloc|alloc::|__rdl|__rust_alloc|RawVec|Vec<T|swap_nonoverlapping/],
  ['SHA-256', /sha2/],
  ['JSON (serde_json, canonicalizer)', /serde|jcs/],
  ['policy', /policy::/],
];
const byFunction = new Map();
const byFamily = new Map();
for (const [id, time] of self) {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  const name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + time);
  const family = url.includes('wasm') ? `wasm: ${FAMILIES.find(([, re]) => re.test(functionName))?.[0] ?? 'other'}` : 'js';
  byFamily.set(family, (byFamily.get(family) ?? 0) + time);
}
const show = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).forEach(([k, t]) => console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`));
console.log('self time by function:');
show(byFunction, top);
console.log('\nby family:');
show(byFamily, 20);
