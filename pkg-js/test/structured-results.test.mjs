// Structured results (issue 19), through the BUILT package: a tool that returns a plain object
// reaches the agent as MCP's tool result specification describes, `structuredContent` plus its
// serialized JSON as text for clients that read only text; with shaping (the structured part is
// stripped and capped like everything else) and without (`shape: false`), on every agent path:
// `tool.invoke`, `invokeTool`, and the `execute` registered with the browser.
//
// Build first: `npm run build -w pkg-js`.
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { configureWebMCP, createHookedExecute, invokeTool, normalizeResult } from 'webmcp-warden';
import { installFakeModelContext } from 'webmcp-warden/testing';
import { toolMaker } from '../test-support/helpers.mjs';

const tool = toolMaker((n) => ({ name: `structured_${n}`, description: 'returns an object' }));
const pretty = (value) => JSON.stringify(value, null, 2);
const structured = (value) => ({ content: [{ type: 'text', text: pretty(value) }], structuredContent: value });
const order = { id: 'A-17', total: 42.5, items: [{ sku: 'mug', qty: 2 }], shipped: false, note: null };

describe('normalizeResult', () => {
  test('a plain object becomes structuredContent plus its JSON as text', () => {
    assert.deepStrictEqual(normalizeResult(order), structured(order));
    assert.equal(normalizeResult(order).structuredContent, order, 'the object itself, not a copy');
    const bare = Object.assign(Object.create(null), { a: 1 });
    assert.deepStrictEqual(normalizeResult(bare), structured(bare));
    assert.deepStrictEqual(normalizeResult({}), structured({}));
  });

  test('everything else is as before: text only', () => {
    assert.deepStrictEqual(normalizeResult([1, 2]), { content: [{ type: 'text', text: pretty([1, 2]) }] }, 'an array (structuredContent is an object in MCP)');
    assert.deepStrictEqual(normalizeResult('hi'), { content: [{ type: 'text', text: 'hi' }] });
    assert.deepStrictEqual(normalizeResult(4), { content: [{ type: 'text', text: '4' }] });
    assert.deepStrictEqual(normalizeResult(true), { content: [{ type: 'text', text: 'true' }] });
    assert.deepStrictEqual(normalizeResult(null), { content: [{ type: 'text', text: '' }] });
    assert.deepStrictEqual(normalizeResult(undefined), { content: [{ type: 'text', text: '' }] });
    assert.deepStrictEqual(normalizeResult(new Date(0)), { content: [{ type: 'text', text: '"1970-01-01T00:00:00.000Z"' }] }, 'a class instance');
    assert.deepStrictEqual(normalizeResult(new Map([[1, 2]])), { content: [{ type: 'text', text: '{}' }] });
    const withToJson = { toJSON: () => ({ a: 1 }) };
    assert.deepStrictEqual(normalizeResult(withToJson), { content: [{ type: 'text', text: pretty({ a: 1 }) }] }, 'an object that writes itself as something else');
  });

  test('a result already in { content } form is unchanged', () => {
    const result = { content: [{ type: 'text', text: 'x' }], structuredContent: { y: 1 }, isError: false };
    assert.equal(normalizeResult(result), result);
  });

  test('structured: false keeps text only', () => {
    assert.deepStrictEqual(normalizeResult(order, { structured: false }), { content: [{ type: 'text', text: pretty(order) }] });
    assert.deepStrictEqual(normalizeResult(order, { structured: true }), structured(order));
  });
});

describe('through a call', () => {
  test('tool.invoke, shaped: the text and the structured part are stripped, keys too, and flagged', async () => {
    const value = { 'na\u200bme': 'Mallory\u202e', list: ['a\udb40\udc41b'], n: 1.5 };
    const outcome = await tool(() => value).invoke({});
    assert.equal(outcome.ok, true);
    const clean = { name: 'Mallory', list: ['ab'], n: 1.5 };
    assert.deepStrictEqual(outcome.result, {
      // The text is the original JSON, stripped; the structured part is stripped value by value.
      content: [{ type: 'text', text: pretty(value).replace(/[\u200b\u202e]|\udb40\udc41/g, '') }],
      structuredContent: clean,
      provenance: { serverId: 'page', truncated: false, flags: ['bidi', 'zero_width', 'tag_chars'] },
    });
    assert.deepStrictEqual(JSON.parse(outcome.result.content[0].text), clean);
  });

  test('tool.invoke with shape: false: the structured result as normalized', async () => {
    const outcome = await tool(() => order, { shape: false }).invoke({});
    assert.deepStrictEqual(outcome, { ok: true, result: structured(order) });
    const perCall = await tool(() => order).invoke({}, { shape: false });
    assert.deepStrictEqual(perCall.result, structured(order));
  });

  test('invokeTool and the registered execute give the agent the same', async () => {
    const fake = installFakeModelContext();
    try {
      const t = tool(() => order);
      await t.register();
      const expected = { ...structured(order), provenance: { serverId: 'page', truncated: false, flags: [] } };
      assert.deepStrictEqual((await invokeTool(t.definition.name, {})).result, expected);
      // The same result; what leaves the page carries provenance in `_meta` (src/mcp.ts).
      const { provenance, ...wire } = expected;
      assert.deepStrictEqual(JSON.parse(await fake.modelContext.executeTool({ name: t.definition.name }, '{}')), { ...wire, _meta: { 'webmcp-warden/provenance': provenance } });
      const raw = tool(() => order, { shape: false });
      await raw.register();
      assert.deepStrictEqual(JSON.parse(await fake.modelContext.executeTool({ name: raw.definition.name }, '{}')), structured(order));
    } finally {
      fake.uninstall();
    }
  });

  test('near the cap the structured part goes first: it counts after the text', async () => {
    // The text is the pretty JSON (longer), the structured part the compact JSON.
    const value = { s: 'x'.repeat(40) };
    const text = pretty(value);
    const compact = JSON.stringify(value);
    configureWebMCP({ maxResultBytesForLlm: text.length + compact.length - 1 });
    const outcome = await tool(() => value).invoke({});
    assert.deepStrictEqual(outcome.result.content, [
      { type: 'text', text },
      { type: 'text', text: `[truncated by the MCP client: kept ${text.length} of ${text.length + compact.length} bytes]` },
    ]);
    assert.equal(outcome.result.structuredContent, undefined);
    configureWebMCP({ maxResultBytesForLlm: text.length + compact.length });
    assert.deepStrictEqual((await tool(() => value).invoke({})).result.structuredContent, value);
  });

  test('the tool option structured: false keeps text only, and output validation has nothing to check', async () => {
    const outcome = await tool(() => order, { structured: false, shape: false }).invoke({});
    assert.deepStrictEqual(outcome, { ok: true, result: { content: [{ type: 'text', text: pretty(order) }] } });
    const outputSchema = { type: 'object', required: ['missing'] };
    assert.equal((await tool(() => order, { structured: false, outputSchema }).invoke({})).ok, true);
    assert.equal((await tool(() => order, { outputSchema }).invoke({})).ok, false, 'structured by default: the schema applies');
    assert.throws(() => tool(() => order, { structured: 'no' }), { name: 'ConfigurationError', code: 'invalid_options' });
  });

  test('with an outputSchema, the structured part is what output validation checks', async () => {
    const outputSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
    const good = await tool(() => ({ total: 12 }), { outputSchema }).invoke({});
    assert.equal(good.ok, true);
    assert.deepStrictEqual(good.result.structuredContent, { total: 12 });
    const bad = await tool(() => ({ total: 'twelve' }), { outputSchema }).invoke({});
    assert.equal(bad.ok, false);
    assert.equal(bad.error.reason, 'invalid_structured_content');
    // Text only has no structured part to check.
    assert.equal((await tool(() => 'twelve', { outputSchema }).invoke({})).ok, true);
  });

  test('with an outputSchema, invokeTool and the registered execute check the structured part too', async () => {
    const fake = installFakeModelContext();
    try {
      const outputSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
      const good = tool(() => ({ total: 12 }), { outputSchema });
      const bad = tool(() => ({ total: 'twelve' }), { outputSchema });
      await good.register();
      await bad.register();
      const provenance = { serverId: 'page', truncated: false, flags: [] };
      assert.deepStrictEqual((await invokeTool(good.definition.name, {})).result, { ...structured({ total: 12 }), provenance });
      assert.deepStrictEqual(JSON.parse(await fake.modelContext.executeTool({ name: good.definition.name }, '{}')), { ...structured({ total: 12 }), _meta: { 'webmcp-warden/provenance': provenance } });
      const refused = await invokeTool(bad.definition.name, {});
      assert.equal(refused.ok, false);
      assert.equal(refused.error.reason, 'invalid_structured_content');
      const text = [{ type: 'text', text: 'Error: Validation failed: /total must be number' }];
      assert.deepStrictEqual(refused.result, { content: text, isError: true, provenance });
      assert.deepStrictEqual(JSON.parse(await fake.modelContext.executeTool({ name: bad.definition.name }, '{}')), { content: text, isError: true, _meta: { 'webmcp-warden/provenance': provenance } }, 'the agent never sees the invalid structured part');
    } finally {
      fake.uninstall();
    }
  });
});

describe("createHookedExecute keeps simple-webmcp's meaning", () => {
  let fake;
  beforeEach(() => {
    fake = installFakeModelContext();
  });
  afterEach(() => fake.uninstall());

  test('text only', async () => {
    const t = tool(() => order);
    const execute = createHookedExecute(() => order, t, t.definition, { getHooks: () => ({}) });
    assert.deepStrictEqual(await execute({}), { content: [{ type: 'text', text: pretty(order) }] });
  });
});
