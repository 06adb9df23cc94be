// What browsers may refuse or misread in a tool's definition, and the definition adapted for
// them (docs/runtimes.md, "Schemas browsers may refuse" and "Annotations"). A chunk of its own:
// `registration.ts` loads it only for a definition whose JSON has one of the keys below, or
// annotations outside WebMCP's, and `lintTool()` loads it. It imports nothing of the package.
//
// - **The lint** walks a JSON Schema where its keywords are (a `format` property inside
//   `properties` is a name, not a keyword) and reports each keyword a proposed revision of the
//   WebMCP specification has `registerTool` refuse with a `TypeError`.
// - **The compatible schema** (`browserSchema: 'compatible'`) is what the browser is sent
//   instead: local `$ref`s inlined (acyclic ones; a cycle, a remote or an anchor reference
//   becomes `{}`, which accepts anything), `$defs` dropped, `format` and the `content*` keywords
//   moved into the description, `unevaluated*` and `dependent*` dropped. It only loosens what
//   the browser is shown: the package's validator keeps enforcing the schema as given.
// - **Annotations**: MCP's `destructiveHint` is sent as `consequentialHint` too, `openWorldHint`
//   as `untrustedContentHint`, `title` as the tool's title; members WebMCP has no counterpart
//   for are sent as given (MCP-B reads them) and reported, since browsers drop them silently.
//
// Why TypeScript and not the core: what a browser accepts decides nothing about a call (the
// validator enforces the full schema either way); it is how a registration is performed for a
// receiver, like the runtime adapter's shapes. And in the core it would weigh on every page's
// import, in the validator on every first call (ARCHITECTURE.md, "Where behaviour lives").

/** A problem of a definition for browsers: where (`/inputSchema/properties/when`), what, why. */
export interface CompatFinding {
  /** `schema_keyword`, `ref_not_inlined` or `annotation_ignored`. */
  code: 'schema_keyword' | 'ref_not_inlined' | 'annotation_ignored';
  /** JSON Pointer into the definition of the schema object or annotation concerned. */
  path: string;
  /** The keyword or annotation member. */
  keyword: string;
  /** One sentence for a developer. */
  message: string;
}

/** Keywords browsers may refuse (docs/runtimes.md): references, formats, and the rest. */
const REFS = ['$ref', '$dynamicRef', '$recursiveRef'];
const DESCRIBED = ['format', 'contentEncoding', 'contentMediaType'];
const DROPPED = ['$defs', 'definitions', 'unevaluatedProperties', 'unevaluatedItems', 'dependentRequired', 'dependentSchemas', 'contentSchema'];
const REFUSED = new Set([...REFS, ...DESCRIBED, ...DROPPED]);

/** Keywords whose value is one schema, a map of schemas, or a list of schemas. */
const ONE = new Set(['additionalProperties', 'propertyNames', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema', 'items']);
const MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);

/** How deep a schema is walked; deeper parts are left as they are. */
const MAX_DEPTH = 128;
/** How many schema objects an adapted schema may have: inlining stops there (a `$ref` DAG doubles at each level). */
const MAX_NODES = 10_000;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Calls `visit` for each subschema of `schema` (with its pointer), where its keywords put them. */
function eachSubschema(schema: Json, path: string, visit: (child: unknown, path: string) => void): void {
  for (const [key, value] of Object.entries(schema)) {
    const at = `${path}/${escape(key)}`;
    if (Array.isArray(value) ? LIST.has(key) : ONE.has(key)) {
      if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${at}/${index}`));
      else visit(value, at);
    } else if (MAP.has(key) && isObject(value)) {
      for (const [name, child] of Object.entries(value)) visit(child, `${at}/${escape(name)}`);
    }
  }
}

/** Every keyword of `schema` a browser may refuse, at its place (`path` names the schema). */
export function lintSchema(schema: unknown, path: string, out: CompatFinding[] = [], depth = 0): CompatFinding[] {
  if (!isObject(schema) || depth > MAX_DEPTH) return out;
  for (const key of Object.keys(schema)) {
    if (REFUSED.has(key)) out.push({ code: 'schema_keyword', path: path || '/', keyword: key, message: `"${key}" at ${path || '/'} may be refused by browsers` });
  }
  eachSubschema(schema, path, (child, at) => lintSchema(child, at, out, depth + 1));
  return out;
}

/** The member of `root` a local reference (`#/$defs/a`) points to, or `undefined`. */
function resolve(root: Json, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let target: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(target) && /^(0|[1-9]\d*)$/.test(token)) target = target[Number(token)];
    else if (isObject(target) && Object.hasOwn(target, token)) target = target[token];
    else return undefined;
  }
  return target;
}

/** A description with `note` added. */
function describe(schema: Json, note: string): void {
  schema.description = typeof schema.description === 'string' && schema.description !== '' ? `${schema.description} (${note})` : note;
}

/**
 * `schema` as browsers accept it (see the module's comment); `findings` gets what could not be
 * kept (a reference not inlined). `path` names `schema` in the definition.
 */
export function compatibleSchema(schema: Json, path: string, findings: CompatFinding[]): Json {
  let nodes = 0;
  const walk = (node: unknown, at: string, inlining: readonly unknown[], depth: number): unknown => {
    if (!isObject(node)) return node;
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES) {
      if (nodes === MAX_NODES + 1 || depth > MAX_DEPTH) findings.push({ code: 'ref_not_inlined', path: at || '/', keyword: '$ref', message: `the schema at ${at || '/'} is too large or deep to adapt, so the browser is sent {} for it` });
      return {};
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (REFS.includes(key) || DROPPED.includes(key)) continue;
      if (DESCRIBED.includes(key)) describe(out, `${key}: ${String(value)}`);
      else if (Array.isArray(value) ? LIST.has(key) : ONE.has(key)) out[key] = Array.isArray(value) ? value.map((item, index) => walk(item, `${at}/${key}/${index}`, inlining, depth + 1)) : walk(value, `${at}/${key}`, inlining, depth + 1);
      else if (MAP.has(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, walk(child, `${at}/${key}/${escape(name)}`, inlining, depth + 1)]));
      else if (key === 'description' && typeof out.description === 'string') out.description = `${String(value)} (${out.description})`;
      else out[key] = value;
    }
    for (const key of REFS) {
      if (!(key in node)) continue;
      const ref = node[key];
      const target = key === '$ref' && typeof ref === 'string' ? resolve(schema, ref) : undefined;
      let inlined: unknown;
      if (isObject(target) && !inlining.includes(target)) inlined = walk(target, at, [...inlining, target], depth + 1);
      else if (typeof target === 'boolean') inlined = target;
      if (inlined === undefined) {
        const why = target === undefined ? 'it does not point into the schema' : 'it is cyclic';
        findings.push({ code: 'ref_not_inlined', path: at || '/', keyword: key, message: `the ${key} "${String(ref)}" at ${at || '/'} cannot be inlined (${why}), so the browser is sent {} for it` });
        continue;
      }
      if (inlined === true) continue;
      if (Object.keys(out).length === 0 && isObject(inlined)) return inlined;
      out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), inlined];
    }
    return out;
  };
  const adapted = walk(schema, path, [schema], 0);
  return isObject(adapted) ? adapted : {};
}

/** WebMCP's annotation members (docs/runtimes.md, "Annotations"). */
const WEBMCP_HINTS = new Set(['readOnlyHint', 'untrustedContentHint', 'consequentialHint', 'debugging']);

/**
 * Annotations as WebMCP reads them: MCP's mapped (a WebMCP member given wins), the rest sent as
 * given; `findings` gets each member browsers drop.
 */
export function webmcpAnnotations(given: Json, findings: CompatFinding[]): Json {
  const out: Json = { ...given };
  if (given.destructiveHint === true && given.readOnlyHint !== true && !('consequentialHint' in given)) out.consequentialHint = true;
  if (given.openWorldHint === true && (!('untrustedContentHint' in given) || given.untrustedContentHint === 'auto')) out.untrustedContentHint = true;
  for (const key of Object.keys(given)) {
    if (WEBMCP_HINTS.has(key) || key === 'destructiveHint' || key === 'openWorldHint' || key === 'title') continue;
    findings.push({ code: 'annotation_ignored', path: `/annotations/${escape(key)}`, keyword: key, message: `the annotation "${key}" has no WebMCP counterpart, so browsers ignore it (MCP clients of MCP-B read it)` });
  }
  return out;
}

/** What was reported for each registered tool: one console warning per distinct report. */
const reported = new WeakMap<object, string>();

/**
 * Adapts `descriptor` (what `registration.ts` sends a browser for the tool `key` stands for) in
 * place: annotations as WebMCP reads them (and `untrustedContentHint` when `untrusted`), and
 * with `compatible` the compatible schemas. Warns once about what browsers may refuse or ignore;
 * answers what a refusal's message should add.
 */
export function adaptForBrowser(descriptor: Json, key: object, compatible: boolean, untrusted: boolean): string | undefined {
  const findings: CompatFinding[] = [];
  for (const which of ['inputSchema', 'outputSchema'] as const) {
    const schema = descriptor[which];
    if (!isObject(schema)) continue;
    if (compatible) descriptor[which] = compatibleSchema(schema, `/${which}`, findings);
    else lintSchema(schema, `/${which}`, findings);
  }
  const given = isObject(descriptor.annotations) ? descriptor.annotations : undefined;
  if (given !== undefined) {
    descriptor.annotations = webmcpAnnotations(given, findings);
    if (descriptor.title === undefined && typeof given.title === 'string') descriptor.title = given.title;
  }
  const sent = descriptor.annotations as Json | undefined;
  if (sent?.untrustedContentHint === 'auto') sent.untrustedContentHint = untrusted;
  const report = findings.map((finding) => finding.message).join('; ');
  if (report !== '' && reported.get(key) !== report) {
    reported.set(key, report);
    console.warn(`webmcp-warden: tool "${String(descriptor.name)}": ${report}. See docs/runtimes.md in the webmcp-warden repository.`);
  }
  return findings.some((finding) => finding.code === 'schema_keyword') ? ` (${report}: webmcp(fn, { browserSchema: 'compatible' }) sends the browser a schema without them)` : undefined;
}

/** `lintTool`'s work: every finding for a definition's schemas and annotations. */
export function lintDefinition(definition: Json): CompatFinding[] {
  const findings: CompatFinding[] = [];
  for (const which of ['inputSchema', 'outputSchema'] as const) lintSchema(definition[which], `/${which}`, findings);
  if (isObject(definition.annotations)) webmcpAnnotations(definition.annotations, findings);
  return findings;
}
