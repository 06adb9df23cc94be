// What a governed call costs, step by step (for bench/RESULTS.md; not part of `npm run bench`):
//   node bench/breakdown.mjs
// A. boundary crossings per call (calls of the core's and the validator's exported methods),
//    counted in a child process so the counting wrappers do not slow part B;
// B. each pipeline step added alone to the 3-hook call, against a peer doing the same steps in
//    plain JS (peer-full.mjs), measured side by side like run.mjs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compare, fmt } from './harness.mjs';
import { peerGovernedExecute } from './peer-full.mjs';
import { CALLED, asciiText, makePolicy, peerPolicy, toolSchema, validInstance } from './fixtures.mjs';
import { internalEntry, internalUrl } from './pkg.mjs';

const { webmcp, configureWebMCP, resetWebMCP } = await import(internalEntry());

const text1k = asciiText(1024);
const search = () => text1k;
const before = [(ctx) => { ctx.metadata.seen = true; }];
const after = [() => {}];
const toolHooks = { before: [(ctx) => ({ input: { ...ctx.input, limit: 20 } })] };
let made = 0;

function makeTool({ schema = false, shape = false, name = `tool_${made++}` }) {
  const options = { name, description: 'Searches', hooks: toolHooks, shape: shape ? 'llm' : false };
  if (schema) options.inputSchema = toolSchema;
  return webmcp(search, options);
}

const VARIANTS = [
  { label: '3 hooks, `shape: false`', tool: {}, peer: { shape: false } },
  { label: '+ shaping a 1 KiB text', tool: { shape: true }, peer: {} },
  { label: '+ input schema', tool: { schema: true }, peer: { schema: toolSchema, shape: false } },
  { label: '+ 1-rule policy', rules: 1, tool: { name: CALLED.name }, peer: { shape: false } },
  { label: '+ 200-rule policy', rules: 200, tool: { name: CALLED.name }, peer: { shape: false } },
  { label: 'all: 200-rule policy + schema + shaping (case 2)', rules: 200, tool: { name: CALLED.name, schema: true, shape: true }, peer: { schema: toolSchema } },
];

function configure(rules) {
  resetWebMCP();
  const config = { hooks: { before, after } };
  let peerRules;
  if (rules === 1) {
    config.policy = { allow: ['page/search_*'], default: 'deny', pin: false };
    peerRules = peerPolicy(config.policy);
  } else if (rules) {
    config.policy = makePolicy(rules).policy;
    peerRules = peerPolicy(config.policy);
  }
  configureWebMCP(config);
  return peerRules;
}

if (process.argv[2] === 'crossings') {
  // The package reaches the core and the shaping module through one object of functions each
  // (boundary/core.js, shape/shaping.js of the unbundled tree): wrapping their properties counts every crossing the call path makes.
  const { core } = await import(internalUrl('boundary/core.js').href);
  const { shaper } = await import(internalUrl('shape/shaping.js').href);
  const { loadValidator } = await import(internalUrl('validator/validator-loader.js').href);
  const validator = await loadValidator();
  const counts = new Map();
  for (const [proto, label] of [[core, 'core'], [shaper, 'shaper'], [Object.getPrototypeOf(validator), 'validator']]) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const original = Object.getOwnPropertyDescriptor(proto, key).value;
      if (key === 'constructor' || typeof original !== 'function') continue;
      proto[key] = function (...args) {
        counts.set(`${label}.${key}`, (counts.get(`${label}.${key}`) ?? 0) + 1);
        return original.apply(this, args);
      };
    }
  }
  console.log('| call | crossings | which (per call) |\n|---|---:|---|');
  for (const variant of VARIANTS) {
    configure(variant.rules);
    const tool = makeTool(variant.tool);
    const first = await tool.invoke(validInstance);
    if (!first.ok) throw new Error(JSON.stringify(first));
    counts.clear();
    for (let i = 0; i < 10; i++) await tool.invoke(validInstance);
    const total = [...counts.values()].reduce((a, b) => a + b, 0) / 10;
    console.log(`| ${variant.label} | ${total} | ${[...counts].map(([k, v]) => `${k} ×${v / 10}`).join(', ')} |`);
  }
  process.exit(0);
}

console.log('A. Boundary crossings per call (the functions of `core` in boundary/core.js and the validator methods; `scanText` is not counted: clean text never crosses)\n');
console.log(execFileSync(process.execPath, [fileURLToPath(import.meta.url), 'crossings'], { encoding: 'utf8' }));
console.log('B. Each step added alone to the 3-hook call, against a peer doing the same steps in plain JS\n');
console.log('| steps | webmcp-warden | peer (same steps) | ours / peer | webmcp-warden − the 3-hook call |\n|---|---:|---:|---:|---:|');
let base;
for (const variant of VARIANTS) {
  const peerRules = configure(variant.rules);
  const tool = makeTool(variant.tool);
  const peer = peerGovernedExecute(search, () => ({ before, after }), toolHooks, { ...variant.peer, policy: peerRules, server: CALLED.server, name: CALLED.name });
  const first = await tool.invoke(validInstance);
  if (!first.ok) throw new Error(JSON.stringify(first));
  const r = await compare({ ours: () => tool.invoke(validInstance), peer: () => peer(validInstance) });
  base ??= r.ours;
  console.log(`| ${variant.label} | ${fmt(r.ours)} | ${fmt(r.peer)} | ${r.ratio('ours', 'peer').toFixed(2)}× | ${variant === VARIANTS[0] ? '—' : fmt(r.ours - base)} |`);
}
