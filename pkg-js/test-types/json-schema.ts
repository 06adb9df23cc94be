// Inference from a JSON Schema written inline (webmcp's `const` type parameters read it as
// literal types) or `as const`.
import { createWarden, webmcp, type CallOutcome, type FromJsonSchema, type JsonSchema } from 'webmcp-warden';
import { expect, type Equal } from './assert.js';

// Inline: the function's input, the direct call, invoke and the tool's hooks are typed.
const addToCart = webmcp(
  async ({ productId, quantity, note }, { signal }) => {
    expect<Equal<typeof productId, string>>();
    expect<Equal<typeof quantity, number>>();
    expect<Equal<typeof note, string | null | undefined>>();
    expect<Equal<typeof signal, AbortSignal>>();
    return { productId, quantity };
  },
  {
    name: 'add_to_cart',
    description: 'Adds a product',
    inputSchema: {
      type: 'object',
      properties: { productId: { type: 'string' }, quantity: { type: 'integer', minimum: 1 }, note: { type: ['string', 'null'] } },
      required: ['productId', 'quantity'],
      additionalProperties: false,
    },
    hooks: {
      before: [(ctx) => (ctx.input.quantity > 5 ? { action: 'deny', message: 'At most 5' } : undefined)],
      after: [
        (ctx) => {
          expect<Equal<typeof ctx.input, { productId: string; quantity: number; note?: string | null }>>();
          expect<Equal<typeof ctx.output, { productId: string; quantity: number }>>();
          return { output: { ...ctx.output, quantity: 1 } };
        },
      ],
      error: [{ id: 'log', run: (ctx) => void ctx.input.productId }],
    },
  },
);
export const direct: Promise<{ productId: string; quantity: number }> = addToCart({ productId: 'mug', quantity: 1 });
export const outcome: Promise<CallOutcome> = addToCart.invoke({ productId: 'mug', quantity: 2 }, { principal: 'alice' });
// @ts-expect-error productId must be a string
addToCart.invoke({ productId: 1, quantity: 2 });
// @ts-expect-error quantity is required
addToCart.invoke({ productId: 'mug' });
// @ts-expect-error additionalProperties: false
addToCart({ productId: 'mug', quantity: 1, extra: true });
// A before hook's rewrite is not held to the type (simple-webmcp's `{ input?: unknown }`): the
// input is validated after the before-hooks, at run time.
webmcp(({ q }) => q, { name: 'q', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, hooks: { before: [() => ({ input: { q: 'x' } })] } });

// `as const` beside the call, enums, const, anyOf, nested arrays and objects, nullable.
const searchSchema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    sort: { enum: ['price', 'rating'] },
    kind: { const: 'product' },
    limit: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    tags: { type: 'array', items: { type: 'string' } },
    filters: { type: 'object', properties: { min: { type: 'number' } }, required: ['min'] },
    extra: { type: 'object', additionalProperties: { type: 'boolean' } },
    legacy: { type: 'string', nullable: true },
    either: { oneOf: [{ type: 'string' }, { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] }] },
  },
  required: ['query', 'sort'],
} as const;
type SearchArgs = FromJsonSchema<typeof searchSchema>;
expect<
  Equal<
    SearchArgs,
    {
      query: string;
      sort: 'price' | 'rating';
      kind?: 'product';
      limit?: number | null;
      tags?: string[];
      filters?: { min: number };
      extra?: { [key: string]: boolean };
      legacy?: string | null;
      either?: string | { id: number };
    }
  >
>();
const search = webmcp((args) => args.tags?.map((t) => t.toUpperCase()) ?? [], { name: 'search', description: 'Searches', inputSchema: searchSchema });
expect<Equal<Parameters<typeof search.invoke>[0], SearchArgs>>();
// @ts-expect-error sort is one of the enum's values
search.invoke({ query: 'mug', sort: 'name' });

// `schema` may be a JSON Schema too; the same inference.
const viaSchema = webmcp(({ n }) => n * 2, { name: 'double', schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } });
export const doubled: number = viaSchema({ n: 2 });

// An annotated function is checked against the schema.
webmcp(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});
// @ts-expect-error the function expects a string where the schema says number
webmcp(({ a }: { a: string }) => a, { name: 'wrong', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } });

// A schema typed as the wide JsonSchema says nothing: the function's annotation decides.
const wide: JsonSchema = { type: 'object' };
const annotated = webmcp(({ x }: { x: number }) => x, { name: 'wide', inputSchema: wide });
expect<Equal<Parameters<typeof annotated.invoke>[0], { x: number }>>();

// Keywords it does not read type that place as unknown, never as something wrong.
const refTool = webmcp((input) => input, { name: 'ref', inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, required: ['a'] } });
expect<Equal<Parameters<typeof refTool>[0], { a: unknown }>>();

// Without any schema: the function's annotation, or unknown (no silent any).
const plain = webmcp(({ x }: { x: number }) => x * 2, { name: 'plain', description: 'Doubles' });
export const p: number = plain({ x: 1 });
// @ts-expect-error destructuring an input of unknown type: annotate it or give a schema
webmcp(({ total }) => total, { name: 'pay' });
const noInput = webmcp(() => 'pong', { name: 'ping', description: 'Pings' });
export const pong: string = noInput();
export const pong2: Promise<CallOutcome> = noInput.invoke();

// outputSchema types the result: the value itself or a result carrying it as structuredContent.
const quote = webmcp(async ({ sku }) => ({ sku, price: 4.5 }), {
  name: 'quote',
  inputSchema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  outputSchema: { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number' } }, required: ['sku', 'price'] },
  hooks: { after: [(ctx) => void ctx.output] },
});
export const quoted = quote({ sku: 'x' });
expect<Equal<Awaited<typeof quoted>, { sku: string; price: number }>>();
webmcp(() => ({ content: [{ type: 'text', text: '4.5' }], structuredContent: { sku: 'x', price: 4.5 } }), {
  name: 'quote_full',
  outputSchema: { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number' } }, required: ['sku', 'price'] },
});
// @ts-expect-error price must be a number
webmcp(() => ({ sku: 'x', price: '4.5' }), { name: 'bad_quote', outputSchema: { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number' } }, required: ['sku', 'price'] } });

// The name defaults to the function's (snake_case); options may be left out.
webmcp(function getCart() { return []; }, { description: 'The cart' });
webmcp(function getCart() { return []; });
// @ts-expect-error a name is a string
webmcp(function getCart() { return []; }, { name: 42 });

// A client's webmcp infers the same way.
const client = createWarden();
const scoped = client.webmcp(({ id }) => id.length, { name: 'len', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } });
export const len: number = scoped({ id: 'abc' });
// @ts-expect-error id must be a string
scoped.invoke({ id: 3 });

// Re-wrapping keeps the types and needs no name.
const rewrapped = webmcp(addToCart, { hooks: { before: [(ctx) => void ctx.input.productId] } });
expect<Equal<typeof rewrapped, typeof addToCart>>();
