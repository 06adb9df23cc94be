// The policy fixtures shared with `cargo test --test policy` (tests/fixtures/policy*.json), run
// through the BUILT package: each decision case becomes a real tool, a real policy (function
// predicates become JS functions, `$regex` becomes a RegExp), real call options, a real grant
// store and a real approver, and the decision is read where a user reads it:
//
// - deny  → the call outcome (`error.decision`, the text the agent reads);
// - ask   → the approver's `call.decision` (a spy that answers `{ allow: 'once' }`);
// - allow → the `tool_call.stop` record's policy step;
// and in every case the `policy.decision` telemetry event and `explain()` (for cases without
// function predicates, which a dry run never calls) must agree.
//
// Fingerprint states are made the way they happen on a page: "new" with an `approvedFingerprints`
// map that lacks the tool, a changed definition by a rug pull (register, unregister, register a
// re-defined tool with the same name), and a changed definition with no changed fields by an
// `approvedFingerprints` entry that differs from the tool's real fingerprint.
//
// Build first: `WASM_OPT=0 node pkg-js/build.mjs`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  configureWebMCP,
  invokeTool,
  explain,
  lintPolicy,
  memoryGrantStore,
  ConfigurationError,
  createWarden,
  webmcpPrompt,
  webmcpResource,
} from 'webmcp-warden';
import { loadFixture as load, toolMaker } from '../test-support/helpers.mjs';

const NOW = 1_700_000_000_000;

const define = toolMaker(() => ({ shape: false }));

/**
 * The fixture's policy as a user writes it: `{ $regex }` → RegExp, `{ $fn: n }` → the JS
 * function for fixture handle n (one function per handle, so a handle named twice is the same
 * function twice), `{ $invalid: type }` → a value of that type.
 */
function toJs(value, fnFor) {
  if (Array.isArray(value)) return value.map((item) => toJs(item, fnFor));
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '$regex') return new RegExp(value.$regex.source, value.$regex.flags);
    if (keys.length === 1 && keys[0] === '$fn' && Number.isInteger(value.$fn) && value.$fn >= 0) return fnFor(value.$fn);
    if (keys.length === 1 && keys[0] === '$invalid') return INVALID[value.$invalid] ?? value;
    return Object.fromEntries(keys.map((key) => [key, toJs(value[key], fnFor)]));
  }
  return value;
}
const INVALID = { symbol: Symbol('s'), bigint: 10n, undefined: undefined };

/** Every way a function predicate can fail (a throw, a timeout, a non-boolean). */
const FAILURES = [
  () => {
    throw new Error('predicate threw');
  },
  () => 'yes',
  () => Promise.reject(new Error('predicate rejected')),
  () => undefined,
  () => Promise.resolve(1),
];

/** Changes to a definition field, for a rug pull that changes exactly `fields`. */
const CHANGES = {
  description: (o) => ({ ...o, description: `${o.description} (now also emails your data)` }),
  title: (o) => ({ ...o, title: 'Changed title' }),
  inputSchema: (o) => ({ ...o, inputSchema: { type: 'object', description: 'changed' } }),
  outputSchema: (o) => ({ ...o, outputSchema: { type: 'object', description: 'changed' } }),
  annotations: (o) => ({ ...o, annotations: { ...(o.annotations ?? {}), openWorldHint: true } }),
};

/** Runs one decision case through the package; returns what was observed. */
async function runCase(fixture, index) {
  const { call, policy: policyJson } = fixture;
  const predicates = call.predicates ?? {};
  const asked = [];
  const predicateCalls = [];
  const fns = new Map();
  let failures = index;
  const fnFor = (handle) => {
    if (!fns.has(handle)) {
      const answer = predicates[String(handle)];
      const failing = FAILURES[failures++ % FAILURES.length];
      fns.set(handle, (policyCall, ctx) => {
        asked.push(handle);
        predicateCalls.push({ policyCall, ctx });
        if (answer === true || answer === false) return answer;
        if (answer === 'fail') return failing();
        throw new Error(`fixture handle ${handle} has no answer`);
      });
    }
    return fns.get(handle);
  };
  const policy = toJs(policyJson, fnFor);

  const name = call.name;
  let ran = 0;
  const fn = () => {
    ran++;
    return 'ran';
  };
  const base = { name, server: call.server, description: `The ${name} tool` };
  if (call.annotations) base.annotations = call.annotations;
  if (call.exposedTo) base.exposedTo = call.exposedTo;

  // The tool as the agent calls it, and the fingerprint state the fixture asks for.
  let tool;
  let approvedFingerprints;
  let expectedPin;
  const fp = call.fingerprint ?? 'unchanged';
  if (fp === 'unchanged') {
    tool = define(fn, base);
    await tool.register();
  } else if (fp === 'new') {
    approvedFingerprints = { some_other_tool: 'f'.repeat(64) };
    tool = define(fn, base);
    await tool.register();
  } else if (fp.changed.length === 0) {
    tool = define(fn, base);
    await tool.register();
    approvedFingerprints = { [name]: fp.previous };
    expectedPin = { previous: fp.previous, current: tool.fingerprint, changed: [] };
  } else {
    const first = define(fn, base);
    await first.register();
    first.unregister();
    const changed = fp.changed.reduce((options, field) => CHANGES[field](options), base);
    tool = define(fn, changed);
    await tool.register();
    assert.notEqual(tool.fingerprint, first.fingerprint);
    expectedPin = { previous: first.fingerprint, current: tool.fingerprint, changed: fp.changed };
  }

  const store = memoryGrantStore();
  if (call.liveGrant) {
    await store.save([{ principal: call.principal ?? null, server: call.server, tool: name, fingerprint: tool.fingerprint, expiresAt: NOW + 60_000, grantedAt: NOW - 1000 }]);
  }
  const approverCalls = [];
  const events = [];
  const config = { policy, grantStore: store, clock: () => NOW, telemetry: (event) => events.push(event) };
  if (call.hasApprover !== false) {
    config.onAsk = (askCall, ctx) => {
      approverCalls.push({ askCall, ctx });
      return { allow: 'once' };
    };
  }
  if (approvedFingerprints) config.approvedFingerprints = approvedFingerprints;
  configureWebMCP(config);

  const options = {};
  if (call.principal !== undefined) options.principal = call.principal;
  if (call.taint !== undefined) options.taint = call.taint;

  const explained = Object.keys(predicates).length === 0 ? await explain(name, call.arguments, options) : undefined;
  const outcome = await invokeTool(name, call.arguments, options);
  return { outcome, ran, asked, predicateCalls, approverCalls, events, explained, expectedPin, tool };
}

const decisionCases = load('policy.json');

describe('policy.json through the package', () => {
  test('there are fixtures', () => assert.ok(decisionCases.length >= 100, `only ${decisionCases.length} cases`));

  decisionCases.forEach((fixture, index) => {
    test(fixture.name, async () => {
      const { call, expect } = fixture;
      const seen = await runCase(fixture, index);
      const { outcome } = seen;
      const stop = seen.events.find((e) => e.name === 'tool_call.stop');
      assert.ok(stop, 'a tool_call.stop event');
      let decision;
      if (expect.effect === 'deny') {
        assert.equal(outcome.ok, false, `the call was denied: ${JSON.stringify(outcome)}`);
        assert.equal(outcome.error.kind, 'denied');
        assert.equal(outcome.error.reason, expect.reason);
        assert.equal(seen.ran, 0, 'the tool did not run');
        assert.equal(seen.approverCalls.length, 0, 'the approver was not asked');
        decision = outcome.error.decision;
        assert.ok(decision, 'error.decision');
        assert.equal(outcome.result.isError, true);
        // The agent reads the deny rule's reason when it has one, else the explanation.
        const rule = decision.rule && fixture.policy[decision.rule.list]?.[decision.rule.index];
        const ruleReason = decision.reason === 'rule' && rule && typeof rule === 'object' ? rule.reason : undefined;
        assert.equal(outcome.result.content[0].text, `Denied: ${ruleReason ?? decision.explanation}`);
        assert.equal(outcome.error.message, ruleReason ?? decision.explanation);
        if (expect.denialText !== undefined) assert.equal(outcome.result.content[0].text, expect.denialText);
      } else if (expect.effect === 'ask') {
        assert.equal(seen.approverCalls.length, 1, 'the approver was asked once');
        decision = seen.approverCalls[0].askCall.decision;
        assert.equal(outcome.ok, true, 'approved once, the call went ahead');
        assert.equal(seen.ran, 1);
        const askCall = seen.approverCalls[0].askCall;
        assert.equal(askCall.name, call.name);
        assert.equal(askCall.serverId, call.server);
        assert.equal(askCall.fingerprint, seen.tool.fingerprint);
        assert.deepEqual(askCall.arguments, call.arguments);
        assert.ok(Object.isFrozen(askCall.decision), 'call.decision is frozen');
      } else {
        assert.equal(outcome.ok, true, `the call was allowed: ${JSON.stringify(outcome)}`);
        assert.equal(seen.ran, 1);
        assert.equal(seen.approverCalls.length, 0, 'the approver was not asked');
        decision = stop.record.find((step) => step.step === 'policy')?.decision;
        assert.ok(decision, `the record has a policy step: ${JSON.stringify(stop.record)}`);
      }
      assert.equal(decision.effect, expect.effect);
      assert.equal(decision.reason, expect.reason);
      if ('rule' in expect) assert.deepEqual(decision.rule ?? null, expect.rule);
      if (expect.explanationContains !== undefined) {
        assert.ok(decision.explanation.includes(expect.explanationContains), `explanation ${JSON.stringify(decision.explanation)} lacks ${JSON.stringify(expect.explanationContains)}`);
      }
      if (expect.pin !== undefined) assert.deepEqual(decision.pin, seen.expectedPin);
      else if (decision.reason === 'fingerprint_changed' || (seen.expectedPin && decision.pin)) assert.deepEqual(decision.pin, seen.expectedPin);
      assert.deepEqual(seen.asked, expect.askedPredicates ?? []);
      for (const { policyCall } of seen.predicateCalls) {
        assert.equal(policyCall.name, call.name);
        assert.equal(policyCall.serverId, call.server);
        assert.deepEqual(policyCall.arguments, call.arguments);
        assert.equal(policyCall.principal, call.principal);
        assert.match(policyCall.argsDigest, /^[0-9a-f]{64}$/);
      }

      // Telemetry: exactly one policy.decision, agreeing with the decision.
      const policyEvents = seen.events.filter((e) => e.name === 'policy.decision');
      assert.equal(policyEvents.length, 1, `one policy.decision event: ${JSON.stringify(seen.events)}`);
      assert.equal(policyEvents[0].effect, decision.effect);
      assert.equal(policyEvents[0].reason, decision.reason);
      assert.deepEqual(policyEvents[0].rule ?? null, decision.rule ?? null);
      assert.equal(policyEvents[0].tool, call.name);
      assert.equal(policyEvents[0].serverId, call.server);
      assert.equal(policyEvents[0].invocationId, stop.invocationId);

      // A dry run without function predicates reaches the same decision.
      if (seen.explained) {
        assert.equal(seen.explained.effect, decision.effect, `explain: ${JSON.stringify(seen.explained)}`);
        assert.equal(seen.explained.reason, decision.reason);
        assert.deepEqual(seen.explained.rule ?? null, decision.rule ?? null);
        assert.equal(seen.explained.explanation, decision.explanation);
      }
    });
  });
});

// ------------------------------------------------------------------ invalid policies

const invalidCases = load('policy-invalid.json');

/**
 * Cases whose policy cannot be written in JS: `new RegExp('(')` throws before the package sees
 * it (the same code is shown with a `matches` source string, which the package compiles).
 */
const NOT_EXPRESSIBLE = {
  'an invalid RegExp in match': 'JS cannot construct a RegExp with source "(" (new RegExp throws first); see "a pattern the page\'s RegExp refuses"',
};

describe('policy-invalid.json through configureWebMCP', () => {
  test('there are fixtures', () => assert.ok(invalidCases.length >= 30));
  for (const fixture of invalidCases) {
    const skip = NOT_EXPRESSIBLE[fixture.name] ?? false;
    if (fixture.policy === null) {
      // `configureWebMCP({ policy: null })` removes the policy (as `onAsk: null` removes the
      // approver), so this case is shown through lintPolicy and by the removal itself.
      test(`${fixture.name} (lintPolicy; configureWebMCP takes null as "no policy")`, async () => {
        const diagnostics = lintPolicy(null);
        assert.ok(diagnostics.some((d) => d.code === fixture.expect.code && d.path === fixture.expect.path), JSON.stringify(diagnostics));
        const t = define(() => 'ran', { name: 'null_policy', description: 'd' });
        await t.register();
        configureWebMCP({ policy: { deny: ['*'] } });
        assert.equal((await invokeTool('null_policy', {})).ok, false);
        configureWebMCP({ policy: null });
        assert.equal((await invokeTool('null_policy', {})).ok, true, 'no policy: allowed');
      });
      continue;
    }
    test(fixture.name, { skip }, () => {
      const fns = [];
      const policy = toJs(fixture.policy, (handle) => {
        const f = () => true;
        fns.push(handle);
        return f;
      });
      // A valid configuration first: a rejected policy must leave it as it was.
      configureWebMCP({ policy: { default: 'allow' } });
      let thrown;
      try {
        configureWebMCP({ policy });
      } catch (err) {
        thrown = err;
      }
      assert.ok(thrown instanceof ConfigurationError, `expected a ConfigurationError, got ${thrown}`);
      assert.equal(thrown.code, fixture.expect.code, thrown.message);
      assert.equal(thrown.path ?? '', fixture.expect.path, thrown.message);
      if (fixture.expect.messageContains) assert.ok(thrown.message.includes(fixture.expect.messageContains), `${thrown.message} lacks ${fixture.expect.messageContains}`);
      if (fixture.expect.path) assert.ok(thrown.message.startsWith(`${fixture.expect.path}: `), `message names the path: ${thrown.message}`);
      // lintPolicy reports the same problem.
      const diagnostics = lintPolicy(policy);
      assert.ok(diagnostics.some((d) => d.code === fixture.expect.code && d.path === fixture.expect.path), JSON.stringify(diagnostics));
    });
  }

  test("a pattern the page's RegExp refuses is an invalid pattern, with the engine's reason", () => {
    assert.throws(
      () => configureWebMCP({ policy: { deny: [{ match: '*', when: { arg: '/q', matches: '(' } }] } }),
      (err) =>
        err instanceof ConfigurationError &&
        err.code === 'invalid_pattern' &&
        err.path === 'deny[0].when' &&
        err.message === 'deny[0].when: `matches` pattern /(/ is not a valid pattern: Unterminated group',
    );
    assert.throws(
      () => configureWebMCP({ policy: { deny: [{ match: '*', when: { arg: '/q', matches: /a/ } }], allow: [{ match: '*', when: { arg: '/q', matches: '[z-a]' } }] } }),
      (err) => err instanceof ConfigurationError && err.code === 'invalid_pattern' && err.path === 'allow[0].when',
    );
  });

  test('look-around and back-references are accepted: patterns mean what they mean in JS', () => {
    // Anchored, so the judgement finds the back-reference fast on the page's engine (unanchored,
    // it would be refused unless opted in: patterns.test.mjs).
    assert.doesNotThrow(() => configureWebMCP({ policy: { ask: [{ match: /^(a)\1/ }, { match: '*', when: { arg: '/q', matches: '(?<=a)b' } }, { server: 'shop', name: /^(?!admin_)/ }] } }));
    assert.deepEqual(lintPolicy({ ask: [{ match: /^(?=get)\w+/ }] }), []);
  });

  test('a rejected policy leaves the previous one in force', async () => {
    const t = define(() => 'ran', { name: 'kept_policy', description: 'd' });
    await t.register();
    configureWebMCP({ policy: { deny: [{ match: '*', reason: 'closed' }] } });
    assert.throws(() => configureWebMCP({ policy: { alow: ['*'] } }), ConfigurationError);
    const outcome = await invokeTool('kept_policy', {});
    assert.equal(outcome.ok, false);
    assert.equal(outcome.result.content[0].text, 'Denied: closed');
  });

  test('an object with a "$fn" key in a policy given as data names no function', async () => {
    // A policy loaded from JSON must not reach the page's function predicates by number: only
    // a real function becomes a predicate handle, so `{ $fn: 0 }` is an object with an unknown key.
    const t = define(() => 'ran', { name: 'reserved_keys', description: 'd' });
    await t.register();
    let called = 0;
    configureWebMCP({ policy: { allow: [{ match: '*', when: () => { called++; return true; } }] } });
    assert.throws(
      () => configureWebMCP({ policy: { deny: [{ match: '*', when: { $fn: 0 } }], default: 'allow' } }),
      (err) => err instanceof ConfigurationError && err.code === 'unknown_predicate' && err.path === 'deny[0].when' && err.message.includes('unknown key "$fn"'),
    );
    assert.equal(called, 0);
  });
});

// ------------------------------------------------------------------ lint

const lintCases = load('policy-lint.json');

describe('policy-lint.json through lintPolicy', () => {
  test('there are fixtures', () => assert.ok(lintCases.length >= 20));
  for (const fixture of lintCases) {
    const hasBadRegex = JSON.stringify(fixture.policy).includes('"source":"("');
    test(fixture.name, { skip: hasBadRegex ? 'JS cannot construct a RegExp with source "("' : false }, () => {
      // One JS function per fixture handle, so the same handle is the same function.
      const fns = new Map();
      let calledDuringLint = 0;
      const policy = toJs(fixture.policy, (handle) => {
        if (!fns.has(handle)) {
          fns.set(handle, () => {
            calledDuringLint++;
            return true;
          });
        }
        return fns.get(handle);
      });
      const found = lintPolicy(policy);
      assert.ok(Array.isArray(found));
      const pairs = (list) => list.map((d) => `${d.code}@${d.path}`).sort();
      assert.deepEqual(pairs(found), pairs(fixture.expect), JSON.stringify(found, null, 1));
      for (const want of fixture.expect) {
        if (!want.messageContains) continue;
        const got = found.find((d) => d.code === want.code && d.path === want.path);
        assert.ok(got.message.includes(want.messageContains), `${got.message} lacks ${want.messageContains}`);
      }
      for (const d of found) assert.deepEqual(Object.keys(d).sort(), ['code', 'message', 'path']);
      assert.equal(calledDuringLint, 0);
    });
  }

  test('lintPolicy never calls a function predicate and never throws', () => {
    let called = 0;
    const spy = () => {
      called++;
      return true;
    };
    const found = lintPolicy({ deny: [{ match: '*', when: spy }], allow: [{ match: 'x', when: [spy] }] });
    assert.equal(called, 0);
    assert.deepEqual(found.map((d) => `${d.code}@${d.path}`), ['shadowed_rule@allow[0]']);
    for (const odd of [undefined, null, 42, 'deny all', [], () => 1, Symbol('x')]) {
      assert.ok(Array.isArray(lintPolicy(odd)));
    }
  });

  test('a cyclic policy is reported, never a stack overflow', () => {
    const rule = { match: '*' };
    rule.self = rule;
    const policy = { deny: [rule] };
    assert.deepEqual(lintPolicy(policy).map((d) => `${d.code}@${d.path}`), ['unknown_rule_key@deny[0].self']);
    const list = ['*'];
    list.push(list);
    assert.throws(() => configureWebMCP({ policy: { allow: list } }), (err) => err instanceof ConfigurationError && err.path === 'allow[1]');
    // The same object twice (not a cycle) is fine.
    const shared = { annotation: { readOnlyHint: true } };
    assert.doesNotThrow(() => configureWebMCP({ policy: { allow: [{ match: 'a', when: shared }, { match: 'b', when: shared }] } }));
  });

  test('different functions are different predicates to lint', () => {
    const found = lintPolicy({ deny: [{ match: '*', when: () => true }], allow: [{ match: 'x', when: () => true }] });
    assert.deepEqual(found, []);
  });

  test('an invalid pattern is reported, the rest still linted', () => {
    const found = lintPolicy({ allow: ['*', 'x'], deny: [{ match: /^(a)\1/ }, { match: '*', when: { arg: '/q', matches: '(' } }] });
    assert.deepEqual(found.map((d) => `${d.code}@${d.path}`).sort(), ['invalid_pattern@deny[1].when', 'shadowed_rule@allow[1]']);
  });
});

// ------------------------------------------------------------------ resources and prompts

describe('policy-subjects.json through webmcpResource / webmcpPrompt', () => {
  const cases = load('policy-subjects.json');
  test('there are fixtures', () => assert.ok(cases.length >= 15, `only ${cases.length} cases`));
  for (const fixture of cases) {
    test(fixture.name, async () => {
      const { call, expect, subject } = fixture;
      const w = createWarden();
      try {
        const approverCalls = [];
        const events = [];
        const config = { policy: toJs(fixture.policy, () => () => true), clock: () => NOW, telemetry: (event) => events.push(event) };
        if (call.hasApprover !== false) {
          config.onAsk = (askCall) => {
            approverCalls.push(askCall);
            return { allow: 'once' };
          };
        }
        w.configure(config);
        let ran = 0;
        let outcome;
        const options = call.principal === undefined ? {} : { principal: call.principal };
        if (subject === 'resource') {
          // A template whose variables are the fixture's arguments, or the URI itself.
          const vars = Object.keys(call.arguments);
          const value = call.arguments[vars[0]];
          const uri = vars.length === 0 ? call.name : call.name.replace(value, value.includes('/') ? `{+${vars[0]}}` : `{${vars[0]}}`);
          const resource = webmcpResource(() => (ran++, 'read'), { uri, name: 'fixture', server: call.server, client: w });
          outcome = await resource.read(call.name, options);
        } else if (subject === 'prompt') {
          const prompt = webmcpPrompt(() => (ran++, 'got'), { name: call.name, server: call.server, client: w });
          outcome = await prompt.get(call.arguments, options);
        } else {
          const tool = w.webmcp(() => (ran++, 'ran'), { name: call.name, server: call.server, description: 'x' });
          outcome = await tool.invoke(call.arguments, options);
        }
        const decision = events.find((e) => e.name === 'policy.decision');
        assert.ok(decision, 'a policy.decision event');
        assert.equal(decision.effect === 'ask' && call.hasApprover === false ? 'deny' : decision.effect, expect.effect);
        if (expect.effect === 'deny') {
          assert.equal(outcome.ok, false);
          assert.equal(outcome.error.kind, 'denied');
          assert.equal(outcome.error.reason, expect.reason);
          assert.deepEqual(outcome.error.decision.rule ?? null, expect.rule ?? null);
          assert.equal(ran, 0, 'nothing was read or got');
        } else if (expect.effect === 'ask') {
          assert.equal(approverCalls.length, 1, 'the approver was asked');
          assert.equal(approverCalls[0].name, call.name, 'the approver sees the URI read or the prompt name');
          assert.equal(approverCalls[0].kind, subject === 'tool' ? undefined : subject);
          assert.deepEqual(approverCalls[0].decision.rule ?? null, expect.rule ?? null);
          assert.equal(approverCalls[0].decision.reason, expect.reason);
          assert.equal(outcome.ok, true, 'approved once, it went ahead');
          assert.equal(ran, 1);
        } else {
          assert.equal(outcome.ok, true, JSON.stringify(outcome));
          assert.equal(approverCalls.length, 0);
          assert.equal(decision.reason, expect.reason);
          assert.deepEqual(decision.rule ?? null, expect.rule ?? null);
          assert.equal(ran, 1);
        }
        const stop = events.find((e) => e.name.endsWith('.stop'));
        assert.equal(stop.name, subject === 'resource' ? 'resource_read.stop' : subject === 'prompt' ? 'prompt_get.stop' : 'tool_call.stop');
        assert.ok(stop.record.some((step) => step.step === 'policy'), 'the decision record has the policy step');
      } finally {
        w.dispose();
      }
    });
  }
});
