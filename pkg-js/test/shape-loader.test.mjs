// Shaping is a wasm module of its own, in a chunk with the code that runs it (shaping.ts), loaded
// lazily (shape-loader.ts): not at import, not by
// `webmcp()` or `configureWebMCP()`, started by `register()`, awaited by a call or a listing
// that shapes, and by the public `shapeForModel`. A module that cannot load fails the call
// closed (its answer withheld) and a listing with an error, and a later call tries again; a
// trapped instance is replaced. Each scenario runs in a fresh process, where nothing has loaded
// the module yet.
import test from 'node:test';
import assert from 'node:assert/strict';
import { countSyncCompiles, runFresh } from '../test-support/fresh-process.mjs';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../lib/', import.meta.url));

/** Runs `body` as a module in a fresh `node` and answers what it printed last (JSON). */
function fresh(body) {
  const script = `
    const shaperModule = await import(${JSON.stringify(dist + 'shape/shape-loader.js')});
    const shapeChunk = await import(${JSON.stringify(dist + 'shape/shaping.js')});
    const warden = await import(${JSON.stringify(dist + 'index.js')});
    const { webmcp, configureWebMCP, listTools, shapeForModel } = warden;
    // Counts the shaping module's compiles (a module that exports shapeResult); \`refuse\` makes
    // them fail, as a page whose CSP refuses wasm would.
    const counts = { shaper: 0 };
    let refuse = false;
    const compile = WebAssembly.compile;
    WebAssembly.compile = async (...args) => {
      const module = await compile(...args);
      if (!WebAssembly.Module.exports(module).some((e) => e.name === 'shapeResult')) return module;
      counts.shaper++;
      if (refuse) throw new WebAssembly.CompileError('refused by the test');
      return module;
    };
    const until = async (check) => {
      for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      return check();
    };
    ${body}
  `;
  return runFresh(script);
}

test('webmcp() and configureWebMCP() load no shaping module; register() starts loading it; a call shapes with it', () => {
  const result = fresh(`
    configureWebMCP({ hooks: { before: [() => {}] } });
    const t = webmcp(() => 'pa\\u200by now', { name: 'pay', description: 'Pays.', hooks: { after: [() => {}] } });
    const afterDefinition = shaperModule.shaperLoaded();
    await t.register();
    const loadedByRegister = await until(() => shaperModule.shaperLoaded());
    const outcome = await t.invoke({});
    console.log(JSON.stringify({ afterDefinition, loadedByRegister, compiles: counts.shaper, text: outcome.result.content[0].text, flags: outcome.result.provenance.flags }));
  `);
  assert.equal(result.afterDefinition, false, 'defining tools and hooks did not load shaping');
  assert.equal(result.loadedByRegister, true, 'register() loaded it without a call');
  assert.equal(result.compiles, 1, 'compiled once');
  assert.equal(result.text, 'pay now', 'the hidden character is gone');
  assert.deepEqual(result.flags, ['zero_width']);
});

test('a first call without register() loads shaping itself; shape: false needs none', () => {
  const result = fresh(`
    const t = webmcp(() => 'a\\u200bb', { name: 'plain', description: 'Plain.' });
    const raw = await t.invoke({}, { shape: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const unshapedLoaded = shaperModule.shaperLoaded();
    const unshapedCompiles = counts.shaper;
    const shaped = await t.invoke({});
    console.log(JSON.stringify({ raw: raw.result.content[0].text, unshapedLoaded, unshapedCompiles, shaped: shaped.result.content[0].text, loaded: shaperModule.shaperLoaded(), compiles: counts.shaper }));
  `);
  assert.equal(result.raw, 'a\u200bb', 'shape: false leaves the text as it was');
  assert.equal(result.unshapedLoaded, false, 'and loaded nothing');
  assert.equal(result.unshapedCompiles, 0, 'not even ahead of time');
  assert.equal(result.shaped, 'ab');
  assert.equal(result.loaded, true);
  assert.equal(result.compiles, 1, 'compiled once');
});

test('a first call starts compiling the module that shapes beside the core, not once the call has begun; once however many ask', () => {
  const result = fresh(`
    const core = await import(${JSON.stringify(dist + 'boundary/core.js')});
    const started = [];
    const counted = WebAssembly.compile;
    WebAssembly.compile = async (...args) => {
      const coreLive = core.liveGeneration() >= 0;
      const module = await counted(...args);
      if (WebAssembly.Module.exports(module).some((e) => e.name === 'shapeResult')) started.push(coreLive);
      return module;
    };
    const t = webmcp(() => 'a\u200bb', { name: 'plain', description: 'Plain.', hooks: { before: [() => {}] } });
    const [first, second] = await Promise.all([t.invoke({}), t.invoke({})]);
    console.log(JSON.stringify({ started, texts: [first.result.content[0].text, second.result.content[0].text], compiles: counts.shaper }));
  `);
  assert.deepEqual(result.started, [false], 'one compile of the shaping module, started before the core had an instance');
  assert.deepEqual(result.texts, ['ab', 'ab']);
  assert.equal(result.compiles, 1);
});

/** Page code that records, in `compiledExports`, the export names of every module `WebAssembly.compile` makes. */
const RECORD_COMPILES = `const compiledExports = [];
    const compileAsync = WebAssembly.compile;
    WebAssembly.compile = async (...args) => {
      const module = await compileAsync(...args);
      compiledExports.push(WebAssembly.Module.exports(module).map((e) => e.name));
      return module;
    };`;

test('a tool with a JSON Schema shapes with the validator module, which shapes too: the shaping module is never loaded', () => {
  const result = fresh(`
    ${RECORD_COMPILES}
    const t = webmcp(() => 'a\\u200bb', { name: 'typed', description: 'Typed.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
    await t.register();
    const shaped = await t.invoke({ q: 'x' });
    const shapers = compiledExports.filter((names) => names.includes('shapeResult'));
    console.log(JSON.stringify({ text: shaped.result.content[0].text, shapers: shapers.map((names) => names.includes('validate')) }));
  `);
  assert.equal(result.text, 'ab');
  assert.deepEqual(result.shapers, [true], 'one module that shapes was compiled: the validator');
  // And a call without register() asks for the validator first, for the same reason.
  const direct = fresh(`
    ${RECORD_COMPILES}
    const t = webmcp(() => 'a\\u200bb', { name: 'typed', description: 'Typed.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
    const shaped = await t.invoke({ q: 'x' });
    console.log(JSON.stringify({ text: shaped.result.content[0].text, shapers: compiledExports.filter((names) => names.includes('shapeResult')).map((names) => names.includes('validate')) }));
  `);
  assert.equal(direct.text, 'ab');
  assert.deepEqual(direct.shapers, [true]);
});

test('a shaping module that cannot load fails the call closed before the tool runs, with the generic text; the listing and register() reject saying why, leaving nothing behind; a later call loads it', () => {
  const result = fresh(`
    refuse = true;
    let runs = 0;
    const t = webmcp(() => (runs++, 'se\\u200bcret'), { name: 'leaky', description: 'Answers with a hidden character.' });
    const failed = await t.invoke({});
    const runsAfterFailure = runs;
    let listing;
    try {
      await listTools();
      listing = 'listed';
    } catch (err) {
      listing = { name: err.name, code: err.code, message: err.message };
    }
    // A browser registration strips descriptions with it: register() says why it cannot.
    (await import(${JSON.stringify(dist + 'testing.js')})).installFakeModelContext();
    let registration;
    try {
      await t.register();
      registration = 'registered';
    } catch (err) {
      registration = { code: err.code, message: err.message, status: t.status };
    }
    // Nothing of the failed register() is left: an agent's call does not find the tool.
    const afterFailedRegister = await warden.invokeTool('leaky', {});
    refuse = false;
    const retried = await t.invoke({});
    // register() again, once the module loads: the browser registration is tried again.
    await t.register();
    const reregistered = t.status;
    console.log(JSON.stringify({ failed: { ok: failed.ok, error: failed.error, text: failed.result.content[0].text }, runsAfterFailure, listing, registration, afterFailedRegister: afterFailedRegister.error?.reason, retried: retried.result.content[0].text, reregistered, compiles: counts.shaper }));
  `);
  assert.equal(result.failed.ok, false);
  assert.equal(result.failed.error.reason, 'internal_error');
  assert.equal(result.failed.error.message, 'internal error in webmcp-warden', 'the agent reads the generic text only');
  assert.equal(result.failed.text, 'Error: internal error in webmcp-warden');
  assert.equal(result.runsAfterFailure, 0, 'the tool did not run: a retry repeats no action whose answer was withheld');
  assert.equal(result.listing.code, 'internal_error');
  assert.match(result.listing.message, /shaping module did not load/);
  assert.equal(result.registration.code, 'internal_error', 'register() rejects');
  assert.match(result.registration.message, /shaping module did not load/);
  assert.equal(result.registration.status, 'error');
  assert.equal(result.afterFailedRegister, 'unknown_tool', 'a failed register() leaves nothing in the registry');
  assert.equal(result.retried, 'secret', 'a later call loaded it');
  assert.equal(result.reregistered, 'registered', 'a second register() tried the registration again');
  assert.ok(result.compiles >= 2, 'the failed load was tried again');
});

test('a trapped shaping instance is replaced: the next shaping works', () => {
  const result = fresh(`
    const before = (await shapeForModel({ content: [{ type: 'text', text: 'x\\u200by' }] }, 'page', 1024)).result.content[0].text;
    let trapped;
    try {
      shapeChunk.shaper.testTrap();
    } catch (err) {
      trapped = err instanceof WebAssembly.RuntimeError;
    }
    const after = await shapeForModel({ content: [{ type: 'text', text: 'x\\u200by' }] }, 'page', 1024);
    const t = webmcp(() => 'p\\u200bq', { name: 'after_trap', description: 'After a trap.' });
    const called = await t.invoke({});
    console.log(JSON.stringify({ before, trapped, after: after.result.content[0].text, called: called.result.content[0].text, compiles: counts.shaper }));
  `);
  assert.equal(result.before, 'xy');
  assert.equal(result.trapped, true, 'the trap reached the caller as a RuntimeError');
  assert.equal(result.after, 'xy', 'shapeForModel works on a new instance');
  assert.equal(result.called, 'pq', 'and so does a call');
  assert.equal(result.compiles, 1, 'the compiled module was reused');
});

test('shapeForModel, outside a call, answers a promise of the shaped result', () => {
  const result = fresh(`
    const pending = shapeForModel({ content: [{ type: 'text', text: 'a\\u202eb' }], isError: 1 }, 'shop', 1024);
    const isPromise = pending instanceof Promise;
    const shaped = await pending;
    console.log(JSON.stringify({ isPromise, shaped }));
  `);
  assert.equal(result.isPromise, true);
  assert.deepEqual(result.shaped.result, { content: [{ type: 'text', text: 'ab' }], isError: true, provenance: { serverId: 'shop', truncated: false, flags: ['bidi'] } });
  assert.equal(result.shaped.truncated, false);
});

test("the shaping chunk is decoded by the entry's decoder, compiled once for every module, in slices with other tasks in between", () => {
  const result = fresh(`
    const decoderCompiles = { n: 0 };
    ${countSyncCompiles('decoderCompiles', 'n', 'resume')}
    const compileAsync = WebAssembly.compile;
    WebAssembly.compile = async (...args) => {
      const module = await compileAsync(...args);
      if (WebAssembly.Module.exports(module).some((e) => e.name === 'resume')) decoderCompiles.n++;
      return module;
    };
    let yields = 0;
    globalThis.scheduler = { yield: () => Promise.resolve(void yields++) };
    const shaped = await shapeForModel({ content: [{ type: 'text', text: 'a\\u200bb' }] }, 'page', 1024);
    const afterShaping = yields;
    const { ready } = await import(${JSON.stringify(dist + 'boundary/core.js')});
    await ready();
    console.log(JSON.stringify({ text: shaped.result.content[0].text, decoderCompiles: decoderCompiles.n, afterShaping, yields }));
  `);
  assert.equal(result.text, 'ab');
  assert.equal(result.decoderCompiles, 1, 'the decoder, compiled once for the shaping module and the core');
  // One yield between two slices of 32 KiB (pkg-js/src/unlzma.ts, SLICE_BYTES), none after the last.
  const shapeBytes = JSON.parse(readFileSync(new URL('../wasm/sizes.json', import.meta.url), 'utf8')).find((m) => m.name === 'warden_shape').wasm.raw;
  const shapeSlices = Math.ceil(shapeBytes / (32 * 1024));
  assert.equal(result.afterShaping, shapeSlices - 1, `the shaping module (${shapeBytes} bytes) decoded in ${shapeSlices} slice(s), with a yield between two (${result.afterShaping} yields)`);
  assert.ok(result.yields >= result.afterShaping + 3, `the core took several slices (${result.yields - result.afterShaping} yields)`);
});
