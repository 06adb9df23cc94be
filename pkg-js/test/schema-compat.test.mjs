// Schemas and annotations browsers may refuse or ignore (pkg-js/src/runtime/schema-compat.ts,
// registration.ts; docs/runtimes.md): the lint (`lintTool` and register()'s warning), the
// compatible schema `browserSchema: 'compatible'` sends while the validator enforces the one
// given, and the annotations browsers are sent.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createWarden, lintTool, webmcp } from '../lib/index.js';
import { installFakeModelContext } from '../lib/testing.js';
import { compatibleSchema } from '../lib/runtime/schema-compat.js';

/** A schema with a `$ref` into `$defs`, a `format`, and a property named `format` (not a keyword). */
const orderSchema = {
  type: 'object',
  $defs: { address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  properties: {
    email: { type: 'string', format: 'email', description: 'Where the receipt goes' },
    shipTo: { $ref: '#/$defs/address' },
    format: { type: 'string', enum: ['pdf', 'html'] },
  },
  required: ['email', 'shipTo'],
};

/** Runs `fn` with console.warn collected; answers what it warned. */
async function warnings(fn) {
  const warn = console.warn;
  const seen = [];
  console.warn = (message) => seen.push(String(message));
  try {
    await fn();
  } finally {
    console.warn = warn;
  }
  return seen;
}

describe('lintTool', () => {
  test('reports each keyword browsers may refuse where it is a keyword, never a property of that name', async () => {
    const found = await lintTool({ inputSchema: orderSchema });
    assert.deepEqual(
      found.map(({ code, path, keyword }) => [code, path, keyword]),
      [
        ['schema_keyword', '/inputSchema', '$defs'],
        ['schema_keyword', '/inputSchema/properties/email', 'format'],
        ['schema_keyword', '/inputSchema/properties/shipTo', '$ref'],
      ],
    );
    assert.match(found[1].message, /"format" at \/inputSchema\/properties\/email may be refused by browsers/);
  });

  test('every listed keyword, in subschemas of every kind; data (enum, const, default) is not walked', async () => {
    const schema = {
      allOf: [{ unevaluatedProperties: false }],
      items: { contentEncoding: 'base64', contentMediaType: 'image/png' },
      dependentRequired: { a: ['b'] },
      dependentSchemas: { a: { format: 'date' } },
      default: { $ref: '#/nowhere', format: 'x' },
      const: { $defs: {} },
    };
    const found = await lintTool({ outputSchema: schema });
    assert.deepEqual(found.map((f) => `${f.path} ${f.keyword}`).sort(), [
      '/outputSchema dependentRequired',
      '/outputSchema dependentSchemas',
      '/outputSchema/allOf/0 unevaluatedProperties',
      '/outputSchema/dependentSchemas/a format',
      '/outputSchema/items contentEncoding',
      '/outputSchema/items contentMediaType',
    ]);
  });

  test('annotations WebMCP has no counterpart for; a tool made by webmcp; nothing to say is []', async () => {
    const found = await lintTool({ annotations: { readOnlyHint: true, destructiveHint: true, idempotentHint: true } });
    assert.deepEqual(found.map((f) => [f.code, f.path]), [['annotation_ignored', '/annotations/idempotentHint']]);
    const tool = webmcp(async () => 'ok', { name: 'lint_me', description: 'x', inputSchema: { type: 'object', properties: { when: { type: 'string', format: 'date-time' } } } });
    assert.deepEqual((await lintTool(tool)).map((f) => f.path), ['/inputSchema/properties/when']);
    assert.deepEqual(await lintTool({ inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }), []);
    const hostile = { inputSchema: new Proxy({}, { ownKeys() { throw new Error('boom'); } }) };
    assert.deepEqual(await lintTool(hostile), [], 'never throws');
  });
});

describe('the compatible schema', () => {
  test('$ref inlined, $defs dropped, format in the description; the rest kept', () => {
    const findings = [];
    const adapted = compatibleSchema(orderSchema, '/inputSchema', findings);
    assert.deepEqual(adapted, {
      type: 'object',
      properties: {
        email: { type: 'string', description: 'Where the receipt goes (format: email)' },
        shipTo: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        format: { type: 'string', enum: ['pdf', 'html'] },
      },
      required: ['email', 'shipTo'],
    });
    assert.deepEqual(findings, []);
  });

  test('a $ref with siblings is kept beside them (allOf); cyclic, remote and anchor refs become {} and are reported', () => {
    const findings = [];
    const schema = {
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } }, n: { type: 'number' } },
      properties: { tree: { $ref: '#/$defs/node' }, remote: { $ref: 'https://example.com/s.json' }, anchored: { $ref: '#a' }, bounded: { $ref: '#/$defs/n', maximum: 3 } },
    };
    const adapted = compatibleSchema(schema, '/inputSchema', findings);
    assert.deepEqual(adapted.properties.tree, { type: 'object', properties: { next: {} } });
    assert.deepEqual(adapted.properties.remote, {});
    assert.deepEqual(adapted.properties.anchored, {});
    assert.deepEqual(adapted.properties.bounded, { maximum: 3, allOf: [{ type: 'number' }] });
    assert.deepEqual(findings.map((f) => [f.code, f.path]), [
      ['ref_not_inlined', '/inputSchema/properties/tree/properties/next'],
      ['ref_not_inlined', '/inputSchema/properties/remote'],
      ['ref_not_inlined', '/inputSchema/properties/anchored'],
    ]);
  });

  test('a $ref DAG that would double at every level stops at the cap instead of growing without bound', () => {
    const $defs = { d0: { type: 'string' } };
    for (let i = 1; i <= 40; i++) $defs[`d${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/d${i - 1}` }, b: { $ref: `#/$defs/d${i - 1}` } } };
    const findings = [];
    const adapted = compatibleSchema({ $defs, $ref: '#/$defs/d40' }, '/inputSchema', findings);
    assert.ok(JSON.stringify(adapted).length < 2_000_000, 'bounded output');
    assert.equal(findings.filter((f) => f.code === 'ref_not_inlined').length, 1, 'reported once');
  });
});

describe('registering with a browser that refuses the keywords', () => {
  test('as given: the registration fails and says which keywords and which option; register() warns', async () => {
    const { uninstall } = installFakeModelContext({ refuseSchemaKeywords: true });
    const w = createWarden();
    try {
      const order = w.webmcp(async () => 'ordered', { name: 'order', description: 'Orders.', inputSchema: orderSchema });
      let error;
      const warned = await warnings(() => order.register().catch((err) => (error = err)));
      assert.equal(order.status, 'error');
      assert.equal(error?.code, 'registration_failed');
      assert.match(error.message, /the schema keyword "\$defs" is not supported/);
      assert.match(error.message, /browserSchema: 'compatible'/);
      // The schema's warning, and (debug is on in development) the diagnostic of the refusal.
      const [schemaWarning, ...rest] = warned;
      assert.match(schemaWarning, /tool "order": "\$defs" at \/inputSchema may be refused by browsers; "format" at \/inputSchema\/properties\/email/);
      assert.equal(rest.length, 1);
      assert.match(rest[0], /^webmcp-warden: tool "order" is not registered: the browser's WebMCP runtime refused it \(registration_failed\)/);
    } finally {
      w.dispose();
      uninstall();
    }
  });

  test("browserSchema: 'compatible' registers, the browser gets the compatible schema, and the validator enforces the full one", async () => {
    const { modelContext, uninstall } = installFakeModelContext({ refuseSchemaKeywords: true });
    const w = createWarden();
    let runs = 0;
    try {
      const order = w.webmcp(
        async ({ email, shipTo }) => {
          runs++;
          return `ordered for ${email} to ${shipTo.city}`;
        },
        { name: 'order', description: 'Orders.', inputSchema: orderSchema, browserSchema: 'compatible' },
      );
      const warned = await warnings(() => order.register());
      assert.equal(order.status, 'registered');
      assert.deepEqual(warned, [], 'nothing lost: no warning');
      const [listed] = await modelContext.getTools();
      assert.equal(JSON.stringify(listed.inputSchema).includes('$ref'), false);
      assert.equal(listed.inputSchema.properties.email.description, 'Where the receipt goes (format: email)');
      assert.deepEqual(order.definition.inputSchema, orderSchema, 'the definition (and the fingerprint) keep the schema as given');

      const ok = await modelContext.callTool('order', { email: 'a@example.com', shipTo: { city: 'Oslo' } });
      assert.equal(ok.content[0].text, 'ordered for a@example.com to Oslo');
      const badEmail = await modelContext.callTool('order', { email: 'not an email', shipTo: { city: 'Oslo' } });
      assert.equal(badEmail.isError, true, 'format is still enforced');
      assert.match(badEmail.content[0].text, /email/);
      const badRef = await modelContext.callTool('order', { email: 'a@example.com', shipTo: {} });
      assert.equal(badRef.isError, true, 'the $ref target is still enforced');
      assert.equal(runs, 1);
    } finally {
      w.dispose();
      uninstall();
    }
  });

  test('a property named format is no keyword: it registers and nothing is warned', async () => {
    const { uninstall } = installFakeModelContext({ refuseSchemaKeywords: true });
    const w = createWarden();
    try {
      const plain = w.webmcp(async () => 'ok', { name: 'plain', description: 'Plain.', inputSchema: { type: 'object', properties: { format: { type: 'string' } } } });
      const warned = await warnings(() => plain.register());
      assert.equal(plain.status, 'registered', 'a property named format is no keyword');
      assert.deepEqual(warned, []);
    } finally {
      w.dispose();
      uninstall();
    }
  });
});
