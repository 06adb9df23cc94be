// Benchmarks of webmcp-warden against its peers (issue 8): one command, Node 20, one table of
// ratios. Never a timed assertion: this prints numbers; bench/RESULTS.md keeps a recent run.
//   npm run build && npm run bench          (or: node bench/run.mjs [--json out.json])
//
// Every ratio is time(webmcp-warden) / time(peer), measured side by side in alternating
// windows of the same process (harness.mjs). Targets are written as the issue states them and
// checked against that time ratio: "≤ 1.3×" means at most 1.3 times the peer's time; "≥ 5×
// faster" means at most 0.2 times; "≥ 1× (speed)" at most 1 time.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Validator as CfValidator } from '@cfworker/json-schema';
import Ajv2020Module from 'ajv/dist/2020.js';
import { compare, fmt, median } from './harness.mjs';
import { peerExecute, normalizeResult as peerNormalize } from './peer-hooks.mjs';
import { peerGovernedExecute } from './peer-full.mjs';
import { CALLED, asciiText, invalidInstance, makePolicy, peerDecide, peerPolicy, PEER_STRIP, sprinkle, toolSchema, typographicText, validInstance } from './fixtures.mjs';
import { internalEntry, internalUrl, pkgUrl } from './pkg.mjs';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const { webmcp, configureWebMCP, resetWebMCP, onTelemetry, explain, createWarden, webmcpResource, readResource } = await import(internalEntry());
const { shapeForModel } = await import(internalUrl('shape/shaping.js').href);
// The synchronous shaping a call does, with its module loaded as a call has it (the public
// `shapeForModel` awaits that load first).
await (await (await import(internalUrl('api/pipeline-loader.js').href)).loadPipeline()).loadShaper();
const wire = await import(internalUrl('boundary/wire.js').href);
const { validateJson } = await import(internalUrl('validator/validation.js').href);
const { loadValidator } = await import(internalUrl('validator/validator-loader.js').href);
const { encodeJson } = await import(internalUrl('boundary/wire.js').href);

const started = Date.now();
// BENCH_ONLY=1,3 runs only those cases (for working on one of them).
const only = process.env.BENCH_ONLY?.split(',').map(Number);
const want = (n) => only === undefined || only.includes(n);
const loadAtStart = os.loadavg();
const rows = [];
const notes = [];

/**
 * One row. `target`: `{ max, label }` on the time ratio, or undefined for reference rows.
 * `group`: the case number of the issue's table.
 */
function row(group, name, ours, peer, ratio, target, peerName = '') {
  rows.push({ group, name, ours, peer, ratio, target, peerName });
  const shown = ratio === undefined ? '' : ` ${ratio.toFixed(2)}×`;
  console.error(`  [${group}] ${name}: ${fmt(ours)}${peer === undefined ? '' : ` vs ${fmt(peer)}`}${shown}`);
}

function check(condition, message) {
  if (!condition) throw new Error('bench self-check failed: ' + message);
}

const MiB = 1 << 20;

// Three hooks, used by cases 1 and 2: two global (before, after), one tool-level before that
// rewrites the input (so both sides carry a rewrite through).
const globalBefore = (ctx) => {
  ctx.metadata.seen = true;
};
let afterCount = 0;
const globalAfter = () => {
  afterCount++;
};
const addOne = (ctx) => ({ input: { ...ctx.input, b: ctx.input.b + 1 } });
const capLimit = (ctx) => ({ input: { ...ctx.input, limit: 20 } });

// --- 6. the floor: a bare function call ---------------------------------------------------------
if (want(6)) {
  console.error('6. floor');
  const add = ({ a, b }) => ({ sum: a + b });
  const addAsync = async ({ a, b }) => ({ sum: a + b });
  const r = await compare({ sync: (i) => add({ a: i, b: 1 }), awaited: (i) => addAsync({ a: i, b: 1 }) });
  row(6, 'bare function call `add({a, b})`', r.sync, undefined, undefined, undefined);
  row(6, 'the same, `async` and awaited (one microtask)', r.awaited, undefined, undefined, undefined);
}

// --- 1. governed call, hooks only ---------------------------------------------------------------
if (want(1)) {
  console.error('1. hooks only');
  resetWebMCP();
  configureWebMCP({ hooks: { before: [globalBefore], after: [globalAfter] } });
  const fn = ({ a, b }) => ({ sum: a + b });
  // structured: false: the peer answers text only, so ours must not add `structuredContent` (the
  // same work on both sides).
  const tool = webmcp(fn, { name: 'add', description: 'Adds', shape: false, structured: false, hooks: { before: [addOne] } });
  const peer = peerExecute(fn, () => ({ before: [globalBefore], after: [globalAfter] }), { before: [addOne] });
  const ours = await tool.invoke({ a: 1, b: 1 });
  const theirs = await peer({ a: 1, b: 1 });
  check(ours.ok && JSON.stringify(ours.result) === JSON.stringify(theirs), 'hooks-only results differ: ' + JSON.stringify([ours, theirs]));
  const r = await compare({ ours: (i) => tool.invoke({ a: i, b: 1 }), peer: (i) => peer({ a: i, b: 1 }) });
  row(1, 'governed call, 3 hooks, `shape: false` (`tool.invoke`)', r.ours, r.peer, r.ratio('ours', 'peer'), { max: 1.3, label: '≤ 1.3×' }, 'JS hook loop (simple-webmcp style)');
  resetWebMCP();
}

// --- 2. full pipeline ---------------------------------------------------------------------------
if (want(2)) {
  console.error('2. full pipeline');
  resetWebMCP();
  const { policy, hit } = makePolicy(200);
  configureWebMCP({ hooks: { before: [globalBefore], after: [globalAfter] }, policy });
  const text1k = asciiText(1024);
  const search = () => text1k;
  const tool = webmcp(search, { name: CALLED.name, description: 'Searches the catalogue', inputSchema: toolSchema, hooks: { before: [capLimit] } });
  const peer = peerGovernedExecute(search, () => ({ before: [globalBefore], after: [globalAfter] }), { before: [capLimit] }, { schema: toolSchema, policy: peerPolicy(policy), server: CALLED.server, name: CALLED.name });
  // Self-checks: the call is allowed by the intended rule on both sides, and the results agree.
  const decisions = [];
  const off = onTelemetry((event) => event.name === 'policy.decision' && decisions.push(event));
  const ours = await tool.invoke(validInstance);
  off();
  check(ours.ok, 'full pipeline call failed: ' + JSON.stringify(ours));
  check(decisions[0]?.rule?.list === hit.list && decisions[0]?.rule?.index === hit.index, 'decided by another rule: ' + JSON.stringify(decisions));
  check(peerDecide(peerPolicy(policy), CALLED.server, CALLED.name).index === hit.index, 'the peer decides by another rule');
  const theirs = await peer(validInstance);
  check(ours.result.content[0].text === theirs.content[0].text && ours.result.provenance, 'full pipeline results differ');
  const r = await compare({ ours: () => tool.invoke(validInstance), peer: () => peer(validInstance) });
  row(2, 'full pipeline: 3 hooks + 200-rule policy + input schema + shaping 1 KiB text', r.ours, r.peer, r.ratio('ours', 'peer'), { max: 1.5, label: '≤ 1.5×' }, 'hook loop + @cfworker + RegExp loop + replace');
  resetWebMCP();
}

// --- 3. policy decision over 1,000 rules --------------------------------------------------------
if (want(3)) {
  console.error('3. policy, 1,000 rules');
  resetWebMCP();
  const { policy, hit } = makePolicy(1000);
  const peer = peerPolicy(policy);
  check(peerDecide(peer, CALLED.server, CALLED.name).index === hit.index, 'the peer decides by another rule');
  const fn = (input) => ({ found: input.query.length });
  const tool = webmcp(fn, { name: CALLED.name, description: 'Searches the catalogue', shape: false, structured: false });
  await tool.register(); // explain() looks the tool up among the page's registered tools
  const args = { query: 'lamp', limit: 10 };
  // The dry run (`explain`): one call machine in explain mode, the facts and the decision
  // crossing once each way. It shares the engine's per-tool cache of which rules concern the tool
  // (the core no longer has a separate uncached explain entry), so after its first run it
  // measures the cached decision plus the dry run's own cost, not a walk over every rule.
  const decide = () => explain(CALLED.name, args);

  configureWebMCP({ policy: { allow: ['page/search_*'], default: 'deny', pin: false } });
  check((await decide())?.rule?.index === 0, 'one-rule policy');
  const oneRule = await compare({ one: decide, e2e: () => tool.invoke(args) });

  configureWebMCP({ policy });
  const d = await decide();
  check(d?.effect === 'allow' && d.rule?.list === hit.list && d.rule?.index === hit.index, 'core decides by another rule: ' + JSON.stringify(d));
  const r = await compare({ ours: decide, peer: () => peerDecide(peer, CALLED.server, CALLED.name) });
  // What a call pays for the decision: the engine caches, per tool, which rules' matchers
  // select it, so only the first decision for a tool walks every rule.
  configureWebMCP({ policy: null });
  const bare = await compare({ call: () => tool.invoke(args) });
  configureWebMCP({ policy });
  const inCall = await compare({ call: () => tool.invoke(args), peer: () => peerDecide(peer, CALLED.server, CALLED.name) });
  const decisionInCall = inCall.call - bare.call;
  row(3, 'policy decision, 1,000 rules, as a call pays it: `tool.invoke` under the policy − without a policy', decisionInCall, inCall.peer, decisionInCall / inCall.peer, { max: 0.2, label: '≥ 5× faster' }, 'loop of 1,000 compiled RegExps');
  row(3, 'dry run `explain(name, args)` under the 1,000-rule policy (rule cache warm)', r.ours, r.peer, r.ratio('ours', 'peer'), undefined, 'loop of 1,000 compiled RegExps');
  row(3, '… the same under a 1-rule policy', oneRule.one, r.peer, oneRule.one / r.peer, undefined);

  const peerE2e = async (input) => {
    const decision = peerDecide(peer, CALLED.server, CALLED.name);
    if (decision.effect !== 'allow') throw new Error('denied');
    return peerNormalize(await fn(input));
  };
  const e2e = await compare({ ours: () => tool.invoke(args), peer: () => peerE2e(args) });
  row(3, 'end to end: `tool.invoke` under the 1,000-rule policy (no hooks, `shape: false`)', e2e.ours, e2e.peer, e2e.ratio('ours', 'peer'), undefined, 'RegExp loop + tool + normalize');
  row(3, '… the same call under a 1-rule policy', oneRule.e2e, e2e.peer, oneRule.e2e / e2e.peer, undefined);
  resetWebMCP();
}

// --- 4. shaping 1 MiB of text -------------------------------------------------------------------
if (want(4)) {
  console.error('4. shaping 1 MiB');
  resetWebMCP();
  const clean = asciiText(MiB);
  const dirty = sprinkle(clean, 4096);
  const typographic = typographicText(MiB);
  const max = 2 * MiB + 4096;
  const shape = (text) => shapeForModel({ content: [{ type: 'text', text }] }, 'page', max);
  const strip = (text) => text.replace(PEER_STRIP, '');
  for (const [label, text] of [['clean', clean], ['dirty', dirty], ['typographic', typographic]]) {
    const shaped = shape(text);
    check(shaped.result.content[0].text === strip(text) && !shaped.truncated, `shaping ${label} text differs from the peer`);
  }
  check(shape(dirty).flags.length === 4, 'dirty text sets the four character flags');
  const hidden = dirty.length - clean.length;
  const rc = await compare({ ours: () => shape(clean), peer: () => strip(clean) });
  row(4, 'shape 1 MiB clean ASCII text (`shapeForModel`, cap raised to 2 MiB)', rc.ours, rc.peer, rc.ratio('ours', 'peer'), { max: 1.5, label: '≤ 1.5×' }, '`text.replace(/[…]/gu, "")`');
  const rd = await compare({ ours: () => shape(dirty), peer: () => strip(dirty) });
  row(4, `shape 1 MiB text with ${hidden} hidden code units (${hidden >> 1}+ characters, all four classes)`, rd.ours, rd.peer, rd.ratio('ours', 'peer'), { max: 3, label: '≤ 3×' }, '`text.replace(/[…]/gu, "")`');
  const rt = await compare({ ours: () => shape(typographic), peer: () => strip(typographic) });
  row(4, 'shape 1 MiB clean prose with typographic punctuation (U+201C/D, U+2014, U+2026: in the candidate range, kept)', rt.ours, rt.peer, rt.ratio('ours', 'peer'), undefined, '`text.replace(/[…]/gu, "")`');

  // Through a call: the same tool with and without shaping; the difference is shaping's cost.
  configureWebMCP({ maxResultBytesForLlm: max });
  const llm = webmcp(() => dirty, { name: 'read_page', description: 'Reads the page' });
  const none = webmcp(() => dirty, { name: 'read_page_raw', description: 'Reads the page', shape: false });
  const viaCall = await compare({ llm: () => llm.invoke({}), none: () => none.invoke({}), peer: () => strip(dirty) });
  row(4, 'through a call, dirty 1 MiB: `invoke` with `shape: "llm"` − with `shape: false`', viaCall.llm - viaCall.none, viaCall.peer, (viaCall.llm - viaCall.none) / viaCall.peer, undefined);
  resetWebMCP();
}

// --- 5. validating a typical tool schema --------------------------------------------------------
if (want(5)) {
  console.error('5. validation');
  resetWebMCP();
  const validator = await loadValidator();
  const compiled = JSON.parse(validator.compile(encodeJson(toolSchema)));
  check(compiled.ok, 'our validator compiles the tool schema');
  const handle = compiled.handle;
  // What `validateJsonText` does after `toJson` wrote the text: read it back, cross in the wire format.
  // `validate` answers nothing for a valid instance.
  const ours = (value) => {
    const text = validator.validate(handle, encodeJson(JSON.parse(JSON.stringify(value))), 64);
    return text === '' ? { valid: true } : JSON.parse(text);
  };
  const cf = new CfValidator(toolSchema, '2020-12');
  const cfAll = new CfValidator(toolSchema, '2020-12', false);
  const ajv = new Ajv2020({ allowUnionTypes: true }).compile(toolSchema);
  const ajvAll = new Ajv2020({ allowUnionTypes: true, allErrors: true }).compile(toolSchema);
  check(ours(validInstance).valid && cf.validate(validInstance).valid && ajv(validInstance), 'all validators accept the valid instance');
  check(!ours(invalidInstance).valid && !cf.validate(invalidInstance).valid && !ajv(invalidInstance), 'all validators reject the invalid instance');
  const counts = { ours: ours(invalidInstance).diagnostics.length, cf: cfAll.validate(invalidInstance).errors.length, ajv: (ajvAll(invalidInstance), ajvAll.errors.length) };
  console.error(`  errors reported for the invalid instance: ours ${counts.ours}, @cfworker ${counts.cf}, ajv ${counts.ajv}`);
  check((await validateJson(toolSchema, validInstance)).valid, 'validateJson accepts the valid instance');

  const r = await compare({
    ours: () => ours(validInstance),
    pkg: () => validateJson(toolSchema, validInstance),
    cf: () => cf.validate(validInstance),
    ajv: () => ajv(validInstance),
  });
  const bytes = JSON.stringify(validInstance).length;
  row(5, `validate a valid ${bytes}-byte instance: validator module (\`JSON.stringify\` → \`JSON.parse\` → \`encodeJson\` → \`validate\` → \`JSON.parse\` when invalid)`, r.ours, r.cf, r.ratio('ours', 'cf'), { max: 1, label: '≥ 1× (speed)' }, '@cfworker/json-schema 4.1.6');
  row(5, '… the same', r.ours, r.ajv, r.ratio('ours', 'ajv'), { max: 2, label: '≥ 0.5× (speed)' }, 'ajv 8.20 (`ajv/dist/2020`)');
  row(5, '… through the package\'s `validateJson` (adds the walk that turns cycles/BigInt/depth into diagnostics)', r.pkg, r.cf, r.ratio('pkg', 'cf'), undefined, '@cfworker/json-schema');

  const withSchema = webmcp(() => 'ok', { name: 'find', description: 'Finds', inputSchema: toolSchema, shape: false });
  const without = webmcp(() => 'ok', { name: 'find_unchecked', description: 'Finds', shape: false });
  check((await withSchema.invoke(validInstance)).ok, 'schema tool call');
  const viaCall = await compare({ with: () => withSchema.invoke(validInstance), without: () => without.invoke(validInstance), cf: () => cf.validate(validInstance) });
  row(5, '… through a call: `invoke` with `inputSchema` − without', viaCall.with - viaCall.without, viaCall.cf, (viaCall.with - viaCall.without) / viaCall.cf, undefined, '@cfworker/json-schema');

  const ri = await compare({ ours: () => ours(invalidInstance), cf: () => cfAll.validate(invalidInstance), ajv: () => ajvAll(invalidInstance) });
  row(5, `invalid instance, every error (ours ${counts.ours}, @cfworker ${counts.cf}, ajv ${counts.ajv} errors)`, ri.ours, ri.cf, ri.ratio('ours', 'cf'), undefined, '@cfworker (shortCircuit off)');
  row(5, '… the same', ri.ours, ri.ajv, ri.ratio('ours', 'ajv'), undefined, 'ajv (allErrors)');

  // Compiling a schema: once per tool (cached), so this is start-up cost, not per call.
  const compileTimes = { ours: [], cf: [], ajv: [] };
  for (let k = 0; k < 9; k++) {
    const schema = { ...toolSchema, title: `t${k}` };
    let t = performance.now();
    const h = JSON.parse(validator.compile(encodeJson(JSON.parse(JSON.stringify(schema))))).handle;
    compileTimes.ours.push(performance.now() - t);
    validator.dropSchema?.(h);
    t = performance.now();
    void new CfValidator(schema, '2020-12');
    compileTimes.cf.push(performance.now() - t);
    t = performance.now();
    new Ajv2020({ allowUnionTypes: true }).compile(schema);
    compileTimes.ajv.push(performance.now() - t);
  }
  const ms = (k) => median(compileTimes[k]) * 1e6;
  row(5, 'compile the schema (once per tool; `new Ajv2020()` + compile for ajv)', ms('ours'), ms('ajv'), ms('ours') / ms('ajv'), undefined, `ajv; @cfworker: ${fmt(ms('cf'))}`);
  resetWebMCP();
}

// --- 8. resource reads: one canonical URI, templates matched in linear time ------------------
if (want(8)) {
  console.error('8. resource reads');
  // The worst template found for issue 29 (five reserved variables between slashes), as a
  // resource and as a deny rule, against a URI at the length cap that starts and ends as they
  // do but has too few slashes: only a whole search rules it out. Before, lookup was a
  // backtracking RegExp (17.6 s at twice this length). The catch-all resource after it serves
  // the URI, so the read goes on to the policy and the read function.
  const worst = 'x://{+a}/{+b}/{+c}/{+d}/{+e}/end';
  const client = createWarden({ policy: { resources: { deny: [worst.replace(/end$/, 'secret')], allow: ['*'] } } });
  const reads = { worst: 0, rest: 0 };
  const resources = [
    webmcpResource((url, params) => `user ${params.id}`, { uri: 'user://{id}/profile', name: 'profile', client }),
    webmcpResource(() => 'notes', { uri: 'notes://today', name: 'today', client }),
    webmcpResource(() => (reads.worst++, 'x'), { uri: worst, name: 'worst', client }),
    webmcpResource(() => (reads.rest++, 'x'), { uri: 'x://{+rest}', name: 'rest', client, shape: false }),
  ];
  for (const resource of resources) await resource.register();
  const cap = 65_536;
  const atCap = 'x://' + 'a'.repeat(cap - 4 - '/a/end'.length) + '/a/end';
  const template = await readResource('user://42/profile', { client });
  check(template.ok && template.result.contents[0].text === 'user 42', 'template read: ' + JSON.stringify(template));
  check((await readResource('notes://today', { client })).ok, 'static read');
  const long = await readResource(atCap, { client });
  check(atCap.length === cap && long.ok && reads.worst === 0 && reads.rest === 1, 'the worst case is read by the catch-all: ' + JSON.stringify(long.error));
  const r = await compare({
    template: () => readResource('user://42/profile', { client }),
    static: () => readResource('notes://today', { client }),
    spelled: () => readResource('user://%34%32/./profile', { client }),
  });
  row(8, '`readResource` of a template instance (`user://42/profile`, among 4 resources; a 2-rule policy section)', r.template, undefined, undefined, undefined);
  row(8, '… of a resource of one URI (`notes://today`)', r.static, undefined, undefined, undefined);
  row(8, '… of the template instance spelled otherwise (`user://%34%32/./profile`: escapes decoded, dot segment removed)', r.spelled, undefined, undefined, undefined);
  // The previous build's pattern for the same template, on its own worst URI (slashes all
  // along, no `end`) of 128 characters: for scale only, not a ratio (at 512 it takes seconds).
  const backtracking = /^x:\/\/(.+)\/(.+)\/(.+)\/(.+)\/(.+)\/end$/u;
  const short = 'x://' + 'a/'.repeat(62) + 'en';
  const rw = await compare({ ours: () => readResource(atCap, { client }), regex: () => backtracking.exec(short) }, { windows: 7, windowMs: 400, warmupMs: 400 });
  row(8, `the worst template × URI at the cap: \`${worst}\` as a resource and a deny rule, against ${cap} characters that are no instance (a catch-all reads it)`, rw.ours, rw.regex, undefined, undefined, "the previous build's backtracking RegExp of that template, on 128 characters");
  client.dispose();
}

// --- 9. limits: what counting costs a call ------------------------------------------------------
if (want(9)) {
  console.error('9. limits');
  const { withLimits } = await import(internalUrl('limits.js').href);
  // Ten limits that all select the tool and never refuse it (the call is counted by each): rate,
  // budget and calls in flight, per principal, per tool and for the page.
  const limits = [
    { per: 'principal', max: 1e9, window: 60_000, id: 'rate' },
    { per: 'principal', max: 1e9, window: 3_600_000 },
    { per: 'tool', max: 1e9, window: 1_000 },
    { per: 'page', max: 1e9, window: 10_000 },
    { per: 'principal', budget: 1e12, cost: 3, window: 60_000, id: 'spend' },
    { per: 'page', budget: 1e12, window: 86_400_000 },
    { match: 'lookup', per: 'principal', concurrency: 1000 },
    { match: 'look*', per: 'tool', concurrency: 1000 },
    { per: 'page', concurrency: 1000, max: 1e9, window: 5_000 },
    { match: 'page/lookup', per: 'principal', max: 1e9, window: 500, onExceeded: 'ask' },
  ];
  const base = { allow: ['page/lookup'], default: 'deny', pin: false };
  // The barest call (`shape: false`), where the limits' share is largest; and the tool as a page
  // defines it by default (its text result shaped for the model). Each in clients of its own.
  const clients = [];
  const pair = async (fn, options) => {
    const sides = { plain: createWarden({ policy: base }), limited: createWarden({ policy: withLimits({ ...base, limits }) }) };
    const tools = {};
    for (const [side, client] of Object.entries(sides)) {
      clients.push(client);
      tools[side] = client.webmcp(fn, { name: 'lookup', description: 'Looks up.', ...options });
      await tools[side].register();
      const out = await tools[side].invoke({ id: 1 }, { principal: 'p' });
      check(out.ok, `${side}: ${JSON.stringify(out.error)}`);
    }
    return compare({ limited: () => tools.limited.invoke({ id: 1 }, { principal: 'p' }), plain: () => tools.plain.invoke({ id: 1 }, { principal: 'p' }) });
  };
  const r = await pair(({ id }) => id, { shape: false });
  row(9, 'a call under a 10-limit policy (`tool.invoke`, a principal, no hooks, `shape: false`)', r.limited, r.plain, r.ratio('limited', 'plain'), { max: 1.1, label: '≤ 1.1×' }, 'the same call under the same policy without limits');
  const rs = await pair(({ id }) => `found ${id}`, {});
  row(9, "the same with the tool's defaults (its text result shaped for the model)", rs.limited, rs.plain, rs.ratio('limited', 'plain'), { max: 1.1, label: '≤ 1.1×' }, 'the same call under the same policy without limits');
  for (const client of clients) client.dispose();
}

// --- 7. start-up ------------------------------------------------------------------------------
if (want(7)) {
  console.error('7. start-up (fresh node processes)');
  const child = fileURLToPath(new URL('./startup-child.mjs', import.meta.url));
  const sample = (mode) => JSON.parse(execFileSync(process.execPath, [child, mode], { encoding: 'utf8' }).trim().split('\n').pop());
  const samples = { module: [], package: [], schema: [], file: [] };
  for (let k = 0; k < 7; k++) {
    samples.module.push(sample('module'));
    samples.file.push(sample('file'));
    samples.package.push(sample('package'));
    if (k < 5) samples.schema.push(sample('schema'));
  }
  const med = (mode, key) => median(samples[mode].map((s) => s[key])) * 1e6;
  const moduleTotal = med('module', 'total');
  row(7, 'start-up: `import("webmcp-warden")` → first governed call done (hooked tool)', med('package', 'total'), moduleTotal, med('package', 'total') / moduleTotal, { max: 2, label: '≤ 2×' }, 'import base64 module + decode + `new WebAssembly.Module`');
  row(7, '… of which `import` + `webmcp()` (the core is not loaded yet: `webmcp()` only registers)', med('package', 'toFirstTool'), moduleTotal, med('package', 'toFirstTool') / moduleTotal, undefined);
  row(7, '… of which the first call (the Node build reads the core\'s `.wasm` file and compiles it; then the shaping module\'s)', med('package', 'firstCall'), undefined, undefined, undefined);
  row(7, 'the peer side alone: compile only (`new WebAssembly.Module`, 7 samples)', med('module', 'compile'), undefined, undefined, undefined);
  row(7, 'the core from its file alone (what the Node build does instead of decoding): read `warden_core.wasm` + `new WebAssembly.Module`', med('file', 'total'), undefined, undefined, undefined);
  row(7, 'start-up with a JSON Schema tool (the first call also loads and compiles the validator module)', med('schema', 'total'), moduleTotal, med('schema', 'total') / moduleTotal, undefined);
}

// --- output -------------------------------------------------------------------------------------
const sizes = JSON.parse(readFileSync(pkgUrl('wasm/sizes.json'), 'utf8'));
const budget = JSON.parse(readFileSync(pkgUrl('size-budget.json'), 'utf8'));
const GOALS = { warden_core: 150 * 1024, warden_validate: 400 * 1024 };
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const lines = [];
const out = (line = '') => lines.push(line);
out(`webmcp-warden benchmarks: Node ${process.version}, ${process.platform}/${process.arch}, ${os.availableParallelism?.() ?? os.cpus().length} CPUs (${cpu}), load average ${loadAtStart.map((x) => x.toFixed(1)).join(' ')} at start, ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at end; ${((Date.now() - started) / 1000).toFixed(0)} s`);
out();
out('| # | case | webmcp-warden | peer | ours / peer (time) | target | |');
out('|---|---|---:|---|---:|---|---|');
for (const r of rows) {
  const ratio = r.ratio === undefined ? '—' : `${r.ratio.toFixed(2)}×`;
  const peer = r.peer === undefined ? '—' : `${fmt(r.peer)}${r.peerName ? ` (${r.peerName})` : ''}`;
  const target = r.target ? r.target.label : r.group === 6 ? 'reference' : 'info';
  const met = r.target ? (r.ratio <= r.target.max ? '✓' : '✗') : '';
  out(`| ${r.group} | ${r.name} | ${fmt(r.ours)} | ${peer} | ${ratio} | ${target} | ${met} |`);
}
out();
out('| module | raw | gzip | brotli | budget (brotli, size-budget.json) | goal (issue 8, brotli) | embedded .js raw / gzip / brotli |');
out('|---|---:|---:|---:|---:|---:|---:|');
for (const m of sizes) {
  const limit = budget[m.name]?.brotli;
  const goal = GOALS[m.name];
  const mark = (value, max) => (max === undefined ? '—' : `${max} ${value <= max ? '✓' : '✗'}`);
  out(`| ${m.name}.wasm | ${m.wasm.raw} | ${m.wasm.gzip} | ${m.wasm.brotli} | ${mark(m.wasm.brotli, limit)} | ${mark(m.wasm.brotli, goal)} | ${m.embeddedJs ? `${m.embeddedJs.raw} / ${m.embeddedJs.gzip} / ${m.embeddedJs.brotli}` : 'not embedded: fetched as .wasm'} |`);
}
for (const note of notes) out(note);
console.log('\n' + lines.join('\n'));

const jsonAt = process.argv.indexOf('--json');
if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1], JSON.stringify({ node: process.version, cpu, rows: rows.map(({ target, ...r }) => ({ ...r, target: target?.label, targetMax: target?.max })), sizes }, null, 2));
