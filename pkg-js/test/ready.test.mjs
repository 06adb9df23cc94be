// ready(): the optional warm-up. In a fresh process (the core not loaded yet), it inflates and
// compiles the core without the synchronous path, and the first webmcp() then only instantiates.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));

test('ready() compiles the core off the synchronous path; webmcp() afterwards works; ready() settles once', () => {
  const script = `
    const core = await import(${JSON.stringify(dist + 'core.js')});
    const { webmcp, ready } = await import(${JSON.stringify(dist + 'index.js')});
    const before = core.liveGeneration();
    const first = ready();
    const second = ready();
    await Promise.all([first, second]);
    const after = core.liveGeneration();
    const t = webmcp(({ n }) => n * 2, { name: 'twice', description: 'Doubles' });
    const outcome = await t.invoke({ n: 21 });
    console.log(JSON.stringify({ before, after, same: first === second, text: outcome.result.content[0].text }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop();
  const result = JSON.parse(out);
  assert.equal(result.before, -1, 'nothing loaded at import');
  assert.ok(result.after >= 1, 'ready() leaves a live core');
  assert.equal(result.same, true, 'concurrent ready() calls share one load');
  assert.equal(result.text, '42');
});

test('decodeBase64 uses the platform decoder where there is one (Uint8Array.fromBase64), else Buffer or atob', async () => {
  const { decodeBase64 } = await import(dist + 'embedded-bytes.js');
  const text = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255, 77]).toString('base64');
  const expected = [0, 1, 2, 250, 251, 252, 253, 254, 255, 77];
  const had = Object.getOwnPropertyDescriptor(Uint8Array, 'fromBase64');
  let calls = 0;
  Object.defineProperty(Uint8Array, 'fromBase64', {
    configurable: true,
    writable: true,
    value(input) {
      calls++;
      assert.equal(this, Uint8Array, 'called on Uint8Array, as a static method');
      return new Uint8Array(Buffer.from(input, 'base64'));
    },
  });
  try {
    assert.deepEqual([...decodeBase64(text)], expected);
    assert.equal(calls, 1, 'the native decoder was used');
  } finally {
    if (had) Object.defineProperty(Uint8Array, 'fromBase64', had);
    else delete Uint8Array.fromBase64;
  }
  // Without it (Node 20): Buffer; without Buffer too: atob.
  assert.deepEqual([...decodeBase64(text)], expected);
  const buffer = globalThis.Buffer;
  globalThis.Buffer = undefined;
  try {
    assert.deepEqual([...decodeBase64(text)], expected);
  } finally {
    globalThis.Buffer = buffer;
  }
});
