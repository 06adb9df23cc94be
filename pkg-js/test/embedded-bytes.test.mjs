// embedded-bytes.ts: the text the package's wasm modules ship as (base64 for the LZMA-compressed
// modules, hex for their decoder) back to bytes, with the platform's decoder where there is
// one and a fallback everywhere else.
import test from 'node:test';
import assert from 'node:assert/strict';

const { decodeBase64 } = await import('../lib/boundary/embedded-bytes.js');
const { decodeHex } = await import('../lib/boundary/unlzma.js');

const BYTES = [0, 1, 2, 0x7f, 0x80, 0xab, 0xcd, 0xef, 250, 255, 77];

/**
 * Runs `check` with `Uint8Array[name]` replaced by a spy that decodes `encoding` with Buffer (or
 * removed, with `encoding` undefined); puts back what was there. Answers the spy's call count.
 */
function withNative(name, encoding, check) {
  const had = Object.getOwnPropertyDescriptor(Uint8Array, name);
  let calls = 0;
  delete Uint8Array[name];
  if (encoding) {
    Object.defineProperty(Uint8Array, name, {
      configurable: true,
      writable: true,
      value(input) {
        calls++;
        assert.equal(this, Uint8Array, 'called on Uint8Array, as a static method');
        return new Uint8Array(Buffer.from(input, encoding));
      },
    });
  }
  try {
    check();
  } finally {
    delete Uint8Array[name];
    if (had) Object.defineProperty(Uint8Array, name, had);
  }
  return calls;
}

test('decodeBase64 uses Uint8Array.fromBase64 where there is one, else Buffer, else atob', () => {
  const text = Buffer.from(BYTES).toString('base64');
  assert.equal(withNative('fromBase64', 'base64', () => assert.deepEqual([...decodeBase64(text)], BYTES)), 1, 'the native decoder was used');
  withNative('fromBase64', undefined, () => {
    assert.deepEqual([...decodeBase64(text)], BYTES, 'Buffer (Node 20)');
    const buffer = globalThis.Buffer;
    globalThis.Buffer = undefined;
    try {
      assert.deepEqual([...decodeBase64(text)], BYTES, 'atob and a loop');
    } finally {
      globalThis.Buffer = buffer;
    }
  });
});

test('decodeHex (how the decoder ships) uses Uint8Array.fromHex where there is one, else a loop', () => {
  const hex = Buffer.from(BYTES).toString('hex');
  assert.equal(withNative('fromHex', 'hex', () => assert.deepEqual([...decodeHex(hex)], BYTES)), 1, 'the native decoder was used');
  withNative('fromHex', undefined, () => {
    assert.deepEqual([...decodeHex(hex)], BYTES, 'the loop');
    assert.deepEqual([...decodeHex('')], []);
  });
});
