// Shaping for a model through the BUILT package: every case of the shared
// tests/fixtures/shape.json (the file `cargo test --test shape` runs against the core) goes
// through a tool whose function returns the case's input, by `tool.invoke` and by the
// `execute` registered on the fake modelContext, and must come out exactly as the fixture says.
// The TS layer has two routes to that answer (a fast path for plain text far below the cap that
// sends only dirty text to the core and gets edit positions back, and the core's `shapeResult`
// for everything else, sent bounded by the cap); both are run on every case and must agree, and
// agree with the reference route that sends the whole result.
//
// Build first: `npm run build -w pkg-js` (or `WASM_OPT=0 node pkg-js/build.mjs`).
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { configureWebMCP, normalizeResult, listTools, ConfigurationError } from '../lib/index.js';
import { installFakeModelContext } from '../lib/testing.js';
// The internal routes, to check they agree (the same module instance the package uses).
import { shapeForModel, shapeInCore, shapeReference, shapeStats } from '../lib/shape/shaping.js';
import { loadPipeline } from '../lib/api/pipeline-loader.js';
import { clone, loadFixture, toolMaker } from '../test-support/lib-helpers.mjs';

// The internal routes are synchronous and need the shaping module loaded, as calls have it (the
// pipeline chunk loads it, with what it is handed from the entry).
await (await loadPipeline()).loadShaper();

const CASES = loadFixture('shape.json');
const DEFAULT_CAP = 102_400;
const capOf = (c) => c.options?.maxBytes ?? DEFAULT_CAP;
const serverOf = (c) => c.options?.serverId ?? 'page';
/** What `normalizeResult` passes on unchanged: an object with a `content` array. */
const isResult = (value) => value !== null && typeof value === 'object' && Array.isArray(value.content);
/** Which route `run` took: the core's whole-result crossing, or the fast path (no such crossing). */
const routeOf = (run) => {
  const before = shapeStats.crossings;
  run();
  return shapeStats.crossings === before ? 'fast' : 'core';
};
const route = (result) => routeOf(() => shapeForModel(result, 'page', DEFAULT_CAP));
/** The same for an awaited call. */
const routeOfCall = async (call) => {
  const before = shapeStats.crossings;
  const outcome = await call();
  return [shapeStats.crossings === before ? 'fast' : 'core', outcome];
};

const tool = toolMaker((n) => ({ name: `shape_${n}`, description: 'returns a fixture result' }));

test('the shared fixture file is the full set', () => {
  assert.ok(CASES.length >= 45, `expected every shared case, got ${CASES.length}`);
  assert.equal(new Set(CASES.map((c) => c.name)).size, CASES.length, 'case names are unique');
});

describe('both routes give each fixture its expected result', () => {
  for (const c of CASES) {
    test(c.name, () => {
      const inCore = shapeInCore(clone(c.input), serverOf(c), capOf(c));
      assert.deepStrictEqual(inCore.result, c.expected, 'the core route');
      assert.deepStrictEqual(inCore.flags, c.expected.provenance.flags);
      assert.equal(inCore.truncated, c.expected.provenance.truncated);
      assert.deepStrictEqual(shapeReference(clone(c.input), serverOf(c), capOf(c)), inCore, 'the whole result sent');
      assert.deepStrictEqual(shapeForModel(clone(inCore.result), serverOf(c), capOf(c)), inCore, 'shaping again changes nothing');
      if (isResult(c.input)) {
        const dispatched = shapeForModel(clone(c.input), serverOf(c), capOf(c));
        assert.deepStrictEqual(dispatched, inCore, 'the route the pipeline takes');
      }
    });
  }
});

describe('tool.invoke gives each fixture its expected result', () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const options = {};
      if (c.options?.maxBytes !== undefined) options.maxResultBytesForLlm = c.options.maxBytes;
      if (c.options?.serverId !== undefined) options.serverId = c.options.serverId;
      configureWebMCP(options);
      const outcome = await tool(() => clone(c.input)).invoke({});
      assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
      if (isResult(c.input)) {
        assert.deepStrictEqual(outcome.result, c.expected);
      } else {
        // Not a result: the agent path normalizes it first, so the agent reads the
        // value as text; the core's "invalid result" notice is only reachable without that.
        const text = normalizeResult(clone(c.input));
        assert.deepStrictEqual(outcome.result, { ...text, provenance: { serverId: serverOf(c), truncated: false, flags: [] } });
        assert.notDeepStrictEqual(outcome.result, c.expected);
      }
    });
  }
});

describe('the registered execute gives each fixture its expected result', () => {
  let fake;
  beforeEach(() => {
    fake = installFakeModelContext();
  });
  afterEach(() => fake.uninstall());
  for (const c of CASES.filter((c) => isResult(c.input))) {
    test(c.name, async () => {
      if (c.options?.maxBytes !== undefined) configureWebMCP({ maxResultBytesForLlm: c.options.maxBytes });
      // The server id from the tool's own option this time (the invoke tests use the global one).
      const t = tool(() => clone(c.input), c.options?.serverId ? { server: c.options.serverId } : {});
      await t.register();
      const answer = JSON.parse(await fake.modelContext.executeTool({ name: t.definition.name }, '{}'));
      // What leaves the page carries provenance in `_meta` (MCP's place for it; src/mcp.ts).
      const { provenance, ...rest } = c.expected;
      assert.deepStrictEqual(answer, { ...rest, _meta: { 'webmcp-warden/provenance': provenance } });
    });
  }
});

describe('routes', () => {
  test('plain text that fits the cap takes the fast path; structured, other blocks and cut results take the core', () => {
    assert.equal(route({ content: [{ type: 'text', text: 'a\u200bb' }] }), 'fast');
    assert.equal(route({ content: [{ type: 'text', text: 'ab' }], isError: true }), 'fast');
    assert.equal(route({ content: [{ type: 'text', text: 'ab' }], isError: 'yes' }), 'fast');
    assert.equal(route({ content: [{ type: 'text', text: 'ab' }], structuredContent: { a: 1 } }), 'core');
    assert.equal(route({ content: [{ type: 'text', text: 'ab', _meta: {} }] }), 'core');
    assert.equal(routeOf(() => shapeForModel({ content: [{ type: 'text', text: 'abc' }] }, 'page', 2)), 'core');
    // More blocks than the core's limit: the core route, which sends only the first thousand.
    assert.equal(route({ content: Array.from({ length: 1001 }, () => ({ type: 'text', text: '' })) }), 'core');
  });

  test('a dirty text is stripped before it is measured: the fast path and the core agree at every cap', () => {
    const input = () => ({ content: [{ type: 'text', text: '\u202eab\u200bcd\u00e9f\udb40\udc41' }, { type: 'text', text: '\u4e2d\ud83d\ude00' }] });
    // 7 + 7 clean bytes: no cut from 14 up.
    for (let cap = 0; cap <= 60; cap++) {
      const dispatched = shapeForModel(input(), 'page', cap);
      assert.deepStrictEqual(dispatched, shapeInCore(input(), 'page', cap), `cap ${cap}`);
      assert.deepStrictEqual(dispatched, shapeReference(input(), 'page', cap), `cap ${cap}`);
      assert.equal(dispatched.truncated, cap < 14, `cap ${cap}`);
    }
    const whole = shapeForModel(input(), 'page', 60);
    assert.equal(routeOf(() => shapeForModel(input(), 'page', 60)), 'fast');
    assert.deepStrictEqual(whole.result.content, [{ type: 'text', text: 'abcd\u00e9f' }, { type: 'text', text: '\u4e2d\ud83d\ude00' }]);
    assert.deepStrictEqual(whole.flags, ['bidi', 'zero_width', 'tag_chars']);
    assert.equal(routeOf(() => shapeForModel(input(), 'page', 13)), 'core');
  });
});

describe('shape: false', () => {
  const dirty = () => ({ content: [{ type: 'text', text: 'a\u200bb\u202e', _meta: { x: 1 } }, { type: 'image', data: 'PHN2Zz4=', mimeType: 'image/svg+xml' }] });

  test('as a tool option, the result reaches the agent unshaped', async () => {
    const outcome = await tool(dirty, { shape: false }).invoke({});
    assert.deepStrictEqual(outcome.result, dirty());
  });

  test('as a call option, it turns shaping off for that call only', async () => {
    const t = tool(dirty);
    assert.deepStrictEqual((await t.invoke({}, { shape: false })).result, dirty());
    const shaped = (await t.invoke({})).result;
    assert.deepStrictEqual(shaped.provenance.flags, ['bidi', 'zero_width', 'media_dropped']);
  });

  test("a call's shape: 'llm' turns it on for a tool that has it off", async () => {
    const outcome = await tool(dirty, { shape: false }).invoke({}, { shape: 'llm' });
    assert.equal(outcome.result.content[0].text, 'ab');
    assert.equal(outcome.result.provenance.serverId, 'page');
  });

  test('the registered execute follows the tool option', async () => {
    const fake = installFakeModelContext();
    try {
      const off = tool(dirty, { shape: false });
      const on = tool(dirty);
      await off.register();
      await on.register();
      assert.deepStrictEqual(JSON.parse(await fake.modelContext.executeTool({ name: off.definition.name }, '{}')), dirty());
      const shaped = JSON.parse(await fake.modelContext.executeTool({ name: on.definition.name }, '{}'));
      assert.equal(shaped.content[0].text, 'ab');
      assert.equal(shaped.content[1].text, '[image/svg+xml content removed by the MCP client]');
    } finally {
      fake.uninstall();
    }
  });

  test('errors and denials are shaped too, and not with shape: false', async () => {
    const throwing = tool(() => {
      throw new Error('bad\u200b thing');
    });
    const shaped = await throwing.invoke({});
    assert.deepStrictEqual(shaped.result, { content: [{ type: 'text', text: 'Error: bad thing' }], isError: true, provenance: { serverId: 'page', truncated: false, flags: ['zero_width'] } });
    const raw = await throwing.invoke({}, { shape: false });
    assert.deepStrictEqual(raw.result, { content: [{ type: 'text', text: 'Error: bad\u200b thing' }], isError: true });
  });
});

describe('lone surrogates', () => {
  const wellFormed = (s) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
  const strings = (value, out = []) => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(k), strings(v, out);
    return out;
  };

  test('become U+FFFD on the fast path, and a removal never joins two halves', async () => {
    const t = tool(() => ({ content: [{ type: 'text', text: 'a\ud800b\u200b|\udb40\u200b\udc41|\udfff' }] }));
    const [taken, outcome] = await routeOfCall(() => t.invoke({}));
    assert.deepStrictEqual(outcome.result, {
      content: [{ type: 'text', text: 'a\ufffdb|\ufffd\ufffd|\ufffd' }],
      provenance: { serverId: 'page', truncated: false, flags: ['zero_width'] },
    });
    assert.equal(taken, 'fast');
  });

  test('do not make the core drop a whole result: structured content, keys and media blocks', async () => {
    const input = () => ({
      content: [{ type: 'text', text: 'x\udc00y' }, { type: 'resource', resource: { uri: 'u:\ud83d', text: 't\u200b' } }],
      structuredContent: { ['k\ud800']: ['v\udbff', { deep: '\u202e\udc01' }] },
    });
    const outcome = await tool(input).invoke({});
    assert.deepStrictEqual(outcome.result, {
      content: [{ type: 'text', text: 'x\ufffdy' }, { type: 'resource', resource: { uri: 'u:\ufffd', text: 't' } }],
      structuredContent: { 'k\ufffd': ['v\ufffd', { deep: '\ufffd' }] },
      provenance: { serverId: 'page', truncated: false, flags: ['bidi', 'zero_width'] },
    });
    assert.ok(strings(outcome.result).every(wellFormed));
  });

  test('the fast path and the core agree on text with lone surrogates, cut or not', () => {
    const text = '\udc00ab\u200b\ud800\u202e\udc00cd\ud83d\ude00e\ud83d';
    const input = () => ({ content: [{ type: 'text', text }, { type: 'text', text: '\ud800' }] });
    for (const cap of [0, 1, 3, 5, 7, 11, 14, 18, 100]) {
      const dispatched = shapeForModel(input(), 'page', cap);
      assert.deepStrictEqual(dispatched, shapeInCore(input(), 'page', cap), `cap ${cap}`);
      assert.deepStrictEqual(dispatched, shapeReference(input(), 'page', cap), `cap ${cap}`);
      assert.ok(strings(dispatched.result).every(wellFormed), `cap ${cap}`);
    }
    assert.equal(routeOf(() => shapeForModel(input(), 'page', 100)), 'fast');
    assert.deepStrictEqual(shapeForModel(input(), 'page', 100).result.content, [
      { type: 'text', text: '\ufffdab\ufffd\ufffdcd\ud83d\ude00e\ufffd' },
      { type: 'text', text: '\ufffd' },
    ]);
  });
});

describe('a 1 MiB dirty result', () => {
  // A deterministic mix of ASCII, 2-, 3- and 4-byte characters, every flag class, and the
  // sequences the rules keep. Each piece comes out as its pair says whatever its neighbours are
  // (a joiner or selector that needs context brings it along), so the reference needs no rules.
  const pieces = [
    ['lorem ', 'lorem '], ['ipsum ', 'ipsum '], ['\u00e9', '\u00e9'], ['\u4e2d', '\u4e2d'], ['\ud83d\ude00', '\ud83d\ude00'],
    ['\u200b', ''], ['\u202e', ''], ['\u2066', ''], ['\ufeff', ''], ['\u061c', ''], ['\u180e', ''], ['\udb40\udc41', ''], ['\udb40\udd10', ''],
    ['\u00ad', ''], ['\ufe05', ''], ['\udb40\udc80', ''], ['\u001b', ''], ['\u2028', '\n'], ['x\ry', 'x\ny'], ['\r\n', '\r\n'],
    ['a\u200db', 'ab'], ['\u2764\ufe0f', '\u2764\ufe0f'], ['\ud83d\udc68\u200d\ud83d\udc69', '\ud83d\udc68\u200d\ud83d\udc69'],
    ['\u0645\u06cc\u200c\u062e', '\u0645\u06cc\u200c\u062e'], ['\ud55c\u3164', '\ud55c\u3164'], ['x\u3164y', 'xy'],
  ];
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 8;
  let text = '';
  let stripped = '';
  while (text.length < 1 << 20) {
    const [piece, kept] = pieces[next() % pieces.length];
    text += piece;
    stripped += kept;
  }
  const FLAGS = ['bidi', 'zero_width', 'tag_chars', 'variation_selectors', 'controls', 'other_invisible'];
  test('the generated text holds every piece', () => {
    for (const [piece] of pieces) assert.ok(text.includes(piece), JSON.stringify(piece));
  });
  const bytes = (s) => Buffer.byteLength(s, 'utf8');

  test('with a large cap is stripped exactly, on the fast path', async () => {
    configureWebMCP({ maxResultBytesForLlm: 8 << 20 });
    const t = tool(() => text);
    const [taken, outcome] = await routeOfCall(() => t.invoke({}));
    assert.equal(taken, 'fast');
    assert.equal(outcome.result.content.length, 1);
    assert.ok(outcome.result.content[0].text === stripped, 'the stripped text differs from the reference');
    assert.deepStrictEqual(outcome.result.provenance, { serverId: 'page', truncated: false, flags: FLAGS });
  });

  test('with the default cap is stripped, then cut by the core on a character boundary', async () => {
    const t = tool(() => text);
    const sentBefore = shapeStats.bytesSent;
    const [taken, outcome] = await routeOfCall(() => t.invoke({}));
    const [kept, notice, extra] = outcome.result.content;
    assert.equal(extra, undefined);
    assert.equal(taken, 'core');
    // Only what the cap can keep crosses (a few bytes more), not the 1 MiB.
    assert.ok(shapeStats.bytesSent - sentBefore < 3 * DEFAULT_CAP, `${shapeStats.bytesSent - sentBefore} bytes crossed`);
    assert.ok(stripped.startsWith(kept.text), 'the kept text is a prefix of the stripped text');
    assert.ok(bytes(kept.text) <= DEFAULT_CAP);
    // The cut is as late as the cap allows: the next character would not have fit.
    const nextChar = String.fromCodePoint(stripped.codePointAt(kept.text.length));
    assert.ok(bytes(kept.text + nextChar) > DEFAULT_CAP, 'the cut is not the last boundary under the cap');
    assert.ok(!/[\ud800-\udbff]$/.test(kept.text), 'the cut splits a surrogate pair');
    assert.equal(notice.text, `[truncated by the MCP client: kept ${bytes(kept.text)} of ${bytes(stripped)} bytes]`);
    assert.deepStrictEqual(outcome.result.provenance, { serverId: 'page', truncated: true, flags: FLAGS });
  });

  test('a cut that lands inside a 4-byte character keeps the character out, for every offset', async () => {
    const emoji = '\ud83d\ude00';
    for (let cap = 5; cap <= 9; cap++) {
      configureWebMCP({ maxResultBytesForLlm: cap });
      const outcome = await tool(() => 'abcd' + emoji + emoji).invoke({});
      const expected = 'abcd' + emoji.repeat(Math.floor((cap - 4) / 4));
      assert.equal(outcome.result.content[0].text, expected, `cap ${cap}`);
      assert.equal(outcome.result.content[1].text, `[truncated by the MCP client: kept ${bytes(expected)} of 12 bytes]`);
    }
  });
});

describe('maxResultBytesForLlm', () => {
  test('0 is a cap: only the notice is left', async () => {
    configureWebMCP({ maxResultBytesForLlm: 0 });
    const outcome = await tool(() => 'hello').invoke({});
    assert.deepStrictEqual(outcome.result.content, [{ type: 'text', text: '[truncated by the MCP client: kept 0 of 5 bytes]' }]);
  });

  test('caps past 2^32 do not wrap around in the core', async () => {
    configureWebMCP({ maxResultBytesForLlm: 2 ** 32 });
    const t = tool(() => ({ content: [{ type: 'text', text: 'hello' }], structuredContent: { a: 1 } }));
    const [taken, outcome] = await routeOfCall(() => t.invoke({}));
    assert.equal(taken, 'core');
    assert.deepStrictEqual(outcome.result, { content: [{ type: 'text', text: 'hello' }], structuredContent: { a: 1 }, provenance: { serverId: 'page', truncated: false, flags: [] } });
  });

  test('anything but a whole number of bytes is a ConfigurationError, and changes nothing', async () => {
    configureWebMCP({ maxResultBytesForLlm: 4 });
    for (const bad of [-1, 1.5, NaN, Infinity, '100', null, 2 ** 53]) {
      assert.throws(() => configureWebMCP({ maxResultBytesForLlm: bad }), ConfigurationError, String(bad));
    }
    const outcome = await tool(() => 'hello').invoke({});
    assert.equal(outcome.result.content[0].text, 'hell');
  });
});

describe('listTools shapes what a model reads of a definition', () => {
  test('descriptions and titles lose hidden characters; shape: false keeps them', async () => {
    const t = tool(() => 'x', { title: 'Ti\u200btle', description: 'Reads\u202e files\udb40\udc41' });
    await t.register();
    const [shaped] = (await listTools()).filter((d) => d.name === t.definition.name);
    assert.equal(shaped.description, 'Reads files');
    assert.equal(shaped.title, 'Title');
    const [raw] = (await listTools({ shape: false })).filter((d) => d.name === t.definition.name);
    assert.equal(raw.description, 'Reads\u202e files\udb40\udc41');
    assert.equal(raw.title, 'Ti\u200btle');
  });
});
