// Standard Schema (the `schema` option) through the BUILT package, with zod 4, valibot 1 and
// hand-written schemas: the validated (transformed) value is what the tool receives, issues come
// back in the JSON Schema diagnostics' shape, async validators are awaited and enforced, the
// browser is shown the schema's own JSON Schema export, and a page that only uses Standard
// Schema never imports the validator module (checked in child processes with a loader hook).
// Also: zod 4's look-ahead patterns work when its JSON Schema export is used as a JSON Schema.
//
// Build first: `WASM_OPT=0 node pkg-js/build.mjs`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import * as v from 'valibot';
import { webmcp, configureWebMCP, explain } from '../lib/index.js';
import { installFakeModelContext } from '../lib/testing.js';
import { recordingTools, textOf } from '../test-support/lib-helpers.mjs';

/** A tool that records what it receives (unshaped, so results compare as the pipeline made them). */
const { recordingTool } = recordingTools('standard', 'a tool with a Standard Schema', () => ({ content: [{ type: 'text', text: 'called' }] }));

function assertValidationFailure(outcome, calls) {
  assert.equal(outcome.ok, false, JSON.stringify(outcome));
  assert.equal(outcome.error.kind, 'validation');
  assert.equal(outcome.error.reason, 'invalid_arguments');
  assert.equal(outcome.result.isError, true);
  assert.equal(textOf(outcome), 'Error: ' + outcome.error.message);
  assert.ok(outcome.error.message.startsWith('Validation failed: '), outcome.error.message);
  for (const d of outcome.error.diagnostics) {
    assert.deepEqual(Object.keys(d).sort(), ['keyword', 'message', 'path']);
    assert.equal(d.keyword, 'standard');
    assert.equal(typeof d.message, 'string');
    assert.ok(d.message.length > 0);
  }
  assert.equal(calls.length, 0, 'the tool was called with invalid arguments');
}

/** A hand-written Standard Schema (version 1) around `check`, which may return a promise. */
function handWritten(check, vendor = 'hand') {
  return { '~standard': { version: 1, vendor, validate: check } };
}

describe('zod 4', () => {
  const schema = z.object({
    query: z.string().trim().min(1),
    limit: z.coerce.number().int().max(50).default(10),
    tags: z.array(z.string().transform((s) => s.toLowerCase())).optional(),
  });

  test('the tool receives the parsed value: transforms, coercion and defaults applied', async () => {
    const { tool, calls } = recordingTool({ schema });
    const outcome = await tool.invoke({ query: '  shoes  ', limit: '20', tags: ['Red', 'SALE'] });
    assert.equal(outcome.ok, true, JSON.stringify(outcome));
    assert.deepEqual(calls, [{ query: 'shoes', limit: 20, tags: ['red', 'sale'] }]);
    await tool.invoke({ query: 'hats' });
    assert.deepEqual(calls[1], { query: 'hats', limit: 10 });
  });

  test('issues come back as diagnostics with JSON pointer paths, and the tool is not called', async () => {
    const { tool, calls } = recordingTool({ schema });
    const outcome = await tool.invoke({ query: '', limit: 99, tags: ['ok', 3] });
    assertValidationFailure(outcome, calls);
    const paths = outcome.error.diagnostics.map((d) => d.path).sort();
    assert.deepEqual(paths, ['/limit', '/query', '/tags/1']);
    const expected = schema.safeParse({ query: '', limit: 99, tags: ['ok', 3] }).error.issues;
    for (const issue of expected) {
      const path = '/' + issue.path.join('/');
      assert.ok(outcome.error.diagnostics.some((d) => d.path === path && d.message === issue.message), `zod's issue at ${path} is reported as zod wrote it`);
    }
  });

  test('a root issue is shown as (root), like the core shows it', async () => {
    const { tool, calls } = recordingTool({ schema });
    const outcome = await tool.invoke('not an object');
    assertValidationFailure(outcome, calls);
    assert.deepEqual(outcome.error.diagnostics.map((d) => d.path), ['']);
    assert.match(textOf(outcome), /^Error: Validation failed: \(root\) /);
  });

  test('an async refinement is awaited and enforced', async () => {
    const taken = new Set(['admin']);
    const signup = z.object({ user: z.string().refine(async (name) => (await new Promise((r) => setTimeout(r, 5)), !taken.has(name)), { message: 'is already taken' }) });
    assert.ok(signup['~standard'].validate({ user: 'x' }) instanceof Promise, 'zod answers a promise for an async schema');
    const { tool, calls } = recordingTool({ schema: signup });
    const refused = await tool.invoke({ user: 'admin' });
    assertValidationFailure(refused, calls);
    assert.deepEqual(refused.error.diagnostics, [{ path: '/user', keyword: 'standard', message: 'is already taken' }]);
    assert.equal(textOf(refused), 'Error: Validation failed: /user is already taken');
    assert.equal((await tool.invoke({ user: 'alice' })).ok, true);
    assert.deepEqual(calls, [{ user: 'alice' }]);
  });

  test("the browser is shown zod's own JSON Schema export (Standard JSON Schema)", async () => {
    const { tool } = recordingTool({ schema });
    const exported = schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    assert.deepEqual(tool.definition.inputSchema, exported);
    assert.deepEqual(tool.definition.inputSchema, z.toJSONSchema(schema, { io: 'input' }));
    assert.equal(tool.definition.inputSchema.properties.limit.type, 'integer');
    assert.ok(!tool.definition.inputSchema.required.includes('limit'), 'the input side: a field with a default is optional');
    const installed = installFakeModelContext();
    try {
      await tool.register();
      const [info] = await installed.modelContext.getTools();
      assert.deepEqual(info.inputSchema, exported);
    } finally {
      installed.uninstall();
    }
  });

  test('the browser path: arguments as the agent sent them are parsed by zod before the tool', async () => {
    const installed = installFakeModelContext();
    try {
      const { tool, calls } = recordingTool({ schema });
      await tool.register();
      const refused = await installed.modelContext.callTool(tool.toolName, '{"query":"x","limit":"many"}');
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, /^Error: Validation failed: \/limit /);
      assert.equal(calls.length, 0);
      await installed.modelContext.callTool(tool.toolName, '{"query":" x ","limit":"5"}');
      assert.deepEqual(calls, [{ query: 'x', limit: 5 }]);
    } finally {
      installed.uninstall();
    }
  });

  test('policy and the approver see the validated value (the final arguments)', async () => {
    const seen = [];
    configureWebMCP({ policy: { default: 'ask' }, onAsk: (call) => (seen.push(call.arguments), { allow: 'once' }) });
    const { tool, calls } = recordingTool({ schema });
    assert.equal((await tool.invoke({ query: ' a ', limit: '3' })).ok, true);
    assert.deepEqual(seen, [{ query: 'a', limit: 3 }]);
    assert.deepEqual(calls, [{ query: 'a', limit: 3 }]);
  });
});

describe('valibot 1', () => {
  const schema = v.object({
    name: v.pipe(v.string(), v.trim(), v.minLength(2, 'needs at least 2 characters')),
    filters: v.optional(v.array(v.object({ op: v.picklist(['eq', 'neq']) })), []),
  });

  test('the tool receives the parsed value', async () => {
    const { tool, calls } = recordingTool({ schema });
    assert.equal((await tool.invoke({ name: '  Ada ' })).ok, true);
    assert.deepEqual(calls, [{ name: 'Ada', filters: [] }]);
  });

  test("issues with valibot's path items become JSON pointers", async () => {
    const { tool, calls } = recordingTool({ schema });
    const outcome = await tool.invoke({ name: ' A ', filters: [{ op: 'eq' }, { op: 'gt' }] });
    assertValidationFailure(outcome, calls);
    const byPath = Object.fromEntries(outcome.error.diagnostics.map((d) => [d.path, d.message]));
    assert.deepEqual(Object.keys(byPath).sort(), ['/filters/1/op', '/name']);
    assert.equal(byPath['/name'], 'needs at least 2 characters');
    assert.match(textOf(outcome), /\/name needs at least 2 characters/);
  });

  test('an async valibot schema is awaited and enforced', async () => {
    const asyncSchema = v.objectAsync({ code: v.pipeAsync(v.string(), v.checkAsync(async (c) => (await null, c === 'OPEN-SESAME'), 'is not a valid code')) });
    const { tool, calls } = recordingTool({ schema: asyncSchema });
    const refused = await tool.invoke({ code: 'guess' });
    assertValidationFailure(refused, calls);
    assert.deepEqual(refused.error.diagnostics, [{ path: '/code', keyword: 'standard', message: 'is not a valid code' }]);
    assert.equal((await tool.invoke({ code: 'OPEN-SESAME' })).ok, true);
    assert.equal(calls.length, 1);
  });

  test('with no JSON Schema export, register() refuses unless the inputSchema shown is given beside it', async () => {
    assert.equal(schema['~standard'].jsonSchema, undefined, 'valibot 1 alone has no Standard JSON Schema export (this test assumes so)');
    const { tool } = recordingTool({ schema });
    await assert.rejects(tool.register(), (err) => err.code === 'missing_input_schema');
    const shown = { type: 'object', properties: { name: { type: 'string', minLength: 2 } }, required: ['name'] };
    const { tool: described, calls } = recordingTool({ schema, inputSchema: shown });
    assert.deepEqual(described.definition.inputSchema, shown);
    // valibot still decides: " Ada " passes it (trimmed), and the tool gets its output.
    assert.equal((await described.invoke({ name: ' Ada ' })).ok, true);
    assert.deepEqual(calls, [{ name: 'Ada', filters: [] }]);
    assert.equal((await described.invoke({ name: 'A' })).error?.reason, 'invalid_arguments');
  });
});

describe('hand-written Standard Schemas', () => {
  test('an async validate (returning a Promise) is awaited: its issues fail the call, its value is what the tool gets', async () => {
    let validations = 0;
    const schema = handWritten(async (value) => {
      validations++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (typeof value?.n !== 'number') return { issues: [{ message: 'must be a number', path: [{ key: 'n' }] }] };
      return { value: { n: value.n * 2, checked: true } };
    });
    const { tool, calls } = recordingTool({ schema });
    const refused = await tool.invoke({ n: 'one' });
    assertValidationFailure(refused, calls);
    assert.deepEqual(refused.error.diagnostics, [{ path: '/n', keyword: 'standard', message: 'must be a number' }]);
    assert.equal(textOf(refused), 'Error: Validation failed: /n must be a number');
    const outcome = await tool.invoke({ n: 21 });
    assert.equal(outcome.ok, true);
    assert.deepEqual(calls, [{ n: 42, checked: true }]);
    assert.equal(validations, 2);
  });

  test('path segments given as plain keys or {key} objects, with JSON pointer escaping', async () => {
    const schema = handWritten(() => ({ issues: [{ message: 'bad', path: ['a/b', 0, { key: 'c~d' }] }, { message: 'also bad' }] }));
    const { tool, calls } = recordingTool({ schema });
    const outcome = await tool.invoke({});
    assertValidationFailure(outcome, calls);
    assert.deepEqual(outcome.error.diagnostics, [
      { path: '/a~1b/0/c~0d', keyword: 'standard', message: 'bad' },
      { path: '', keyword: 'standard', message: 'also bad' },
    ]);
    assert.equal(textOf(outcome), 'Error: Validation failed: /a~1b/0/c~0d bad; (root) also bad');
  });

  test('more than five issues: the summary counts the rest, as the core does', async () => {
    const schema = handWritten(() => ({ issues: Array.from({ length: 8 }, (_, i) => ({ message: 'is wrong', path: [`f${i}`] })) }));
    const { tool, calls } = recordingTool({ schema });
    const outcome = await tool.invoke({});
    assertValidationFailure(outcome, calls);
    assert.equal(outcome.error.diagnostics.length, 8);
    assert.equal(textOf(outcome), 'Error: Validation failed: /f0 is wrong; /f1 is wrong; /f2 is wrong; /f3 is wrong; /f4 is wrong; … (3 more)');
  });

  test('a validator that throws, rejects, or answers nonsense fails closed (what it threw is not quoted)', async () => {
    const answers = [
      () => {
        throw new Error('secret-in-exception');
      },
      async () => {
        throw new Error('secret-in-rejection');
      },
      () => 42,
      () => ({ neither: true }),
      () => ({ issues: [null, 'x'] }),
    ];
    for (const answer of answers) {
      const { tool, calls } = recordingTool({ schema: handWritten(answer) });
      const outcome = await tool.invoke({ a: 1 });
      assertValidationFailure(outcome, calls);
      assert.ok(!JSON.stringify(outcome).includes('secret'), JSON.stringify(outcome));
    }
  });

  test('a validator still pending when the call is aborted ends the call as aborted; the tool is not called', async () => {
    const schema = handWritten(() => new Promise(() => {}));
    const { tool, calls } = recordingTool({ schema });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const outcome = await tool.invoke({}, { signal: controller.signal });
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error.kind, 'aborted');
    assert.equal(textOf(outcome), 'Error: Aborted');
    assert.equal(calls.length, 0);
  });

  test('a Standard JSON Schema export is used for the browser; a throwing export makes register() refuse, quoting why', async () => {
    const exported = { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] };
    const targets = [];
    const withExport = { '~standard': { version: 1, vendor: 'hand', validate: (value) => ({ value }), jsonSchema: { input: (options) => (targets.push(options.target), exported), output: () => exported } } };
    const { tool } = recordingTool({ schema: withExport });
    assert.deepEqual(tool.definition.inputSchema, exported);
    assert.deepEqual(targets, ['draft-2020-12']);
    const throwing = { '~standard': { version: 1, vendor: 'hand', validate: (value) => ({ value }), jsonSchema: { input: () => { throw new Error('unrepresentable'); } } } };
    const { tool: refused } = recordingTool({ schema: throwing });
    await assert.rejects(refused.register(), (err) => err.code === 'missing_input_schema' && err.message.includes('(unrepresentable)') && err.message.includes('pass inputSchema'));
    assert.equal(refused.status, 'error');
    // The page's own calls need no JSON Schema: invoke still validates with the schema.
    assert.equal((await refused.invoke({ a: 1 })).ok, true);
    // With inputSchema, the browser is shown that.
    const shown = { type: 'object', properties: { a: { type: 'number' } } };
    const { tool: described } = recordingTool({ schema: throwing, inputSchema: shown });
    assert.deepEqual(described.definition.inputSchema, shown);
    await described.register();
  });

  test('a schema with no JSON Schema at all (hand-written, valibot alone, zod types JSON cannot say) is refused at register(), naming the fix', async () => {
    const { tool: hand } = recordingTool({ schema: handWritten((value) => ({ value })) });
    await assert.rejects(hand.register(), (err) => err.code === 'missing_input_schema' && /its hand schema cannot be written as JSON Schema for the agent; pass inputSchema/.test(err.message));
    const { tool: valibot } = recordingTool({ schema: v.object({ n: v.number() }) });
    await assert.rejects(valibot.register(), (err) => err.code === 'missing_input_schema' && err.message.includes("toStandardJsonSchema() from '@valibot/to-json-schema'"));
    const { tool: dated } = recordingTool({ schema: z.object({ when: z.date() }) });
    await assert.rejects(dated.register(), (err) => err.code === 'missing_input_schema' && err.message.includes('(Date cannot be represented in JSON Schema)'));
  });

  test("zod 4 before the Standard JSON Schema interface: its toJSONSchema() method, asked for the input's schema", async () => {
    const asked = [];
    const exported = { type: 'object', properties: { n: { type: 'number' } } };
    const olderZod = { '~standard': { version: 1, vendor: 'zod', validate: (value) => ({ value }) }, toJSONSchema(options) { asked.push(options); return exported; } };
    const { tool } = recordingTool({ schema: olderZod });
    assert.deepEqual(tool.definition.inputSchema, exported);
    assert.deepEqual(asked, [{ io: 'input', target: 'draft-2020-12' }]);
    const failing = { '~standard': { version: 1, vendor: 'zod', validate: (value) => ({ value }) }, toJSONSchema() { throw new Error('Symbols cannot be represented in JSON Schema'); } };
    const { tool: refused } = recordingTool({ schema: failing });
    await assert.rejects(refused.register(), (err) => err.code === 'missing_input_schema' && err.message.includes('its zod schema cannot be written as JSON Schema for the agent (Symbols cannot be represented in JSON Schema)'));
  });

  test('valibot through @valibot/to-json-schema and zod 4 show the agent their JSON Schema', async () => {
    const { toStandardJsonSchema } = await import('@valibot/to-json-schema');
    const { tool: valibot } = recordingTool({ schema: toStandardJsonSchema(v.object({ n: v.number(), note: v.optional(v.string()) })) });
    assert.deepEqual(valibot.definition.inputSchema, { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { n: { type: 'number' }, note: { type: 'string' } }, required: ['n'] });
    await valibot.register();
    const { tool: zod } = recordingTool({ schema: z.object({ n: z.number().default(1) }) });
    // The input's schema: a field with a default is optional for the agent.
    assert.deepEqual(zod.definition.inputSchema.required, undefined);
    assert.deepEqual(zod.definition.inputSchema.properties, { n: { default: 1, type: 'number' } });
    await zod.register();
  });

  test('explain() does not call a Standard Schema validator (a dry run runs no user code)', async () => {
    let called = 0;
    const { tool } = recordingTool({ schema: handWritten((value) => (called++, { value })), inputSchema: { type: 'object' } });
    await tool.register();
    const explained = await explain(tool.toolName, { a: 1 });
    assert.equal(called, 0);
    assert.ok(explained.steps.some((s) => s.step === 'validation' && s.ok === true && typeof s.skipped === 'string'));
  });
});

describe('zod 4 look-ahead patterns used as JSON Schema (the validator module)', () => {
  const zodSchema = z.object({ email: z.email(), every: z.iso.duration(), host: z.hostname(), mood: z.emoji().optional() });
  const jsonSchema = z.toJSONSchema(zodSchema);
  // The duration's look-ahead inside an alternative is beyond the linear-time engine, in a
  // pattern the judgement finds slow: it runs on the page's engine only opted in, for short
  // strings (docs/behaviour.md, "Patterns"), as here.
  const opted = { inputSchema: jsonSchema, unsafePatterns: true };

  test("without the opt-in, register() refuses the duration's, naming where it is", async () => {
    const { tool } = recordingTool({ inputSchema: jsonSchema });
    await assert.rejects(tool.register(), (err) => err.code === 'unsafe_pattern' && /schema location \/properties\/every\/pattern/.test(err.message));
  });

  test('the exported patterns use look-ahead (what some regex engines cannot compile)', () => {
    const patterns = [jsonSchema.properties.every.pattern, jsonSchema.properties.host.pattern, jsonSchema.properties.mood.pattern];
    for (const pattern of patterns) assert.match(pattern, /\(\?[=!]/, pattern);
  });

  test('register() compiles them, and the validator agrees with zod on valid and invalid values', async () => {
    const { tool, calls } = recordingTool(opted);
    await tool.register();
    assert.equal(tool.status === 'unsupported' || tool.status === 'registered', true, `status ${tool.status}`);
    const samples = [
      { email: 'first.last+tag@example.co.uk', every: 'P1DT2H', host: 'shop.example.com', mood: '😀' },
      { email: 'someone@example.com', every: 'PT30S', host: 'localhost' },
      { email: 'not-an-email', every: 'P1DT2H', host: 'shop.example.com' },
      { email: 'a@example.com', every: 'P', host: 'shop.example.com' },
      { email: 'a@example.com', every: 'PT', host: 'shop.example.com' },
      { email: 'a@example.com', every: 'P1W2D', host: 'shop.example.com' },
      { email: 'a@example.com', every: 'P3W', host: '-bad-.example' },
      { email: 'a@example.com', every: 'P3W', host: 'x'.repeat(254) },
      { email: 'a@example.com', every: 'P3W', host: 'ok.example', mood: 'abc' },
    ];
    let valid = 0;
    for (const sample of samples) {
      const zodSays = zodSchema.safeParse(sample).success;
      const before = calls.length;
      const outcome = await tool.invoke(sample);
      assert.equal(outcome.ok, zodSays, `${JSON.stringify(sample)}: zod says ${zodSays}, the validator says ${JSON.stringify(outcome.error ?? 'valid')}`);
      if (zodSays) valid++;
      else {
        assert.equal(outcome.error.reason, 'invalid_arguments');
        assert.equal(calls.length, before);
        assert.ok(outcome.error.diagnostics.some((d) => d.keyword === 'pattern' || d.keyword === 'format'), JSON.stringify(outcome.error.diagnostics));
      }
    }
    assert.equal(valid, 2, 'two samples are valid, the others not');
    assert.deepEqual(calls, samples.slice(0, 2));
  });

  test('format is asserted: an RFC 3339 duration has no fractional seconds, although zod accepts them', async () => {
    const { tool, calls } = recordingTool(opted);
    const sample = { email: 'a@example.com', every: 'PT0.5S', host: 'ok.example' };
    assert.equal(zodSchema.safeParse(sample).success, true);
    const outcome = await tool.invoke(sample);
    assert.deepEqual(outcome.error?.diagnostics, [{ path: '/every', keyword: 'format', message: 'must be a valid duration' }]);
    assert.equal(calls.length, 0);
  });
});

describe('the validator module is loaded only for JSON Schema', () => {
  const pkgDir = fileURLToPath(new URL('..', import.meta.url));
  // Records every module URL the child loads that names the validator module.
  const hooks = `
    import { appendFileSync } from 'node:fs';
    export async function load(url, context, next) {
      if (url.includes('warden_validate')) appendFileSync(process.env.WARDEN_IMPORT_LOG, url + '\\n');
      return next(url, context);
    }`;
  /** Runs `body` in a child node with the hook installed; answers what it printed and what it loaded. */
  async function inChild(body) {
    const { mkdtempSync, readFileSync, existsSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'warden-lazy-'));
    const log = join(dir, 'imports.log');
    const source = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));
      const { webmcp, resetWebMCP } = await import(${JSON.stringify(new URL('../lib/index.js', import.meta.url).href)});
      const { z } = await import('zod');
      const v = await import('valibot');
      const { toStandardJsonSchema } = await import('@valibot/to-json-schema');
      const out = [];
      ${body}
      console.log(JSON.stringify(out));`;
    try {
      const stdout = await new Promise((resolve, reject) => {
        execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: pkgDir, env: { ...process.env, WARDEN_IMPORT_LOG: log }, timeout: 30_000 }, (err, out, errOut) =>
          err ? reject(new Error(`child failed: ${err.message}\n${errOut}`)) : resolve(out),
        );
      });
      const loaded = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
      return { out: JSON.parse(stdout.trim().split('\n').pop()), loaded };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('a page using only Standard Schema (zod, valibot, async, hand-written) never imports it', async () => {
    const { out, loaded } = await inChild(`
      const tools = [
        webmcp((x) => x, { name: 'z_tool', description: 'd', schema: z.object({ n: z.number() }) }),
        webmcp((x) => x, { name: 'v_tool', description: 'd', schema: toStandardJsonSchema(v.object({ n: v.number() })) }),
        webmcp((x) => x, { name: 'v_described', description: 'd', schema: v.object({ n: v.number() }), inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }),
        webmcp((x) => x, { name: 'async_tool', description: 'd', inputSchema: { type: 'object' }, schema: { '~standard': { version: 1, vendor: 'hand', validate: async (value) => (typeof value?.n === 'number' ? { value } : { issues: [{ message: 'must be a number', path: ['n'] }] }) } } }),
        webmcp((x) => x, { name: 'no_schema', description: 'd' }),
      ];
      for (const tool of tools) {
        await tool.register();
        out.push((await tool.invoke({ n: 1 })).ok, (await tool.invoke({ n: 'x' })).ok);
      }
    `);
    assert.deepEqual(out, [true, false, true, false, true, false, true, false, true, true], 'the calls ran and were validated');
    assert.deepEqual(loaded, [], `the validator module was imported: ${loaded.join(', ')}`);
  });

  test('(control) the first call of a JSON Schema tool imports it, in the same setup', async () => {
    const { out, loaded } = await inChild(`
      const tool = webmcp((x) => x, { name: 'json_tool', description: 'd', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } });
      out.push('defined');
      out.push((await tool.invoke({ n: 'x' })).ok);
    `);
    assert.deepEqual(out, ['defined', false]);
    assert.ok(loaded.some((url) => url.endsWith('/wasm/warden_validate.js')), `not imported: ${JSON.stringify(loaded)}`);
  });

  test('(control) defining a JSON Schema tool imports nothing until it is called or registered', async () => {
    const { out, loaded } = await inChild(`
      webmcp((x) => x, { name: 'json_tool', description: 'd', inputSchema: { type: 'object' } });
      out.push('defined');
    `);
    assert.deepEqual(out, ['defined']);
    assert.deepEqual(loaded, []);
  });
});

// ------------------------------------------------------------------ the single value

describe('what policy and the approver judged is exactly what the tool receives', () => {
  /** A tool whose Standard Schema passes its input on as the value (as `z.any()` does), under an ask policy; records every approval and run. */
  async function judged(schema = z.any(), approve = (call) => ({ allow: 'once' })) {
    const seen = { approved: [], ran: [] };
    const client = (await import('../lib/index.js')).createWarden({
      policy: { deny: [{ match: 'shell', when: { arg: '/cmd', equals: 'rm' }, reason: 'no rm' }], ask: ['shell'] },
      onAsk: async (call) => {
        seen.approved.push(call.arguments);
        return approve(call);
      },
    });
    const t = client.webmcp((input) => void seen.ran.push(input), { name: 'shell', description: 'Runs a command.', schema, inputSchema: { type: 'object' }, shape: false });
    return { t, seen, client };
  }

  test('the caller changing its argument while the approval is pending (z.any())', async () => {
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    const { t, seen } = await judged(z.any(), async () => (await gate, { allow: 'once' }));
    const args = { cmd: 'ls' };
    const pending = t.invoke(args);
    await new Promise((resolve) => setTimeout(resolve, 5));
    args.cmd = 'rm';
    release();
    assert.equal((await pending).ok, true);
    assert.deepEqual(seen.approved, [{ cmd: 'ls' }]);
    assert.deepEqual(seen.ran, [{ cmd: 'ls' }], 'the tool ran what was approved');
  });

  test('a toJSON, a getter, an inherited key and a nested z.any() never reach the tool unjudged', async () => {
    for (const [what, schema, make] of [
      ['toJSON', z.any(), () => ({ cmd: 'rm', toJSON: () => ({ cmd: 'ls' }) })],
      ['a getter that changes', z.any(), () => { let n = 0; return { get cmd() { return n++ === 0 ? 'ls' : 'rm'; } }; }],
      ['an inherited key', z.any(), () => Object.assign(Object.create({ cmd: 'rm' }), {})],
      ['a nested z.any()', z.object({ opts: z.any() }), () => ({ opts: { cmd: 'rm', toJSON: () => ({ cmd: 'ls' }) } })],
    ]) {
      const { t, seen } = await judged(schema);
      const outcome = await t.invoke(make());
      assert.equal(seen.ran.length, seen.approved.length, what);
      assert.deepEqual(seen.ran, seen.approved, `${what}: the tool received exactly what the approver saw`);
      for (const input of seen.ran) {
        assert.equal(Object.getPrototypeOf(input), Object.prototype, `${what}: plain data, not the caller's object`);
        assert.ok(!JSON.stringify(input).includes('rm') || !outcome.ok, `${what}: "rm" ran although policy saw something else`);
      }
    }
  });

  test('a Standard Schema whose value has a getter: predicates, the approver and the tool read one JSON', async () => {
    const reads = [];
    const schema = handWritten((value) => ({ value: { get cmd() { reads.push(1); return reads.length === 1 ? 'rm' : 'ls'; } } }));
    const { t, seen } = await judged(schema);
    await t.invoke({});
    assert.equal(reads.length, 2, 'read by the JSON check and JSON.stringify only, then never again');
    assert.ok('value' in Object.getOwnPropertyDescriptor(seen.ran[0], 'cmd'), 'the tool got data, not the getter');
    assert.deepEqual(seen.ran, seen.approved);
    assert.equal(reads.length, 2);
  });

  test('without a policy nothing judges the JSON: the validated value is passed as it is (transforms keep their types)', async () => {
    const { tool: t, calls } = recordingTool({ schema: z.object({ when: z.string().transform((s) => new Date(s)) }), inputSchema: { type: 'object' } });
    assert.equal((await t.invoke({ when: '2026-01-02T00:00:00.000Z' })).ok, true);
    assert.ok(calls[0].when instanceof Date);
  });
});
