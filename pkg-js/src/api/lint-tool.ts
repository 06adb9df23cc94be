// `lintTool(definition)`: what browsers may refuse or ignore in a tool's definition, the same
// report `register()` warns with (docs/runtimes.md). The work is `schema-compat.ts`, a chunk this
// loads (hence a promise), so a page that never lints carries none of it.
import { isWebMCPTool } from './tool.js';
import type { JsonSchema, ToolAnnotations, WebMCPTool } from '../types/types.js';

/** One thing browsers may refuse or ignore in a definition. */
export interface ToolLint {
  /**
   * `schema_keyword` (a keyword a proposed revision of WebMCP has browsers refuse),
   * `ref_not_inlined` (a `$ref` the compatible schema cannot inline) or `annotation_ignored`
   * (an annotation member WebMCP has no counterpart for).
   */
  code: 'schema_keyword' | 'ref_not_inlined' | 'annotation_ignored';
  /** JSON Pointer into the definition: `/inputSchema/properties/email`, `/annotations/idempotentHint`. */
  path: string;
  /** The keyword or annotation member. */
  keyword: string;
  /** One sentence for a developer. */
  message: string;
}

/** What {@link lintTool} reads: a tool made by `webmcp`, or the schema and annotation options of one. */
export type LintableDefinition = WebMCPTool | { inputSchema?: JsonSchema; outputSchema?: JsonSchema; annotations?: ToolAnnotations; schema?: unknown };

/**
 * Reports what browsers may refuse or ignore in a tool's definition: schema keywords outside the
 * subset a proposed revision of WebMCP allows (`$ref`, `$defs`, `format`,
 * `unevaluatedProperties`, `dependentRequired`, `dependentSchemas`, `contentEncoding`,
 * `contentMediaType`, …) where they are keywords, and annotation members WebMCP does not have.
 * Never throws for a definition; `[]` when there is nothing to say.
 *
 * @param definition - A tool made by `webmcp`, or `{ inputSchema?, outputSchema?, annotations? }`
 *   (a JSON Schema `schema` counts as the input schema).
 */
export async function lintTool(definition: LintableDefinition): Promise<ToolLint[]> {
  let fields: Record<string, unknown>;
  try {
    if (isWebMCPTool(definition)) fields = { ...definition.definition };
    else {
      const given = (definition ?? {}) as Record<string, unknown>;
      const schema = given.schema;
      const standard = schema !== null && typeof schema === 'object' && '~standard' in schema;
      fields = { inputSchema: given.inputSchema ?? (standard ? undefined : schema), outputSchema: given.outputSchema, annotations: given.annotations };
    }
  } catch {
    return [];
  }
  const { lintDefinition } = await import('../runtime/schema-compat.js');
  try {
    return lintDefinition(fields);
  } catch {
    // A schema that throws when read (a getter, a proxy) cannot be a tool's either.
    return [];
  }
}
