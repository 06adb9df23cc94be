// Canonical JSON (RFC 8785) as the TS layer writes it for the core to hash: the vectors of
// tests/fixtures/canonical.json (shared with `cargo test --test digest`), the fingerprints the
// core computed before canonicalization moved here, and what has no canonical form.
//
// Build first: `WASM_OPT=0 node pkg-js/build.mjs`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { webmcp, WardenError, ConfigurationError } from '../lib/index.js';
// Internal: the function itself (the package does not export it).
import { canonicalJson, fingerprintFields, CANONICAL_MAX_DEPTH } from '../lib/util/canonical.js';
import { loadFixture } from '../test-support/lib-helpers.mjs';

const fixture = loadFixture('canonical.json');
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
const fromBits = (hex) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
};

describe('RFC 8785 vectors (tests/fixtures/canonical.json)', () => {
  test('there are vectors', () => {
    assert.ok(fixture.numbers.length >= 24 && fixture.texts.length >= 30 && fixture.fingerprints.length >= 4);
  });

  for (const { bits, expected } of fixture.numbers) {
    test(`Appendix B: ${bits} → ${expected}`, () => {
      assert.equal(canonicalJson(fromBits(bits)), expected);
      // Parsing the canonical text gives the same double back.
      assert.equal(canonicalJson(JSON.parse(expected)), expected);
    });
  }

  for (const { name, input, expected, sha256: digest } of fixture.texts) {
    test(name, () => {
      assert.equal(canonicalJson(JSON.parse(input)), expected);
      if (digest !== undefined) assert.equal(sha256(expected), digest);
    });
  }
});

describe('fingerprints do not change', () => {
  for (const { definition, fields, fingerprint } of fixture.fingerprints) {
    test(definition.name, () => {
      assert.deepEqual(fingerprintFields(definition), fields);
      // Through the package, where the definition can be written as webmcp() options (it fills
      // in a description and an input schema otherwise).
      if (definition.description !== undefined && definition.inputSchema !== undefined) {
        const t = webmcp(() => 1, { ...definition });
        assert.equal(t.fingerprint, fingerprint);
      }
    });
  }
});

describe('canonicalJson', () => {
  const code = (fn) => {
    try {
      fn();
    } catch (err) {
      assert.ok(err instanceof WardenError, `a WardenError, not ${err}`);
      return err.code;
    }
    assert.fail('did not throw');
  };

  test('refuses NaN and infinities', () => {
    for (const value of [NaN, Infinity, -Infinity, { a: [1, NaN] }]) assert.equal(code(() => canonicalJson(value)), 'non_finite_number');
  });

  test('refuses cycles, but not a value seen twice', () => {
    const cyclic = { a: {} };
    cyclic.a.back = cyclic;
    assert.equal(code(() => canonicalJson(cyclic)), 'cyclic_value');
    const list = [];
    list.push(list);
    assert.equal(code(() => canonicalJson(list)), 'cyclic_value');
    const shared = { x: 1 };
    assert.equal(canonicalJson([shared, { s: shared }]), '[{"x":1},{"s":{"x":1}}]');
  });

  test(`accepts ${CANONICAL_MAX_DEPTH} levels of nesting and refuses one more, without a stack overflow`, () => {
    const nested = (depth, objects) => {
      let value = null;
      for (let i = 0; i < depth; i++) value = objects ? { k: value } : [value];
      return value;
    };
    for (const objects of [false, true]) {
      assert.doesNotThrow(() => canonicalJson(nested(CANONICAL_MAX_DEPTH, objects)));
      assert.equal(code(() => canonicalJson(nested(CANONICAL_MAX_DEPTH + 1, objects))), 'too_deep');
      assert.equal(code(() => canonicalJson(nested(100_000, objects))), 'too_deep');
    }
    assert.equal(canonicalJson(nested(3, false)), '[[[null]]]');
  });

  test('refuses a BigInt and a top-level value JSON cannot say', () => {
    for (const value of [10n, { n: 1n }]) assert.equal(code(() => canonicalJson(value)), 'unsupported_value');
    for (const value of [undefined, () => 1, Symbol('s')]) assert.equal(code(() => canonicalJson(value)), 'unsupported_value');
  });

  test('reads a value as JSON.stringify does', () => {
    const value = {
      z: undefined,
      f: () => 1,
      s: Symbol('s'),
      list: [undefined, () => 1, , 3], // eslint-disable-line no-sparse-arrays
      date: new Date(0),
      boxed: [Object(1), Object('x'), Object(false)],
      custom: { toJSON: (key) => `key:${key}` },
      negativeZero: -0,
    };
    assert.equal(
      canonicalJson(value),
      '{"boxed":[1,"x",false],"custom":"key:custom","date":"1970-01-01T00:00:00.000Z","list":[null,null,null,3],"negativeZero":0}',
    );
    // The same members, in the same order, as JSON.stringify with sorted keys would give.
    assert.deepEqual(JSON.parse(canonicalJson(value)), JSON.parse(JSON.stringify(value)));
  });

  test('keeps an own __proto__ key and sorts it like any other', () => {
    assert.equal(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":1},"a":2}')), '{"__proto__":{"x":1},"a":2,"b":1}');
  });

  test('a definition with no JSON form is a ConfigurationError from webmcp()', () => {
    const schema = { type: 'object' };
    schema.self = schema;
    assert.throws(
      () => webmcp(() => 1, { name: 'cyclic_schema', description: 'd', inputSchema: schema }),
      (err) => err instanceof ConfigurationError && err.code === 'invalid_definition' && /cyclic value/.test(err.message),
    );
    assert.throws(
      () =>
        webmcp(() => 1, {
          name: 'throwing_schema',
          description: 'd',
          inputSchema: {
            get type() {
              throw new Error('secret');
            },
          },
        }),
      (err) => err instanceof ConfigurationError && err.code === 'invalid_definition' && !err.message.includes('secret'),
    );
  });
});

describe('canonical JSON is a fixed point (a seeded property test: 5,000 random values)', () => {
  // A small PRNG (mulberry32) with a fixed seed: the same values every run, so a failure replays.
  const random = (() => {
    let state = 0x5eed1234;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  })();
  const pick = (items) => items[Math.floor(random() * items.length)];
  const numbers = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 123456789.125, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.MAX_VALUE, 5e-324, 2 ** 53 + 2];
  const texts = ['', 'a', 'é', '€', '😀', '\u0000', '\u001f', '"', '\\', '\u2028', 'ab\ncd', '\ud800', '\udc00x'];
  const randomText = () => Array.from({ length: Math.floor(random() * 4) }, () => pick(texts)).join('');
  const value = (depth) => {
    const kind = depth > 4 ? Math.floor(random() * 4) : Math.floor(random() * 6);
    switch (kind) {
      case 0: return null;
      case 1: return random() < 0.5;
      case 2: return random() < 0.5 ? pick(numbers) : (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
      case 3: return randomText();
      case 4: return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [randomText(), value(depth + 1)]));
    }
  };

  test('canonical(parse(canonical(x))) === canonical(x), and it parses back to the same data', () => {
    for (let i = 0; i < 5000; i++) {
      const x = value(0);
      let once;
      try {
        once = canonicalJson(x);
      } catch (err) {
        // Only what has no JSON form may be refused, and as a WardenError, never written wrong.
        assert.ok(err instanceof WardenError, String(err));
        continue;
      }
      const parsed = JSON.parse(once);
      assert.equal(canonicalJson(parsed), once, `not a fixed point: ${once}`);
      assert.deepStrictEqual(JSON.parse(canonicalJson(parsed)), parsed);
    }
  });
});
