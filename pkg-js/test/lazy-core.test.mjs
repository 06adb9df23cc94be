// A tool without hooks is defined without loading the core: the core could refuse nothing about
// it, so `webmcp()` only writes it in its client's log (client.ts, `defineTool`). So is a tool
// whose hooks are plain functions (hookset.test.mjs holds how those are filed to the core's). `register()`
// then loads the core off the main thread (`ready()`'s path), and anything else that needs the
// core (a call, `tool.fingerprint`) loads it at once, as before. Each scenario runs in a fresh
// process, where nothing has loaded the core yet.
import test from 'node:test';
import assert from 'node:assert/strict';
import { countSyncCompiles, runFresh } from '../test-support/fresh-process.mjs';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../lib/', import.meta.url));

/** Runs `body` as a module in a fresh `node`, after a preamble, and answers what it printed last (JSON). */
function fresh(body) {
  const script = `
    const core = await import(${JSON.stringify(dist + 'boundary/core.js')});
    const { webmcp, createWarden } = await import(${JSON.stringify(dist + 'index.js')});
    // Counts the core's synchronous compiles (a module that exports engineNew) and every
    // asynchronous one.
    const counts = { coreSync: 0, async: 0 };
    ${countSyncCompiles('counts', 'coreSync', 'engineNew')}
    const compile = WebAssembly.compile;
    WebAssembly.compile = (...args) => (counts.async++, compile(...args));
    const contract = { description: 'Searches', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } };
    const search = ({ q }) => q;
    // The same definition defined eagerly (a tool with a hook object needs the core at once).
    const eagerFingerprint = () => createWarden().webmcp(search, { name: 'search', ...contract, hooks: { before: [{ run: () => {} }] } }).fingerprint;
    ${body}
  `;
  return runFresh(script);
}

test('webmcp() of a tool without hooks loads nothing; register() loads the core off the main thread', () => {
  const result = fresh(`
    const t = webmcp(search, { name: 'search', ...contract });
    const afterWebmcp = core.liveGeneration();
    await t.register();
    const afterRegister = { live: core.liveGeneration(), ...counts };
    const outcome = await t.invoke({ q: 'lamp' });
    console.log(JSON.stringify({ afterWebmcp, afterRegister, text: outcome.result.content[0].text, fingerprint: t.fingerprint, eager: eagerFingerprint() }));
  `);
  assert.equal(result.afterWebmcp, -1, 'webmcp() did not load the core');
  assert.ok(result.afterRegister.live >= 1, 'register() left a live core');
  assert.equal(result.afterRegister.coreSync, 0, 'the core was not compiled synchronously');
  assert.ok(result.afterRegister.async >= 1, 'it was compiled with WebAssembly.compile');
  assert.equal(result.text, 'lamp');
  assert.match(result.fingerprint, /^[0-9a-f]{64}$/);
  assert.equal(result.fingerprint, result.eager, 'the same fingerprint as when defined at once');
});

test('a first call loads the core beside the pipeline chunk, off the main thread; tool.fingerprint loads it at once', () => {
  const result = fresh(`
    const called = webmcp(search, { name: 'search', ...contract });
    const outcome = await called.invoke({ q: 'desk' });
    const afterCall = core.liveGeneration();
    console.log(JSON.stringify({ text: outcome.result.content[0].text, afterCall, coreSync: counts.coreSync, compiledAsync: counts.async > 0 }));
  `);
  assert.deepEqual(result, { text: 'desk', afterCall: 1, coreSync: 0, compiledAsync: true });

  const read = fresh(`
    const t = webmcp(search, { name: 'search', ...contract });
    const fingerprint = t.fingerprint;
    console.log(JSON.stringify({ fingerprint, live: core.liveGeneration(), eager: eagerFingerprint() }));
  `);
  assert.equal(read.live, 1);
  assert.equal(read.fingerprint, read.eager);
});

test('a logged tool is defined when its client makes its engine, even when another client loaded the core', () => {
  const result = fresh(`
    const late = createWarden();
    const t = late.webmcp(search, { name: 'search', ...contract });
    const other = createWarden();
    other.configure({ hookTimeout: 100, policy: { default: 'allow' } });
    const live = core.liveGeneration();
    const outcome = await t.invoke({ q: 'chair' });
    console.log(JSON.stringify({ live, text: outcome.result.content[0].text, fingerprint: t.fingerprint, eager: eagerFingerprint() }));
  `);
  assert.equal(result.live, 1, 'the other client loaded the core');
  assert.equal(result.text, 'chair');
  assert.equal(result.fingerprint, result.eager);
});

for (const [kind, hook, loads] of [
  ['plain functions (logged too)', "() => void seen.push('wrapped')", -1],
  ['a hook object (checked at once)', "{ id: 'w', run: () => void seen.push('wrapped') }", 1],
]) {
  test(`re-wrapping a logged tool with hooks of ${kind} keeps both tools apart`, () => {
    const result = fresh(`
      const seen = [];
      const plain = webmcp(search, { name: 'search', ...contract });
      const liveBefore = core.liveGeneration();
      const wrapped = webmcp(plain, { hooks: { before: [${hook}] } });
      const liveAfter = core.liveGeneration();
      const texts = [(await wrapped.invoke({ q: 'a' })).result.content[0].text, (await plain.invoke({ q: 'b' })).result.content[0].text];
      console.log(JSON.stringify({ liveBefore, liveAfter, texts, seen, same: plain.fingerprint === wrapped.fingerprint, eager: plain.fingerprint === eagerFingerprint() }));
    `);
    assert.deepEqual(result, { liveBefore: -1, liveAfter: loads, texts: ['a', 'b'], seen: ['wrapped'], same: true, eager: true });
  });
}

test('a client disposed before it had an engine still answers its tools\' fingerprints', () => {
  const result = fresh(`
    const client = createWarden();
    const t = client.webmcp(search, { name: 'search', ...contract });
    client.dispose();
    console.log(JSON.stringify({ fingerprint: t.fingerprint, eager: eagerFingerprint() }));
  `);
  assert.match(result.fingerprint, /^[0-9a-f]{64}$/);
  assert.equal(result.fingerprint, result.eager);
});

test('hooks still need the core at once: webmcp() loads it, and a matcher only the core refuses throws', () => {
  const result = fresh(`
    let code;
    try {
      webmcp(search, { name: 'search', ...contract, hooks: { before: [{ match: 'a/b/c', run: () => {} }] } });
    } catch (err) {
      code = err.name + ':' + err.code;
    }
    console.log(JSON.stringify({ code, live: core.liveGeneration(), coreSync: counts.coreSync }));
  `);
  assert.deepEqual(result, { code: 'ConfigurationError:invalid_matcher', live: 1, coreSync: 1 });
});
