// inflateRaw: the wasm decoder that unpacks the embedded core (src/inflate.ts, inflate/ crate),
// checked against Node's zlib on the very stream the package ships and on zlib's own output at
// every kind of block; and every failure is an Error saying why, never a trap or a wrong answer.
import test from 'node:test';
import assert from 'node:assert/strict';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';

const { inflateRaw } = await import('../dist/inflate.js');
const { decodeBase64 } = await import('../dist/embedded-bytes.js');
const { WASM_DEFLATED_BASE64 } = await import('../wasm/warden_core_bytes.js');

/** Bytes with repeats near and far, and every byte value: what a wasm module looks like to deflate. */
function sample(length, seed = 0x2545f491) {
  const words = ['warden ', 'policy ', 'hook ', '\u0000\u00ff\u007f', 'tool_call '].map((w) => Buffer.from(w, 'latin1'));
  const out = [];
  let size = 0;
  let state = seed;
  while (size < length) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const piece = state % 7 === 0 ? Buffer.from([state >>> 8 & 0xff]) : words[state % 5];
    out.push(piece);
    size += piece.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

test('the embedded core inflates to exactly what zlib makes of it', () => {
  const deflated = decodeBase64(WASM_DEFLATED_BASE64);
  const ours = inflateRaw(deflated);
  const zlibs = inflateRawSync(deflated);
  assert.equal(ours.length, zlibs.length);
  assert.ok(Buffer.from(ours.buffer, ours.byteOffset, ours.length).equals(zlibs), 'byte for byte');
  assert.ok(WebAssembly.validate(ours), 'and it is a valid module');
});

test('zlib output at every level and strategy comes back unchanged', () => {
  const strategies = [constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED];
  for (const length of [0, 1, 300, 70_000]) {
    const data = sample(length, length + 1);
    for (const level of [0, 1, 6, 9]) {
      for (const strategy of strategies) {
        const back = inflateRaw(deflateRawSync(data, { level, strategy }));
        assert.ok(Buffer.from(back).equals(data), `length ${length}, level ${level}, strategy ${strategy}`);
      }
    }
  }
});

test('a stream that does not inflate is an Error saying why', () => {
  const stream = deflateRawSync(sample(5_000));
  assert.throws(() => inflateRaw(stream.subarray(0, stream.length - 1)), /does not inflate: the data ends inside a block/);
  assert.throws(() => inflateRaw(new Uint8Array()), /the data ends inside a block/);
  // The first byte says: final block (bit 0), block type 3 (bits 1–2), which is reserved.
  assert.throws(() => inflateRaw(Uint8Array.of(0b111)), /a reserved block type/);
  // A stored block whose length's complement is wrong.
  assert.throws(() => inflateRaw(Uint8Array.of(1, 3, 0, 3, 0)), /a stored block with a wrong length/);
  // 2 MB of zeros deflate to ~2 KB, and inflate past the decoder's 1 MiB output.
  assert.throws(() => inflateRaw(deflateRawSync(new Uint8Array(2_000_000))), /the output is too large/);
  // Larger than the decoder's input buffer.
  assert.throws(() => inflateRaw(deflateRawSync(sample(700_000), { level: 0 })), /the input is too large/);
});

test('each call answers its own stream, and a failed one does not spoil the next', () => {
  const first = sample(1_000, 7);
  const second = sample(2_000, 8);
  assert.ok(Buffer.from(inflateRaw(deflateRawSync(first))).equals(first));
  assert.throws(() => inflateRaw(Uint8Array.of(0b111)));
  assert.ok(Buffer.from(inflateRaw(deflateRawSync(second))).equals(second));
});
