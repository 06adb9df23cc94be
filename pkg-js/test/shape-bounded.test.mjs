// Shaping costs what is kept, and loses only what it must (issue 13, items 7 and 11), through the
// BUILT package.
//
// - Huge results (12.8 MiB of structuredContent, of text, of densely hidden characters, a
//   million blocks, 40 million numbers) cross into the shaping module bounded by the cap, and
//   its linear memory (`memory.buffer.byteLength` of the instance the glue made, read by
//   `shaperMemoryBytes()` of lib/shape/shaping.js) grows by at most a small constant. Wasm memory never shrinks, so a
//   crossing of the whole result would show here for good.
// - Past the documented limits (1,000 blocks; structuredContent whose JSON passes the cap plus
//   4,096 bytes) the part is dropped unmeasured: `truncated`, `kept K of at least T bytes`, and
//   the flag `oversized`.
// - The bounded route answers exactly what the core answers for the whole result
//   (`shapeReference`), on generated results of every kind.
// - structuredContent nested too deep, cyclic, holding a BigInt or a throwing getter loses only
//   that part; a non-boolean isError keeps its truthiness.
//
// Build first: `npm run build -w pkg-js`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { configureWebMCP, normalizeResult } from '../lib/index.js';
import { shapeForModel, shapeInCore, shapeReference, shapeStats } from '../lib/shape/shaping.js';
import { shaperMemoryBytes } from '../lib/shape/shaping.js';
import { loadPipeline } from '../lib/api/pipeline-loader.js';
import { toolMaker } from '../test-support/lib-helpers.mjs';

// The internal routes are synchronous and need the shaping module loaded, as calls have it (the
// pipeline chunk loads it, with what it is handed from the entry).
await (await loadPipeline()).loadShaper();

const tool = toolMaker((n) => ({ name: `bounded_${n}`, description: 'returns a large result' }));
const CAP = 102_400;
const SLACK = 4096;
const MiB = 1 << 20;
const LIMIT_NOTICE = (kept, total) => `[truncated by the MCP client: kept ${kept} of at least ${total} bytes]`;
const last = (result) => result.content[result.content.length - 1].text;

/** Runs a tool returning `value` once; answers the outcome and the bytes that crossed to shape it. */
async function invokeReturning(value) {
  const sent = shapeStats.bytesSent;
  const outcome = await tool(() => value).invoke({});
  return { outcome, crossed: shapeStats.bytesSent - sent };
}

describe('huge results cost what is kept', () => {
  test('12.8 MiB of structuredContent, text or hidden characters, a million blocks, 40 million numbers: bounded crossings, flat wasm memory', async () => {
    // One ordinary shaping first, so the allocator's first pages are not counted as growth.
    await invokeReturning({ content: [{ type: 'text', text: 'warm' }], structuredContent: { a: 1 } });
    const before = shaperMemoryBytes();
    assert.ok(before > 0, 'the shaping module reports its memory');

    const rows = Array.from({ length: 200_000 }, (_, i) => ({ id: i, name: `row ${i} of the report`, ratio: i / 3 }));
    const structured = await invokeReturning({ content: [{ type: 'text', text: 'rows attached' }], structuredContent: { rows } });
    assert.ok(JSON.stringify({ rows }).length > 12.8 * MiB, `${JSON.stringify({ rows }).length} bytes`);
    assert.equal(structured.outcome.ok, true);
    assert.equal(structured.outcome.result.content[0].text, 'rows attached');
    assert.equal(structured.outcome.result.structuredContent, undefined);
    assert.equal(last(structured.outcome.result), LIMIT_NOTICE(13, 13 + CAP + SLACK + 1));
    assert.deepStrictEqual(structured.outcome.result.provenance, { serverId: 'page', truncated: true, flags: ['oversized'] });
    assert.ok(structured.crossed < 1024, `${structured.crossed} bytes crossed for a dropped structuredContent`);

    const text = await invokeReturning('x'.repeat(12.8 * MiB));
    assert.equal(text.outcome.result.content[0].text.length, CAP);
    assert.equal(last(text.outcome.result), `[truncated by the MCP client: kept ${CAP} of ${Math.floor(12.8 * MiB)} bytes]`);
    assert.ok(text.crossed < 2 * CAP, `${text.crossed} bytes crossed for 12.8 MiB of text`);

    // One hidden character in two: the fast path's positions would be megabytes; it strips here instead.
    const dense = await invokeReturning('a\u200b'.repeat(6.4 * MiB));
    assert.equal(dense.outcome.result.content[0].text, 'a'.repeat(CAP));
    assert.deepStrictEqual(dense.outcome.result.provenance.flags, ['zero_width']);
    assert.ok(dense.crossed < 2 * CAP, `${dense.crossed} bytes crossed for a dense dirty text`);

    const blocks = await invokeReturning({ content: Array.from({ length: 1_000_000 }, (_, i) => ({ type: 'text', text: `b${i}` })) });
    assert.equal(blocks.outcome.result.content.length, 1001);
    const kept = Array.from({ length: 1000 }, (_, i) => `b${i}`.length).reduce((a, b) => a + b);
    assert.equal(last(blocks.outcome.result), LIMIT_NOTICE(kept, kept));
    assert.deepStrictEqual(blocks.outcome.result.provenance.flags, ['oversized']);
    assert.ok(blocks.crossed < 64 * 1024, `${blocks.crossed} bytes crossed for a million blocks`);

    const numbers = await invokeReturning({ content: [], structuredContent: { v: new Array(40e6).fill(0) } });
    assert.equal(numbers.outcome.ok, true);
    assert.equal(last(numbers.outcome.result), LIMIT_NOTICE(0, CAP + SLACK + 1));
    assert.ok(numbers.crossed < 1024, `${numbers.crossed} bytes crossed for 40 million numbers`);

    // A plain object: its pretty JSON as text (cut at the cap) and as structuredContent (dropped past the limit).
    const object = await invokeReturning({ rows });
    assert.equal(object.outcome.result.content[0].text, JSON.stringify({ rows }, null, 2).slice(0, CAP));
    assert.deepStrictEqual(object.outcome.result.provenance.flags, ['oversized']);
    assert.ok(object.crossed < 2 * CAP, `${object.crossed} bytes crossed for a 17 MB structured result`);

    const growth = shaperMemoryBytes() - before;
    assert.ok(growth <= 1 * MiB, `the core's memory grew by ${growth} bytes`);
  });
});

describe('limits', () => {
  const text = (t) => ({ type: 'text', text: t });

  test('blocks past the first 1,000 are dropped unmeasured; shaping again changes nothing', () => {
    const result = { content: Array.from({ length: 1500 }, (_, i) => text(`${i}`)) };
    const shaped = shapeForModel(result, 'page', CAP);
    assert.equal(shaped.result.content.length, 1001);
    assert.equal(shaped.result.content[999].text, '999');
    const kept = Array.from({ length: 1000 }, (_, i) => String(i).length).reduce((a, b) => a + b);
    assert.equal(last(shaped.result), LIMIT_NOTICE(kept, kept));
    assert.deepStrictEqual(shaped.flags, ['oversized']);
    assert.equal(shaped.truncated, true);
    assert.deepStrictEqual(shapeForModel(structuredClone(shaped.result), 'page', CAP), shaped);
    assert.deepStrictEqual(shapeReference(result, 'page', CAP), shaped);
    // 1,000 exactly is not over.
    assert.equal(shapeForModel({ content: result.content.slice(0, 1000) }, 'page', CAP).truncated, false);
  });

  test('structuredContent up to the cap plus 4,096 bytes of JSON is measured; past it, dropped unmeasured', () => {
    const cap = 100;
    // {"s":"…"} is the string's length plus 8.
    const result = (n) => ({ content: [text('t')], structuredContent: { s: 'x'.repeat(n - 8) } });
    const measured = shapeForModel(result(cap + SLACK), 'page', cap);
    assert.equal(last(measured.result), `[truncated by the MCP client: kept 1 of ${1 + cap + SLACK} bytes]`);
    assert.deepStrictEqual(measured.flags, []);
    const over = shapeForModel(result(cap + SLACK + 1), 'page', cap);
    assert.equal(last(over.result), LIMIT_NOTICE(1, 1 + cap + SLACK + 1));
    assert.deepStrictEqual(over.flags, ['oversized']);
    assert.deepStrictEqual(shapeReference(result(cap + SLACK + 1), 'page', cap), over);
    assert.deepStrictEqual(shapeForModel(structuredClone(over.result), 'page', cap), over);
  });

  test('the limit is on the raw JSON: hidden characters inside it still count toward it, and stripping can make it fit the cap', () => {
    const cap = 100;
    const hidden = { content: [], structuredContent: { s: '\u200b'.repeat(1000) + 'ok' } };
    const shaped = shapeForModel(hidden, 'page', cap);
    assert.deepStrictEqual(shaped.result.structuredContent, { s: 'ok' });
    assert.deepStrictEqual(shaped.flags, ['zero_width']);
  });
});

describe('only the offending part of structuredContent is lost', () => {
  const nest = (levels, leaf) => {
    let value = leaf;
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  };
  const notice = (what) => `[${what} removed by the MCP client]`;

  test('nesting past 128 levels: the deep part becomes a notice, the rest and the text stay, ok: true', async () => {
    const { outcome } = await invokeReturning({ content: [{ type: 'text', text: 'kept' }], structuredContent: { ok: 1, deep: nest(200, 'leaf') } });
    assert.equal(outcome.ok, true);
    assert.equal(outcome.result.content[0].text, 'kept');
    assert.equal(outcome.result.structuredContent.ok, 1);
    let at = outcome.result.structuredContent.deep;
    for (let depth = 1; depth < 128; depth++) at = at[0];
    assert.equal(at, notice('a value nested deeper than 128 levels'));
    assert.deepStrictEqual(outcome.result.provenance.flags, ['unsupported_content']);
    assert.equal(outcome.result.provenance.truncated, false);
  });

  test('a cycle, a BigInt, a throwing getter or toJSON: each becomes a notice in place', async () => {
    const structured = { a: 1, list: [1n, 'two'], when: new Date(0), throwsJson: { toJSON() { throw new Error('SECRET'); } } };
    structured.self = structured;
    Object.defineProperty(structured, 'bad', { enumerable: true, get() { throw new Error('SECRET'); } });
    const { outcome } = await invokeReturning({ content: [{ type: 'text', text: 'kept' }], structuredContent: structured });
    assert.equal(outcome.ok, true);
    assert.deepStrictEqual(outcome.result.structuredContent, {
      a: 1,
      list: [notice('a BigInt'), 'two'],
      when: '1970-01-01T00:00:00.000Z',
      throwsJson: notice('a value whose toJSON threw'),
      self: notice('a cyclic reference'),
      bad: notice('an unreadable value (a getter or proxy threw)'),
    });
    assert.deepStrictEqual(outcome.result.provenance.flags, ['unsupported_content']);
    assert.ok(!JSON.stringify(outcome).includes('SECRET'));
  });

  test('a structuredContent that is itself a BigInt is dropped, the text stays', async () => {
    const { outcome } = await invokeReturning({ content: [{ type: 'text', text: 'kept' }], structuredContent: 7n });
    assert.deepStrictEqual(outcome.result, { content: [{ type: 'text', text: 'kept' }], provenance: { serverId: 'page', truncated: false, flags: ['unsupported_content'] } });
  });

  test('an object JSON.stringify refuses is normalized to what it can write, never [object Object]', async () => {
    const value = { name: 'x', n: 5n };
    value.self = value;
    const normalized = normalizeResult(value);
    const salvaged = { name: 'x', n: notice('a BigInt'), self: notice('a cyclic reference') };
    assert.deepStrictEqual(normalized, { content: [{ type: 'text', text: JSON.stringify(salvaged, null, 2) }], structuredContent: salvaged });
    const list = [1n];
    list.push(list);
    assert.deepStrictEqual(normalizeResult(list), { content: [{ type: 'text', text: JSON.stringify([notice('a BigInt'), notice('a cyclic reference')], null, 2) }] });
    const { outcome } = await invokeReturning(value);
    assert.equal(outcome.ok, true);
    assert.ok(!outcome.result.content[0].text.includes('[object Object]'));
    assert.deepStrictEqual(outcome.result.structuredContent, salvaged);
    // A thrown value JSON refuses reads the same way.
    const thrown = { code: 7 };
    thrown.self = thrown;
    const failed = await tool(() => {
      throw thrown;
    }).invoke({});
    assert.equal(failed.result.content[0].text, `Error: {"code":7,"self":"${notice('a cyclic reference')}"}`);
  });
});

describe('isError keeps its truthiness', () => {
  for (const [given, expected] of [['yes', true], [1, true], [{}, true], ['', false], [0, false], [null, false], [false, false], [true, true]]) {
    test(`isError: ${JSON.stringify(given)} reads as ${expected}, on both routes`, async () => {
      const result = () => ({ content: [{ type: 'text', text: 'done' }], isError: given });
      const { outcome } = await invokeReturning(result());
      assert.equal(outcome.ok, true);
      assert.strictEqual(outcome.result.isError, expected);
      assert.strictEqual(shapeInCore(result(), 'page', CAP).result.isError, expected);
      assert.strictEqual(shapeForModel({ ...result(), structuredContent: { a: 1 } }, 'page', CAP).result.isError, expected);
    });
  }
});

describe('the bounded route answers what the core answers for the whole result', () => {
  // A deterministic generator (LCG) of results of every kind, biased to edges: texts around the
  // cap with hidden and multi-byte characters and lone surrogates, kept and dropped media with
  // data that fits or not, resources and links with long URIs, unknown and malformed blocks,
  // structuredContent with numbers JS writes in every form, notices of an earlier shaping.
  let seed = 11;
  const rand = (n) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 8) % n;
  const pick = (list) => list[rand(list.length)];
  const pieces = [
    'a', 'bc ', 'é', '中', '\ud83d\ude00', '\u200b', '\u202e', '\ufeff', '\udb40\udc41', '\udb40\udd10', '\ud800', '\udc00', '"', '\\', '\n', '\u0001',
    // The classes whose fate depends on neighbours, and the neighbours that keep them.
    '\u200d', '\u200c', '\ufe0f', '\ufe00', '\u2764', '\ud83c\udffd', '\u0645', '\u0915\u094d', '\u3164', '\ud55c', '\u2800', '\u2801', '\r', '\u2028', '\u00ad',
  ];
  const textOf = (max) => {
    let s = '';
    const n = rand(max + 1);
    for (let i = 0; i < n; i++) s += pick(pieces);
    return s;
  };
  const long = () => (rand(3) === 0 ? textOf(400) : textOf(12));
  const base64 = (n) => 'QUJD'.repeat(n);
  const mime = () => pick(['image/png', 'IMAGE/JPEG; q=1', 'image/svg+xml', 'audio/wav', 'audio/aac', 'image/p\u200bng', ' image/gif ', undefined, 7, 'x'.repeat(300)]);
  const json = (depth) => {
    switch (rand(depth > 3 ? 5 : 8)) {
      case 0: return null;
      case 1: return pick([0, -0, 12, -7, 0.1, 1e21, -1.5e-7, 5e-324, 123456789012345680000, 2 ** 53, 1 / 3]);
      case 2: return textOf(8);
      case 3: return rand(2) === 0;
      case 4: return pick([NaN, Infinity, undefined, () => 1, 3n]);
      case 5: return Array.from({ length: rand(4) }, () => json(depth + 1));
      default: {
        const out = {};
        for (let i = rand(4); i > 0; i--) out[textOf(4)] = json(depth + 1);
        return out;
      }
    }
  };
  const block = () => {
    switch (rand(9)) {
      case 0:
      case 1:
      case 2: return { type: 'text', text: long() };
      case 3: return { type: pick(['image', 'audio']), mimeType: mime(), data: pick([base64(rand(60)), base64(rand(2)), 'not base64!', '%'.repeat(rand(400)), '']), _meta: { x: 1 } };
      case 4: return { type: 'resource', resource: { uri: long(), mimeType: mime(), text: long() } };
      case 5: return { type: 'resource', resource: { uri: long(), mimeType: mime(), blob: pick([base64(rand(60)), '%%', '%'.repeat(rand(400))]) } };
      case 6: return { type: 'resource_link', uri: long(), ...(rand(2) ? { name: long() } : {}) };
      case 7: return pick([{ type: textOf(3) }, 'not a block', { type: 'text', text: 5 }, { type: 'resource' }, { type: 'x'.repeat(80) }]);
      default: return { type: 'text', text: pick(['[truncated by the MCP client: kept 3 of 9 bytes]', '[truncated by the MCP client: kept 0 of at least 0 bytes]']) };
    }
  };
  const result = () => {
    const out = { content: Array.from({ length: rand(7) }, block) };
    if (rand(2)) out.structuredContent = json(0);
    if (rand(3) === 0) out.isError = pick([true, false, 'yes', 0]);
    if (rand(4) === 0) out.provenance = { truncated: rand(2) === 0, flags: ['bidi', 'oversized', 'bogus'] };
    return out;
  };

  test('on 400 generated results and caps from 0 to the default', () => {
    for (let i = 0; i < 400; i++) {
      const input = result();
      const cap = pick([0, 1, 5, 17, 40, 100, 250, 600, 2000, CAP]);
      const whole = shapeReference(input, 'page', cap);
      assert.deepStrictEqual(shapeInCore(input, 'page', cap), whole, `case ${i}, cap ${cap}`);
      assert.deepStrictEqual(shapeForModel(input, 'page', cap), whole, `case ${i}, cap ${cap}: the route a call takes`);
      assert.deepStrictEqual(shapeForModel(structuredClone(whole.result), 'page', cap), whole, `case ${i}, cap ${cap}: shaping again`);
    }
  });
});

describe('the TS route and the core agree on hidden text', () => {
  // Characters around every keep rule, strung together at random: the fast path (candidates sent
  // with their context, edits mapped back) must answer what the core answers for the whole string.
  const alphabet = [
    'a', ' ', '\ud83d\udc68', '\u2764', '\ud83c\udffd', '#', '0', '\u20e3', '\ufe0f', '\ufe0e', '\ufe00', '\ufe01', '\u200d', '\u200c', '\u0645', '\u06cc',
    '\u0915', '\u094d', '\u1820', '\u180b', '\ud55c', '\u1100', '\u1161', '\u115f', '\u1160', '\u3164', '\uffa0', '\u2800', '\u2801', '\r', '\n', '\u2028',
    '\u0085', '\u001b', '\u845b', '\udb40\udd00', '\udb40\udc41', '\u00ad', '\u202e',
  ];
  let seed = 23;
  const rand = (n) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 8) % n;
  const text = (n) => Array.from({ length: n }, () => alphabet[rand(alphabet.length)]).join('');

  test('on 2,000 generated strings, short and long, through both routes', () => {
    for (let i = 0; i < 2000; i++) {
      const input = { content: [{ type: 'text', text: text(rand(3) === 0 ? 400 : 12) }] };
      const whole = shapeReference(input, 'page', CAP);
      assert.deepStrictEqual(shapeForModel(input, 'page', CAP), whole, JSON.stringify(input.content[0].text));
      assert.deepStrictEqual(shapeForModel(structuredClone(whole.result), 'page', CAP), whole, 'shaping again changes nothing');
    }
  });

  test('a dense dirty text crosses whole in parts, and still agrees at every part boundary', () => {
    // Past one candidate in 16 units the text crosses whole, in parts with their context.
    const input = { content: [{ type: 'text', text: text(150_000) }] };
    const big = 8 * MiB;
    assert.deepStrictEqual(shapeForModel(input, 'page', big), shapeReference(input, 'page', big));
  });

  test('every code point the engine calls Default_Ignorable, Cf or Cc (but TAB and LF) is removed, with the core\'s table', () => {
    // The candidate regex is written from the core's table, not from this engine's Unicode data:
    // whatever version the engine knows, each of its invisible and format characters goes.
    const invisible = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]/u;
    let seen = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      if (!invisible.test(c) || c === '\t' || c === '\n') continue;
      seen++;
      const { result } = shapeForModel({ content: [{ type: 'text', text: `x${c}y` }] }, 'page', CAP);
      assert.ok(/^x\n?y$/.test(result.content[0].text), `U+${cp.toString(16)}`);
    }
    assert.ok(seen > 4000, `${seen} code points`);
  });
});

describe('maxResultBytesForLlm bounds what crosses', () => {
  test('a raised cap lets more cross, and the notice stays exact', async () => {
    configureWebMCP({ maxResultBytesForLlm: 4 * MiB });
    const { outcome, crossed } = await invokeReturning({ content: [{ type: 'text', text: 'y'.repeat(6 * MiB) }, { type: 'image', mimeType: 'image/png', data: 'QUJD'.repeat(1000) }] });
    assert.equal(outcome.result.content[0].text.length, 4 * MiB);
    assert.equal(last(outcome.result), `[truncated by the MCP client: kept ${4 * MiB} of ${6 * MiB + 4000} bytes]`);
    assert.ok(crossed < 4 * MiB + 64 * 1024, `${crossed} bytes crossed`);
  });
});
