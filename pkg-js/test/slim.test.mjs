// webmcp-warden/slim (pkg-js/src/slim.ts, src/boundary/core-source-slim.ts): the main entry's API
// with the core loaded from its `.wasm` file by `await init()` (docs/behaviour.md, "The /slim
// entry"). Each case runs in a fresh Node process: whether the core is loaded is the process's
// state. The packaging tests install it and build a page with it (pkg-js/test-pack).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { runFresh } from '../test-support/fresh-process.mjs';

const slim = new URL('../dist/slim/slim.js', import.meta.url).href;
const wasmUrl = new URL('../dist/slim/warden_core.wasm', import.meta.url);

test('the build ships the core as a file beside the /slim entry, and package.json exports it with types', () => {
  assert.ok(existsSync(wasmUrl), 'dist/slim/warden_core.wasm');
  const bytes = readFileSync(wasmUrl);
  assert.ok(WebAssembly.Module.exports(new WebAssembly.Module(bytes)).some((e) => e.name === 'engineNew'), 'it is the core');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.deepEqual(pkg.exports['./slim'], { types: './dist/types/slim.d.ts', default: './dist/slim/slim.js' });
  assert.equal(pkg.exports['./slim/warden_core.wasm'], './dist/slim/warden_core.wasm', "the file's own export, for a bundler that takes its URL (Vite's ?url, esbuild's file loader)");
  assert.ok(existsSync(new URL('../dist/types/slim.d.ts', import.meta.url)));
});

test('/slim carries none of the core\'s embedded bytes; the main entry none of /slim', async () => {
  const inputsOf = async (entry) => {
    const result = await build({ entryPoints: [fileURLToPath(entry)], bundle: true, write: false, format: 'esm', platform: 'neutral', splitting: true, outdir: '/out', metafile: true, logLevel: 'silent' });
    return { text: result.outputFiles.map((f) => f.text).join('\n'), inputs: Object.keys(result.metafile.inputs) };
  };
  const fromSlim = await inputsOf(new URL(slim));
  const coreBytes = readFileSync(new URL('../wasm/warden_core_bytes.js', import.meta.url), 'utf8').match(/"([A-Za-z0-9+/=]{64})/)[1];
  assert.ok(!fromSlim.text.includes(coreBytes), "the core's embedded bytes are not in /slim's files");
  const main = await inputsOf(new URL('../dist/index.js', import.meta.url));
  assert.ok(main.text.includes(coreBytes), 'the main entry carries them (so the check above can fail)');
  assert.deepEqual(main.inputs.filter((file) => file.includes('slim')), [], 'the main entry reaches nothing of dist/slim/');
});

test('before init(): what needs the core throws or rejects with not_initialized, a call fails closed; after it, calls are governed', () => {
  const out = runFresh(`
    const w = await import(${JSON.stringify(slim)});
    const seen = (err) => ({ name: err.name, code: err.code, isWarden: err instanceof w.WardenError });
    const out = {};
    try { w.configureWebMCP({ policy: { deny: [{ match: 'page/add', when: { arg: '/a', equals: 0 } }], default: 'allow' } }); out.configure = 'configured'; } catch (err) { out.configure = seen(err); }
    let ran = 0;
    const tool = w.webmcp(({ a, b }) => a + b, { name: 'add', description: 'Adds', hooks: { before: [() => { ran++; }] } });
    out.ready = await w.ready().then(() => 'ready', seen);
    const early = await tool.invoke({ a: 1, b: 2 });
    out.early = { ok: early.ok, reason: early.error?.reason, text: early.result.content[0].text, ran };
    await w.init();
    w.configureWebMCP({ policy: { deny: [{ match: 'page/add', when: { arg: '/a', equals: 0 } }], default: 'allow' } });
    const ok = await tool.invoke({ a: 1, b: 2 });
    const denied = await tool.invoke({ a: 0, b: 2 });
    out.after = { ok: ok.ok, text: ok.result.content[0].text, denied: denied.error?.kind, ran };
    console.log(JSON.stringify(out));
  `);
  assert.deepEqual(out.configure, { name: 'ConfigurationError', code: 'not_initialized', isWarden: true });
  assert.deepEqual(out.ready, { name: 'ConfigurationError', code: 'not_initialized', isWarden: true });
  assert.deepEqual(out.early, { ok: false, reason: 'internal_error', text: 'Error: internal error in webmcp-warden', ran: 0 }, 'the tool did not run ungoverned');
  assert.deepEqual(out.after, { ok: true, text: '3', denied: 'denied', ran: 2 });
});

test('an init() in progress is waited for by what is asynchronous (ready(), a call)', () => {
  const out = runFresh(`
    const w = await import(${JSON.stringify(slim)});
    const tool = w.webmcp(({ a, b }) => a + b, { name: 'add', description: 'Adds' });
    const loading = w.init();
    const [, , call] = await Promise.all([loading, w.ready(), tool.invoke({ a: 2, b: 2 })]);
    console.log(JSON.stringify({ text: call.result.content[0].text, again: await w.init(42).then(() => 'resolved at once') }));
  `);
  assert.deepEqual(out, { text: '4', again: 'resolved at once' });
});

test('init() takes the file by URL (string, URL, file:), a Response, a promise of one, the bytes, a compiled module, or { core }', () => {
  const sources = {
    default: '',
    'string URL': JSON.stringify(wasmUrl.href),
    URL: `new URL(${JSON.stringify(wasmUrl.href)})`,
    Response: `new Response(readFileSync(new URL(${JSON.stringify(wasmUrl.href)})))`,
    'promise of a Response': `Promise.resolve(new Response(readFileSync(new URL(${JSON.stringify(wasmUrl.href)}))))`,
    Uint8Array: `new Uint8Array(readFileSync(new URL(${JSON.stringify(wasmUrl.href)})))`,
    ArrayBuffer: `new Uint8Array(readFileSync(new URL(${JSON.stringify(wasmUrl.href)}))).buffer`,
    'WebAssembly.Module': `new WebAssembly.Module(readFileSync(new URL(${JSON.stringify(wasmUrl.href)})))`,
    '{ core }': `{ core: ${JSON.stringify(wasmUrl.href)} }`,
    "the package's export of the file": `import.meta.resolve('webmcp-warden/slim/warden_core.wasm')`,
  };
  for (const [name, source] of Object.entries(sources)) {
    const out = runFresh(`
      import { readFileSync } from 'node:fs';
      const w = await import(${JSON.stringify(slim)});
      await w.init(${source});
      const tool = w.webmcp(({ a, b }) => a + b, { name: 'add', description: 'Adds' });
      console.log(JSON.stringify((await tool.invoke({ a: 1, b: 2 })).result.content[0].text));
    `);
    assert.equal(out, '3', name);
  }
});

test('init() with what is not the core rejects at once with a clear error, and a later init() still loads it', () => {
  const cases = {
    42: ['ConfigurationError', 'invalid_init', /got number/],
    null: ['ConfigurationError', 'invalid_init', /got null/],
    '[1]': ['ConfigurationError', 'invalid_init', /got an array/],
    '{ core: 7 }': ['ConfigurationError', 'invalid_init', /got number/],
    'Promise.resolve(5)': ['ConfigurationError', 'invalid_init', /a promise that resolved to number/],
    "'::no url::'": ['ConfigurationError', 'invalid_init', /which is no URL/],
    "'file:///nonexistent/warden_core.wasm'": ['WardenError', 'internal_error', /could not be loaded from file:\/\/\/nonexistent\/warden_core\.wasm \(ENOENT/],
    "new Response('nope', { status: 404 })": ['WardenError', 'internal_error', /HTTP 404/],
    'new Uint8Array([1, 2, 3])': ['WardenError', 'internal_error', /could not be loaded from the bytes given/],
    'new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])': ['ConfigurationError', 'invalid_init', /not the core/],
  };
  for (const [source, [name, code, message]] of Object.entries(cases)) {
    const out = runFresh(`
      const w = await import(${JSON.stringify(slim)});
      const failed = await w.init(${source}).then(() => 'resolved', (err) => ({ name: err.name, code: err.code, message: err.message, isWarden: err instanceof w.WardenError }));
      await w.init();
      console.log(JSON.stringify({ failed, later: (await w.webmcp(() => 'ok', { name: 'ping', description: 'Pings.' }).invoke({})).result.content[0].text }));
    `);
    assert.equal(out.failed.name, name, source);
    assert.equal(out.failed.code, code, source);
    assert.match(out.failed.message, message, source);
    assert.ok(out.failed.isWarden, source);
    assert.equal(out.later, 'ok', `${source}: a later init() loaded the core`);
  }
});
