// The SHARED validation fixtures (tests/fixtures/validation.json, also run by `cargo test
// --test validate`) through tools of the BUILT package: a tool with the fixture's schema as its
// `inputSchema` is invoked with the fixture's instance.
//
// - valid: the tool is called, once, with the instance;
// - invalid: `{ ok: false, error: { kind: 'validation', reason: 'invalid_arguments', message,
//   diagnostics } }`, the diagnostics matched as the Rust harness matches them (same count; each
//   expected one matches a distinct actual one by path, keyword and message part), the agent reads
//   `Error: <message>`, and the tool is never called;
// - schemaError: `register()` rejects with a ConfigurationError `invalid_schema` naming the tool,
//   and a call fails with `invalid_schema` without calling the tool.
//
// Each case is also run against the built validator module itself (as the package's loader
// loads it, with the JS RegExp for patterns, schema and instance in the wire format), and the
// tool's answer must be exactly the module's: same diagnostics, and `Error: ` + the module's
// summary, which is the Rust `validate::summary` line. Two kinds of case are about JSON text,
// which the module no longer reads: `instanceJson` cases (raw text; an argument is a JS value,
// never text) and a text over `limits.maxBytes` (the TS layer measures the text). The Rust harness
// runs them through the text API; here they run through a tool only, and only when the value is
// JS-representable (a lone surrogate is: the TS layer refuses it before any text is written;
// hostile-input.test.mjs checks its precise path).
//
// Build first: `WASM_OPT=0 node pkg-js/build.mjs`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, invokeTool, ConfigurationError } from '../lib/index.js';
import { installFakeModelContext } from '../lib/testing.js';
import { loadValidator } from '../lib/validator/validator-loader.js';
import { encodeJson } from '../lib/boundary/wire.js';
import { patternsSettled } from '../wasm/pattern-host.js';
import { loadFixture, recordingTools } from '../test-support/lib-helpers.mjs';

/** A validator answer read (`validate` answers nothing for a valid instance). */
const answerOf = (text) => (text === '' ? { ok: true, valid: true, diagnostics: [], summary: '' } : JSON.parse(text));

const cases = loadFixture('validation.json');
const DEFAULT_LIMITS = { maxBytes: 1024 * 1024, maxDepth: 64 };

/**
 * The built validator module, called directly (the package's instance); `undefined` for a case
 * about JSON text, which the module does not see (see the top of this file).
 */
async function moduleAnswer(c) {
  const v = await loadValidator();
  let compiled = JSON.parse(v.compile(encodeJson(c.schema)));
  // As the package does: a schema whose patterns asked for the judgement (or the linear engine)
  // while it was loading is compiled again once it has (docs/behaviour.md, "Patterns").
  for (let waiting = patternsSettled(); waiting !== undefined; waiting = patternsSettled()) {
    await waiting;
    if (compiled.ok) v.dropSchema(compiled.handle);
    compiled = JSON.parse(v.compile(encodeJson(c.schema)));
  }
  if (!compiled.ok) return { schemaError: compiled.error };
  const limits = { ...DEFAULT_LIMITS, ...c.limits };
  if (c.instanceJson !== undefined || Buffer.byteLength(JSON.stringify(c.instance ?? null)) > limits.maxBytes) return undefined;
  const answer = answerOf(v.validate(compiled.handle, encodeJson(c.instance ?? null), limits.maxDepth));
  assert.equal(answer.ok, true, `the module refused the handle: ${JSON.stringify(answer)}`);
  return answer;
}

/** The Rust harness's rule: same count, each expected matches a distinct actual one. */
function matchDiagnostics(actual, expected, context) {
  assert.equal(actual.length, expected.length, `${context}: expected ${expected.length} diagnostics, got ${JSON.stringify(actual)}`);
  const used = new Array(actual.length).fill(false);
  for (const e of expected) {
    const i = actual.findIndex((a, k) => !used[k] && a.path === e.path && a.keyword === e.keyword && a.message.includes(e.messageContains));
    assert.ok(i >= 0, `${context}: no diagnostic matches ${JSON.stringify(e)} in ${JSON.stringify(actual)}`);
    used[i] = true;
  }
}

function assertDiagnosticShape(diagnostics) {
  assert.ok(Array.isArray(diagnostics) && diagnostics.length > 0);
  for (const d of diagnostics) {
    assert.deepEqual(Object.keys(d).sort(), ['keyword', 'message', 'path']);
    for (const key of ['path', 'keyword', 'message']) assert.equal(typeof d[key], 'string');
    assert.ok(d.path === '' || d.path.startsWith('/'), `path is a JSON pointer: ${d.path}`);
  }
}

/** A tool whose calls are recorded; unshaped so results compare as the pipeline made them. */
const { recordingTool, made } = recordingTools('fixture', 'a fixture tool');

test('the shared fixtures are there and cover valid, invalid and schema-error cases', () => {
  assert.ok(cases.length >= 25, `only ${cases.length} cases`);
  assert.ok(cases.some((c) => c.valid === true));
  assert.ok(cases.some((c) => c.valid === false));
  assert.ok(cases.some((c) => c.schemaError));
});

describe('validation fixtures through tool.invoke', () => {
  for (const c of cases) {
    if (c.schemaError) {
      test(`${c.name}: register() rejects naming the tool; a call fails with invalid_schema`, async () => {
        const module = await moduleAnswer(c);
        assert.ok(module.schemaError, 'the module compiles the schema, but the fixture says it is invalid');
        assert.equal(module.schemaError.code, c.schemaError.code);
        assert.ok(module.schemaError.message.includes(c.schemaError.messageContains), module.schemaError.message);
        if (c.schema === null || typeof c.schema !== 'object' || Array.isArray(c.schema)) {
          // Not an object: refused at once by webmcp(), before any module is loaded.
          assert.throws(
            () => webmcp(() => 'never', { name: 'not_an_object_schema', description: 'd', inputSchema: c.schema }),
            (err) => err instanceof ConfigurationError && err.code === 'invalid_options' && err.message.includes('"not_an_object_schema"') && err.message.includes('inputSchema'),
          );
          return;
        }
        const { tool, calls, name } = recordingTool({ inputSchema: c.schema });
        await assert.rejects(tool.register(), (err) => {
          assert.ok(err instanceof ConfigurationError, `not a ConfigurationError: ${err}`);
          assert.equal(err.code, 'invalid_schema');
          assert.ok(err.message.includes(`"${name}"`), `does not name the tool: ${err.message}`);
          assert.ok(err.message.includes(c.schemaError.messageContains), err.message);
          return true;
        });
        assert.equal(tool.status, 'error');
        const outcome = await tool.invoke({});
        assert.equal(outcome.ok, false);
        assert.equal(outcome.error.kind, 'validation');
        assert.equal(outcome.error.reason, 'invalid_schema');
        assert.ok(outcome.error.message.includes(c.schemaError.messageContains), outcome.error.message);
        assert.equal(outcome.result.isError, true);
        assert.equal(outcome.result.content[0].text, 'Error: ' + outcome.error.message);
        assert.equal(calls.length, 0, 'the tool was called');
      });
      continue;
    }

    test(c.name, async () => {
      const module = await moduleAnswer(c);
      assert.ok(!module?.schemaError, `the module did not compile the schema: ${JSON.stringify(module?.schemaError)}`);
      // The built module agrees with the fixture (as the Rust harness checks natively).
      if (module) assert.equal(module.valid, c.valid, `module: ${JSON.stringify(module)}`);
      if (module && !c.valid) {
        if (c.diagnostics) matchDiagnostics(module.diagnostics, c.diagnostics, 'module');
        if (c.summaryContains) assert.ok(module.summary.includes(c.summaryContains), `module summary ${module.summary}`);
      }

      if (c.schema === null || typeof c.schema !== 'object' || Array.isArray(c.schema)) {
        // A boolean schema is JSON Schema, but not a tool's input schema (the browser takes an
        // object): webmcp() refuses it at once, and the module's check above is the case.
        assert.throws(() => webmcp(() => 'never', { name: 'boolean_schema', description: 'd', inputSchema: c.schema }), (err) => err instanceof ConfigurationError && err.code === 'invalid_options');
        return;
      }
      let instance = c.instance ?? null;
      if (c.instanceJson !== undefined) {
        try {
          instance = JSON.parse(c.instanceJson);
        } catch {
          return; // text that is not JSON cannot be an argument: the module's check above is the case
        }
      }
      if (c.limits) configureWebMCP({ maxArgumentBytes: c.limits.maxBytes, maxArgumentDepth: c.limits.maxDepth });
      const { tool, calls } = recordingTool({ inputSchema: c.schema });
      const outcome = await tool.invoke(instance);

      if (c.valid) {
        assert.equal(outcome.ok, true, JSON.stringify(outcome));
        assert.deepEqual(calls, [instance]);
        assert.deepEqual(outcome.result, { content: [{ type: 'text', text: 'called' }] });
        return;
      }
      assert.equal(calls.length, 0, 'the tool was called with invalid arguments');
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error.kind, 'validation');
      assert.equal(outcome.error.reason, 'invalid_arguments');
      assertDiagnosticShape(outcome.error.diagnostics);
      assert.ok(outcome.error.message.startsWith('Validation failed: '), outcome.error.message);
      assert.deepEqual(outcome.result, { content: [{ type: 'text', text: 'Error: ' + outcome.error.message }], isError: true });
      if (c.instanceJson !== undefined) {
        // A JS value: refused by the TS layer before it is written as text (keyword and message as the module's).
        for (const e of c.diagnostics ?? []) {
          assert.ok(outcome.error.diagnostics.some((d) => d.keyword === e.keyword && d.message.includes(e.messageContains)), JSON.stringify(outcome.error));
        }
        return;
      }
      if (c.diagnostics) matchDiagnostics(outcome.error.diagnostics, c.diagnostics, 'tool');
      if (c.summaryContains) assert.ok(outcome.error.message.includes(c.summaryContains), `summary: ${outcome.error.message}`);
      if (!c.limits && module) {
        // Exactly what the module (the Rust core's validator) says, and its summary line.
        assert.deepEqual(outcome.error.diagnostics, module.diagnostics);
        assert.equal(outcome.error.message, module.summary);
      }
    });
  }
});

describe('the same contract on the other call paths', () => {
  const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['q'] };
  const expectedText = 'Error: Validation failed: /q is required; /a must be number';

  test('the `schema` option given a JSON Schema validates like inputSchema', async () => {
    const { tool, calls } = recordingTool({ schema });
    const outcome = await tool.invoke({ a: 'x' });
    assert.equal(outcome.error?.reason, 'invalid_arguments');
    assert.equal(outcome.result.content[0].text, expectedText);
    assert.deepEqual(tool.definition.inputSchema, schema, 'the browser is shown the same schema');
    assert.equal(calls.length, 0);
    assert.equal((await tool.invoke({ a: 1, q: 'x' })).ok, true);
    assert.deepEqual(calls, [{ a: 1, q: 'x' }]);
  });

  test('invokeTool (in-page agent) answers the same failure', async () => {
    const { tool, calls, name } = recordingTool({ inputSchema: schema });
    await tool.register();
    const outcome = await invokeTool(name, { a: 'x' });
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error.kind, 'validation');
    assert.equal(outcome.error.reason, 'invalid_arguments');
    assert.equal(outcome.result.content[0].text, expectedText);
    assert.equal(calls.length, 0);
  });

  test('the browser path (execute, arguments as the agent sent them) never reaches the tool with invalid arguments', async () => {
    const installed = installFakeModelContext();
    try {
      const { tool, calls, name } = recordingTool({ inputSchema: schema });
      await tool.register();
      assert.equal(tool.status, 'registered');
      const seen = await installed.modelContext.callTool(name, '{"a":"x"}');
      assert.equal(seen.isError, true);
      assert.equal(seen.content[0].text, expectedText);
      assert.equal(calls.length, 0);
      const fine = await installed.modelContext.callTool(name, '{"a":2,"q":"ok"}');
      assert.equal(fine.content[0].text, 'called');
      assert.deepEqual(calls, [{ a: 2, q: 'ok' }]);
    } finally {
      installed.uninstall();
    }
  });

  test('before-hooks run first: validation sees the rewritten input', async () => {
    const { tool, calls } = recordingTool({
      inputSchema: schema,
      hooks: { before: [(ctx) => ({ input: { ...ctx.input, q: 'added by a hook' } })] },
    });
    assert.equal((await tool.invoke({ a: 1 })).ok, true);
    assert.deepEqual(calls, [{ a: 1, q: 'added by a hook' }]);
    const bad = webmcp(() => 'never', { name: 'hook_breaks_input', description: 'd', inputSchema: schema, hooks: { before: [() => ({ input: { a: 'x', q: 'y' } })] } });
    made.push(bad);
    const outcome = await bad.invoke({ a: 1, q: 'y' });
    assert.equal(outcome.error?.reason, 'invalid_arguments');
    assert.equal(outcome.result.content[0].text, 'Error: Validation failed: /a must be number');
  });

  test('validation runs before policy: invalid arguments are never shown to the approver', async () => {
    let asked = 0;
    configureWebMCP({ policy: { default: 'ask' }, onAsk: () => (asked++, { allow: 'once' }) });
    const { tool, calls } = recordingTool({ inputSchema: schema });
    const outcome = await tool.invoke({ a: 'x' });
    assert.equal(outcome.error?.reason, 'invalid_arguments');
    assert.equal(asked, 0);
    assert.equal(calls.length, 0);
    assert.equal((await tool.invoke({ a: 1, q: 'x' })).ok, true);
    assert.equal(asked, 1);
  });

  test('a draft-07 schema is validated as draft-07 through a tool', async () => {
    const { tool, calls } = recordingTool({
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { when: { type: 'string', format: 'date-time' } }, definitions: {} },
    });
    const outcome = await tool.invoke({ when: 'yesterday' });
    assert.equal(outcome.result.content[0].text, 'Error: Validation failed: /when must be a valid date-time');
    assert.equal((await tool.invoke({ when: '2026-01-02T03:04:05Z' })).ok, true);
    assert.equal(calls.length, 1);
  });
});

describe('output validation (structuredContent against outputSchema)', () => {
  const outputSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };

  test('structuredContent that does not match fails with invalid_structured_content and is withheld', async () => {
    let calls = 0;
    const tool = webmcp(() => (calls++, { content: [{ type: 'text', text: 'secret result' }], structuredContent: { total: 'twelve' } }), {
      name: 'bad_output',
      description: 'd',
      outputSchema,
      shape: false,
    });
    made.push(tool);
    const outcome = await tool.invoke({});
    assert.equal(calls, 1, 'output validation runs after the tool');
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error.kind, 'validation');
    assert.equal(outcome.error.reason, 'invalid_structured_content');
    assert.deepEqual(outcome.error.diagnostics, [{ path: '/total', keyword: 'type', message: 'must be number' }]);
    assert.deepEqual(outcome.result, { content: [{ type: 'text', text: 'Error: Validation failed: /total must be number' }], isError: true });
  });

  test('matching structuredContent passes, and a result without structuredContent is not checked', async () => {
    const good = webmcp(() => ({ content: [{ type: 'text', text: '12' }], structuredContent: { total: 12 } }), { name: 'good_output', description: 'd', outputSchema, shape: false });
    const plain = webmcp(() => 'just text', { name: 'plain_output', description: 'd', outputSchema, shape: false });
    made.push(good, plain);
    const outcome = await good.invoke({});
    assert.equal(outcome.ok, true);
    assert.deepEqual(outcome.result.structuredContent, { total: 12 });
    assert.equal((await plain.invoke({})).ok, true);
  });

  test('after-hooks see only validated output; error hooks see the validation failure', async () => {
    const seen = [];
    const tool = webmcp(() => ({ content: [], structuredContent: { total: null } }), {
      name: 'output_hooks',
      description: 'd',
      outputSchema,
      shape: false,
      hooks: { after: [() => seen.push('after')], error: [(ctx) => seen.push(`error:${ctx.error.kind}/${ctx.error.reason}`)] },
    });
    made.push(tool);
    const outcome = await tool.invoke({});
    assert.equal(outcome.error?.reason, 'invalid_structured_content');
    assert.deepEqual(seen, ['error:validation/invalid_structured_content']);
  });

  test('a tool whose outputSchema is not valid JSON Schema is never run: invalid_schema, and register() rejects', async () => {
    let calls = 0;
    const tool = webmcp(() => (calls++, 'ran'), { name: 'broken_output_schema', description: 'd', outputSchema: { type: 12 }, shape: false });
    made.push(tool);
    await assert.rejects(tool.register(), (err) => err instanceof ConfigurationError && err.code === 'invalid_schema' && err.message.includes('"broken_output_schema"') && err.message.includes('outputSchema'));
    const outcome = await tool.invoke({});
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error.kind, 'validation');
    assert.equal(outcome.error.reason, 'invalid_schema');
    assert.match(outcome.result.content[0].text, /^Error: the tool's outputSchema is not valid JSON Schema: .*\/type/);
    assert.equal(calls, 0, 'the tool ran although its contract is broken');
  });
});
