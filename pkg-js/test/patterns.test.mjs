// Patterns that meet an agent's text, through the BUILT package (docs/behaviour.md, "Patterns"):
// one test per path where a page's pattern meets a string an agent chose, each with the
// hostile string at its cap, asserting the outcome (allowed, denied, valid, invalid), never a
// time: a pattern that ran on the page's backtracking engine here would not finish, and the test
// would time out. Also: what is refused and when, the opt-ins, the per-call budget, lintPolicy's
// diagnostics, register()'s warnings, and the shared corpus (tests/fixtures/patterns.json)
// through real calls. What happens before the judgement has loaded, and when it cannot load, is
// in patterns-loading.test.mjs (it needs fresh processes).
//
// Build first: `node pkg-js/build.mjs`.
import { test, describe, before, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  configureWebMCP,
  ConfigurationError,
  createWarden,
  explain,
  getPrompt,
  invokeTool,
  lintPolicy,
  readResource,
  resetWebMCP,
  validateJson,
  webmcp,
  webmcpPrompt,
  webmcpResource,
} from '../lib/index.js';
import { installFakeModelContext } from '../lib/testing.js';
import { hasJudge } from '../wasm/pattern-host.js';
import { captureConsole, loadFixture } from '../test-support/lib-helpers.mjs';

/** The longest string the core tests against a pattern (`src/pattern/mod.rs`, INPUT_LIMIT). */
const INPUT_LIMIT = 65_536;
/** The longest string a JSON Schema pattern is tested against (`src/validate.rs`). */
const SCHEMA_LIMIT = 10_000;

/** `prefix` + `pump`… + `suffix`, `length` UTF-16 units at most (the corpus's attack texts). */
function attack({ prefix, pump, suffix }, length) {
  const room = length - prefix.length - suffix.length;
  return prefix + pump.repeat(Math.floor(room / pump.length)) + suffix;
}

/** Nested quantifiers: exponential on a backtracking engine, and the string that makes it so. */
const EVIL = '^(a+)+$';
const evil = (length) => 'a'.repeat(length - 1) + '!';

const made = [];
function tool(fn, options) {
  const t = webmcp(fn, { shape: false, ...options });
  made.push(t);
  return t;
}

installFakeModelContext();

afterEach(() => {
  for (const t of made.splice(0)) t.unregister();
  resetWebMCP();
});

describe('lintPolicy', () => {
  test('loads the judgement synchronously and reports slow and refused patterns with their paths', () => {
    const loadedBefore = hasJudge();
    const diagnostics = lintPolicy({
      deny: [
        { match: 'run', when: { arg: '/cmd', matches: '^rm' } },
        { match: 'run', when: [{ arg: '/cmd', exists: true }, { arg: '/cmd', matches: EVIL }] },
        { match: /^(\w+\s?)*$/, id: 'names' },
        { match: 'run', when: { arg: '/cmd', matches: '^(a+)+\\1$' } },
        { match: 'run', when: { arg: '/cmd', matches: '^(a+)+\\1$', unsafePattern: true } },
      ],
      default: 'allow',
    });
    assert.equal(loadedBefore, false, 'nothing had loaded the judgement before lintPolicy');
    assert.equal(hasJudge(), true);
    const found = diagnostics.map(({ code, path }) => [code, path]).sort();
    assert.deepEqual(found, [
      ['pattern_linear', 'deny[1].when[1].matches'],
      ['pattern_linear', 'deny[2].match'],
      ['pattern_unsafe', 'deny[4].when.matches'],
      ['unsafe_pattern', 'deny[3].when'],
    ]);
    const linear = diagnostics.find((d) => d.path === 'deny[1].when[1].matches');
    assert.match(linear.message, /^deny\[1\]\.when\[1\]\.matches: the pattern \/\^\(a\+\)\+\$\/ can take exponential time/);
    assert.match(linear.message, /linear-time engine/);
    const refused = diagnostics.find((d) => d.code === 'unsafe_pattern');
    assert.match(refused.message, /back-reference/);
    assert.match(refused.message, /unsafePatterns: true/);
    assert.deepEqual(lintPolicy({ deny: [{ when: { arg: '/q', matches: '^[a-z]+$' } }] }), [], 'a pattern safe at every length: nothing to say');
  });
});

describe('refused patterns', () => {
  test('configureWebMCP refuses one synchronously, naming it, and keeps the configuration it had', () => {
    lintPolicy({});
    configureWebMCP({ policy: { deny: ['x'], default: 'allow' } });
    const refused = (policy) => () => configureWebMCP({ policy });
    assert.throws(refused({ deny: [{ when: { arg: '/q', matches: '^(a+)+\\1$' } }] }), (err) => {
      assert.ok(err instanceof ConfigurationError);
      assert.equal(err.code, 'unsafe_pattern');
      assert.match(err.message, /`matches` pattern \/\^\(a\+\)\+\\1\$\/ can take exponential time .* \(a back-reference\)/);
      return true;
    });
    assert.throws(refused({ resources: { deny: [/^(a+)+(?=x)/] } }), { code: 'unsafe_pattern' });
    assert.throws(() => configureWebMCP({ hooks: { before: [{ match: /(?<=x)(b+)+$/, run: () => undefined }] } }), { code: 'unsafe_pattern' });
    assert.throws(() => webmcp(() => 'x', { name: 'hooked', description: 'd', hooks: { before: [{ match: /(?<=x)(b+)+$/, run: () => undefined }] } }), { code: 'unsafe_pattern' });
  });

  test('register() refuses a schema whose pattern is refused, naming the tool, the schema and the location', async () => {
    const t = tool(() => 'x', { name: 'refused_schema', description: 'd', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+\\1$' } } } });
    await assert.rejects(t.register(), (err) => {
      assert.ok(err instanceof ConfigurationError);
      assert.equal(err.code, 'unsafe_pattern');
      assert.equal(err.path, 'inputSchema');
      assert.match(err.message, /^tool "refused_schema": inputSchema has a pattern refused for its running time: schema location \/properties\/q\/pattern has a pattern that can take exponential time/);
      return true;
    });
    assert.equal(t.status, 'error');
    // A call of the tool reads the schema as unusable, as an invalid one.
    const outcome = await t.invoke({ q: 'aa' });
    assert.equal(outcome.error.reason, 'invalid_schema');
  });
});

describe('every path where a pattern meets agent text, at the cap', () => {
  test('policy `matches` on a tool argument: the linear engine past the short strings', async () => {
    lintPolicy({});
    configureWebMCP({ policy: { deny: [{ match: 'echo', when: { arg: '/q', matches: EVIL }, reason: 'a-run' }], default: 'allow' } });
    const echo = tool(({ q }) => q.length, { name: 'echo', description: 'Echoes.' });
    await echo.register();
    const allowed = await invokeTool('echo', { q: evil(INPUT_LIMIT) });
    assert.equal(allowed.ok, true, 'the string does not match: the deny rule does not apply');
    const denied = await invokeTool('echo', { q: 'a'.repeat(INPUT_LIMIT) });
    assert.equal(denied.error?.kind, 'denied', 'the same length matching: denied');
    assert.equal(denied.error.decision.rule.list, 'deny');
    // Past the cap the string is not tested: the deny rule fails closed.
    const over = await invokeTool('echo', { q: evil(INPUT_LIMIT + 1) });
    assert.equal(over.error?.kind, 'denied');
    assert.match(over.error.decision.explanation, /failing closed because a pattern could not test the argument/);
    // Short strings run on the page's engine, with the same answers.
    assert.equal((await invokeTool('echo', { q: 'aaa' })).error?.kind, 'denied');
    assert.equal((await invokeTool('echo', { q: 'aa!' })).ok, true);
  });

  test('policy `matches` on a prompt argument', async () => {
    lintPolicy({});
    configureWebMCP({ policy: { allow: ['*'], prompts: { deny: [{ match: 'summarize', when: { arg: '/topic', matches: EVIL } }], default: 'allow' } } });
    const prompt = webmcpPrompt(({ topic }) => `About ${topic.length}`, { name: 'summarize', description: 'Summarize.' });
    await prompt.register();
    try {
      assert.equal((await getPrompt('summarize', { topic: evil(INPUT_LIMIT) })).ok, true);
      const denied = await getPrompt('summarize', { topic: 'a'.repeat(INPUT_LIMIT) });
      assert.equal(denied.error?.kind, 'denied');
    } finally {
      prompt.unregister();
    }
  });

  test('inputSchema `pattern`, `patternProperties` keys and `propertyNames.pattern`', async () => {
    const schema = {
      type: 'object',
      properties: { q: { type: 'string', pattern: EVIL } },
      patternProperties: { '^(a|aa)+$': { type: 'number' } },
      propertyNames: { pattern: '^(\\w+\\s?)*$' },
    };
    const t = tool(() => 'ok', { name: 'schema_paths', description: 'd', inputSchema: schema });
    const written = [];
    const restore = captureConsole(written, { methods: ['warn'] });
    try {
      await t.register();
    } finally {
      restore();
    }
    const invalidAt = async (input, path, keyword) => {
      const outcome = await invokeTool('schema_paths', input);
      assert.equal(outcome.error?.reason, 'invalid_arguments', JSON.stringify(input).slice(0, 60));
      assert.ok(outcome.error.diagnostics.some((d) => d.path === path && d.keyword === keyword), JSON.stringify(outcome.error.diagnostics));
    };
    // `pattern` at the schema's cap: tested (on the linear engine), no match.
    await invalidAt({ q: evil(SCHEMA_LIMIT) }, '/q', 'pattern');
    assert.equal((await invokeTool('schema_paths', { q: 'a'.repeat(SCHEMA_LIMIT) })).ok, true);
    // Past it: not tested, invalid (whatever the pattern would say).
    await invalidAt({ q: 'a'.repeat(SCHEMA_LIMIT + 1) }, '/q', 'pattern');
    // A key that is a pattern, and the names every key must match.
    const key = 'a'.repeat(SCHEMA_LIMIT - 1) + '!';
    await invalidAt({ [key]: 'not a number' }, '', 'propertyNames');
    assert.equal((await invokeTool('schema_paths', { ['a'.repeat(SCHEMA_LIMIT)]: 'not a number' })).error?.diagnostics[0].path, '/' + 'a'.repeat(SCHEMA_LIMIT));
    assert.equal((await invokeTool('schema_paths', { ['a'.repeat(SCHEMA_LIMIT)]: 3 })).ok, true);
    // One warning per slow pattern, naming the tool, the schema and the location.
    const warnings = written.filter((line) => line.includes('schema_paths'));
    assert.equal(warnings.length, 3, warnings.join('\n'));
    for (const path of ['/properties/q/pattern', '/patternProperties/^(a|aa)+$', '/propertyNames/pattern']) {
      assert.ok(warnings.some((line) => line.startsWith(`webmcp-warden: tool "schema_paths" inputSchema: schema location ${path} has the pattern `) && line.endsWith('(pattern_linear)')), path);
    }
    // Not again on a second registration of the same tool.
    t.unregister();
    const again = [];
    const restoreAgain = captureConsole(again, { methods: ['warn'] });
    try {
      await t.register();
    } finally {
      restoreAgain();
    }
    assert.deepEqual(again, []);
  });

  test('outputSchema `pattern`, with a tool that echoes the agent', async () => {
    const t = tool(({ q }) => ({ echoed: q }), {
      name: 'echo_structured',
      description: 'd',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      outputSchema: { type: 'object', properties: { echoed: { type: 'string', pattern: EVIL } } },
    });
    await t.register();
    const rejected = await invokeTool('echo_structured', { q: evil(SCHEMA_LIMIT) });
    assert.equal(rejected.error?.reason, 'invalid_structured_content');
    assert.equal((await invokeTool('echo_structured', { q: 'a'.repeat(SCHEMA_LIMIT) })).ok, true);
  });

  test("a prompt's argsSchema", async () => {
    const prompt = webmcpPrompt(({ topic }) => `About ${topic.length}`, {
      name: 'about',
      description: 'About.',
      argsSchema: { type: 'object', properties: { topic: { type: 'string', pattern: EVIL } }, required: ['topic'] },
    });
    await prompt.register();
    try {
      assert.equal((await getPrompt('about', { topic: evil(SCHEMA_LIMIT) })).error?.reason, 'invalid_arguments');
      assert.equal((await getPrompt('about', { topic: 'a'.repeat(SCHEMA_LIMIT) })).ok, true);
    } finally {
      prompt.unregister();
    }
  });

  test('resourceRead RegExp matchers and policy.resources RegExp rules test the URI', async () => {
    lintPolicy({});
    let hooked = 0;
    configureWebMCP({
      hooks: { resourceRead: [{ id: 'evil-uri', match: /^notes:\/\/(a+)+$/, run: () => void hooked++ }] },
      policy: { allow: ['*'], resources: { deny: [/^notes:\/\/(a|aa)+!$/], default: 'allow' } },
    });
    const notes = webmcpResource((uri) => `read ${uri.length}`, { uri: 'notes://{+id}', name: 'notes', description: 'Notes.' });
    await notes.register();
    try {
      const long = 'notes://' + 'a'.repeat(20_000);
      assert.equal((await readResource(long)).ok, true);
      assert.equal(hooked, 1, 'the matcher matched the long URI');
      const denied = await readResource(long + '!');
      assert.equal(denied.error?.kind, 'denied', 'the deny rule matched the long URI');
      assert.equal(hooked, 1, 'the matcher did not match it');
    } finally {
      notes.unregister();
    }
  });
});

describe('opting in', () => {
  test('a predicate opted in runs its pattern on short strings and fails closed on longer ones', async () => {
    lintPolicy({});
    configureWebMCP({ policy: { deny: [{ match: 'opted', when: { arg: '/q', matches: '^(a+)+\\1$', unsafePattern: true } }], default: 'allow' } });
    const t = tool(() => 'ok', { name: 'opted', description: 'd' });
    await t.register();
    assert.equal((await invokeTool('opted', { q: 'aaaa' })).error?.kind, 'denied', 'tested: matches');
    assert.equal((await invokeTool('opted', { q: 'b' })).ok, true, 'tested: no match');
    const long = await invokeTool('opted', { q: 'b'.repeat(1000) });
    assert.equal(long.error?.kind, 'denied');
    assert.match(long.error.decision.explanation, /failing closed because a pattern could not test the argument/);
  });

  test('configureWebMCP({ unsafePatterns: true }) opts in every pattern compiled after it, schemas too', async () => {
    lintPolicy({});
    assert.throws(() => configureWebMCP({ unsafePatterns: 'yes' }), { code: 'invalid_config' });
    configureWebMCP({ unsafePatterns: true, policy: { deny: [{ match: 'global_opt', when: { arg: '/q', matches: '^(a+)+\\1$' } }], default: 'allow' } });
    const t = tool(() => 'ok', { name: 'global_opt', description: 'd', inputSchema: { type: 'object', properties: { r: { type: 'string', pattern: '^(b+)+\\1$' } } } });
    const written = [];
    const restore = captureConsole(written, { methods: ['warn'] });
    try {
      await t.register();
    } finally {
      restore();
    }
    assert.ok(written.some((line) => line.includes('/properties/r/pattern') && line.endsWith('(pattern_unsafe)')), written.join('\n'));
    assert.equal((await invokeTool('global_opt', { q: 'aaaa' })).error?.kind, 'denied');
    assert.equal((await invokeTool('global_opt', { r: 'bb' })).ok, true);
    assert.equal((await invokeTool('global_opt', { r: 'b'.repeat(1000) })).error?.reason, 'invalid_arguments');
    // Off again: a new refused pattern is refused, and a failed configure leaves the opt-in as it was.
    assert.throws(() => configureWebMCP({ unsafePatterns: false, policy: { deny: [{ when: { arg: '/q', matches: '^(c+)+\\1$' } }] } }), { code: 'unsafe_pattern' });
    configureWebMCP({ policy: { deny: [{ when: { arg: '/q', matches: '^(d+)+\\1$' } }] } });
    configureWebMCP({ unsafePatterns: false });
    assert.throws(() => configureWebMCP({ policy: { deny: [{ when: { arg: '/q', matches: '^(e+)+\\1$' } }] } }), { code: 'unsafe_pattern' });
  });

  test('webmcp(fn, { unsafePatterns: true }) opts in that tool’s schemas only', async () => {
    const schema = () => ({ type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+\\1$' } } });
    assert.throws(() => webmcp(() => 'x', { name: 'bad_opt', description: 'd', unsafePatterns: 1 }), { code: 'invalid_options' });
    const opted = tool(() => 'ok', { name: 'tool_opt', description: 'd', inputSchema: schema(), unsafePatterns: true });
    const strict = tool(() => 'ok', { name: 'tool_strict', description: 'd', inputSchema: schema() });
    const restore = captureConsole([], { methods: ['warn'] });
    try {
      await opted.register();
    } finally {
      restore();
    }
    await assert.rejects(strict.register(), { code: 'unsafe_pattern' });
    assert.equal((await invokeTool('tool_opt', { q: 'aa' })).ok, true);
    assert.equal((await invokeTool('tool_opt', { q: 'a' })).error?.reason, 'invalid_arguments');
    assert.equal((await invokeTool('tool_opt', { q: 'a'.repeat(1000) })).error?.reason, 'invalid_arguments', 'past its limit: not tested');
  });
});

describe('the per-call bound on pattern work', () => {
  test('200 slow rules on one long argument: the rules past the budget fail closed, as data', async () => {
    lintPolicy({});
    const deny = Array.from({ length: 200 }, (_, i) => ({ id: `r${i}`, match: 'budget', when: { arg: '/q', matches: `^(\\w+\\s?)*z${i}$` } }));
    configureWebMCP({ policy: { deny, default: 'allow' } });
    const t = tool(() => 'ok', { name: 'budget', description: 'd' });
    await t.register();
    const outcome = await invokeTool('budget', { q: 'a'.repeat(INPUT_LIMIT - 1) + '!' });
    assert.equal(outcome.error?.kind, 'denied', 'no rule matches, but the budget ran out: a deny rule failed closed');
    assert.match(outcome.error.decision.explanation, /failing closed because a pattern could not test the argument/);
    const id = Number(outcome.error.decision.rule.id.slice(1));
    assert.ok(id > 0 && id < 199, `the first rules were tested (rule ${id} failed closed)`);
    // A short argument stays within the budget: every rule is tested, none matches.
    assert.equal((await invokeTool('budget', { q: 'hello world' })).ok, true);
    // The next call has a budget of its own.
    assert.equal((await invokeTool('budget', { q: 'hello z7' })).error?.decision.rule.id, 'r7');
  });
});

describe('predicates on a value of another type could not tell (deny and ask fail closed)', () => {
  test("the README's example: a quantity sent as a string asks", async () => {
    lintPolicy({});
    const asked = [];
    configureWebMCP({
      policy: { ask: [{ match: 'add_to_cart', when: { arg: '/quantity', min: 5 }, id: 'big-orders' }], default: 'allow' },
      onAsk: (call) => (asked.push(call.decision.rule.id), { allow: 'once' }),
    });
    const cart = tool(() => 'ok', { name: 'add_to_cart', description: 'd' });
    await cart.register();
    await invokeTool('add_to_cart', { productId: 'mug', quantity: '50' });
    assert.deepEqual(asked, ['big-orders']);
    await invokeTool('add_to_cart', { productId: 'mug', quantity: 1 });
    assert.deepEqual(asked, ['big-orders']);
  });

  test('`matches` on an array is denied by a deny rule', async () => {
    lintPolicy({});
    configureWebMCP({ policy: { deny: [{ match: 'run', when: { arg: '/cmd', matches: '^rm' } }], default: 'allow' } });
    const run = tool(() => 'ran', { name: 'run', description: 'd' });
    await run.register();
    const outcome = await invokeTool('run', { cmd: ['rm -rf /'] });
    assert.equal(outcome.error?.kind, 'denied');
    assert.match(outcome.error.decision.explanation, /failing closed because an argument was not of the type its predicate judges/);
    assert.equal((await invokeTool('run', { cmd: 'ls' })).ok, true);
  });
});

describe('the shared corpus through real calls', () => {
  const { cases } = loadFixture('patterns.json');

  before(() => lintPolicy({}));

  test('at least 30 catastrophic or polynomial patterns', () => {
    assert.ok(cases.filter((c) => c.route === 'linear' || c.route === 'split').length >= 30);
  });

  /** Which patterns were tested at the cap, and which were over the budget there. */
  const tested = { atCap: new Set(), overBudget: [] };

  for (const c of cases) {
    test(`/${c.pattern}/${c.flags} (${c.note}): ${c.route}`, async () => {
      const w = createWarden();
      try {
        const matches = new RegExp(c.pattern, c.flags);
        const rule = { match: 'probe', when: { arg: '/q', matches } };
        if (c.route === 'refused') {
          assert.throws(() => w.configure({ policy: { deny: [rule], default: 'allow' } }), { code: 'unsafe_pattern' });
          w.configure({ policy: { deny: [{ ...rule, when: { ...rule.when, unsafePattern: true } }], default: 'allow' } });
        } else {
          w.configure({ policy: { deny: [rule], default: 'allow' } });
        }
        const probe = w.webmcp(() => 'ok', { name: 'probe', description: 'd', shape: false });
        // What the page's engine answers on the attack built to 16 characters (quick even for an
        // exponential pattern) is what the package answers on it, and at the cap, where the
        // page's engine would not finish (the attacks are pumped, so the answer is the same).
        // Without the suffix that makes it fail, the pumped text often matches: both answers are seen.
        for (const built of [c.attack, { ...c.attack, suffix: '' }]) {
          const expected = matches.test(attack(built, 16));
          for (const length of [16, 4096, INPUT_LIMIT]) {
            const outcome = await probe.invoke({ q: attack(built, length) });
            const untested = outcome.error?.kind === 'denied' && /could not test/.test(outcome.error.decision.explanation);
            if (c.route === 'refused' && length > 16) {
              // Opted in, it runs on short strings only: a long one is not tested, the rule fails closed.
              assert.ok(untested, JSON.stringify(outcome.error));
            } else if (length === INPUT_LIMIT && untested) {
              // A large linear program at the cap is over the evaluation's budget: not tested,
              // failing closed. At 4,096 characters it was tested (below).
              tested.overBudget.push(c.pattern);
            } else {
              assert.equal(outcome.ok, !expected, `length ${length}: RegExp says ${expected} (${JSON.stringify(outcome.error)})`);
              if (length === INPUT_LIMIT) tested.atCap.add(c.pattern);
            }
          }
        }
      } finally {
        w.dispose();
      }
    });
  }

  test('at the cap, all but a few large linear programs were tested', () => {
    assert.ok(tested.atCap.size >= 40, `${tested.atCap.size} tested at the cap; over the budget: ${tested.overBudget.join(' ')}`);
    assert.ok(new Set(tested.overBudget).size <= 6, tested.overBudget.join(' '));
  });
});

describe('validateJson and explain', () => {
  test('validateJson judges the schema’s patterns too', async () => {
    const schema = { type: 'string', pattern: EVIL };
    assert.deepEqual(await validateJson(schema, 'a'.repeat(SCHEMA_LIMIT)), { valid: true });
    const invalid = await validateJson(schema, evil(SCHEMA_LIMIT));
    assert.equal(invalid.valid, false);
    assert.equal(invalid.diagnostics[0].keyword, 'pattern');
    assert.match((await validateJson({ type: 'string', pattern: '^(a+)+\\1$' }, 'aa')).invalidSchema, /has a pattern that can take exponential time/);
  });

  test('explain runs policy patterns on the linear engine as a call does', async () => {
    lintPolicy({});
    configureWebMCP({ policy: { deny: [{ match: 'explained', when: { arg: '/q', matches: EVIL } }], default: 'allow' } });
    const t = tool(() => 'ok', { name: 'explained', description: 'd' });
    await t.register();
    assert.equal((await explain('explained', { q: evil(INPUT_LIMIT) })).effect, 'allow');
    assert.equal((await explain('explained', { q: 'a'.repeat(INPUT_LIMIT) })).effect, 'deny');
  });
});
