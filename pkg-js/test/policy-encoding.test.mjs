// How a policy reaches the core (the wire format, `pkg-js/src/boundary/wire.ts`) through the BUILT
// package: function predicates become handles that are reused and released, a `__proto__` key
// stays a key, and lintPolicy never throws, whatever the policy's getters and proxies do.
// RegExps mean what they mean in JS, in hook matchers as in policies.
//
// Build first: `WASM_OPT=0 node pkg-js/build.mjs`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, configureWebMCP, invokeTool, lintPolicy, ConfigurationError } from '../lib/index.js';
// Internal: the predicate table, to watch functions being released (same module instance as
// the package's, since the package resolves to this directory).
import { getDefaultWarden, internalOf } from '../lib/api/api.js';

// The default client's predicate table (the package's own module instance).
const predicates = () => internalOf(getDefaultWarden()).predicates;
const livePredicates = () => predicates().live;
const predicateTable = { indexOf: (fn) => predicates().table.indexOf(fn), get length() { return predicates().table.length; } };
import { trackTools } from '../test-support/lib-helpers.mjs';

const made = trackTools();
let counter = 0;
async function tool(options = {}) {
  const name = options.name ?? `enc_${++counter}`;
  const t = webmcp(() => 'ran', { shape: false, description: 'd', ...options, name });
  made.push(t);
  await t.register();
  return name;
}
const codes = (found) => found.map((d) => `${d.code}@${d.path}`).sort();

describe('function predicates', () => {
  test('one function is one handle, reused across rules and configurations', async () => {
    const name = await tool();
    let asked = 0;
    const guard = () => {
      asked++;
      return false;
    };
    configureWebMCP({ policy: { deny: [{ match: '*', when: guard }, { match: name, when: [guard] }], default: 'allow' } });
    assert.equal(livePredicates(), 1, 'the same function named twice is one predicate');
    const handle = predicateTable.indexOf(guard);
    assert.ok(handle >= 0);
    assert.equal((await invokeTool(name, {})).ok, true);
    assert.equal(asked, 1, 'asked once per call');
    configureWebMCP({ policy: { ask: [{ match: '*', when: guard }], default: 'allow' } });
    assert.equal(predicateTable.indexOf(guard), handle, 'the same handle in the next policy');
  });

  test('a function no policy uses any more is released, and its handle reused', () => {
    const a = () => true;
    const b = () => true;
    configureWebMCP({ policy: { deny: [{ when: a }, { when: [a, b] }] } });
    assert.equal(livePredicates(), 2);
    configureWebMCP({ policy: { deny: [{ when: b }] } });
    assert.equal(livePredicates(), 1, 'a was released');
    assert.equal(predicateTable.indexOf(a), -1, 'the table no longer holds a');
    const size = predicateTable.length;
    for (let i = 0; i < 200; i++) configureWebMCP({ policy: { deny: [{ when: b }, { when: () => true }] } });
    assert.equal(livePredicates(), 2);
    assert.ok(predicateTable.length <= size + 1, `released handles are reused (table ${predicateTable.length}, was ${size})`);
    // A rejected policy releases the functions it brought and keeps the ones in force.
    assert.throws(() => configureWebMCP({ policy: { deny: [{ when: () => true, bogus: 1 }] } }), ConfigurationError);
    assert.equal(livePredicates(), 2);
    configureWebMCP({ policy: null });
    assert.equal(livePredicates(), 0);
  });

  test('lint numbers functions for itself and keeps none', () => {
    const before = livePredicates();
    assert.deepEqual(codes(lintPolicy({ deny: [{ when: () => true }], allow: [{ match: 'x', when: () => true }] })), []);
    assert.equal(livePredicates(), before);
  });
});

describe('__proto__ in a policy', () => {
  test('a parsed policy keeps a __proto__ key inside a value and compares it as data', async () => {
    const name = await tool();
    const policy = JSON.parse('{"deny":[{"match":"*","when":{"arg":"/meta","equals":{"__proto__":{"admin":true}}},"reason":"no smuggling"}],"default":"allow"}');
    configureWebMCP({ policy });
    const smuggled = await invokeTool(name, JSON.parse('{"meta":{"__proto__":{"admin":true}}}'));
    assert.equal(smuggled.result.content[0].text, 'Denied: no smuggling');
    assert.equal((await invokeTool(name, { meta: {} })).ok, true, 'an empty object is not the same value');
  });

  test('a __proto__ key at the top of a parsed policy is reported, never dropped', () => {
    const policy = JSON.parse('{"__proto__":{"deny":["*"]},"allow":["*"]}');
    assert.deepEqual(codes(lintPolicy(policy)), ['unknown_policy_key@__proto__']);
    assert.throws(() => configureWebMCP({ policy }), (err) => err instanceof ConfigurationError && err.code === 'unknown_policy_key' && err.path === '__proto__');
    const rule = JSON.parse('{"deny":[{"match":"*","__proto__":{"when":"tainted"}}]}');
    assert.deepEqual(codes(lintPolicy(rule)), ['unknown_rule_key@deny[0].__proto__']);
  });
});

describe('lintPolicy never throws', () => {
  test('a getter that throws is reported as an unreadable value', () => {
    const policy = {
      deny: [
        {
          match: '*',
          get when() {
            throw new Error('getter threw');
          },
        },
      ],
    };
    const found = lintPolicy(policy);
    assert.deepEqual(codes(found), ['invalid_predicate@deny[0].when']);
    assert.match(found[0].message, /unreadable value/);
    assert.doesNotMatch(found[0].message, /getter threw/, 'what the getter threw is never quoted');
    assert.throws(() => configureWebMCP({ policy }), (err) => err instanceof ConfigurationError && err.path === 'deny[0].when');
  });

  test('proxies whose traps throw are reported too', () => {
    const hostile = (target, trap) =>
      new Proxy(target, {
        [trap]() {
          throw new Error('trap threw');
        },
      });
    assert.deepEqual(codes(lintPolicy(hostile({}, 'ownKeys'))), ['invalid_policy@']);
    assert.deepEqual(codes(lintPolicy(hostile({}, 'getPrototypeOf'))), ['invalid_policy@']);
    assert.deepEqual(codes(lintPolicy({ allow: hostile([], 'get') })), ['invalid_policy@allow']);
    assert.deepEqual(codes(lintPolicy({ deny: [hostile({ match: '*' }, 'get')] })), ['invalid_matcher@deny[0].match']);
    assert.deepEqual(codes(lintPolicy({ deny: [{ match: hostile(/x/, 'get') }] })), ['invalid_matcher@deny[0].match']);
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    assert.deepEqual(codes(lintPolicy({ deny: [revocable.proxy] })), ['invalid_rule@deny[0]']);
  });
});

describe('RegExps mean what they mean in JS', () => {
  test('a hook matcher with a look-ahead or a back-reference is accepted and matches as in JS', async () => {
    const seen = [];
    configureWebMCP({
      // The back-reference, in a pattern the judgement finds slow, runs only opted in
      // (docs/behaviour.md, "Patterns"); the look-ahead at the start of an anchored pattern runs anyway.
      unsafePatterns: true,
      hooks: {
        before: [
          { match: /^(?=read)\w+/, run: (ctx) => void seen.push(`ahead:${ctx.tool.toolName}`) },
          { match: { server: 'page', name: /(.)\1/ }, run: (ctx) => void seen.push(`twice:${ctx.tool.toolName}`) },
        ],
      },
    });
    const read = await tool({ name: 'read_file' });
    const write = await tool({ name: 'write_log' });
    const doubled = await tool({ name: 'add_all' });
    await invokeTool(read, {});
    await invokeTool(write, {});
    await invokeTool(doubled, {});
    assert.deepEqual(seen, ['ahead:read_file', 'twice:add_all']);
  });

  test('a RegExp the page cannot compile cannot reach the core, and lint reports a bad source', () => {
    assert.throws(() => new RegExp('('), SyntaxError);
    assert.deepEqual(codes(lintPolicy({ allow: [{ match: '*', when: { arg: '/q', matches: '(?<name' } }] })), ['invalid_pattern@allow[0].when']);
  });
});
