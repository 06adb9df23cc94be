// Limits (docs/behaviour.md, "Limits"), through the BUILT package and its `webmcp-warden/limits`
// entry: the shared fixtures tests/fixtures/policy-limits.json and policy-limits-invalid.json
// (run by `cargo test --test limits` too) with real tools, a real clock option, real approvers
// and real cost functions; and what only the package can show: cost functions called with the
// frozen arguments and failing closed, calls in flight counted by real async tools, telemetry,
// dry runs that count nothing, counts kept across reconfiguration, and a policy with limits
// refused without the entry.
//
// Build first: `node pkg-js/build.mjs`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { configureWebMCP, invokeTool, explain, lintPolicy, onTelemetry, resetWebMCP, ConfigurationError, createWarden } from 'webmcp-warden';
import { withLimits } from 'webmcp-warden/limits';
import { runFresh } from '../test-support/fresh-process.mjs';
import { loadFixture, toolMaker, settled, sleep } from '../test-support/helpers.mjs';

const define = toolMaker((n) => ({ name: `limited_${n}`, description: 'A tool under limits', shape: false }));

/** The fixture's JSON as a user writes it: `{ $fn: n }` becomes the function `fnFor(n)`. */
function toJs(value, fnFor) {
  if (Array.isArray(value)) return value.map((item) => toJs(item, fnFor));
  if (value !== null && typeof value === 'object') {
    if (Object.keys(value).length === 1 && '$fn' in value) return fnFor(value.$fn);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJs(item, fnFor)]));
  }
  return value;
}

/** Whether `actual` holds every member `expected` gives, equal (as the Rust runner compares). */
function holds(actual, expected) {
  if (expected !== null && typeof expected === 'object') return actual !== null && typeof actual === 'object' && Object.entries(expected).every(([key, want]) => holds(actual[key], want));
  return actual === expected;
}

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

describe('the shared limit fixtures (tests/fixtures/policy-limits.json)', () => {
  for (const fixture of loadFixture('policy-limits.json')) {
    test(fixture.name, async () => {
      let now = 0;
      let step; // the step whose call runs now: its `costs` answer the cost functions
      const asked = [];
      const fns = new Map();
      const fnFor = (handle) => {
        if (!fns.has(handle)) {
          fns.set(handle, () => {
            asked.push(handle);
            const answer = step.costs?.[String(handle)];
            if (answer === undefined) throw new Error(`cost function ${handle} asked, and the step gives no answer`);
            if (answer === 'fail') throw new Error('the cost function failed');
            return answer;
          });
        }
        return fns.get(handle);
      };
      const tools = new Map();
      const releases = new Map(); // a held call's index → what ends it
      const entered = new Map(); // a held call's index → resolved when it reached what holds it
      const toolFor = async (name) => {
        if (!tools.has(name)) {
          const t = define(async () => {
            const held = releases.get(current);
            if (held) {
              entered.get(current).resolve();
              await held.promise;
            }
            return 'ran';
          }, { name });
          await t.register();
          tools.set(name, t);
        }
        return tools.get(name);
      };
      let current = -1;
      const asks = [];
      const onAsk = fixture.approver
        ? async (call) => {
            asks.push(call.decision);
            const held = releases.get(current);
            if (held && step.hold === 'approval') {
              entered.get(current).resolve();
              await held.promise;
            }
            return { allow: fixture.approver };
          }
        : null;
      const decisions = [];
      const stops = [];
      const off = onTelemetry((event) => {
        if (event.name === 'policy.decision') decisions.push(event);
        if (event.name === 'tool_call.stop') stops.push(event);
      });
      try {
        configureWebMCP({ policy: withLimits(toJs(fixture.policy, fnFor)), onAsk, clock: () => now });
        const running = new Map();
        for (const [index, s] of fixture.calls.entries()) {
          if (s.end !== undefined) {
            releases.get(s.end).resolve();
            const outcome = await settled(running.get(s.end), 3000, `held call ${s.end}`);
            assert.equal(outcome.ok, true, `${fixture.name}: the held call ${s.end} ends well`);
            continue;
          }
          step = s;
          current = index;
          now = s.at;
          asked.length = 0;
          const before = decisions.length;
          const stopsBefore = stops.length;
          await toolFor(s.tool);
          const options = s.principal === undefined ? {} : { principal: s.principal };
          let outcome;
          if (s.hold) {
            releases.set(index, deferred());
            entered.set(index, deferred());
            running.set(index, invokeTool(s.tool, {}, options));
            await settled(entered.get(index).promise, 3000, `call ${index} reaching what holds it`);
          } else {
            outcome = await settled(invokeTool(s.tool, {}, options));
          }
          // The decision: the one the call's record holds (`tool_call.stop`); a held call has not
          // stopped yet, and the approver's call or the event says it.
          const event = decisions.slice(before).at(-1);
          assert.ok(event, `${fixture.name}, call ${index}: a policy.decision event`);
          const recorded = stops.slice(stopsBefore).at(-1)?.record.find((r) => r.step === 'policy')?.decision;
          const decision = recorded ?? (s.hold === 'approval' ? asks.at(-1) : undefined);
          if (outcome && !outcome.ok) assert.deepEqual(outcome.error.decision, recorded, 'the denial carries the decision');
          const seen = decision ?? event;
          for (const key of ['effect', 'reason', 'rule', 'limit']) {
            if (s.expect[key] === undefined) continue;
            assert.ok(holds(seen[key], s.expect[key]), `${fixture.name}, call ${index}: ${key} is ${JSON.stringify(seen[key])}, expected ${JSON.stringify(s.expect[key])}`);
          }
          assert.equal(event.effect, seen.effect, 'the event and the decision agree');
          if (s.expect.explanationContains !== undefined) {
            const said = String(decision?.explanation);
            assert.ok(said.includes(s.expect.explanationContains), `${fixture.name}, call ${index}: ${JSON.stringify(said)} lacks ${JSON.stringify(s.expect.explanationContains)}`);
          }
          assert.equal(new Set(asked).size, asked.length, 'a cost function is asked at most once per call');
          if (s.costs === undefined) assert.deepEqual(asked, [], 'no cost function was asked');
          if (s.expect.effect === 'allow' && !s.hold) assert.equal(outcome.ok, true, `${fixture.name}, call ${index} ran`);
        }
      } finally {
        off();
      }
    });
  }
});

describe('limits in the package', () => {
  test('an allow rule, a grant and the default never lift a limit; the agent reads when to try again', async () => {
    let now = 10_000;
    const t = define(() => 'ran', { name: 'send_message' });
    await t.register();
    configureWebMCP({ policy: withLimits({ allow: ['*'], limits: [{ match: 'send_*', per: 'principal', max: 3, window: 60_000, id: 'burst' }] }), clock: () => now });
    for (let i = 0; i < 3; i++) assert.equal((await invokeTool('send_message', { i }, { principal: 'agent-1' })).ok, true);
    const refused = await invokeTool('send_message', { i: 3 }, { principal: 'agent-1' });
    assert.equal(refused.ok, false);
    assert.deepEqual({ kind: refused.error.kind, reason: refused.error.reason }, { kind: 'denied', reason: 'limit' });
    assert.deepEqual(refused.error.decision.rule, { list: 'limits', index: 0, id: 'burst' });
    assert.deepEqual(refused.error.decision.limit, { kind: 'calls', per: 'principal', used: 3, max: 3 });
    assert.equal(refused.result.content[0].text, 'Denied: Denied by limits[0] ("burst"): 3 of 3 calls used per principal.');
    // Another principal has its own count; the first one's calls fit again once the slot they
    // were counted in (an eighth of the window: 7 500 to 15 000 ms) left the window, at 75 000 ms.
    assert.equal((await invokeTool('send_message', {}, { principal: 'agent-2' })).ok, true);
    now = 74_999;
    assert.equal((await invokeTool('send_message', {}, { principal: 'agent-1' })).error?.reason, 'limit');
    now = 75_000;
    assert.equal((await invokeTool('send_message', {}, { principal: 'agent-1' })).ok, true);
  });

  test('a call is counted at the time its policy was asked: the clock is read once for both', async () => {
    // A clock that moves 1 000 ms at every read, against a limit whose window is one slot wide
    // per read: were the limits to read the clock again, every call would be counted a slot later
    // than policy saw it. What is pinned: one read per call, and both steps see that read.
    const reads = [];
    let now = 0;
    const t = define(() => 'ran', { name: 'tick' });
    const other = define(() => 'ran', { name: 'warm' });
    await t.register();
    await other.register();
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ match: 'tick', max: 1, window: 8_000, id: 'one' }] }), clock: () => (reads.push(now), (now += 1_000) - 1_000) });
    // The first call of a page loads what calls share (it awaits): then the limits read the clock again.
    assert.equal((await invokeTool('warm', {})).ok, true);
    reads.length = 0;
    assert.equal((await invokeTool('tick', {})).ok, true);
    assert.equal(reads.length, 1, 'one read of the clock for the call');
    const refused = await invokeTool('tick', {});
    assert.equal(refused.error?.reason, 'limit');
    assert.equal(reads.length, 2);
  });

  test('the first limited call of a page awaits what limits need (call-extras.ts): its check reads the clock again', () => {
    const out = runFresh(`
      const { configureWebMCP, webmcp } = await import('webmcp-warden');
      const { withLimits } = await import('webmcp-warden/limits');
      const reads = [];
      let now = 0;
      configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ match: 'tick', max: 5, window: 60_000 }] }), clock: () => (reads.push(now), (now += 1_000) - 1_000) });
      const t = webmcp(() => 'ran', { name: 'tick', description: 'Ticks.', shape: false });
      const first = await t.invoke({});
      const firstReads = reads.length;
      const second = await t.invoke({});
      console.log(JSON.stringify({ ok: [first.ok, second.ok], firstReads, secondReads: reads.length - firstReads }));
    `);
    assert.deepEqual(out.ok, [true, true]);
    assert.equal(out.firstReads, 2, 'policy read the clock, then the limits after the chunk loaded');
    assert.equal(out.secondReads, 1, 'once loaded, one read for both');
  });

  test('a cost function gets the frozen final arguments and the call; a throw, a timeout or no number fails closed', async () => {
    const seen = [];
    const costs = [5, 'x', NaN, -1, () => { throw new Error('boom'); }, () => new Promise(() => {}), 2];
    let next = 0;
    const t = define(() => 'ran', { name: 'buy', inputSchema: { type: 'object', properties: { qty: { type: 'integer' } } } });
    await t.register();
    configureWebMCP({
      hookTimeout: 50,
      policy: withLimits({
        default: 'allow',
        limits: [{ match: 'buy', budget: 10, window: 1000, cost: (input, call) => {
          seen.push({ input, frozen: Object.isFrozen(input), name: call.name, digest: call.argsDigest });
          const cost = costs[next++];
          return typeof cost === 'function' ? cost() : cost;
        } }],
      }),
      clock: () => 0,
    });
    assert.equal((await invokeTool('buy', { qty: 5 })).ok, true);
    assert.deepEqual(seen[0].input, { qty: 5 });
    assert.equal(seen[0].frozen, true);
    assert.equal(seen[0].name, 'buy');
    assert.match(seen[0].digest, /^[0-9a-f]{64}$/);
    for (let i = 0; i < 5; i++) {
      const outcome = await invokeTool('buy', { qty: 1 });
      assert.equal(outcome.error?.reason, 'limit', `cost ${i + 1} fails closed`);
      assert.equal(outcome.error.decision.limit.kind, 'cost_failed');
    }
    assert.equal((await invokeTool('buy', { qty: 2 })).ok, true, 'a good cost again: 5 + 2 fits 10');
    assert.equal(seen.length, 7);
  });

  test('calls in flight: a real async tool holds its place until it ends, failed or not', async () => {
    const gates = [];
    const t = define(async ({ fail }) => {
      const gate = deferred();
      gates.push(gate);
      await gate.promise;
      if (fail) throw new Error('the export failed');
      return 'exported';
    }, { name: 'export_data' });
    await t.register();
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ match: 'export_*', concurrency: 2 }] }) });
    const first = invokeTool('export_data', { fail: true });
    const second = invokeTool('export_data', {});
    await settled((async () => { while (gates.length < 2) await sleep(1); })());
    const third = await invokeTool('export_data', {});
    assert.equal(third.error?.reason, 'limit');
    assert.deepEqual(third.error.decision.limit, { kind: 'concurrency', per: 'page', used: 2, max: 2 });
    gates[0].resolve();
    assert.equal((await first).error?.reason, 'tool_error', 'a call that failed still ends its place');
    const fourth = invokeTool('export_data', {});
    await settled((async () => { while (gates.length < 3) await sleep(1); })());
    gates[1].resolve();
    gates[2].resolve();
    assert.equal((await second).ok, true);
    assert.equal((await fourth).ok, true);
    // An aborted call ends its place too.
    const controller = new AbortController();
    const aborted = invokeTool('export_data', {}, { signal: controller.signal });
    await settled((async () => { while (gates.length < 4) await sleep(1); })());
    controller.abort();
    assert.equal((await aborted).error?.kind, 'aborted');
    const after = [invokeTool('export_data', {}), invokeTool('export_data', {})];
    await settled((async () => { while (gates.length < 6) await sleep(1); })());
    for (const gate of gates.slice(4)) gate.resolve();
    assert.deepEqual((await Promise.all(after)).map((o) => o.ok), [true, true]);
  });

  test('telemetry: limit.exceeded after policy.decision, naming the limit; the record has the decision', async () => {
    const t = define(() => 'ran', { name: 'ping' });
    await t.register();
    const events = [];
    const off = onTelemetry((event) => events.push(event));
    try {
      configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ max: 1, window: 1000, onExceeded: 'ask', id: 'one' }] }), clock: () => 0, onAsk: () => ({ deny: 'not now' }) });
      await invokeTool('ping', {});
      assert.equal(events.filter((e) => e.name === 'limit.exceeded').length, 0, 'no event while within the limit');
      const outcome = await invokeTool('ping', {});
      assert.equal(outcome.error.reason, 'ask_denied');
      const names = events.map((e) => e.name);
      const at = names.lastIndexOf('limit.exceeded');
      assert.equal(names[at - 1], 'policy.decision');
      const exceeded = events[at];
      assert.deepEqual(
        { effect: exceeded.effect, reason: exceeded.reason, rule: exceeded.rule, limit: exceeded.limit, tool: exceeded.tool, serverId: exceeded.serverId },
        { effect: 'ask', reason: 'limit', rule: { list: 'limits', index: 0, id: 'one' }, limit: { kind: 'calls', per: 'page', used: 1, max: 1 }, tool: 'ping', serverId: 'page' },
      );
      assert.equal(exceeded.invocationId, events[at - 1].invocationId);
      const stop = events.findLast((e) => e.name === 'tool_call.stop');
      assert.deepEqual(stop.record.filter((s) => s.step === 'policy').map((s) => s.decision.reason), ['limit'], 'the limit replaced the decision it refused');
      // One decision per call: the first within the limit (default), the second by the limit.
      assert.deepEqual(events.filter((e) => e.name === 'policy.decision').map((e) => e.reason), ['default', 'limit']);
    } finally {
      off();
    }
  });

  test('a call that ended frees its place for the next check: a call, a dry run, two ending together', async () => {
    const gates = [];
    const t = define(async () => {
      const gate = deferred();
      gates.push(gate);
      await gate.promise;
      return 'done';
    }, { name: 'slow' });
    await t.register();
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ concurrency: 2 }] }) });
    const first = invokeTool('slow', {});
    const second = invokeTool('slow', {});
    await settled((async () => { while (gates.length < 2) await sleep(1); })());
    assert.equal((await explain('slow', {})).reason, 'limit', 'both places held');
    // Both end before any other check: each place is freed.
    gates[0].resolve();
    gates[1].resolve();
    assert.deepEqual([(await first).ok, (await second).ok], [true, true]);
    assert.equal((await explain('slow', {})).effect, 'allow', 'the dry run sees both places free');
    const third = invokeTool('slow', {});
    const fourth = invokeTool('slow', {});
    await settled((async () => { while (gates.length < 4) await sleep(1); })());
    assert.equal((await invokeTool('slow', {})).error?.reason, 'limit', 'two in flight again: the places were counted once each');
    for (const gate of gates.slice(2)) gate.resolve();
    assert.deepEqual([(await third).ok, (await fourth).ok], [true, true]);
  });

  test('a call whose signal aborts while a cost function runs is aborted before its tool', async () => {
    let ran = 0;
    const t = define(() => (ran++, 'ran'), { name: 'spend' });
    await t.register();
    const gate = deferred();
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ budget: 10, window: 1000, cost: () => gate.promise }] }), clock: () => 0 });
    const controller = new AbortController();
    const call = invokeTool('spend', {}, { signal: controller.signal });
    await sleep(5);
    controller.abort();
    gate.resolve(1);
    const outcome = await call;
    assert.equal(outcome.error?.kind, 'aborted');
    assert.equal(ran, 0, 'the tool never ran');
    assert.equal((await invokeTool('spend', {})).ok, true, 'the next call runs');
    assert.equal(ran, 1);
  });

  test('explain() says what a limit would do and counts nothing; it calls no cost function', async () => {
    const t = define(() => 'ran', { name: 'transfer' });
    await t.register();
    let costCalls = 0;
    const cost = () => (costCalls++, 1);
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ per: 'principal', max: 2, window: 1000, id: 'rate' }, { concurrency: 1 }, { budget: 10, window: 1000, cost }] }), clock: () => 0 });
    for (let i = 0; i < 5; i++) {
      const explained = await explain('transfer', {}, { principal: 'p' });
      // The cost function is not called in a dry run: the budget fails closed there.
      assert.deepEqual({ effect: explained.effect, reason: explained.reason, rule: explained.rule, kind: explained.limit.kind }, { effect: 'deny', reason: 'limit', rule: { list: 'limits', index: 2 }, kind: 'cost_failed' });
    }
    assert.equal(costCalls, 0);
    assert.equal((await invokeTool('transfer', {}, { principal: 'p' })).ok, true, 'the dry runs counted nothing');
    assert.equal(costCalls, 1);
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ per: 'principal', max: 2, window: 1000, id: 'rate' }] }) });
    assert.equal((await explain('transfer', {}, { principal: 'p' })).reason, 'default', 'one of two calls used: room for this one');
    assert.equal((await invokeTool('transfer', {}, { principal: 'p' })).ok, true);
    const past = await explain('transfer', {}, { principal: 'p' });
    assert.deepEqual({ effect: past.effect, reason: past.reason, rule: past.rule, limit: past.limit }, { effect: 'deny', reason: 'limit', rule: { list: 'limits', index: 0, id: 'rate' }, limit: { kind: 'calls', per: 'principal', used: 2, max: 2 } });
    assert.equal((await explain('transfer', {}, { principal: 'q' })).effect, 'allow', 'another principal has room');
  });

  test('counts carry over when the same policy is configured again, and resetWebMCP() forgets them', async () => {
    const t = define(() => 'ran', { name: 'rerender' });
    await t.register();
    const policy = () => withLimits({ default: 'allow', limits: [{ max: 1, window: 60_000, id: 'once-a-minute' }] });
    configureWebMCP({ policy: policy() });
    assert.equal((await invokeTool('rerender', {})).ok, true);
    // A component that configures on every render must not reset the count.
    configureWebMCP({ policy: policy() });
    assert.equal((await invokeTool('rerender', {})).error?.reason, 'limit');
    resetWebMCP();
    await t.register();
    configureWebMCP({ policy: policy() });
    assert.equal((await invokeTool('rerender', {})).ok, true);
  });

  test('a limit is configuration: refused at once with its path, the policy before it kept; linted with the rest', async () => {
    const t = define(() => 'ran', { name: 'kept' });
    await t.register();
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ max: 1, window: 60_000 }] }) });
    assert.throws(() => configureWebMCP({ policy: withLimits({ default: 'deny', limits: [{ max: 0, window: 1000 }] }) }), (err) => err instanceof ConfigurationError && err.code === 'invalid_limit' && err.path === 'limits[0].max');
    assert.throws(() => configureWebMCP({ policy: withLimits({ limits: [{ max: 1, window: 1000, per: 'session' }] }) }), (err) => err.path === 'limits[0].per');
    // The policy and the limits before the refused configuration are in force.
    assert.equal((await invokeTool('kept', {})).ok, true);
    assert.equal((await invokeTool('kept', {})).error?.reason, 'limit');
    assert.deepEqual(lintPolicy({ limits: [{ max: 5, window: 1000 }, { max: 9, window: 1000 }] }).map((d) => [d.code, d.path]), [['shadowed_limit', 'limits[1]']]);
    assert.deepEqual(lintPolicy({ limits: [{ max: 5, window: 1000, cost: () => 1 }] }).map((d) => [d.code, d.path]), [['invalid_limit', 'limits[0].cost']]);
  });

  test('a tool no limit selects is not limited; limits configured again that select it are in force at once', async () => {
    const picked = define(() => 'ran', { name: 'picked_tool' });
    const other = define(() => 'ran', { name: 'other_tool' });
    await picked.register();
    await other.register();
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ match: 'picked_*', max: 1, window: 60_000, id: 'picked' }] }) });
    for (let i = 0; i < 3; i++) assert.equal((await invokeTool('other_tool', {})).ok, true);
    assert.equal((await invokeTool('picked_tool', {})).ok, true);
    assert.equal((await invokeTool('picked_tool', {})).error?.reason, 'limit');
    // Which limits select a tool is found again with every configuration.
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ match: 'other_*', max: 1, window: 60_000, id: 'other' }] }) });
    assert.equal((await explain('other_tool', {})).effect, 'allow');
    assert.equal((await invokeTool('other_tool', {})).ok, true);
    assert.equal((await invokeTool('other_tool', {})).error?.reason, 'limit');
    assert.equal((await explain('other_tool', {})).reason, 'limit');
    assert.equal((await invokeTool('picked_tool', {})).ok, true, 'the limit that selected it is gone');
  });

  test('each call is counted for its own principal, whichever principal (or none) the call before it had, in every client', async () => {
    // The module keeps the last principal it was given, so a check of the same one does not send
    // it again: a change, to another principal or to none, must still count apart.
    const policy = withLimits({ default: 'allow', limits: [{ per: 'principal', max: 1, window: 60_000 }] });
    const t = define(() => 'ran', { name: 'per_principal' });
    await t.register();
    configureWebMCP({ policy });
    const other = createWarden({ policy });
    const mirror = other.webmcp(() => 'ran', { name: 'per_principal', description: 'The same tool in another client', shape: false });
    await mirror.register();
    const order = ['a', 'a', undefined, 'b', undefined, 'b', 'a'];
    const seen = [];
    for (const principal of order) {
      seen.push((await invokeTool('per_principal', {}, principal === undefined ? {} : { principal })).ok);
      // The other client's checks in between give the module other principals.
      assert.equal((await mirror.invoke({}, { principal: `x-${seen.length}` })).ok, true);
    }
    assert.deepEqual(seen, [true, false, true, true, false, false, false]);
    assert.equal((await mirror.invoke({}, { principal: 'x-1' })).error?.reason, 'limit', 'the other client counted its own');
    other.dispose();
  });

  test('limits count tool calls only: resource reads and prompt gets are not counted', async () => {
    const { webmcpResource, readResource } = await import('webmcp-warden');
    const t = define(() => 'ran', { name: 'only_tools' });
    await t.register();
    const r = webmcpResource(() => 'text', { uri: 'note://one', name: 'one' });
    await r.register();
    configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ max: 1, window: 60_000 }] }) });
    for (let i = 0; i < 3; i++) assert.equal((await readResource('note://one')).ok, true);
    assert.equal((await invokeTool('only_tools', {})).ok, true);
    assert.equal((await invokeTool('only_tools', {})).error?.reason, 'limit');
    r.unregister();
  });
});

describe('the shared invalid limit fixtures (tests/fixtures/policy-limits-invalid.json)', () => {
  for (const fixture of loadFixture('policy-limits-invalid.json')) {
    test(fixture.name, () => {
      const limits = toJs(fixture.limits, () => () => 1);
      assert.throws(
        () => configureWebMCP({ policy: withLimits({ limits }) }),
        (err) => {
          assert.ok(err instanceof ConfigurationError, String(err));
          assert.deepEqual([err.code, err.path], [fixture.expect.code, fixture.expect.path]);
          if (fixture.expect.messageContains) assert.ok(err.message.includes(fixture.expect.messageContains), err.message);
          return true;
        },
      );
      assert.ok(lintPolicy({ limits }).some((d) => d.code === fixture.expect.code && d.path === fixture.expect.path), 'lintPolicy says the same');
    });
  }
});

describe('without webmcp-warden/limits in use', () => {
  test('a policy with limits is refused in a fresh process; lintPolicy still reads them', () => {
    const { refused, lint } = runFresh(`
      import { configureWebMCP, lintPolicy } from 'webmcp-warden';
      let refused;
      try { configureWebMCP({ policy: { default: 'allow', limits: [{ max: 1, window: 1000 }] } }); } catch (err) { refused = { code: err.code, path: err.path, message: err.message }; }
      console.log(JSON.stringify({ refused, lint: lintPolicy({ limits: [{ max: 0, window: 1000 }] }).map((d) => d.code) }));
    `);
    assert.equal(refused.code, 'limits_unavailable');
    assert.equal(refused.path, 'limits');
    assert.match(refused.message, /withLimits\(\) from it/);
    assert.deepEqual(lint, ['invalid_limit']);
  });

  test('a client whose policy has limits and one without: only the first is limited', async () => {
    const limited = createWarden({ policy: withLimits({ default: 'allow', limits: [{ max: 1, window: 60_000 }] }) });
    const open = createWarden({ policy: { default: 'allow' } });
    for (const w of [limited, open]) {
      const t = w.webmcp(() => 'ran', { name: 'shared_name', description: 'x', shape: false });
      await t.register();
    }
    assert.equal((await limited.invokeTool('shared_name', {})).ok, true);
    assert.equal((await limited.invokeTool('shared_name', {})).error?.reason, 'limit');
    for (let i = 0; i < 3; i++) assert.equal((await open.invokeTool('shared_name', {})).ok, true);
    limited.dispose();
    open.dispose();
  });
});
