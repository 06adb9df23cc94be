// The pipeline (calls, listings, the browser registration, call-time validation) is a chunk the
// page loads lazily (pipeline-loader.ts): not at import, not by `webmcp()`, `configureWebMCP()`
// or `lintPolicy()`, which validate at once in the page's entry; loaded by `register()` and by
// a first call or listing. The public functions that live in the chunk keep their contracts
// before it loaded: `validateJson` checks the value as it was when called, `normalizeResult`
// and `normalizeError` need no chunk at all. Each scenario runs in a fresh process, where
// nothing has loaded the chunk yet.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runFresh } from '../test-support/fresh-process.mjs';

const dist = fileURLToPath(new URL('../lib/', import.meta.url));

/** Runs `body` in a fresh `node` with the package and its pipeline loader imported; answers what it printed last (JSON). */
function fresh(body) {
  return runFresh(`
    const { loadedPipeline } = await import(${JSON.stringify(dist + 'api/pipeline-loader.js')});
    const warden = await import(${JSON.stringify(dist + 'index.js')});
    ${body}
  `);
}

test('defining tools, hooks and a policy loads no pipeline; register() loads it, and the tool works', () => {
  const result = fresh(`
    const { webmcp, configureWebMCP, lintPolicy } = warden;
    configureWebMCP({ hooks: { before: [() => {}] }, policy: { allow: ['*'] } });
    const lint = lintPolicy({ deny: ['x'], bogus: 1 });
    const t = webmcp(({ n }) => n + 1, { name: 'inc', description: 'Adds one.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, hooks: { after: [() => {}] } });
    const afterDefinition = loadedPipeline() !== undefined;
    await t.register();
    const afterRegister = loadedPipeline() !== undefined;
    const outcome = await t.invoke({ n: 1 });
    console.log(JSON.stringify({ lint: lint.length, afterDefinition, afterRegister, ok: outcome.ok, text: outcome.result.content[0].text }));
  `);
  assert.ok(result.lint > 0, 'lintPolicy answered at once');
  assert.equal(result.afterDefinition, false, 'nothing loaded the pipeline before register()');
  assert.equal(result.afterRegister, true, 'register() loaded it');
  assert.deepEqual([result.ok, result.text], [true, '2']);
});

test('a first call without register() loads the pipeline itself, as does a first listing', () => {
  const result = fresh(`
    const t = warden.webmcp(() => 'pong', { name: 'ping', description: 'Pings.' });
    const before = loadedPipeline() !== undefined;
    const outcome = await t.invoke({});
    const other = await import(${JSON.stringify(dist + 'api/pipeline-loader.js')});
    console.log(JSON.stringify({ before, ok: outcome.ok, text: outcome.result.content[0].text, after: other.loadedPipeline() !== undefined }));
  `);
  assert.deepEqual(result, { before: false, ok: true, text: 'pong', after: true });
  const listed = fresh(`
    const c = warden.createWarden();
    c.webmcp(() => 'x', { name: 'listed', description: 'Listed.' });
    const names = (await c.listTools()).map((t) => t.name);
    console.log(JSON.stringify({ names, loaded: loadedPipeline() !== undefined }));
  `);
  assert.deepEqual(listed, { names: [], loaded: true }, 'an unregistered tool is not listed, and the listing loaded the pipeline');
});

test('calls and a listing that race the chunk\'s first load all run, on one chunk', () => {
  const result = fresh(`
    const d = warden.createWarden();
    const u = d.webmcp(({ n }) => n * 3, { name: 'triple', description: 'Triples.' });
    const racing = [u.invoke({ n: 1 }), u.invoke({ n: 2 }), d.listTools()];
    const loadedWhileRacing = loadedPipeline() !== undefined;
    const [a, b, listed] = await Promise.all(racing);
    const first = loadedPipeline();
    const c = warden.createWarden();
    const t = c.webmcp(({ n }) => n * 2, { name: 'double', description: 'Doubles.', hooks: { before: [(ctx) => ({ input: { n: ctx.input.n + 1 } })] } });
    await t.register();
    const again = await t.invoke({ n: 1 });
    console.log(JSON.stringify({ texts: [a.result.content[0].text, b.result.content[0].text, again.result.content[0].text], listed: listed.length, loadedWhileRacing, same: first === loadedPipeline() }));
  `);
  assert.deepEqual(result, { texts: ['3', '6', '4'], listed: 0, loadedWhileRacing: false, same: true });
});

test('validateJson before the pipeline loaded checks the value as it was when called', () => {
  const result = fresh(`
    const value = { a: 1, nested: { b: 'x' } };
    const schema = { type: 'object', properties: { a: { maximum: 10 }, nested: { type: 'object', properties: { b: { type: 'string' } } } } };
    const pending = warden.validateJson(schema, value);
    value.a = 1_000_000;
    value.nested.b = 5;
    const verdict = await pending;
    const cyclic = {};
    cyclic.self = cyclic;
    const cycle = await warden.validateJson({}, cyclic);
    console.log(JSON.stringify({ verdict, cycle: cycle.valid === false && cycle.diagnostics[0].keyword }));
  `);
  assert.deepEqual(result.verdict, { valid: true }, 'the value was checked before it changed');
  assert.equal(typeof result.cycle, 'string', 'a value JSON cannot write is still a diagnostic');
});

test('normalizeResult and normalizeError work without the pipeline, and load nothing', () => {
  const result = fresh(`
    const big = { n: 1n, ok: true };
    const normalized = warden.normalizeResult(big);
    const error = warden.normalizeError(new Error('nope'));
    console.log(JSON.stringify({ text: normalized.content[0].text, error, loaded: loadedPipeline() !== undefined }));
  `);
  assert.match(result.text, /BigInt removed/);
  assert.deepEqual(result.error, { content: [{ type: 'text', text: 'Error: nope' }], isError: true });
  assert.equal(result.loaded, false);
});

test('once the chunk is loaded, it works on the entry\'s own objects: one core, one WardenError class', () => {
  const result = fresh(`
    const { loadPipeline } = await import(${JSON.stringify(dist + 'api/pipeline-loader.js')});
    const chunk = await loadPipeline();
    const { core } = await import(${JSON.stringify(dist + 'boundary/core.js')});
    // A failing toolsListed hook fails the listing with a WardenError thrown inside the chunk (listing.ts).
    const c = warden.createWarden({ hooks: { toolsListed: [() => { throw new Error('no'); }] } });
    await c.webmcp(() => 'x', { name: 'listed', description: 'Listed.' }).register();
    let thrown;
    try {
      await c.listTools();
    } catch (err) {
      thrown = err;
    }
    console.log(JSON.stringify({ sameCore: chunk.core === core, sameError: thrown instanceof warden.WardenError, code: thrown?.code }));
  `);
  assert.equal(result.sameCore, true);
  assert.equal(result.sameError, true, 'what the chunk throws is an instance of the entry\'s WardenError');
  assert.equal(result.code, 'hook_failed');
});
