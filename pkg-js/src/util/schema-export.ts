// Standard Schemas at definition time: telling one apart (`isStandardSchema`), and the JSON Schema
// it shows the browser, which is the schema's own JSON Schema export.
//
// The agent reads only this JSON Schema: a tool registered with a schema that says nothing
// (`{"type":"object","properties":{}}`) tells the agent it takes no arguments, and every call it
// makes then fails validation. So a schema that cannot be written as JSON Schema is not papered
// over: `webmcp()` keeps the reason and `register()` refuses with it (a tool only ever invoked
// in the page, `tool.invoke`, never shows its schema and works).

import type { StandardSchemaLike } from '../types/internal.js';
import type { JsonSchema } from '../types/types.js';
import { isPlainObject } from './js-values.js';

export type { StandardSchemaLike };

/** Whether `value` is a Standard Schema. */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as StandardSchemaLike)['~standard']?.validate === 'function'
  );
}

/** The JSON Schema to show, or why there is none (one sentence, for a `ConfigurationError`). */
export type ExportedSchema = { schema: JsonSchema } | { problem: string };

/** The drafts the validator module reads, the newest first. */
const TARGETS = ['draft-2020-12', 'draft-07'] as const;

/**
 * The JSON Schema of what a Standard Schema accepts: its Standard JSON Schema interface
 * (`~standard.jsonSchema.input`, zod ≥ 4.2, valibot through `@valibot/to-json-schema`'s
 * `toStandardJsonSchema()`), else zod 4's own `toJSONSchema()` method; a throw or an answer that
 * is not an object is a problem, quoted for the developer.
 */
export function exportJsonSchema(schema: StandardSchemaLike): ExportedSchema {
  const standard = schema['~standard'] as { vendor?: unknown; jsonSchema?: { input?: unknown } };
  const vendor = typeof standard.vendor === 'string' ? standard.vendor : 'Standard Schema';
  const converter = standard.jsonSchema?.input;
  let why: string | undefined;
  if (typeof converter === 'function') {
    for (const target of TARGETS) {
      const answer = attempt(() => converter.call(standard.jsonSchema, { target }));
      if ('schema' in answer) return answer;
      why ??= answer.problem;
    }
  } else {
    const zod = (schema as { toJSONSchema?: unknown }).toJSONSchema;
    if (typeof zod === 'function') {
      const answer = attempt(() => zod.call(schema, { io: 'input', target: 'draft-2020-12' }));
      if ('schema' in answer) return answer;
      why = answer.problem;
    }
  }
  const hint =
    vendor === 'valibot'
      ? "wrap the schema with toStandardJsonSchema() from '@valibot/to-json-schema', or pass inputSchema (the JSON Schema the agent is shown)"
      : 'pass inputSchema (the JSON Schema the agent is shown)';
  return { problem: why === undefined ? `its ${vendor} schema cannot be written as JSON Schema for the agent; ${hint}` : `its ${vendor} schema cannot be written as JSON Schema for the agent (${why}); ${hint}` };
}

function attempt(convert: () => unknown): ExportedSchema {
  try {
    const exported = convert();
    return isPlainObject(exported) ? { schema: exported as JsonSchema } : { problem: 'the conversion did not answer an object' };
  } catch (err) {
    // The library's own sentence ("Date cannot be represented in JSON Schema") says what to fix;
    // it is the developer's configuration error, never an agent's input.
    const message = err instanceof Error ? err.message : undefined;
    return { problem: typeof message === 'string' && message !== '' ? message.slice(0, 200) : 'the conversion threw' };
  }
}
