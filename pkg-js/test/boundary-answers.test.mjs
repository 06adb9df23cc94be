// The core's answers against their descriptors (src/answers.ts), through the BUILT package and the
// real core: every export of `core` that answers a wire buffer (and of the shaping and URI modules)
// is wrapped to record what it decoded, the public API (with the client's internals for scopes and
// standalone tools, which pages define through React and createHookedExecute, and direct calls for
// refusals no page can provoke: an engine no client holds, a call handle that does not exist) is
// driven until every answer has been seen in every shape, and each answer is checked strictly: a
// field the descriptor does not name, a required field missing, a value of the wrong type or
// outside its literals fails. So a field the Rust side adds, renames or retypes fails here until
// answers.ts (and with it the TS types derived from it) says it; test-types/answers.ts then checks
// the derived types still fit the public ones.
//
// Coverage is checked too: every branch of every `anyOf` in the descriptors (ok and refused,
// each record step, each content block, `null` and not) must have been matched by some answer,
// and every optional field held by one, so a descriptor cannot keep a shape or a field the core
// no longer sends unnoticed. A new export of `core` must be listed as an answer or a scalar.
//
// Build first: `node pkg-js/build.mjs`.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createWarden, explain, lintPolicy, shapeForModel, webmcpResource, ConfigurationError } from '../lib/index.js';
import { withLimits } from '../lib/limits.js';
import { lintBytes } from '../lib/api/lint-module.js';
import * as answers from '../lib/boundary/answers.js';
import { core } from '../lib/boundary/core.js';
import { shaper } from '../lib/shape/shaping.js';
import { uriModule } from '../lib/subjects/uri-module.js';
import { internalOf } from '../lib/api/api.js';
import { decode, encode } from '../lib/boundary/wire.js';
import { CallFlags, Read } from '../lib/boundary/codes.js';
import * as glue from '../wasm/warden_core.js';

// ------------------------------------------------------------------ the checker

const show = (value) => (value === undefined ? 'undefined' : JSON.stringify(value)?.slice(0, 80));
const isPlain = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
const isOptional = (field) => typeof field === 'object' && 'optional' in field;

/** What is wrong with `value` as descriptor `d` says it (empty: it fits). */
function problems(d, value, path = '$') {
  if (typeof d === 'string') {
    if (d === 'unknown') return [];
    const fits = d === 'null' ? value === null : typeof value === d && (d !== 'number' || Number.isFinite(value));
    return fits ? [] : [`${path}: expected ${d}, got ${show(value)}`];
  }
  if ('oneOf' in d) return d.oneOf.includes(value) ? [] : [`${path}: expected one of ${show(d.oneOf)}, got ${show(value)}`];
  if ('arrayOf' in d) return Array.isArray(value) ? value.flatMap((item, i) => problems(d.arrayOf, item, `${path}[${i}]`)) : [`${path}: expected an array, got ${show(value)}`];
  if ('tuple' in d) {
    if (!Array.isArray(value) || value.length !== d.tuple.length) return [`${path}: expected ${d.tuple.length} items, got ${show(value)}`];
    return d.tuple.flatMap((item, i) => problems(item, value[i], `${path}[${i}]`));
  }
  if ('anyOf' in d) {
    const each = d.anyOf.map((branch) => problems(branch, value, path));
    return each.some((found) => found.length === 0) ? [] : [`${path} fits none of its ${each.length} shapes: ${each.map((found) => found.join(', ')).join(' | ')}`];
  }
  if ('object' in d) {
    if (!isPlain(value)) return [`${path}: expected an object, got ${show(value)}`];
    const found = [];
    for (const key of Object.keys(value)) if (!Object.hasOwn(d.object, key)) found.push(`${path}: unknown field "${key}" (${show(value[key])})`);
    for (const [key, field] of Object.entries(d.object)) {
      if (!Object.hasOwn(value, key)) {
        if (!isOptional(field)) found.push(`${path}: missing field "${key}"`);
      } else found.push(...problems(isOptional(field) ? field.optional : field, value[key], `${path}.${key}`));
    }
    return found;
  }
  throw new Error(`not a descriptor at ${path}: ${show(d)}`);
}

/** The branches of each `anyOf` some fitting answer took (by descriptor object). */
const taken = new Map();
/** The optional fields some fitting answer held (by their `{ optional }` descriptor). */
const present = new Set();

/** Marks the branches `value` (which fits `d`) takes. */
function mark(d, value) {
  if (typeof d === 'string' || 'oneOf' in d) return;
  if ('arrayOf' in d) for (const item of value) mark(d.arrayOf, item);
  else if ('tuple' in d) d.tuple.forEach((item, i) => mark(item, value[i]));
  else if ('anyOf' in d) {
    const branch = d.anyOf.findIndex((b) => problems(b, value).length === 0);
    if (!taken.has(d)) taken.set(d, new Set());
    taken.get(d).add(branch);
    mark(d.anyOf[branch], value);
  } else {
    for (const [key, field] of Object.entries(d.object)) {
      if (!Object.hasOwn(value, key)) continue;
      if (isOptional(field)) present.add(field);
      mark(isOptional(field) ? field.optional : field, value[key]);
    }
  }
}

/** Every `anyOf` and every optional field under `d`, with where it is (`path`), each once. */
function unions(d, path, out = new Map()) {
  if (typeof d === 'string' || 'oneOf' in d) return out;
  if ('arrayOf' in d) unions(d.arrayOf, `${path}[]`, out);
  else if ('tuple' in d) d.tuple.forEach((item, i) => unions(item, `${path}[${i}]`, out));
  else if ('anyOf' in d) {
    if (!out.has(d)) out.set(d, path);
    d.anyOf.forEach((branch, i) => unions(branch, `${path}|${i}`, out));
  } else {
    for (const [key, field] of Object.entries(d.object)) {
      if (isOptional(field) && !out.has(field)) out.set(field, `${path}.${key}`);
      unions(isOptional(field) ? field.optional : field, `${path}.${key}`, out);
    }
  }
  return out;
}

test('the checker refuses an unknown, a missing and a mistyped field', () => {
  const d = { object: { a: 'string', b: { optional: { arrayOf: 'number' } }, c: { anyOf: ['null', { oneOf: ['x'] }] } } };
  assert.deepEqual(problems(d, { a: 's', c: null }), []);
  assert.deepEqual(problems(d, { a: 's', b: [1], c: 'x' }), []);
  assert.deepEqual(problems(d, { a: 's', c: null, d: 1 }), ['$: unknown field "d" (1)']);
  assert.deepEqual(problems(d, { c: null }), ['$: missing field "a"']);
  assert.deepEqual(problems(d, { a: 1, b: ['1'], c: 'y' }).length, 3);
});

// ------------------------------------------------------------------ recording the core's answers

/** The descriptor (by name in answers.ts) of each `core` export that answers a wire buffer. */
const ANSWERS = {
  callError: 'CallErrorAnswer',
  callDecision: 'CallDecisionAnswer',
  askFacts: 'AskFactsAnswer',
  // `end` answers a call's outcome, or a dry run's explanation (see `begin` below).
  end: (e, call) => (dryRuns.delete(`${e}:${call}`) ? 'EndExplainAnswer' : 'EndAnswer'),
  explainUnknown: 'ExplainUnknownAnswer',
  endListing: 'EndListingAnswer',
  planError: 'PlanErrorAnswer',
  defineHookSet: 'DefineHookSetAnswer',
  addGlobal: 'AddGlobalAnswer',
  defineTool: 'DefineSubjectAnswer',
  defineSubject: 'DefineSubjectAnswer',
  defineStandaloneTool: 'ConfigureAnswer',
  defineScope: 'ConfigureAnswer',
  setPolicy: 'ConfigureAnswer',
  setApprovedFingerprints: 'ConfigureAnswer',
  setToolFilter: 'ConfigureAnswer',
  recordGrant: 'RecordGrantAnswer',
  loadGrants: 'LoadGrantsAnswer',
  listGrants: 'ListGrantsAnswer',
  revokeGrants: 'RevokeGrantsAnswer',
  storedGrants: 'StoredGrantsAnswer',
  suspend: 'ConfigureAnswer',
  checkPattern: 'CheckPatternAnswer',
  shapeResult: 'ShapeResultAnswer',
  resolveUri: 'ResolveUriAnswer',
  uriTemplate: 'UriTemplateAnswer',
};
/** Which object holds each export: the core's, the shaping module's (`shape-loader.ts`) or the URI module's (`uri-module.ts`, whose exports answer decoded). */
const holderOf = (name) => (Object.hasOwn(shaper, name) ? shaper : Object.hasOwn(uriModule, name) ? uriModule : core);
/** The `read` of each hook id export (they answer the decoded id; the raw answer is read here). */
const HOOK_IDS = { currentHookId: Read.CurrentHookId, lastHookId: Read.LastHookId, listingHookId: Read.ListingHookId };

/** The exports that answer scalars or typed arrays, not a wire buffer. */
const SCALARS = [
  'engineNew', 'engineDrop', 'engineReset', 'engineCounts', 'dropHookSet', 'clearGlobal', 'setServerId', 'setHookReturns', 'dropTool', 'dropScope',
  'begin', 'beginAt', 'step', 'stepWith', 'policyFacts', 'beginListing', 'listingStep', 'listingGiven', 'sealBaseline', 'isVisible', 'recordBaseline', 'setUnsafePatterns',
  'forgetGrant', 'clearGrants', 'setRebaseline', 'scanText', 'shapeFlagNames', 'shapeLimits', 'shapeMediaKinds', 'sha256Hex', 'testTrap',
];

test('every export of core and of the shaping module is known: a wire answer (described), a hook id, or a scalar', () => {
  const known = new Set([...Object.keys(ANSWERS), ...Object.keys(HOOK_IDS), ...SCALARS]);
  assert.deepEqual([...Object.keys(core), ...Object.keys(shaper), ...Object.keys(uriModule)].filter((name) => !known.has(name)), [], 'a new export: add it to ANSWERS (and answers.ts) or SCALARS');
});

/** Every answer recorded: `{ name, from, value }`. */
const recorded = [];
/** Dry runs begun (`engine:call`), whose `end` is an explanation. */
const dryRuns = new Set();
/** The call begun last: `{ e, call, tool, scope }`. */
let lastCall;
const originals = {};

before(() => {
  for (const [from, name] of Object.entries(ANSWERS)) {
    const holder = holderOf(from);
    const original = (originals[from] = holder[from]);
    assert.equal(typeof original, 'function', `core.${from}`);
    holder[from] = (...args) => {
      const bytes = original(...args);
      recorded.push({ name: typeof name === 'function' ? name(...args) : name, from, value: holder === uriModule ? bytes : decode(bytes) });
      return bytes;
    };
  }
  for (const [from, what] of Object.entries(HOOK_IDS)) {
    const original = (originals[from] = core[from]);
    core[from] = (e, id) => {
      recorded.push({ name: 'HookIdAnswer', from, value: decode(glue.read(e, what, id)) });
      return original(e, id);
    };
  }
  for (const from of ['begin', 'beginAt']) {
    const original = (originals[from] = core[from]);
    core[from] = (e, tool, scope, flags, ...rest) => {
      const begun = original(e, tool, scope, flags, ...rest);
      if (begun >= 0) {
        const call = (begun - (begun >>> 0)) / 0x1_0000_0000;
        lastCall = { e, call, tool, scope };
        // Call handles are reused: only a handle a dry run holds now ends as an explanation.
        if (flags & CallFlags.Explain) dryRuns.add(`${e}:${call}`);
        else dryRuns.delete(`${e}:${call}`);
      }
      return begun;
    };
  }
});
after(() => {
  for (const [name, original] of Object.entries(originals)) holderOf(name)[name] = original;
});

/** Checks the answers recorded since `from` (an index of `recorded`) against their descriptors. */
function checkSince(from) {
  const wrong = [];
  for (const { name, from: exported, value } of recorded.slice(from)) {
    const d = answers[name];
    assert.ok(d, `answers.ts describes ${name}`);
    const found = problems(d, value);
    if (found.length === 0) mark(d, value);
    else wrong.push(`core.${exported} (${name}): ${found.join('; ')}`);
  }
  assert.deepEqual(wrong, [], 'every answer fits its descriptor');
}

/** Runs `scenario` and checks what the core answered during it. */
function scenario(title, fn) {
  test(title, async () => {
    const from = recorded.length;
    await fn();
    assert.ok(recorded.length > from, 'the core answered something');
    checkSince(from);
  });
}

/** An engine id no client holds: configuration steps refuse it (`unknown_engine`). */
const NO_ENGINE = 0x7fff_0000;
const NOTHING = new Uint32Array();

// ------------------------------------------------------------------ the scenarios

describe('every answer of the core fits its descriptor', () => {
  let c;
  let w;
  const events = [];
  before(() => {
    c = createWarden();
    w = internalOf(c);
    c.onTelemetry((event) => events.push(event));
  });
  after(() => c.dispose());

  scenario('configuration: hook sets, global hooks, tools, resources, scopes, standalone tools, policy, pins, the filter', async () => {
    const k = createWarden();
    const inner = internalOf(k);
    try {
      k.configure({
        hooks: { before: [{ id: 'b.timed', run: () => {}, timeout: 500 }, () => {}] },
        policy: { allow: ['*'] },
        approvedFingerprints: 'first_listing',
        tools: { exclude: ['hidden_*'] },
      });
      await k.webmcp((input) => input, { name: 'echo', description: 'Echoes', inputSchema: { type: 'object' } }).register();
      await webmcpResource(() => 'text', { uri: 'notes://a', name: 'note', client: k }).register();
      const scope = inner.handles.take();
      inner.defineScope(scope, 0, undefined, 'boundary-answers');
      const standalone = inner.handles.take();
      inner.defineStandaloneTool(standalone, 'standalone', NOTHING, 'boundary-answers');
      // Refused: a policy the core cannot compile, a scope handle in use.
      assert.throws(() => k.configure({ policy: { deny: [{ match: 'x', when: { arg: '/a', matches: '(' } }] } }), ConfigurationError);
      assert.throws(() => inner.defineScope(scope, 0, undefined, 'again'), (err) => err.code === 'handle_in_use');
    } finally {
      k.dispose();
    }
    // Refused: every step on an engine no client holds.
    core.defineHookSet(NO_ENGINE, 1, encode([]), 'x');
    core.addGlobal(NO_ENGINE, 1, false, 'x');
    core.defineTool(NO_ENGINE, 1, encode({}), undefined, NOTHING, 'x');
    core.defineSubject(NO_ENGINE, 1, 1, encode({}), undefined, NOTHING, 'x');
    core.defineStandaloneTool(NO_ENGINE, 1, 'x', NOTHING, 'x');
    core.setPolicy(NO_ENGINE, encode(null));
    core.setApprovedFingerprints(NO_ENGINE, encode(null));
    core.setToolFilter(NO_ENGINE, encode(null));
  });

  scenario('calls: success and failure, decisions, hook ids, validation, the record, aborts', async () => {
    c.configure({ policy: { allow: ['*'] } });
    let inside;
    const t = c.webmcp(
      (input) => {
        // A live call at its tool step: no failure, no current hook.
        inside = { error: decode(core.callError(lastCall.e, lastCall.call)), hook: core.currentHookId(lastCall.e, lastCall.call) };
        if (input.fail) throw new Error('tool failed');
        return { content: [{ type: 'text', text: 'ok' }] };
      },
      {
        name: 'worker',
        description: 'Works',
        inputSchema: { type: 'object', properties: { fail: { type: 'boolean' } }, additionalProperties: false },
        hooks: { before: [{ id: 'rewrites', run: (ctx) => ({ input: ctx.input }) }], error: [{ id: 'sees-failure', run: (ctx) => void ctx.failure }] },
      },
    );
    await t.register();
    assert.equal((await c.invokeTool('worker', {})).ok, true);
    assert.deepEqual(inside, { error: null, hook: undefined });
    assert.equal((await c.invokeTool('worker', { fail: true })).error.reason, 'tool_error');
    assert.equal((await c.invokeTool('worker', { extra: 1 })).error.kind, 'validation');
    // With payloads captured, the record's diagnostics carry their paths and messages too.
    c.configure({ capturePayloads: true });
    assert.equal((await c.invokeTool('worker', { extra: 1 })).error.kind, 'validation');
    c.configure({ capturePayloads: false });
    // No decision yet: read on a live call before policy.
    const before = c.webmcp(() => 'x', { name: 'early', description: 'Early', hooks: { before: [() => void (inside = decode(core.callDecision(lastCall.e, lastCall.call)))] } });
    await before.register();
    await c.invokeTool('early', {});
    assert.equal(inside, null);
    // An after-hook that fails with onError: 'ignore' is recorded as skipped.
    await c.webmcp(() => 'x', { name: 'ignores', description: 'Ignores', hooks: { after: [{ id: 'ignored', onError: 'ignore', run: () => { throw new Error('x'); } }] } }).register();
    assert.equal((await c.invokeTool('ignores', {})).ok, true);
    // A hook that fails, a denying hook, an abort.
    const hooked = c.webmcp((input, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))), {
      name: 'hooked',
      description: 'Hooked',
      hooks: { before: [{ id: 'deny-some', run: (ctx) => (ctx.input.deny ? { action: 'deny', message: 'no', code: 'nope' } : ctx.input.throw ? Promise.reject(new Error('x')) : undefined) }], denied: [() => {}] },
    });
    await hooked.register();
    assert.equal((await c.invokeTool('hooked', { deny: true })).error.code, 'nope');
    assert.equal((await c.invokeTool('hooked', { throw: true })).error.cause, 'raise');
    assert.equal((await c.invokeTool('hooked', {}, { timeout: 20 })).error.kind, 'aborted');
    // A call that ends quietly does not cross; an unobserved one with a failure does.
    const quiet = createWarden();
    try {
      await quiet.webmcp(() => 'q', { name: 'q', description: 'Q' }).register();
      assert.equal((await quiet.invokeTool('q', {})).ok, true);
      assert.equal((await quiet.invokeTool('nope', {})).ok, false);
    } finally {
      quiet.dispose();
    }
    assert.ok(events.some((e) => e.name === 'tool_call.stop'));
  });

  scenario('policy, the approver, grants', async () => {
    let now = 1_000;
    let stored = [{ principal: null, server: 'default', tool: 'kept', fingerprint: 'f', expiresAt: 1e15, grantedAt: 0 }];
    const g = createWarden({ clock: () => now, grantStore: { load: () => stored, save: (next) => void (stored = next) } });
    try {
      g.onTelemetry(() => {});
      const pay = g.webmcp(() => 'paid', { name: 'pay', description: 'Pays' });
      await pay.register();
      const answersOfApprover = [() => ({ allow: 'always' }), () => ({ allow: 'once' }), () => ({ deny: 'no' }), () => Promise.reject(new Error('x')), () => ({ allow: 'session', scope: 'arguments' })];
      g.configure({
        policy: { ask: [{ match: 'pay', id: 'pay-asks', label: 'Payments need your approval', when: (call) => call.name === 'pay' }], deny: [{ match: 'never_*', reason: 'never' }] },
        onAsk: () => (answersOfApprover.shift() ?? (() => ({ allow: 'once' })))(),
      });
      assert.equal((await g.invokeTool('pay', {}, { principal: 'alice' })).ok, true, 'allowed always');
      assert.equal((await g.invokeTool('pay', {}, { principal: 'bob' })).ok, true, 'allowed once');
      assert.equal((await g.invokeTool('pay', {}, { principal: 'bob' })).error.reason, 'ask_denied');
      assert.equal((await g.invokeTool('pay', {}, { principal: 'bob' })).error.reason, 'ask_failed');
      assert.equal((await g.invokeTool('pay', { exactly: 'this' }, { principal: 'carol' })).ok, true, 'allowed for the session, for these arguments');
      const grants = await g.listGrants();
      assert.deepEqual(grants.map((grant) => grant.principal).sort(), ['alice', 'carol', null]);
      now = 1e16;
      assert.deepEqual(await g.listGrants(), [], 'every grant expired (a session grant too: at most grantTtl)');
      assert.equal(await g.revokeGrant({ principal: 'alice' }), 0);
      // A pin that does not hold decides, and says what changed.
      g.configure({ approvedFingerprints: { pay: 'not-its-fingerprint' } });
      assert.equal((await g.invokeTool('pay', {})).ok, true);
      g.configure({ approvedFingerprints: null });
      assert.equal(decode(core.recordGrant(internalOf(g).engine(), 0x7fff, null, now, 1000)).ok, false, 'no call with this handle');
      core.loadGrants(NO_ENGINE, encode([]));
      core.listGrants(NO_ENGINE, now);
      core.revokeGrants(NO_ENGINE, encode({}));
      core.storedGrants(NO_ENGINE);
    } finally {
      g.dispose();
    }
  });

  scenario('suspended agents: the call is denied with the reason; resumed, it runs', async () => {
    c.suspendAgents('paused for the test');
    const denied = await c.invokeTool('worker', {});
    assert.deepEqual([denied.error.kind, denied.error.reason, denied.error.message], ['denied', 'suspended', 'paused for the test']);
    c.resumeAgents();
    assert.notEqual((await c.invokeTool('worker', {})).error?.reason, 'suspended');
  });

  scenario('plans: one that can be made and one that cannot', async () => {
    await c.invokeTool('worker', {});
    const { e, tool, scope } = lastCall;
    assert.equal(decode(core.planError(e, tool, scope)).ok, true);
    assert.equal(decode(core.planError(w.engine(), 0x7fff, 0)).error.code, 'unknown_tool');
  });

  scenario('dry runs: a known tool (hooks, validation, policy, approval), a Standard Schema, a function predicate, an unknown tool', async () => {
    c.configure({ policy: { ask: ['worker'] }, onAsk: () => ({ allow: 'once' }) });
    const known = await explain('worker', { fail: 'not a boolean' }, { client: c });
    assert.deepEqual(known.steps.map((step) => step.step), ['select', 'hooks', 'validation', 'policy', 'approval']);
    assert.equal((await explain('worker', {}, { client: c })).effect, 'ask');
    await c.webmcp((x) => x, { name: 'standard', description: 'Standard', inputSchema: { type: 'object' }, schema: { '~standard': { version: 1, vendor: 'hand', validate: (value) => ({ value }) } } }).register();
    c.configure({ policy: { ask: [{ match: 'standard', when: () => true }] } });
    const skipped = await explain('standard', {}, { client: c });
    assert.ok(skipped.steps.some((step) => step.step === 'validation' && step.skipped));
    assert.ok(skipped.steps.some((step) => step.step === 'policy' && step.functionPredicatesNotCalled === 1));
    assert.equal((await explain('nothing_here', {}, { client: c })).reason, 'unknown_tool');
  });

  scenario('listings: listed, and a toolsListed hook that fails', async () => {
    c.configure({ hooks: { toolsListed: [{ id: 'listed', run: (tools) => tools }] } });
    assert.ok((await c.listTools()).length > 0);
    c.configure({ hooks: { toolsListed: [{ id: 'fails', run: () => { throw new Error('x'); } }] } });
    await assert.rejects(c.listTools(), (err) => err.code === 'hook_failed');
    c.resetGlobalHooks();
  });

  test('lint (the lint module): diagnostics, none, and a policy it cannot read', () => {
    assert.ok(lintPolicy({ allow: ['*', 'a'] }).length > 0);
    assert.deepEqual(lintPolicy({ allow: ['a'] }), []);
    const from = recorded.length;
    for (const bytes of [encode({ allow: ['*', 'a'] }), encode({ allow: ['a'] }), new Uint8Array([42])]) {
      recorded.push({ name: 'LintPolicyAnswer', from: 'lintPolicy', value: decode(lintBytes(bytes)) });
    }
    assert.equal(recorded.at(-1).value.ok, false);
    checkSince(from);
  });

  scenario('limits: a decision a limit made (the limits module, webmcp-warden/limits)', async () => {
    const l = createWarden({ policy: withLimits({ default: 'allow', limits: [{ max: 1, window: 60_000, id: 'once' }] }) });
    try {
      l.onTelemetry(() => {});
      await l.webmcp(() => 'ran', { name: 'limited', description: 'Limited' }).register();
      assert.equal((await l.invokeTool('limited', {})).ok, true);
      const refused = await l.invokeTool('limited', {});
      assert.deepEqual(refused.error.decision.limit, { kind: 'calls', per: 'page', used: 1, max: 1 });
    } finally {
      l.dispose();
    }
  });

  scenario('a pattern checked once its judgement loaded: allowed, refused', () => {
    // lintPolicy loaded the judgement synchronously.
    assert.equal(decode(core.checkPattern('^a', '', false)).ok, true);
    assert.equal(decode(core.checkPattern('^(a+)+\\1$', '', false)).error.code, 'unsafe_pattern');
  });

  scenario('shaping: every kind of block, structured content, an error, a cut', async () => {
    const result = {
      content: [
        { type: 'text', text: 'plain\u200b' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'notes://a', text: 'note' } },
        { type: 'resource', resource: { uri: 'notes://a', mimeType: 'text/plain', text: 'note' } },
        { type: 'resource', resource: { uri: 'notes://b', mimeType: 'image/png', blob: 'iVBORw0KGgo=' } },
        { type: 'resource_link', uri: 'https://example.com', name: 'link' },
      ],
      structuredContent: { a: 1 },
      isError: false,
    };
    assert.equal((await shapeForModel(result, 'shop', 10_000)).truncated, false);
    assert.equal((await shapeForModel({ content: [{ type: 'text', text: 'x'.repeat(100) }], isError: true }, 'shop', 10)).truncated, true);
  });

  scenario('resource URIs: a read resolved to a resource and to none, a URI refused; a template checked and refused', async () => {
    const k = createWarden();
    try {
      const r = webmcpResource(() => 'text', { uri: 'docs://{name}', name: 'doc', client: k });
      assert.equal((await r.read('docs://a')).ok, true);
      assert.equal((await r.read('other://a')).error.reason, 'invalid_uri');
      assert.equal((await r.read('docs://a%2Fb')).error.reason, 'invalid_uri');
      assert.throws(() => webmcpResource(() => 'x', { uri: 'docs://{a', name: 'bad', client: k }), ConfigurationError);
    } finally {
      k.dispose();
    }
  });

  scenario('hook ids: the current hook of a call and of a listing, and none', async () => {
    // `currentHookId` is read for each hook of an observed call, `listingHookId` for each
    // listing hook; an id no call or listing has answers null.
    c.configure({ hooks: { before: [{ id: 'named', run: () => {} }], toolsListed: [{ id: 'lists', run: () => undefined }] } });
    await c.invokeTool('worker', {});
    await c.listTools();
    assert.equal(core.listingHookId(w.engine(), 0x7fff), undefined);
    c.resetGlobalHooks();
  });

  test('for an id the TS layer does not hold, reads and ends answer null', () => {
    const e = w.engine();
    for (const what of Object.values(Read)) assert.equal(decode(glue.read(e, what, 0x7fff)), null, `read ${what}`);
    assert.equal(decode(glue.read(NO_ENGINE, Read.CallError, 0)), null);
    assert.equal(decode(originals.end(e, 0x7fff)), null);
  });
});

// ------------------------------------------------------------------ coverage

test('every answer, and every shape of it, was seen', (t) => {
  const names = Object.keys(answers).filter((name) => name !== 'Refused');
  const seen = new Set(recorded.map(({ name }) => name));
  assert.deepEqual(names.filter((name) => !seen.has(name)), [], 'answers never produced');
  const missing = [];
  const all = new Map();
  for (const name of names) unions(answers[name], name, all);
  for (const [d, path] of all) {
    if (isOptional(d)) {
      if (!present.has(d)) missing.push(`${path}?`);
      continue;
    }
    const branches = taken.get(d) ?? new Set();
    d.anyOf.forEach((branch, i) => {
      if (!branches.has(i)) missing.push(`${path}|${i}: ${show(branch)}`);
    });
  }
  assert.deepEqual(missing, [], 'shapes (union branches, optional fields) never produced');
  t.diagnostic(`${recorded.length} answers of ${seen.size} kinds checked; ${[...taken.values()].reduce((n, branches) => n + branches.size, 0)} branches of ${taken.size} unions taken; ${present.size} optional fields seen`);
});
