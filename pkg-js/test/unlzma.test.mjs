// The entry's LZMA decoder (src/unlzma.ts, the `unlzma/` crate), which unpacks every wasm module
// the package ships: at once on the core's synchronous path, in slices on every other. Checked
// against the shipped modules (each decodes to a module with its exports, both ways alike) and
// streams that must be refused with the reason. The decoder itself is checked against lzma-rs
// and `xz` in `unlzma/tests/`. Build first: `node pkg-js/build.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBase64 } from '../lib/boundary/embedded-bytes.js';
import { unlzma, unlzmaAsync } from '../lib/boundary/unlzma.js';

const MODULES = { warden_core: 'engineNew', warden_shape: 'shapeResult', warden_validate: 'validate', warden_patterns: 'judge', warden_linear: 'test' };
const stream = async (name) => decodeBase64((await import(`../wasm/${name}_bytes.js`)).WASM_LZMA_BASE64);

for (const [name, exported] of Object.entries(MODULES)) {
  test(`${name}: decodes to the module, at once and in slices alike`, async () => {
    const bytes = await stream(name);
    const sync = Buffer.from(unlzma(bytes));
    const sliced = Buffer.from(await unlzmaAsync(bytes));
    assert.ok(sync.equals(sliced), 'the two ways answer the same bytes');
    const module = new WebAssembly.Module(sync);
    assert.ok(WebAssembly.Module.exports(module).some((e) => e.name === exported), `${name} exports ${exported}`);
  });
}

test('two decodes at once keep their own answers (each has an instance of its own)', async () => {
  const [core, shape] = await Promise.all([stream('warden_core'), stream('warden_shape')]);
  const [a, b] = await Promise.all([unlzmaAsync(core), unlzmaAsync(shape)]);
  assert.ok(Buffer.from(a).equals(Buffer.from(unlzma(core))));
  assert.ok(Buffer.from(b).equals(Buffer.from(unlzma(shape))));
});

test('a stream cut short, with foreign properties, or corrupt is refused with the reason, both ways', async () => {
  const core = await stream('warden_core');
  const foreign = new Uint8Array(core);
  foreign[0] = 255;
  const corrupt = new Uint8Array(core);
  corrupt[1] = 7; // the range coder's first byte is always zero
  for (const [bad, reason] of [
    [core.subarray(0, core.length - 100), /does not decode: the data ends before its end marker/],
    [foreign, /does not decode: unsupported properties/],
    [corrupt, /does not decode: the data is corrupt/],
    [new Uint8Array(600 * 1024), /the input is too large/],
  ]) {
    assert.throws(() => unlzma(bad), reason);
    await assert.rejects(unlzmaAsync(bad), reason);
  }
});
