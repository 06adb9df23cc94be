// What a page gets when part of the package cannot load: the core (a CSP without
// 'wasm-unsafe-eval' refuses every compile), the pipeline chunk or the validator chunk (a deploy
// that removed it). Every load or compile failure thrown or rejected is a `WardenError` with a
// code (never the platform's bare `CompileError` or `import()` error); a call answers the
// generic text only (never the loader's message or a chunk's path); a `register()` that
// rejects leaves nothing behind (no registry entry an agent's call could find, nothing the next
// sync registers with the browser); and the next use tries again. Each scenario runs in a fresh
// process; the chunk scenarios on a copy of the built package with the chunk removed (Node
// retries a module it did not find; one whose load failed otherwise it keeps failing until the
// process restarts, which docs/behaviour.md says).
import test from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFresh } from '../test-support/fresh-process.mjs';

const pkg = fileURLToPath(new URL('../', import.meta.url));

/** A copy of the built package (dist/ and wasm/) in a temporary folder; removed after the test. */
function copyOfPackage(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'warden-load-'));
  cpSync(path.join(pkg, 'lib'), path.join(dir, 'lib'), { recursive: true });
  cpSync(path.join(pkg, 'wasm'), path.join(dir, 'wasm'), { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a core that cannot compile: WardenError with a code everywhere it is thrown, the generic text for calls, nothing left by register(), and a retry once wasm is allowed', () => {
  const dist = path.join(pkg, 'dist/');
  const result = runFresh(`
    // The core's compile fails (as under a CSP that refuses wasm), synchronous or not; other
    // modules (Node's own) compile as usual.
    let refuse = true;
    const { Module, compile } = WebAssembly;
    const isCore = (module) => Module.exports(module).some((e) => e.name === 'engineNew');
    const refused = () => new WebAssembly.CompileError('refused by the test (CSP)');
    WebAssembly.Module = new Proxy(Module, { construct: (target, args) => { const module = Reflect.construct(target, args); if (refuse && isCore(module)) throw refused(); return module; } });
    WebAssembly.compile = async (...args) => { const module = await compile(...args); if (refuse && isCore(module)) throw refused(); return module; };
    const warden = await import(${JSON.stringify(dist + 'index.js')});
    const { modelContext } = (await import(${JSON.stringify(dist + 'testing.js')})).installFakeModelContext();
    const seen = (err) => ({ name: err.name, code: err.code, isWarden: err instanceof warden.WardenError, message: err.message });
    const out = {};
    try { warden.webmcp(() => 1, { name: 'hooked', description: 'd', hooks: { before: [{ id: 'h', run: () => {} }] } }); } catch (err) { out.webmcp = seen(err); }
    try { await warden.ready(); } catch (err) { out.ready = seen(err); }
    let runs = 0;
    const t = warden.webmcp(() => (runs++, 'ran'), { name: 'plain', description: 'Plain.' });
    try { await t.register(); out.register = 'registered'; } catch (err) { out.register = { ...seen(err), status: t.status }; }
    const byAgent = await warden.invokeTool('plain', {});
    const other = await warden.invokeTool('anything', {});
    out.agent = { reason: byAgent.error?.reason, text: byAgent.result.content[0].text, other: other.error?.reason };
    const invoked = await t.invoke({});
    out.invoke = { reason: invoked.error?.reason, text: invoked.result.content[0].text };
    out.browser = (await modelContext.getTools()).map((tool) => tool.name);
    out.runs = runs;
    refuse = false;
    await t.register();
    out.retried = { status: t.status, text: (await warden.invokeTool('plain', {})).result.content[0].text, browser: (await modelContext.getTools()).map((tool) => tool.name) };
    console.log(JSON.stringify(out));
  `);
  for (const where of ['webmcp', 'ready', 'register']) {
    assert.equal(result[where].name, 'WardenError', `${where}: ${JSON.stringify(result[where])}`);
    assert.equal(result[where].code, 'internal_error', where);
    assert.equal(result[where].isWarden, true, where);
    assert.match(result[where].message, /core module could not be loaded \(refused by the test \(CSP\)\)/, where);
  }
  assert.equal(result.register.status, 'error');
  assert.deepEqual(result.agent, { reason: 'unknown_tool', text: 'Error: Unknown tool "plain"', other: 'unknown_tool' }, 'the failed register() left nothing an agent could call');
  assert.deepEqual(result.invoke, { reason: 'internal_error', text: 'Error: internal error in webmcp-warden' });
  assert.deepEqual(result.browser, [], 'the failed register() registered nothing, and no agent call registered it since');
  assert.equal(result.runs, 0);
  assert.deepEqual(result.retried, { status: 'registered', text: 'ran', browser: ['plain'] });
});

test('a pipeline chunk that does not load: calls answer the generic text (no chunk path), register() rejects with a code and leaves nothing; the next use loads it', (t) => {
  const dir = copyOfPackage(t);
  const chunk = path.join(dir, 'lib', 'pipeline', 'pipeline.js');
  const result = runFresh(`
    import { renameSync } from 'node:fs';
    renameSync(${JSON.stringify(chunk)}, ${JSON.stringify(chunk + '.away')});
    const warden = await import(${JSON.stringify(path.join(dir, 'lib', 'index.js'))});
    const { modelContext } = (await import(${JSON.stringify(path.join(dir, 'lib', 'testing.js'))})).installFakeModelContext();
    const out = {};
    const t = warden.webmcp(() => 'ran', { name: 'plain', description: 'Plain.' });
    const invoked = await t.invoke({});
    out.invoke = { reason: invoked.error?.reason, message: invoked.error?.message, text: invoked.result.content[0].text };
    try { await t.register(); } catch (err) { out.register = { name: err.name, code: err.code, message: err.message, status: t.status }; }
    try { await warden.listTools(); } catch (err) { out.listTools = err.code; }
    try { await warden.validateJson({}, 1); } catch (err) { out.validateJson = err.code; }
    out.agent = (await warden.invokeTool('plain', {})).error?.reason;
    out.browser = (await modelContext.getTools()).map((tool) => tool.name);
    renameSync(${JSON.stringify(chunk + '.away')}, ${JSON.stringify(chunk)});
    await t.register();
    out.retried = { status: t.status, text: (await warden.invokeTool('plain', {})).result.content[0].text };
    console.log(JSON.stringify(out));
  `);
  assert.deepEqual(result.invoke, { reason: 'internal_error', message: 'internal error in webmcp-warden', text: 'Error: internal error in webmcp-warden' }, 'no loader message, no chunk path');
  assert.equal(result.register.name, 'WardenError');
  assert.equal(result.register.code, 'internal_error');
  assert.match(result.register.message, /pipeline chunk did not load/, 'the page is told why');
  assert.equal(result.register.status, 'error');
  assert.equal(result.listTools, 'internal_error');
  assert.equal(result.validateJson, 'internal_error');
  assert.equal(result.agent, 'unknown_tool', 'the failed register() left nothing in the registry');
  assert.deepEqual(result.browser, []);
  assert.deepEqual(result.retried, { status: 'registered', text: 'ran' });
});

test('a validator chunk that does not load: register() and validateJson reject with a WardenError code; a call is data with the generic text', (t) => {
  const dir = copyOfPackage(t);
  const chunk = path.join(dir, 'lib', 'validator', 'validator-chunk.js');
  const result = runFresh(`
    import { renameSync } from 'node:fs';
    renameSync(${JSON.stringify(chunk)}, ${JSON.stringify(chunk + '.away')});
    const warden = await import(${JSON.stringify(path.join(dir, 'lib', 'index.js'))});
    const out = {};
    let runs = 0;
    const t = warden.webmcp(() => (runs++, 'ran'), { name: 'schema_tool', description: 'd', inputSchema: { type: 'object' } });
    try { await t.register(); } catch (err) { out.register = { name: err.name, code: err.code, message: err.message, status: t.status }; }
    try { await warden.validateJson({ type: 'object' }, {}); } catch (err) { out.validateJson = { name: err.name, code: err.code }; }
    const invoked = await t.invoke({});
    out.invoke = { reason: invoked.error?.reason, text: invoked.result.content[0].text };
    out.agent = (await warden.invokeTool('schema_tool', {})).error?.reason;
    out.runs = runs;
    console.log(JSON.stringify(out));
  `);
  assert.deepEqual([result.register.name, result.register.code, result.register.status], ['WardenError', 'internal_error', 'error']);
  assert.match(result.register.message, /JSON Schema validator module did not load/);
  assert.deepEqual(result.validateJson, { name: 'WardenError', code: 'internal_error' });
  assert.deepEqual(result.invoke, { reason: 'internal_error', text: 'Error: internal error in webmcp-warden' });
  assert.equal(result.agent, 'unknown_tool');
  assert.equal(result.runs, 0);
});

test('the small chunks some calls need: without call-extras a call that asks an approver fails closed before it; without the payload recorder a call records no payloads and goes on', (t) => {
  const dir = copyOfPackage(t);
  const result = runFresh(`
    import { renameSync } from 'node:fs';
    const dist = ${JSON.stringify(path.join(dir, 'lib'))};
    renameSync(dist + '/pipeline/call-extras.js', dist + '/pipeline/call-extras.js.away');
    renameSync(dist + '/pipeline/payloads.js', dist + '/pipeline/payloads.js.away');
    const warden = await import(dist + '/index.js');
    let asked = 0;
    let runs = 0;
    const events = [];
    const c = warden.createWarden({ policy: { ask: ['*'] }, onAsk: () => (asked++, { allow: 'once' }), capturePayloads: true });
    c.onTelemetry((e) => events.push(e));
    const t = c.webmcp(() => (runs++, 'ran'), { name: 'asks', description: 'd', shape: false });
    const failed = await t.invoke({ q: 1 });
    c.configure({ policy: null });
    const recorded = await t.invoke({ q: 2 });
    const stop = events.filter((e) => e.name === 'tool_call.stop').at(-1);
    renameSync(dist + '/pipeline/call-extras.js.away', dist + '/pipeline/call-extras.js');
    renameSync(dist + '/pipeline/payloads.js.away', dist + '/pipeline/payloads.js');
    c.configure({ policy: { ask: ['*'] } });
    const retried = await t.invoke({ q: 3 });
    const stopAfter = events.filter((e) => e.name === 'tool_call.stop').at(-1);
    console.log(JSON.stringify({ failed: [failed.error?.reason, failed.result.content[0].text], asked, recorded: recorded.ok, payloads: 'arguments' in stop, retried: retried.ok, payloadsAfter: stopAfter.arguments, runs }));
  `);
  assert.deepEqual(result.failed, ['internal_error', 'Error: internal error in webmcp-warden']);
  assert.equal(result.recorded, true, 'a call whose payload recorder did not load still answers');
  assert.equal(result.payloads, false, 'and records no payloads');
  assert.equal(result.retried, true, 'the next call loads both');
  assert.deepEqual(result.payloadsAfter, { q: 3 });
  assert.equal(result.asked, 1, 'the approver was asked only once both loaded');
  assert.equal(result.runs, 2);
});
