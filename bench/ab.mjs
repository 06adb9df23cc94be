// A/B of two builds of the package in one process (each its own modules and wasm instance),
// measured side by side like run.mjs: used to report what a change to the TS layer did.
//   node bench/ab.mjs /path/to/pkg-js-before /path/to/pkg-js-after
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { compare, fmt } from './harness.mjs';
import { CALLED, asciiText, invalidInstance, makePolicy, sprinkle, toolSchema, validInstance } from './fixtures.mjs';

const [beforeDir, afterDir] = process.argv.slice(2);
if (!afterDir) throw new Error('usage: node bench/ab.mjs <pkg-js before> <pkg-js after>');
const load = async (dir) => {
  // A build whose dist/ is a bundle keeps its modules one per file in lib/ (bench/pkg.mjs).
  const tree = existsSync(`${dir.replace(/\/$/, '')}/lib`) ? 'lib/' : 'dist/';
  const url = (path) => pathToFileURL(`${dir.replace(/\/$/, '')}/${path.replace(/^dist\//, tree)}`).href;
  /** The first of `paths` (one module in the layouts of several builds) that imports. */
  const first = async (...paths) => {
    for (const path of paths) {
      const module = await import(url(path)).catch(() => undefined);
      if (module) return module;
    }
    return undefined;
  };
  // The synchronous shapeForModel of shaping.js (shape.js before), with the shaping module loaded: in folders
  // (dist/shape/), its loader loads it itself; in a flat build that has the pipeline chunk,
  // through that chunk (dist/pipeline-loader.js), which hands it what it needs of the entry; in a
  // flat build from before that chunk, directly (dist/shaper.js); a build from before either has none.
  const shaper = await first('dist/shape/shape-loader.js', 'dist/shape/shaper.js');
  const loader = shaper ? undefined : await first('dist/pipeline-loader.js');
  if (shaper) await shaper.loadShaper();
  else if (loader) await (await loader.loadPipeline()).loadShaper();
  else await first('dist/shaper.js').then((flat) => flat?.loadShaper());
  return { ...(await import(url('dist/index.js'))), ...(await first('dist/shape/shaping.js', 'dist/shape/shape.js', 'dist/shape.js')), ...(await first('dist/validator/validation.js', 'dist/validation.js')) };
};
const pkgs = { before: await load(beforeDir), after: await load(afterDir) };

const before = [(ctx) => { ctx.metadata.seen = true; }];
const after = [() => {}];
const text1k = asciiText(1024);
const { policy } = makePolicy(200);
const tools = {};
// The same work on both sides: a build with structured results (an object result also becomes
// `structuredContent`) is asked for text only, as a build from before that option answers.
const textOnly = (w, fn, options) => {
  try {
    return w.webmcp(fn, { ...options, structured: false });
  } catch (err) {
    if (/unknown option "structured"/.test(String(err?.message))) return w.webmcp(fn, options);
    throw err;
  }
};
for (const [side, w] of Object.entries(pkgs)) {
  w.configureWebMCP({ hooks: { before, after } });
  tools[side] = {
    hooks: textOnly(w, ({ a, b }) => ({ sum: a + b }), { name: 'add', description: 'Adds', shape: false, hooks: { before: [(ctx) => ({ input: { ...ctx.input, b: ctx.input.b + 1 } })] } }),
    full: w.webmcp(() => text1k, { name: CALLED.name, description: 'Searches', inputSchema: toolSchema, hooks: { before: [(ctx) => ({ input: { ...ctx.input, limit: 20 } })] } }),
  };
}
// Resource reads on a client of their own (no hooks, no policy): a template instance and a
// resource of one URI, among both.
const readers = {};
for (const [side, w] of Object.entries(pkgs)) {
  const client = w.createWarden();
  await w.webmcpResource((url, params) => `user ${params.id}`, { uri: 'user://{id}/profile', name: 'profile', client }).register();
  await w.webmcpResource(() => 'notes', { uri: 'notes://today', name: 'today', client }).register();
  readers[side] = client;
}
// The common case of a pattern (docs/behaviour.md, "Patterns"): the common e-mail pattern (tests/fixtures/patterns.json) on an ordinary address, as a
// policy `matches` and as a schema `pattern`, on a client of their own per side.
const EMAIL = '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$';
const emails = {};
for (const [side, w] of Object.entries(pkgs)) {
  const client = w.createWarden();
  client.configure({ policy: { deny: [{ match: 'by_policy', when: { arg: '/q', matches: EMAIL } }], default: 'allow' } });
  const byPolicy = client.webmcp(() => 'ok', { name: 'by_policy', description: 'd', shape: false });
  const bySchema = client.webmcp(() => 'ok', { name: 'by_schema', description: 'd', shape: false, inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: EMAIL } } } });
  await byPolicy.register();
  await bySchema.register();
  emails[side] = { byPolicy, bySchema };
}
const address = { q: 'ada.lovelace@example.org' };
const clean = asciiText(1 << 20);
const dirty = sprinkle(clean, 4096);
// Cases run in order; the 200-rule policy is set (on both sides) before the full-pipeline case.
const withPolicy = () => {
  for (const w of Object.values(pkgs)) w.configureWebMCP({ policy });
};
const cases = [
  ['3 hooks, `shape: false`', (s) => () => tools[s].hooks.invoke({ a: 1, b: 1 })],
  ['`readResource` of a template instance (`user://42/profile`)', (s) => () => pkgs[s].readResource('user://42/profile', { client: readers[s] })],
  ['`readResource` of a resource of one URI (`notes://today`)', (s) => () => pkgs[s].readResource('notes://today', { client: readers[s] })],
  // `validateJson` alone (both builds export it from dist/validator/validation.js): the validator's own speed.
  ['the e-mail pattern on an address, policy `matches` (denied)', (s) => () => emails[s].byPolicy.invoke(address).then(() => undefined)],
  ['the e-mail pattern on an address, schema `pattern`', (s) => () => emails[s].bySchema.invoke(address)],
  ['validateJson, the 403-byte valid instance', (s) => () => pkgs[s].validateJson(toolSchema, validInstance)],
  ['validateJson, the invalid instance (every error)', (s) => () => pkgs[s].validateJson(toolSchema, invalidInstance)],
  ['shapeForModel, 1 MiB clean ASCII, cap 2 MiB', (s) => () => pkgs[s].shapeForModel({ content: [{ type: 'text', text: clean }] }, 'page', 2 * 1048576 + 4096)],
  ['shapeForModel, 1 MiB with 307 hidden units, cap 2 MiB', (s) => () => pkgs[s].shapeForModel({ content: [{ type: 'text', text: dirty }] }, 'page', 2 * 1048576 + 4096)],
  [() => { for (const w of Object.values(pkgs)) w.configureWebMCP({ policy: { allow: ['page/search_*'], default: 'deny', pin: false } }); }],
  ['3 hooks + 1-rule policy + schema + shaping 1 KiB (403-byte arguments)', (s) => () => tools[s].full.invoke(validInstance)],
  [withPolicy],
  ['case 2: 3 hooks + 200-rule policy + schema + shaping 1 KiB', (s) => () => tools[s].full.invoke(validInstance)],
];
console.log('| case | before | after | after / before |\n|---|---:|---:|---:|');
for (const [label, make] of cases) {
  if (make === undefined) {
    label();
    continue;
  }
  for (const s of ['before', 'after']) {
    const out = await make(s)();
    if (out && out.ok === false) throw new Error(`${label} (${s}): ${JSON.stringify(out.error)}`);
  }
  const r = await compare({ before: make('before'), after: make('after') });
  console.log(`| ${label} | ${fmt(r.before)} | ${fmt(r.after)} | ${r.ratio('after', 'before').toFixed(2)}× |`);
}
