// Hostile arguments through the BUILT package: a cycle, a BigInt, a function,
// a 10,000-deep array, a 10 MiB string, a `__proto__` key, a lone surrogate (and a few more of
// the kind: NaN, a throwing getter). Each gets a clear validation error or is handled
// correctly; nothing throws out of `invoke`; the wasm instances keep working (a normal call
// after each still succeeds); no prototype is polluted; the limits are configuration.
//
// Build first: `WASM_OPT=0 node pkg-js/build.mjs`.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { webmcp, configureWebMCP, resetWebMCP, ConfigurationError } from 'webmcp-warden';
import { installFakeModelContext } from 'webmcp-warden/testing';
import { recordingTools, textOf } from '../test-support/helpers.mjs';

const MiB = 1024 * 1024;
const { recordingTool, made } = recordingTools('hostile', 'a tool under attack');

const schema = { type: 'object', properties: { q: {} } };
const cyclic = () => {
  const value = { q: { inner: {} } };
  value.q.inner.back = value.q;
  return value;
};
const deepArray = (depth) => {
  let value = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

/** The hostile arguments, with the diagnostic each must get from a JSON Schema tool (default limits). */
const HOSTILE = [
  { name: 'a cycle', input: cyclic, diagnostic: { path: '/q/inner/back', keyword: 'json', message: 'refers to itself (a cycle); JSON cannot carry it' } },
  { name: 'a BigInt', input: () => ({ q: 10n ** 30n }), diagnostic: { path: '/q', keyword: 'json', message: 'is a BigInt; JSON cannot carry it' } },
  { name: 'a function', input: () => ({ q: () => 'hi' }), diagnostic: { path: '/q', keyword: 'json', message: 'is a function; JSON cannot carry it' } },
  { name: 'a symbol', input: () => ({ q: [1, Symbol('s')] }), diagnostic: { path: '/q/1', keyword: 'json', message: 'is a symbol; JSON cannot carry it' } },
  { name: 'a 10,000-deep array', input: () => ({ q: deepArray(10_000) }), diagnostic: { path: '', keyword: 'depth', message: 'is nested deeper than 64 levels of arrays and objects' } },
  { name: 'a 10 MiB string', input: () => ({ q: 'x'.repeat(10 * MiB) }), diagnostic: { path: '', keyword: 'size', message: /^is at least \d+ bytes of JSON, over the limit of 1048576 bytes$/ } },
  { name: 'a lone high surrogate', input: () => ({ q: 'ok \ud800 then' }), diagnostic: { path: '/q', keyword: 'json', message: 'holds a lone UTF-16 surrogate, which JSON text cannot carry' } },
  { name: 'a lone low surrogate', input: () => ({ q: ['\udc00'] }), diagnostic: { path: '/q/0', keyword: 'json', message: 'holds a lone UTF-16 surrogate, which JSON text cannot carry' } },
  { name: 'a lone surrogate in a key', input: () => ({ q: { ['k\ud83d']: 1 } }), diagnostic: { path: '/q/k\ufffd', keyword: 'json', message: 'has a property name that holds a lone UTF-16 surrogate, which JSON text cannot carry' } },
  { name: 'NaN', input: () => ({ q: NaN }), diagnostic: { path: '/q', keyword: 'json', message: 'is NaN; JSON cannot carry it' } },
  { name: 'Infinity', input: () => ({ q: [-Infinity] }), diagnostic: { path: '/q/0', keyword: 'json', message: 'is -Infinity; JSON cannot carry it' } },
  {
    name: 'a getter that throws',
    input: () => ({
      q: Object.defineProperty({}, 'trap', {
        enumerable: true,
        get() {
          throw new Error('boom');
        },
      }),
    }),
    diagnostic: { path: '', keyword: 'json', message: 'cannot be read: a getter or proxy threw' },
  },
  {
    name: 'a toJSON that throws',
    input: () => ({
      q: {
        toJSON() {
          throw new Error('secret');
        },
      },
    }),
    diagnostic: { path: '', keyword: 'json', message: 'cannot be written as JSON: JSON.stringify threw (in a toJSON method, or on what one returned)' },
  },
  {
    name: 'a proxy that throws',
    input: () => ({
      q: new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('no keys for you');
          },
        },
      ),
    }),
    diagnostic: { path: '', keyword: 'json', message: 'cannot be read: a getter or proxy threw' },
  },
];

afterEach(() => {
  assert.equal({}.polluted, undefined, 'Object.prototype was polluted');
});

/** Exactly one diagnostic, equal to `expected` (whose message may be a RegExp). */
function assertDiagnostic(actual, expected, label) {
  assert.equal(actual?.length, 1, `${label ?? ''} ${JSON.stringify(actual)}`);
  const [d] = actual;
  assert.deepEqual({ path: d.path, keyword: d.keyword }, { path: expected.path, keyword: expected.keyword }, label);
  if (expected.message instanceof RegExp) assert.match(d.message, expected.message, label);
  else assert.equal(d.message, expected.message, label);
}

async function assertStillWorks(tool, calls) {
  const before = calls.length;
  const outcome = await tool.invoke({ q: 'normal' });
  assert.equal(outcome.ok, true, `a normal call failed afterwards: ${JSON.stringify(outcome)}`);
  assert.equal(calls.length, before + 1);
}

describe('a JSON Schema tool: each hostile argument is a clear validation error, and the next call works', () => {
  for (const hostile of HOSTILE) {
    test(hostile.name, async () => {
      const { tool, calls } = recordingTool({ inputSchema: schema });
      await assertStillWorks(tool, calls); // the validator module is loaded and working before
      let outcome;
      await assert.doesNotReject(async () => {
        outcome = await tool.invoke(hostile.input());
      });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error.kind, 'validation');
      assert.equal(outcome.error.reason, 'invalid_arguments');
      assertDiagnostic(outcome.error.diagnostics, hostile.diagnostic);
      const [{ path, message }] = outcome.error.diagnostics;
      assert.deepEqual(outcome.result, { content: [{ type: 'text', text: `Error: Validation failed: ${path === '' ? '(root)' : path} ${message}` }], isError: true });
      assert.equal(calls.length, 1, 'the tool was called with the hostile argument');
      await assertStillWorks(tool, calls);
    });
  }

  test('all of them at once, interleaved with normal calls: every call settles as data', async () => {
    const { tool, calls } = recordingTool({ inputSchema: schema });
    const outcomes = await Promise.all(HOSTILE.flatMap((h) => [tool.invoke(h.input()), tool.invoke({ q: h.name })]));
    assert.deepEqual(
      outcomes.map((o) => o.ok),
      HOSTILE.flatMap(() => [false, true]),
    );
    assert.deepEqual(calls.map((c) => c.q).sort(), HOSTILE.map((h) => h.name).sort());
  });
});

describe('huge arguments are refused once what was read passes the limit, not after reading them all', () => {
  /** An object with `n` own keys (`k0`…), each holding a number. */
  const manyKeys = (n) => {
    const value = {};
    for (let i = 0; i < n; i++) value[`k${i}`] = i;
    return value;
  };
  const sparse = () => {
    const value = [];
    value.length = 1e9;
    return value;
  };
  /** The lower bound a size diagnostic states, checked to be over the limit. */
  function countedBytes(outcome, limit = MiB) {
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error.kind, 'validation');
    assert.equal(outcome.error.reason, 'invalid_arguments');
    assert.equal(outcome.error.diagnostics.length, 1, JSON.stringify(outcome.error.diagnostics));
    const [d] = outcome.error.diagnostics;
    assert.deepEqual({ path: d.path, keyword: d.keyword }, { path: '', keyword: 'size' });
    const match = /^is at least (\d+) bytes of JSON, over the limit of (\d+) bytes$/.exec(d.message);
    assert.ok(match, d.message);
    assert.equal(Number(match[2]), limit);
    const counted = Number(match[1]);
    assert.ok(counted > limit, d.message);
    assert.equal(textOf(outcome), `Error: Validation failed: (root) ${d.message}`);
    return counted;
  }

  test('a sparse array of length 1e9 is refused by its length alone, with a JSON Schema or a policy', async () => {
    const { tool, calls } = recordingTool({ inputSchema: schema });
    countedBytes(await tool.invoke({ q: sparse() }));
    countedBytes(await tool.invoke(sparse()));
    configureWebMCP({ policy: { default: 'allow' } });
    const { tool: bare, calls: bareCalls } = recordingTool({});
    countedBytes(await bare.invoke({ q: sparse() }));
    assert.equal(calls.length + bareCalls.length, 0);
    await assertStillWorks(tool, calls);
  });

  test('an object with 1M keys: the size refusal, counted only up to the limit (the walk stopped there)', async () => {
    const huge = manyKeys(1_000_000);
    const { tool, calls } = recordingTool({ inputSchema: schema });
    // Each key costs at most a dozen bytes: a count far past limit + one key means the walk
    // went on after passing the limit (it used to count all 1M keys, about 4 MB).
    assert.ok(countedBytes(await tool.invoke(huge)) <= MiB + 16);
    assert.ok(countedBytes(await tool.invoke({ q: huge })) <= MiB + 16);
    configureWebMCP({ policy: { default: 'allow' } });
    const { tool: bare, calls: bareCalls } = recordingTool({});
    assert.ok(countedBytes(await bare.invoke(huge)) <= MiB + 16);
    assert.equal(calls.length + bareCalls.length, 0);
    await assertStillWorks(tool, calls);
  });

  test('the precise walk (taken when a Date or a NaN needs a closer look) stops at the limit too', async () => {
    const { tool, calls } = recordingTool({ inputSchema: schema });
    const huge = manyKeys(1_000_000);
    for (const first of [new Date(0), NaN]) {
      const value = { first, ...huge };
      assert.ok(countedBytes(await tool.invoke(value)) <= MiB + 16, String(first));
    }
    assert.equal(calls.length, 0);
  });

  test('at a raised limit a 300,000-key object is written and validated; under a lowered one it is refused', async () => {
    const value = manyKeys(300_000);
    const bytes = JSON.stringify(value).length;
    configureWebMCP({ maxArgumentBytes: bytes });
    const { tool, calls } = recordingTool({ inputSchema: { type: 'object', maxProperties: 300_000 } });
    assert.equal((await tool.invoke(value)).ok, true);
    assert.equal(Object.keys(calls[0]).length, 300_000);
    configureWebMCP({ maxArgumentBytes: bytes - 1 });
    const refused = await tool.invoke(value);
    assert.deepEqual(refused.error?.diagnostics, [{ path: '', keyword: 'size', message: `is ${bytes} bytes of JSON, over the limit of ${bytes - 1} bytes` }]);
    assert.equal(calls.length, 1);
  });

  test('only what JSON.stringify writes is counted: dropped members and boxed strings do not count against the limit', async () => {
    const { tool, calls } = recordingTool({ inputSchema: schema });
    const longKey = 'k'.repeat(2 * MiB);
    const dropped = await tool.invoke({ q: 'kept', [longKey]: undefined, [`${longKey}x`]: { toJSON: () => undefined } });
    assert.equal(dropped.ok, true, JSON.stringify(dropped.error));
    const boxed = await tool.invoke({ q: new String('s'.repeat(300_000)) });
    assert.equal(boxed.ok, true, JSON.stringify(boxed.error));
    assert.equal(calls.length, 2);
  });

  test('a boxed BigInt is a BigInt diagnostic, not an internal error', async () => {
    const { tool, calls } = recordingTool({ inputSchema: schema });
    const outcome = await tool.invoke({ q: [Object(10n)] });
    assert.deepEqual(outcome.error?.diagnostics, [{ path: '/q/0', keyword: 'json', message: 'is a BigInt; JSON cannot carry it' }]);
    assert.equal(calls.length, 0);
  });
});

describe('at raised limits, the validator module and the core still answer', () => {
  test('maxArgumentDepth at its maximum (100): the module and the core read such arguments; a recursive schema does not exhaust the stack', async () => {
    configureWebMCP({ maxArgumentDepth: 100, policy: { default: 'allow' } });
    const inputSchema = { $defs: { n: { anyOf: [{ type: 'number' }, { type: 'array', items: { $ref: '#/$defs/n' } }] } }, type: 'object', properties: { q: { $ref: '#/$defs/n' } } };
    const { tool, calls } = recordingTool({ inputSchema });
    assert.equal((await tool.invoke({ q: deepArray(99) })).ok, true, '100 levels with the object');
    const wrong = await tool.invoke({ q: [deepArray(98), 'x'] });
    assert.equal(wrong.error?.reason, 'invalid_arguments');
    assert.equal(wrong.error.diagnostics[0].keyword, 'anyOf');
    const deep = await tool.invoke({ q: deepArray(10_000) });
    assert.deepEqual(deep.error?.diagnostics, [{ path: '', keyword: 'depth', message: 'is nested deeper than 100 levels of arrays and objects' }]);
    assert.equal(calls.length, 1);
    assert.throws(() => configureWebMCP({ maxArgumentDepth: 101 }), (err) => err instanceof ConfigurationError && /at most 100/.test(err.message));
  });

  test('a 10 MiB string with maxArgumentBytes raised is validated by the module and reaches the tool whole', async () => {
    configureWebMCP({ maxArgumentBytes: 32 * MiB });
    const big = 'y'.repeat(10 * MiB);
    const { tool, calls } = recordingTool({ inputSchema: { type: 'object', properties: { q: { type: 'string', maxLength: 10 * MiB } } } });
    assert.equal((await tool.invoke({ q: big })).ok, true);
    assert.equal(calls[0].q.length, 10 * MiB);
    const tooLong = await tool.invoke({ q: big + 'z' });
    assert.deepEqual(tooLong.error?.diagnostics, [{ path: '/q', keyword: 'maxLength', message: `must have at most ${10 * MiB} characters` }]);
    assert.equal(calls.length, 1);
  });
});

describe('a __proto__ key', () => {
  const text = '{"__proto__":{"polluted":true,"isAdmin":true},"q":"x"}';

  test('is an ordinary property: validated, passed on as an own key, and nothing is polluted', async () => {
    const { tool, calls } = recordingTool({ inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } });
    const outcome = await tool.invoke(JSON.parse(text));
    assert.equal(outcome.ok, true);
    assert.ok(Object.hasOwn(calls[0], '__proto__'));
    assert.equal(Object.getPrototypeOf(calls[0]), Object.prototype);
    assert.equal(calls[0].isAdmin, undefined);
    assert.equal({}.polluted, undefined);
    assert.equal({}.isAdmin, undefined);
  });

  test('additionalProperties: false names it like any other key', async () => {
    const { tool, calls } = recordingTool({ inputSchema: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false } });
    const outcome = await tool.invoke(JSON.parse(text));
    assert.deepEqual(outcome.error?.diagnostics, [{ path: '/__proto__', keyword: 'additionalProperties', message: 'is not allowed' }]);
    assert.equal(outcome.result.content[0].text, 'Error: Validation failed: /__proto__ is not allowed');
    assert.equal(calls.length, 0);
  });

  test('the approver and function predicates see it as an own key of a plain object; a rule can match it', async () => {
    const seen = [];
    const predicateSaw = [];
    configureWebMCP({
      policy: {
        deny: [{ match: '*', when: { arg: '/__proto__/isAdmin', equals: true }, reason: 'no admin smuggling' }],
        ask: [{ match: '*', when: (call) => (predicateSaw.push(Object.hasOwn(call.arguments, '__proto__')), true) }],
        default: 'allow',
      },
      onAsk: (call) => {
        seen.push({ own: Object.hasOwn(call.arguments, '__proto__'), proto: Object.getPrototypeOf(call.arguments) === Object.prototype, keys: Object.keys(call.arguments) });
        return { allow: 'once' };
      },
    });
    const { tool, calls } = recordingTool({});
    const denied = await tool.invoke(JSON.parse(text));
    assert.equal(denied.error?.kind, 'denied');
    assert.equal(textOf(denied), 'Denied: no admin smuggling');
    const asked = await tool.invoke(JSON.parse('{"__proto__":{"note":1},"q":"x"}'));
    assert.equal(asked.ok, true, JSON.stringify(asked));
    assert.deepEqual(predicateSaw, [true]);
    assert.deepEqual(seen, [{ own: true, proto: true, keys: ['__proto__', 'q'] }]);
    assert.equal(calls.length, 1);
  });

  test('through the browser path (the agent sent it as JSON text)', async () => {
    const installed = installFakeModelContext();
    try {
      const { tool, calls } = recordingTool({ inputSchema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object","properties":{"polluted":{"type":"string"}}}}}') });
      await tool.register();
      const refused = await installed.modelContext.callTool(tool.toolName, text);
      assert.equal(refused.content[0].text, 'Error: Validation failed: /__proto__/polluted must be string');
      assert.equal(calls.length, 0);
    } finally {
      installed.uninstall();
    }
  });

  test('a zod schema given one drops it; nothing is polluted', async () => {
    const { tool, calls } = recordingTool({ schema: z.looseObject({ q: z.string() }) });
    assert.equal((await tool.invoke(JSON.parse(text))).ok, true);
    assert.equal(Object.hasOwn(calls[0], '__proto__'), false);
    assert.equal(calls[0].polluted, undefined);
  });
});

describe('rejectProtoKeys: true', () => {
  const text = '{"q":"x","opts":{"deep":[{"__proto__":{"isAdmin":true}}]}}';

  test('refuses arguments with a __proto__ key anywhere, naming where, with or without a JSON Schema; the tool never runs', async () => {
    configureWebMCP({ rejectProtoKeys: true });
    const withSchema = recordingTool({ inputSchema: { type: 'object' } });
    const without = recordingTool({});
    const standard = recordingTool({ schema: z.any(), inputSchema: { type: 'object' } });
    for (const { tool, calls } of [withSchema, without, standard]) {
      const outcome = await tool.invoke(JSON.parse(text));
      assert.deepEqual([outcome.ok, outcome.error.kind, outcome.error.reason], [false, 'validation', 'invalid_arguments']);
      assert.deepEqual(outcome.error.diagnostics, [{ path: '/opts/deep/0/__proto__', keyword: 'proto_key', message: 'is a "__proto__" key, which this page refuses (rejectProtoKeys)' }]);
      assert.equal(calls.length, 0);
      // Text that only mentions the key, in a value or as part of a longer key, is no such key.
      const fine = await tool.invoke({ q: '{"__proto__":1}', x__proto__: 1, '__proto__x': 2 });
      assert.equal(fine.ok, true, JSON.stringify(fine.error));
    }
    const { explain } = await import('webmcp-warden');
    await without.tool.register();
    const dry = await explain(without.name, JSON.parse(text));
    assert.ok(dry.steps.some((step) => step.step === 'validation' && step.ok === false && step.diagnostics[0].keyword === 'proto_key'), 'explain says so too');
  });

  test('off by default: the key is an ordinary own key (see above); only a boolean is accepted', async () => {
    const { tool, calls } = recordingTool({});
    assert.equal((await tool.invoke(JSON.parse(text))).ok, true);
    assert.equal(calls.length, 1);
    assert.throws(() => configureWebMCP({ rejectProtoKeys: 'yes' }), ConfigurationError);
  });
});

describe('lone surrogates', () => {
  test('a well-formed surrogate pair (an emoji) is fine', async () => {
    const { tool, calls } = recordingTool({ inputSchema: { type: 'object', properties: { q: { type: 'string', maxLength: 1 } } } });
    assert.equal((await tool.invoke({ q: '😀' })).ok, true, 'one code point, as JSON Schema counts length');
    assert.deepEqual(calls, [{ q: '😀' }]);
  });

  test('through the browser path (a \\ud800 escape in the JSON text) the path is named', async () => {
    const installed = installFakeModelContext();
    try {
      const { tool, calls } = recordingTool({ inputSchema: schema });
      await tool.register();
      const refused = await installed.modelContext.callTool(tool.toolName, '{"q":{"note":"\\ud800"}}');
      assert.equal(refused.content[0].text, 'Error: Validation failed: /q/note holds a lone UTF-16 surrogate, which JSON text cannot carry');
      assert.equal(calls.length, 0);
    } finally {
      installed.uninstall();
    }
  });
});

describe('without a JSON Schema', () => {
  test('no schema and no policy: the function gets the value as given (nothing needs JSON)', async () => {
    const { tool, calls } = recordingTool({});
    const value = cyclic();
    assert.equal((await tool.invoke(value)).ok, true);
    assert.equal(calls[0], value);
  });

  test('with a policy, arguments JSON cannot carry fail as validation with a diagnostic, not a bare reason', async () => {
    configureWebMCP({ policy: { default: 'allow' } });
    const { tool, calls } = recordingTool({});
    for (const hostile of HOSTILE) {
      const outcome = await tool.invoke(hostile.input());
      assert.equal(outcome.error?.reason, 'invalid_arguments', hostile.name);
      assertDiagnostic(outcome.error.diagnostics, hostile.diagnostic, hostile.name);
      assert.match(textOf(outcome), /^Error: Validation failed: /);
    }
    assert.equal(calls.length, 0);
    await assertStillWorks(tool, calls);
  });

  test('a Standard Schema decides alone (no JSON needed), so a BigInt it accepts reaches the tool', async () => {
    const { tool, calls } = recordingTool({ schema: z.object({ q: z.bigint() }) });
    assert.equal((await tool.invoke({ q: 5n })).ok, true);
    assert.deepEqual(calls, [{ q: 5n }]);
  });
});

describe('output: hostile structuredContent', () => {
  test('a cycle or a BigInt in structuredContent is invalid_structured_content, never a throw', async () => {
    const outputSchema = { type: 'object' };
    for (const [label, structured, diagnostic] of [
      ['cycle', cyclic(), { path: '/q/inner/back', keyword: 'json', message: 'refers to itself (a cycle); JSON cannot carry it' }],
      ['bigint', { n: 1n }, { path: '/n', keyword: 'json', message: 'is a BigInt; JSON cannot carry it' }],
    ]) {
      const tool = webmcp(() => ({ content: [], structuredContent: structured }), { name: `hostile_out_${label}`, description: 'd', outputSchema, shape: false });
      made.push(tool);
      const outcome = await tool.invoke({});
      assert.equal(outcome.error?.reason, 'invalid_structured_content', label);
      assert.deepEqual(outcome.error.diagnostics, [diagnostic], label);
    }
  });
});

describe('limits are configuration', () => {
  test('maxArgumentBytes counts UTF-8 bytes of the JSON, as the core does', async () => {
    configureWebMCP({ maxArgumentBytes: 100 });
    const { tool, calls } = recordingTool({ inputSchema: schema });
    // {"q":"€€…"} with 40 euro signs: 48 UTF-16 units, but 128 UTF-8 bytes.
    const euros = await tool.invoke({ q: '€'.repeat(40) });
    assert.deepEqual(euros.error?.diagnostics, [{ path: '', keyword: 'size', message: 'is 128 bytes of JSON, over the limit of 100 bytes' }]);
    assert.equal((await tool.invoke({ q: 'a'.repeat(92) })).ok, true, '100 bytes pass');
    const over = await tool.invoke({ q: 'a'.repeat(93) });
    assert.deepEqual(over.error?.diagnostics.map((d) => d.keyword), ['size'], '101 bytes do not');
    assert.equal(calls.length, 1);
  });

  test('maxArgumentDepth counts arrays and objects as the core does ({} is 1)', async () => {
    configureWebMCP({ maxArgumentDepth: 3 });
    const { tool, calls } = recordingTool({ inputSchema: {} });
    assert.equal((await tool.invoke({ q: [[1]] })).ok, true, 'depth 3');
    const outcome = await tool.invoke({ q: [[[1]]] });
    assert.deepEqual(outcome.error?.diagnostics, [{ path: '', keyword: 'depth', message: 'is nested deeper than 3 levels of arrays and objects' }]);
    assert.equal(calls.length, 1);
  });

  test('bad values are refused at once and leave the configuration as it was; resetWebMCP restores the defaults', async () => {
    for (const bad of [0, -1, 1.5, '10', NaN, Infinity, null]) {
      assert.throws(() => configureWebMCP({ maxArgumentBytes: bad }), ConfigurationError, `maxArgumentBytes ${String(bad)}`);
      assert.throws(() => configureWebMCP({ maxArgumentDepth: bad }), ConfigurationError, `maxArgumentDepth ${String(bad)}`);
    }
    const { tool } = recordingTool({ inputSchema: schema });
    assert.equal((await tool.invoke({ q: deepArray(60) })).ok, true, 'the default depth (64) still applies');
    // Larger than the module's u32: clamped, not wrapped (2^32 would wrap to 0 and refuse everything).
    configureWebMCP({ maxArgumentBytes: 2 ** 32 });
    assert.equal((await tool.invoke({ q: 'fine' })).ok, true);
    resetWebMCP();
    configureWebMCP({ maxArgumentDepth: 2 });
    assert.equal((await tool.invoke({ q: [[1]] })).ok, false);
    resetWebMCP();
    assert.equal((await tool.invoke({ q: deepArray(60) })).ok, true);
    assert.equal((await tool.invoke({ q: deepArray(64) })).ok, false, '65 levels with the object');
  });
});
