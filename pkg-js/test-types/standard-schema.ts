// Inference from Standard Schemas: the function receives the output type (what validation
// produced), callers pass the input type.
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as z from 'zod';
import { webmcp, type InferInput, type InferOutput, type StandardSchemaV1 } from 'webmcp-warden';
import { expect, type Equal } from './assert.js';

// zod: a default makes the field optional for callers and present for the function.
const zodSchema = z.object({ q: z.string(), limit: z.number().default(10) });
const zodTool = webmcp(
  ({ q, limit }) => {
    expect<Equal<typeof q, string>>();
    expect<Equal<typeof limit, number>>();
    return q.repeat(limit);
  },
  {
    name: 'zod_search',
    description: 'Searches',
    schema: zodSchema,
    hooks: {
      before: [(ctx) => expect<Equal<typeof ctx.input, { q: string; limit?: number | undefined }>>()],
      after: [(ctx) => expect<Equal<typeof ctx.input, { q: string; limit: number }>>()],
      error: [(ctx) => void ctx.failure.kind],
    },
  },
);
expect<Equal<Parameters<typeof zodTool.invoke>[0], { q: string; limit?: number | undefined }>>();
zodTool.invoke({ q: 'mug' });
export const direct: string = zodTool({ q: 'mug', limit: 2 });
// @ts-expect-error q must be a string
zodTool.invoke({ q: 1 });
// @ts-expect-error the direct call bypasses validation: it takes what the function takes (limit included)
zodTool({ q: 'mug' });
// @ts-expect-error the function's input comes from the schema: no such field
webmcp(({ missing }) => missing, { name: 'zod_missing', schema: z.object({ q: z.string() }) });

// valibot, alone and through @valibot/to-json-schema (which shows the agent a JSON Schema).
const valibotSchema = v.object({ id: v.string(), count: v.optional(v.number(), 1) });
const valibotTool = webmcp(
  ({ id, count }) => {
    expect<Equal<typeof id, string>>();
    expect<Equal<typeof count, number>>();
    return `${id}×${count}`;
  },
  { name: 'valibot_tool', schema: valibotSchema },
);
expect<Equal<Parameters<typeof valibotTool.invoke>[0], { id: string; count?: number | undefined }>>();
// @ts-expect-error id is required
valibotTool.invoke({ count: 2 });
const shown = webmcp(({ id }) => id, { name: 'valibot_shown', schema: toStandardJsonSchema(v.object({ id: v.string() })) });
export const shownId: string = shown({ id: 'x' });

// A Standard Schema with inputSchema beside it (what the browser shows): the schema types.
webmcp(({ d }) => d.getTime(), { name: 'dated', schema: z.object({ d: z.date() }), inputSchema: { type: 'object', properties: { d: { type: 'string', format: 'date-time' } } } });

// The helpers.
expect<Equal<InferInput<typeof zodSchema>, { q: string; limit?: number | undefined }>>();
expect<Equal<InferOutput<typeof zodSchema>, { q: string; limit: number }>>();
const handMade: StandardSchemaV1<{ n: string }, { n: number }> = {
  '~standard': { version: 1, vendor: 'me', validate: (value) => ({ value: { n: Number((value as { n: string }).n) } }) },
};
const handTool = webmcp(({ n }) => n + 1, { name: 'hand', schema: handMade });
expect<Equal<Parameters<typeof handTool.invoke>[0], { n: string }>>();
expect<Equal<ReturnType<typeof handTool>, number>>();
// @ts-expect-error schema must be a Standard Schema or a JSON Schema
webmcp(() => 1, { name: 'bad_schema', schema: 42 });
