// The BUILT validator module as the package loads it (pkg-js/src/validator/validator-loader.ts): patterns on
// this engine's RegExp (Zod 4's look-ahead patterns included) where their judgement says, the
// bound on strings a pattern is tested against, the one JS module it ships in, and what happens
// when it traps.
// Build first: `node pkg-js/build.mjs`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadValidator } from '../lib/validator/validator-loader.js';
import { encodeJson } from '../lib/boundary/wire.js';
import { instantiate, testTrap } from '../lib/validator/validator-module.js';
import { decodeBase64 } from '../lib/boundary/embedded-bytes.js';
import { unlzmaAsync } from '../lib/boundary/unlzma.js';
import { patternsSettled } from '../wasm/pattern-host.js';
import { validateJson } from '../lib/index.js';
import { patternCount } from '../wasm/validator-host.js';
import { recordingTools } from '../test-support/lib-helpers.mjs';

/** A validator answer read (`validate` answers nothing for a valid instance). */
const answerOf = (text) => (text === '' ? { ok: true, valid: true, diagnostics: [], summary: '' } : JSON.parse(text));

const { recordingTool } = recordingTools('vm', 'a validator-module test tool');
const MiB = 1024 * 1024;
/** The bound documented in src/validate.rs (MAX_PATTERN_INPUT_CHARS). */
const MAX_PATTERN_INPUT_CHARS = 10_000;

/**
 * A schema compiled as the package compiles it (`allowUnsafe`: the page's opt-in): once more when
 * its patterns asked for the judgement or the linear engine while they loaded (docs/behaviour.md,
 * "Patterns"). Answers a validation function.
 */
async function compiled(schema, allowUnsafe = false) {
  const validator = await loadValidator();
  let answer = JSON.parse(validator.compile(encodeJson(schema), allowUnsafe));
  for (let waiting = patternsSettled(); waiting !== undefined; waiting = patternsSettled()) {
    await waiting;
    if (answer.ok) validator.dropSchema(answer.handle);
    answer = JSON.parse(validator.compile(encodeJson(schema), allowUnsafe));
  }
  assert.equal(answer.ok, true, `does not compile: ${JSON.stringify(answer)}`);
  return (value) => answerOf(validator.validate(answer.handle, encodeJson(value), 64));
}

describe('Zod 4 patterns (look-ahead included) compile and agree with zod', () => {
  // Each helper's samples; zod's own verdict is the expected one (these helpers check with the
  // regex they export, so zod and a correct ECMAScript engine must agree on every sample).
  const helpers = {
    emoji: [z.emoji(), ['😀', '👍🏽', '🇫🇷', '1️⃣', 'abc', '😀a', '', '#', '🏽']],
    duration: [z.iso.duration(), ['P1DT2H', 'PT30S', 'P3W', 'P', 'PT', 'P1W2D', 'P1Y2M3DT4H5M6.5S', 'P1,5D', 'PT1H30M', 'p1d']],
    hostname: [z.hostname(), ['shop.example.com', 'localhost', 'a-b.c', '-bad-.example', 'x'.repeat(254), 'a'.repeat(63) + '.com', 'a'.repeat(64) + '.com', 'trailing.dot.', 'under_score.com', '']],
    email: [z.email(), ['first.last+tag@example.co.uk', '.first@example.com', 'a..b@example.com', 'a@b.c', 'someone@example.com']],
    uuid: [z.uuid(), ['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-92d3-a456-426614174000', '00000000-0000-0000-0000-000000000000']],
    date: [z.iso.date(), ['2024-02-29', '2023-02-29', '2024-13-01', '2024-04-31']],
    time: [z.iso.time(), ['12:30', '23:59:59.123', '24:00', '12:60']],
    e164: [z.e164(), ['+14155552671', '14155552671', '+0123456789']],
    mac: [z.mac(), ['00:1A:2b:3C:4d:5E', '00:1a:2b:3c:4d:5e', '00:1A:2B:3C:4D:5E']],
    lowercase: [z.string().lowercase(), ['abc', 'aBc', 'ünïcode', 'ÄBC']],
  };

  test('three of them use look-ahead, which a regex engine without backtracking cannot compile', () => {
    for (const name of ['emoji', 'duration', 'hostname']) assert.match(z.toJSONSchema(helpers[name][0]).pattern, /\(\?[=!]/, name);
  });

  // The duration's look-ahead inside an alternative is beyond the linear-time engine, in a
  // pattern the judgement finds slow: it compiles only opted in, and runs on short strings.
  const refused = new Set(['duration']);

  for (const [name, [schema, samples]] of Object.entries(helpers)) {
    test(`${name}: the exported pattern compiles${refused.has(name) ? ' (opted in)' : ''}, and the module agrees with zod on ${samples.length} samples`, async () => {
      // The pattern alone (zod's `format` names are not all JSON Schema formats).
      const { pattern } = z.toJSONSchema(schema);
      const check = await compiled({ type: 'string', pattern }, refused.has(name));
      if (refused.has(name)) {
        // The judgement is loaded now: without the opt-in, the pattern is refused.
        const validator = await loadValidator();
        assert.equal(JSON.parse(validator.compile(encodeJson({ type: 'string', pattern }))).error?.code, 'unsafe_pattern');
      }
      let valid = 0;
      for (const sample of samples) {
        const zodSays = schema.safeParse(sample).success;
        const answer = check(sample);
        assert.equal(answer.valid, zodSays, `${JSON.stringify(sample)}: zod says ${zodSays}, the module ${JSON.stringify(answer)}`);
        if (!zodSays) assert.deepEqual(answer.diagnostics.map((d) => d.keyword), ['pattern']);
        valid += zodSays ? 1 : 0;
      }
      assert.ok(valid > 0 && valid < samples.length, 'the samples hold valid and invalid values');
    });
  }

  test('a whole zod object schema, through a tool (patterns and asserted formats together)', async () => {
    const schema = z.object({ every: z.iso.duration(), host: z.hostname(), mood: z.emoji().optional() });
    const { tool, calls } = recordingTool({ inputSchema: z.toJSONSchema(schema), unsafePatterns: true });
    await tool.register();
    assert.equal((await tool.invoke({ every: 'P1DT2H', host: 'shop.example.com', mood: '😀' })).ok, true);
    const bad = await tool.invoke({ every: 'P', host: '-x-', mood: 'no' });
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.error.diagnostics.map((d) => `${d.path} ${d.keyword}`).sort(), ['/every format', '/every pattern', '/host format', '/host pattern', '/mood pattern']);
    assert.equal(calls.length, 1);
  });
});

describe('patterns are ECMAScript, run by this engine', () => {
  test('the u flag: \\p{…}, astral characters as one, and syntax only legacy mode allows is refused', async () => {
    const letters = await compiled({ pattern: '^\\p{L}+$' });
    assert.equal(letters('héllo').valid, true);
    assert.equal(letters('h3llo').valid, false);
    const one = await compiled({ pattern: '^.$' });
    assert.equal(one('😀').valid, true, 'an astral character is one character under u');
    const validator = await loadValidator();
    for (const pattern of ['a{', '\\-', '(unclosed', '[b-a]']) {
      const answer = JSON.parse(validator.compile(encodeJson({ pattern })));
      assert.equal(answer.ok, false, pattern);
      assert.equal(answer.error.code, 'invalid_schema');
      assert.equal(answer.error.path, '/pattern');
      // The engine says why (V8: "Invalid regular expression: /(unclosed/u: Unterminated group").
      assert.match(answer.error.message, /not a valid regular expression \(ECMAScript, u flag\): .*Invalid regular expression/, answer.error.message);
    }
  });

  test('patterns are not anchored, and a format: "regex" value is checked by the same engine', async () => {
    assert.equal((await compiled({ pattern: 'b' }))('abc').valid, true);
    const regex = await compiled({ format: 'regex' });
    assert.equal(regex('^(?<=a)b\\k<x>?(?<x>c)$').valid, true);
    assert.deepEqual(regex('(?P<name>x)').diagnostics, [{ path: '', keyword: 'format', message: 'must be a valid regex' }]);
  });

  test('each compiled pattern is one RegExp held while its schema lives', async () => {
    const validator = await loadValidator();
    const before = patternCount();
    const answer = JSON.parse(validator.compile(encodeJson({ properties: { a: { pattern: '^a' }, b: { pattern: '^b' } }, patternProperties: { '^x-': {} } })));
    assert.equal(patternCount(), before + 3);
    validator.dropSchema(answer.handle);
    assert.equal(patternCount(), before);
  });
});

describe('strings too long to test against a pattern fail closed, at once', () => {
  test(`a hostile ${2 * MAX_PATTERN_INPUT_CHARS}-character string against an exponential pattern: the documented diagnostic, no hang`, async () => {
    const { tool, calls } = recordingTool({ inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } } });
    const hostile = 'a'.repeat(2 * MAX_PATTERN_INPUT_CHARS) + '!';
    const started = performance.now();
    const outcome = await tool.invoke({ q: hostile });
    const ms = performance.now() - started;
    assert.equal(outcome.ok, false);
    assert.deepEqual(outcome.error.diagnostics, [
      { path: '/q', keyword: 'pattern', message: `was not tested against its pattern: it is longer than ${MAX_PATTERN_INPUT_CHARS} characters, the most a pattern is tested against` },
    ]);
    assert.ok(!outcome.error.message.includes('aaaa'), 'the value is not quoted');
    assert.equal(calls.length, 0);
    assert.ok(ms < 1000, `took ${ms} ms`);
    // Run on the string, the same pattern would not end: under the bound it runs (harmlessly here).
    assert.equal((await tool.invoke({ q: 'a'.repeat(MAX_PATTERN_INPUT_CHARS) })).ok, true);
  });

  test('under not, anyOf and patternProperties too: an untested string never counts as "not matching"', async () => {
    const long = 'b'.repeat(MAX_PATTERN_INPUT_CHARS + 1);
    const not = await validateJson({ not: { pattern: '^a' } }, long);
    assert.equal(not.valid, false);
    assert.deepEqual(not.diagnostics.map((d) => d.keyword), ['pattern']);
    assert.equal((await validateJson({ anyOf: [{ pattern: '^a' }, { maxLength: 1 }] }, long)).valid, false);
    const names = await validateJson({ type: 'object', patternProperties: { '^x': {} }, additionalProperties: false }, { [long]: 1 });
    assert.deepEqual(names.diagnostics.map((d) => [d.path.length, d.keyword]), [[long.length + 1, 'patternProperties']]);
  });
});

describe('how the module ships', () => {
  test('one JS module holds it, LZMA-compressed, and nothing else is fetched or read', () => {
    const sizes = JSON.parse(readFileSync(new URL('../wasm/sizes.json', import.meta.url), 'utf8')).find((m) => m.name === 'warden_validate');
    const chunk = readFileSync(new URL('../wasm/warden_validate_bytes.js', import.meta.url), 'utf8');
    assert.equal(sizes.embeddedJs.raw, Buffer.byteLength(chunk));
    // base64 of LZMA: about 4/3 of the compressed module, well under its raw size.
    assert.ok(sizes.embeddedJs.raw < sizes.wasm.raw * 0.5, JSON.stringify(sizes));
    // Nothing but the bytes: the decoder is the entry's (unlzma.ts), handed over by the loader.
    assert.doesNotMatch(chunk, /^(import|export \{)/m);
    for (const file of ['validator/validator-loader.js', 'validator/validator-module.js']) {
      const loader = readFileSync(new URL(`../lib/${file}`, import.meta.url), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      assert.doesNotMatch(loader, /import\.meta\.url|fetch\(|\.wasm['"]/, `${file} neither fetches nor names a .wasm file`);
    }
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.ok(!pkg.files.some((f) => f.endsWith('.wasm')), 'no .wasm file is shipped');
  });
});

describe('the LZMA stream and its decoder', () => {
  const chunkUrl = new URL('../wasm/warden_validate_bytes.js', import.meta.url);
  const decode = async (stream) => instantiate({ initSync: () => ({ memory: new WebAssembly.Memory({ initial: 1 }) }) }, {}, await unlzmaAsync(stream));

  test('the shipped stream decodes to the validator module: it compiles, with its exports', async () => {
    const chunk = await import(chunkUrl);
    const validator = await decode(decodeBase64(chunk.WASM_LZMA_BASE64));
    const exports = WebAssembly.Module.exports(validator.module).map((e) => e.name);
    assert.ok(exports.includes('compile') && exports.includes('validate'), exports.join(','));
  });

  test('decoding lets other tasks of the page run between slices (scheduler.yield where there is one)', async () => {
    const chunk = await import(chunkUrl);
    const had = Object.getOwnPropertyDescriptor(globalThis, 'scheduler');
    let yields = 0;
    globalThis.scheduler = { yield: () => Promise.resolve(void yields++) };
    try {
      await decode(decodeBase64(chunk.WASM_LZMA_BASE64));
    } finally {
      if (had) Object.defineProperty(globalThis, 'scheduler', had);
      else delete globalThis.scheduler;
    }
    // ~255 KB in slices of 32 KB: a yield between each two.
    assert.ok(yields >= 7, `${yields} yields`);
    // Without scheduler.yield (Node, Firefox, Safari): a message to itself, and the same module.
    const validator = await decode(decodeBase64(chunk.WASM_LZMA_BASE64));
    assert.ok(WebAssembly.Module.exports(validator.module).length > 0);
    // Without MessageChannel either: a timer.
    const channel = globalThis.MessageChannel;
    delete globalThis.MessageChannel;
    try {
      const timed = await decode(decodeBase64(chunk.WASM_LZMA_BASE64));
      assert.deepEqual(WebAssembly.Module.exports(timed.module), WebAssembly.Module.exports(validator.module));
    } finally {
      globalThis.MessageChannel = channel;
    }
  });

  test('a stream cut short, with foreign properties, or corrupt is refused with the reason', async () => {
    const chunk = await import(chunkUrl);
    const stream = decodeBase64(chunk.WASM_LZMA_BASE64);
    await assert.rejects(decode(stream.subarray(0, stream.length - 100)), /does not decode: the data ends before its end marker/);
    const foreign = new Uint8Array(stream); // a copy (a Buffer's slice is a view)
    foreign[0] = 255;
    await assert.rejects(decode(foreign), /does not decode: unsupported properties/);
    const corrupt = new Uint8Array(stream);
    corrupt[1] = 7; // the range coder's first byte is always zero
    await assert.rejects(decode(corrupt), /does not decode: the data is corrupt/);
  });
});

describe('a trap does not brick validation', () => {
  test('the module is replaced from the compiled Module; schemas are compiled again when next used', async () => {
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } }, required: ['id'] };
    const { tool, calls } = recordingTool({ inputSchema: schema });
    await tool.register();
    assert.equal((await tool.invoke({ id: 'abc' })).ok, true);
    const validator = await loadValidator();
    const { generation, replacements } = validator;
    const held = patternCount();
    const trapped = JSON.parse(testTrap(validator));
    assert.deepEqual(trapped, { ok: false, error: { code: 'validator_failed', message: 'the validator module trapped while trapping on purpose and was reloaded' } });
    assert.equal(validator.generation, generation + 1);
    assert.equal(validator.replacements, replacements + 1);
    assert.ok(patternCount() < held, 'the dead instance\'s patterns are released');
    // The same tool keeps validating, with its schema compiled again on the new instance.
    assert.equal((await tool.invoke({ id: 'xyz' })).ok, true);
    const bad = await tool.invoke({ id: 'X1' });
    assert.equal(bad.error?.reason, 'invalid_arguments');
    assert.equal(bad.result.content[0].text, 'Error: Validation failed: /id must match the pattern ^[a-z]+$');
    assert.deepEqual(calls, [{ id: 'abc' }, { id: 'xyz' }]);
    assert.equal(validator.generation, generation + 1, 'one replacement, not one per call');
  });

  test('a schema nested past the limit is refused before the module runs out of stack', async () => {
    const validator = await loadValidator();
    const { replacements } = validator;
    const nested = (levels) => encodeJson(JSON.parse('{"not":'.repeat(levels) + '{}' + '}'.repeat(levels)));
    assert.equal(JSON.parse(validator.compile(nested(99))).ok, true, '100 levels (the limit) compile');
    const refused = JSON.parse(validator.compile(nested(100)));
    assert.equal(refused.error.code, 'invalid_schema');
    assert.match(refused.error.message, /deeper than 100 levels/);
    assert.equal(validator.replacements, replacements, 'no trap, no replacement');
  });
});

describe("the glue's string path out (build.mjs, fasterStrings) and the wire format in: text crosses intact", () => {
  // Strings out of the module up to 64 bytes take a loop for ASCII and TextDecoder otherwise;
  // schema and instance strings go in as wire-format UTF-8 (wire.ts writes short ASCII byte by
  // byte, the rest with encodeInto). Each length around the edges, ASCII and not, must reach the
  // pattern and the keywords exactly as written.
  const lengths = [1, 63, 64, 65, 200];
  for (const unit of ['a', 'é', '😀']) {
    test(`${JSON.stringify(unit)} repeated ${lengths.join(', ')} times: const, maxLength and an anchored pattern agree`, async () => {
      for (const n of lengths) {
        const text = unit.repeat(n);
        const exact = await compiled({ const: text });
        assert.equal(exact(text).valid, true, `const of ${n}× ${unit}`);
        assert.equal(exact(text + 'x').valid, false, `const of ${n}× ${unit}, one more character`);
        // maxLength counts code points: an emoji is one.
        const max = await compiled({ type: 'string', maxLength: n });
        assert.equal(max(text).valid, true, `maxLength ${n} of ${n}× ${unit}`);
        assert.equal(max(text + unit).valid, false, `maxLength ${n} of ${n + 1}× ${unit}`);
        const pattern = await compiled({ type: 'string', pattern: `^(?:${unit}){${n}}$` });
        assert.equal(pattern(text).valid, true, `pattern of ${n}× ${unit}`);
        assert.equal(pattern(text + unit).valid, false, `pattern of ${n}× ${unit}, one more`);
      }
    });
  }

  test('a diagnostic naming a long non-ASCII property comes back intact', async () => {
    const name = 'ключ-'.repeat(20);
    const check = await compiled({ type: 'object', properties: { [name]: { type: 'integer' } } });
    const answer = check({ [name]: 'not a number' });
    assert.equal(answer.valid, false);
    assert.ok(
      answer.diagnostics.some((d) => d.path === `/${name}`),
      `a diagnostic at /${name}: ${JSON.stringify(answer.diagnostics)}`,
    );
  });
});

describe('numbers reach the module as the page wrote them', () => {
  // Schemas and instances cross in the wire format: a double is its eight bytes, nothing is
  // parsed, so a limit and the value one ulp past it never read as equal (17-digit numbers are
  // where a parser that is not exact lands one ulp off: serde_json without `float_roundtrip`
  // reads 1.7976931348623155e308 as 1.7976931348623157e308).
  const nextUp = (n) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, n);
    view.setBigUint64(0, view.getBigUint64(0) + 1n);
    return view.getFloat64(0);
  };
  for (const n of [0.1 + 0.2, 2.220446049250313e-16, 9007199254740991 / 3, 1.7976931348623155e308, 5e-324, 0.12345678901234568]) {
    test(`${n}: const and maximum accept it and refuse the next double`, async () => {
      const check = await compiled({ allOf: [{ const: n }, { maximum: n }] });
      assert.equal(check(n).valid, true, JSON.stringify(check(n)));
      const above = check(nextUp(n));
      assert.deepEqual(above.diagnostics.map((d) => d.keyword).sort(), ['const', 'maximum'], JSON.stringify(above));
      assert.equal((await validateJson({ exclusiveMaximum: nextUp(n) }, n)).valid, true);
      assert.equal((await validateJson({ exclusiveMaximum: n }, n)).valid, false);
    });
  }

  test('integers read as JSON text would have them: messages say 5, not 5.0', async () => {
    const check = await compiled({ minimum: 5, maximum: 18446744073709551615 });
    const low = check(3);
    assert.equal(low.valid, false);
    assert.match(low.diagnostics[0].message, /\b5\b/);
    assert.doesNotMatch(low.diagnostics[0].message, /5\.0/);
    assert.equal(check(18446744073709551615).valid, true);
  });
});

describe('what crosses is what JSON.stringify writes', () => {
  // An argument the quick check vouches for crosses as written from the value itself (no text
  // read back); what JSON drops or rewrites must be dropped or rewritten the same way.
  const strict = { type: 'object', properties: { a: { type: 'number' }, list: { type: 'array', items: { type: ['number', 'null'] } } }, additionalProperties: false };

  test('undefined members are left out, undefined items and holes become null', async () => {
    // eslint-disable-next-line no-sparse-arrays
    const value = { a: 1, gone: undefined, list: [1, undefined, , 3] };
    assert.equal(JSON.stringify(value), '{"a":1,"list":[1,null,null,3]}');
    assert.deepEqual(await validateJson(strict, value), { valid: true });
    const nullsRefused = await validateJson({ ...strict, properties: { ...strict.properties, list: { type: 'array', items: { type: 'number' } } } }, value);
    assert.deepEqual(nullsRefused.diagnostics.map((d) => d.path).sort(), ['/list/1', '/list/2']);
  });

  test('boxed primitives are validated as the primitives JSON writes', async () => {
    assert.deepEqual(await validateJson({ type: 'number', minimum: 5 }, new Number(5)), { valid: true });
    assert.deepEqual(await validateJson({ type: 'string', maxLength: 2 }, new String('ab')), { valid: true });
    assert.deepEqual(await validateJson({ type: 'object', required: ['x'] }, { x: new Boolean(false) }), { valid: true });
  });

  test('the value is validated as it was when validateJson was called, not after its await', async () => {
    const value = { a: 1 };
    const pending = validateJson({ type: 'object', properties: { a: { maximum: 10 } } }, value);
    value.a = 1_000_000;
    assert.deepEqual(await pending, { valid: true });
  });

  test('a __proto__ key is an ordinary property, as JSON.parse makes it', async () => {
    const value = JSON.parse('{"__proto__":{"x":1},"b":2}');
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
    const result = await validateJson(schema, value);
    assert.deepEqual(result.diagnostics?.map((d) => [d.path, d.keyword]), [['/__proto__', 'type']]);
  });
});
