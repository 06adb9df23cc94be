// Seeing what the governor does (docs/behaviour.md, "Diagnostics", "Suspending agents",
// "Approvals", "Development mode"), through the built package:
//
// - console diagnostics: every fail-closed event is written once per cause, naming the hook or
//   the tool and the fix, never quoting what was thrown; nothing with `debug: false`;
// - the kill switch: suspendAgents / resumeAgents deny every call, read and get with the reason,
//   run no hook but denied hooks, and say so in telemetry;
// - approval requests: createdAt, deadline, summary (tool, the rule's label, the arguments that
//   decided, hidden characters written out), approve / deny / cancel through the request,
//   `status`, and the approver's signal aborted when the request was answered;
// - development mode (`hotReload`): a changed definition becomes the baseline instead of asking.
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createWarden, ConfigurationError, getDefaultWarden, getPrompt, invokeTool, readResource, resetWebMCP, resumeAgents, suspendAgents, webmcp, webmcpPrompt, webmcpResource } from '../lib/index.js';
import { createFakeModelContext, installFakeModelContext } from '../lib/testing.js';
import { internalOf } from '../lib/api/api.js';
import { asksOf } from '../lib/client/asks.js';
import { joinMount } from '../lib/react/mounts.js';
import { captureConsole, sleep, textOf } from '../test-support/lib-helpers.mjs';

const SECRET = 'SECRET-4b7d-what-a-hook-threw';
const boom = () => {
  throw new Error(SECRET);
};

/** A fresh client for each test, disposed after it. */
let c;
beforeEach(() => {
  c = createWarden({ debug: true });
});
afterEach(() => c.dispose());

/** Runs `body` with the console captured; answers what was written (diagnostics are awaited by the call that has them). */
async function consoleOf(body) {
  const written = [];
  const restore = captureConsole(written);
  try {
    await body();
    await sleep(20);
  } finally {
    restore();
  }
  return written;
}

describe('console diagnostics', () => {
  test('a hook that throws: written once per hook and cause, naming the hook, the event, the tool and the fix, never what it threw', async () => {
    const t = c.webmcp(() => 'ran', { name: 'audited', description: 'd', hooks: { before: [{ id: 'audit', run: boom }] } });
    const outcomes = [];
    const written = await consoleOf(async () => {
      for (let i = 0; i < 3; i++) outcomes.push(await t.invoke({}));
    });
    assert.equal(written.length, 1, written.join('\n'));
    assert.match(written[0], /^webmcp-warden: before hook "audit" \(tool "audited"\) threw, so the call failed closed \(the agent read "Error: before hook "audit" failed \(raise\)"\)\. Fix: /);
    assert.match(written[0], /error hook gets it as ctx\.error/);
    for (const outcome of outcomes) {
      assert.equal(textOf(outcome), 'Error: before hook "audit" failed (raise)');
      assert.ok(!JSON.stringify(outcome).includes(SECRET));
    }
    assert.ok(!written.join('\n').includes(SECRET), 'the console never quotes what a hook threw');
  });

  test('a new cause of the same hook is written again; a skipped after-hook says it was skipped', async () => {
    let mode = 'throw';
    const t = c.webmcp(() => 'ran', { name: 'flaky', description: 'd', hooks: { before: [{ id: 'gate', timeout: 20, run: () => (mode === 'throw' ? boom() : sleep(200)) }], after: [{ id: 'log', run: boom, onError: 'ignore' }] } });
    const written = await consoleOf(async () => {
      await t.invoke({});
      mode = 'slow';
      await t.invoke({});
      mode = 'pass';
    });
    assert.equal(written.length, 2, written.join('\n'));
    assert.match(written[0], /before hook "gate" \(tool "flaky"\) threw/);
    assert.match(written[1], /before hook "gate" \(tool "flaky"\) ran past its deadline \(20 ms\), so the call failed closed.* Fix: make it answer within its deadline/);
    const skipped = await consoleOf(async () => {
      const u = c.webmcp(() => 'ran', { name: 'logged', description: 'd', hooks: { after: [{ id: 'log2', run: boom, onError: 'ignore' }] } });
      assert.equal((await u.invoke({})).ok, true);
    });
    assert.match(skipped.join('\n'), /after hook "log2" \(tool "logged"\) threw, so the hook was skipped\./);
  });

  test('the approver, a function predicate, an output that fails its schema, and what shaping removed', async () => {
    c.configure({
      policy: { ask: [{ match: 'pay', id: 'pay-asks' }], deny: [{ match: 'guarded', id: 'guard', when: function isStaff() { throw new Error(SECRET); } }], default: 'allow' },
      onAsk: boom,
    });
    const pay = c.webmcp(() => 'paid', { name: 'pay', description: 'd' });
    const guarded = c.webmcp(() => 'ran', { name: 'guarded', description: 'd' });
    const typed = c.webmcp(() => ({ count: 'three' }), { name: 'typed', description: 'd', outputSchema: { type: 'object', properties: { count: { type: 'integer' } } } });
    const hidden = c.webmcp(() => 'pla\u200Bin', { name: 'hidden', description: 'd' });
    const written = await consoleOf(async () => {
      assert.equal((await pay.invoke({})).error.reason, 'ask_failed');
      assert.equal((await guarded.invoke({})).error.reason, 'rule');
      assert.equal((await typed.invoke({})).error.reason, 'invalid_structured_content');
      assert.equal(textOf(await hidden.invoke({})), 'plain');
    });
    const all = written.join('\n');
    assert.ok(!all.includes(SECRET));
    assert.match(all, /the approver \(onAsk\) threw for tool "pay", so the ask was denied \(ask_failed\): the agent read "Denied: the approval failed \(raise\)"\. The ask: Asked by ask\[0\] \("pay-asks"\)\./);
    assert.match(all, /the policy's function predicate "isStaff" threw for tool "guarded", so it counted as failed: its rule applies in deny and ask, and not in allow\. Policy then decided: Denied by deny\[0\] \("guard"\), failing closed because a function predicate failed\./);
    assert.match(all, /the result of tool "typed" failed its outputSchema, so the call failed \(invalid_structured_content\): Validation failed: \/count/);
    assert.match(all, /shaping removed zero-width characters from the result of tool "hidden" before a model read it \(provenance flag "zero_width"\)/);
    assert.equal(written.length, 4, all);
  });

  test('the approver and function predicates: each way of failing has its sentence and fix, written once per cause', async () => {
    c.configure({
      askTimeout: 30,
      hookTimeout: 30,
      policy: {
        ask: ['slow_ask', 'bad_ask'],
        deny: [{ match: 'not_bool', when: function notBool() { return 'yes'; } }, { match: 'late', when: function late() { return sleep(200).then(() => true); } }],
        default: 'allow',
      },
      onAsk: (call) => (call.name === 'slow_ask' ? new Promise(() => {}) : { allow: 'sometimes' }),
    });
    const tools = ['slow_ask', 'bad_ask', 'not_bool', 'late'].map((name) => c.webmcp(() => 'ran', { name, description: 'd' }));
    const outcomes = [];
    const written = await consoleOf(async () => {
      for (let round = 0; round < 2; round++) for (const t of tools) outcomes.push(await t.invoke({}));
    });
    assert.deepEqual(outcomes.slice(0, 4).map((o) => [o.error.reason, o.error.cause]), [['ask_failed', 'timeout'], ['ask_failed', 'bad_return'], ['rule', undefined], ['rule', undefined]]);
    assert.equal(written.length, 4, written.join('\n'));
    const all = written.join('\n');
    assert.match(all, /the approver \(onAsk\) ran past its deadline \(30 ms\) for tool "slow_ask", so the ask was denied \(ask_failed\): the agent read "Denied: the approval failed \(timeout\)"\. The ask: Asked by ask\[0\]\. Fix: answer within askTimeout/);
    assert.match(all, /the approver \(onAsk\) returned a value outside its contract for tool "bad_ask", so the ask was denied \(ask_failed\).* It may return \{ allow: 'once' \}/);
    assert.match(all, /the policy's function predicate "notBool" answered something other than true or false for tool "not_bool", so it counted as failed.* Fix: make it answer exactly true or false\./);
    assert.match(all, /the policy's function predicate "late" ran past its deadline \(30 ms\) for tool "late", so it counted as failed.* Fix: make it answer within hookTimeout\./);
  });

  test('a registration the browser refused, and a useWebMCP registration that failed', async () => {
    const runtime = createFakeModelContext();
    runtime.registerTool = () => Promise.reject(new TypeError('the runtime refuses this descriptor'));
    globalThis.document = { modelContext: runtime };
    try {
      const t = c.webmcp(() => 1, { name: 'refused', description: 'd' });
      const written = await consoleOf(async () => {
        await assert.rejects(t.register(), (err) => err.code === 'registration_failed');
      });
      assert.equal(written.length, 1, written.join('\n'));
      assert.match(written[0], /^webmcp-warden: tool "refused" is not registered: the browser's WebMCP runtime refused it \(registration_failed\): the runtime refuses this descriptor\. Fix: /);
    } finally {
      delete globalThis.document;
    }
    // A mount whose register() rejects (what useWebMCP does on mount) is written, not swallowed.
    const mounted = c.webmcp(() => 1, { name: 'undescribed' });
    const written = await consoleOf(async () => {
      const leave = joinMount(mounted, null);
      await sleep(50);
      leave();
    });
    assert.equal(mounted.status, 'error');
    assert.match(written.join('\n'), /tool "undescribed" is not registered: useWebMCP could not register it \(missing_description\)/);
  });

  test('debug: false writes nothing, whatever fails', async () => {
    c.configure({ debug: false, policy: { ask: ['*'] }, onAsk: boom });
    const t = c.webmcp(() => 'x\u200B', { name: 'quiet', description: 'd', hooks: { after: [{ run: boom, onError: 'ignore' }] } });
    const u = c.webmcp(() => 1, { name: 'quiet_before', description: 'd', hooks: { before: [boom] } });
    const written = await consoleOf(async () => {
      assert.equal((await t.invoke({})).error.reason, 'ask_failed');
      assert.equal((await u.invoke({})).error.reason, 'hook_failed');
    });
    assert.deepEqual(written, []);
    assert.throws(() => c.configure({ debug: 'yes' }), (err) => err instanceof ConfigurationError && err.path === 'debug');
  });
});

describe('the debug default in a bundled page without `process` (a browser)', () => {
  // The page, bundled for the browser as a bundler does (process.env.NODE_ENV replaced), runs in a
  // child Node with `process` deleted first: what the console got, and what the agent read.
  const PAGE = `
    import { createWarden } from 'webmcp-warden';
    const c = createWarden({ policy: { default: 'allow' }, ...OPTIONS });
    const t = c.webmcp(() => 'ran', { name: 'audited', description: 'd', hooks: { before: [{ id: 'audit', run: () => { throw new Error('${SECRET}'); } }] } });
    const outcome = await t.invoke({});
    // Development mode: a definition edited as hot reload edits it, then called.
    const first = c.webmcp(() => 'v1', { name: 'edited', description: 'first' });
    await first.register();
    await c.invokeTool('edited', {});
    first.unregister();
    await c.webmcp(() => 'v2', { name: 'edited', description: 'edited during development' }).register();
    const edited = await c.invokeTool('edited', {});
    globalThis.__report(outcome.result.content[0].text, edited.ok ? 'ok' : edited.error.reason);
  `;
  const RUNNER = `
    const lines = [];
    console.warn = (...args) => lines.push(args.join(' '));
    const log = console.log;
    globalThis.__report = (text, edited) => log(JSON.stringify({ text, edited, warned: lines }));
    delete globalThis.process;
    globalThis.document = {};
    if (typeof process !== 'undefined') throw new Error('process is still there');
    await import('./page.js');
  `;
  async function runBundled(nodeEnv, options = '{}') {
    const { build } = await import('esbuild');
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { execFileSync } = await import('node:child_process');
    const dir = mkdtempSync(path.join(tmpdir(), 'warden-debug-'));
    try {
      writeFileSync(path.join(dir, 'page.src.js'), PAGE.replace('OPTIONS', options));
      writeFileSync(path.join(dir, 'run.mjs'), RUNNER);
      await build({ entryPoints: { page: path.join(dir, 'page.src.js') }, bundle: true, format: 'esm', platform: 'browser', splitting: true, outdir: dir, define: { 'process.env.NODE_ENV': JSON.stringify(nodeEnv) }, nodePaths: [new URL('../../node_modules', import.meta.url).pathname], absWorkingDir: new URL('..', import.meta.url).pathname, logLevel: 'error' });
      return JSON.parse(execFileSync(process.execPath, [path.join(dir, 'run.mjs')], { encoding: 'utf8', timeout: 30_000 }).trim().split('\n').at(-1));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('a development bundle writes the diagnostic and re-baselines an edited tool by default; a production bundle does neither unless asked', { timeout: 90_000 }, async () => {
    const development = await runBundled('development');
    assert.equal(development.text, 'Error: before hook "audit" failed (raise)');
    assert.equal(development.edited, 'ok', 'development mode: the edited definition is the baseline');
    assert.equal(development.warned.length, 1, JSON.stringify(development));
    assert.match(development.warned[0], /^webmcp-warden: before hook "audit" \(tool "audited"\) threw, so the call failed closed/);
    const production = await runBundled('production');
    assert.deepEqual([production.text, production.edited, production.warned], ['Error: before hook "audit" failed (raise)', 'no_approver', []]);
    const asked = await runBundled('production', '{ debug: true }');
    assert.equal(asked.warned.length, 1, 'debug: true is heard where the build cannot tell');
    for (const run of [development, production, asked]) assert.ok(!JSON.stringify(run).includes(SECRET));
  });
});

describe('suspending agents (the kill switch)', () => {
  test('every call, read and get is denied with the reason, before anything but denied hooks runs; resume lets them through', async () => {
    const ran = [];
    const events = [];
    c.onTelemetry((event) => events.push(event));
    c.configure({ hooks: { before: [() => void ran.push('before')], denied: [(ctx) => void ran.push(`denied:${ctx.code}`)] } });
    const t = c.webmcp(() => ran.push('tool'), { name: 'act', description: 'd' });
    await webmcpResource(() => 'note', { uri: 'notes://a', name: 'a', client: c }).register();
    await webmcpPrompt(() => 'prompt', { name: 'p', client: c }).register();
    assert.equal(c.suspension(), null);
    c.suspendAgents('An incident is being handled.');
    assert.equal(c.suspension(), 'An incident is being handled.');
    const denied = await t.invoke({});
    assert.deepEqual([denied.ok, denied.error.kind, denied.error.reason, denied.error.message], [false, 'denied', 'suspended', 'An incident is being handled.']);
    assert.equal(textOf(denied), 'Denied: An incident is being handled.');
    assert.deepEqual(ran, ['denied:suspended'], 'no before-hook and no tool ran; the denied hook did');
    assert.equal((await readResource('notes://a', { client: c })).error.reason, 'suspended');
    assert.equal((await getPrompt('p', {}, { client: c })).error.reason, 'suspended');
    c.resumeAgents();
    assert.equal(c.suspension(), null);
    assert.equal((await t.invoke({})).ok, true);
    assert.deepEqual(events.filter((e) => e.name.startsWith('agents.')), [{ name: 'agents.suspended', reason: 'An incident is being handled.' }, { name: 'agents.resumed' }]);
    const stop = events.find((e) => e.name === 'tool_call.stop' && e.errorReason === 'suspended');
    assert.ok(stop, 'the denied call is in telemetry');
    for (const bad of [undefined, '', '  ', 7]) assert.throws(() => c.suspendAgents(bad), (err) => err instanceof ConfigurationError && err.code === 'invalid_options');
  });

  test('the default client\'s suspendAgents / resumeAgents: the page\'s agents, and no other client\'s', async () => {
    const runtime = installFakeModelContext();
    try {
      await webmcp(() => 'ran', { name: 'page_tool', description: 'd' }).register();
      const own = c.webmcp(() => 'ran', { name: 'own_tool', description: 'd' });
      suspendAgents('The page stopped its agents.');
      assert.equal(getDefaultWarden().suspension(), 'The page stopped its agents.');
      const denied = await invokeTool('page_tool', {});
      assert.deepEqual([denied.error.reason, textOf(denied)], ['suspended', 'Denied: The page stopped its agents.']);
      const agent = await runtime.modelContext.callTool('page_tool', {});
      assert.equal(agent.content[0].text, 'Denied: The page stopped its agents.', "the browser's agent path is denied too");
      assert.equal((await own.invoke({})).ok, true, 'a client of its own is not suspended');
      assert.throws(() => suspendAgents(''), (err) => err instanceof ConfigurationError);
      resumeAgents();
      assert.equal(getDefaultWarden().suspension(), null);
      assert.equal((await invokeTool('page_tool', {})).ok, true);
    } finally {
      resetWebMCP();
      runtime.uninstall();
    }
  });

  test('reset() resumes the agents; the suspension survives a core restart', async () => {
    const t = c.webmcp(() => 'ok', { name: 'act', description: 'd' });
    c.suspendAgents('stop');
    c.reset();
    assert.equal(c.suspension(), null);
    assert.equal((await t.invoke({})).ok, true);
    c.suspendAgents('stop again');
    const { core } = await import('../lib/boundary/core.js');
    assert.throws(() => core.testTrap());
    assert.equal((await t.invoke({})).error.reason, 'suspended', 'the replay suspends the new engine too');
  });
});

describe('approval requests', () => {
  test('createdAt, deadline, the summary beside the explanation, and approve through the request', async () => {
    let now = 1_000_000;
    let signal;
    c.configure({
      clock: () => now,
      askTimeout: 30_000,
      policy: { ask: [{ match: 'add_to_cart', id: 'big-orders', label: 'Large orders need your approval', when: [{ arg: '/quantity', min: 5 }, { arg: '/sku', exists: true }] }], default: 'allow' },
      onAsk: (call, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      },
    });
    const book = asksOf(internalOf(c));
    const t = c.webmcp(({ quantity }) => ({ inCart: quantity }), { name: 'add_to_cart', title: 'Add to cart', description: 'd' });
    const pending = t.invoke({ quantity: 6, sku: 'mug', note: 'x' });
    await sleep(20);
    const [ask] = book.getSnapshot().pending;
    assert.ok(ask, 'the ask is listed while the approver works');
    assert.equal(ask.createdAt, 1_000_000);
    assert.equal(ask.deadline, 1_030_000);
    assert.equal(ask.status, 'pending');
    assert.equal(ask.explanation, 'Asked by ask[0] ("big-orders").');
    assert.deepEqual(ask.summary, {
      tool: 'Add to cart',
      label: 'Large orders need your approval',
      arguments: [{ path: '/quantity', value: '6' }, { path: '/sku', value: '"mug"' }],
      text: 'Large orders need your approval — quantity 6, sku "mug"',
    });
    now += 5;
    ask.approve();
    const outcome = await pending;
    assert.deepEqual([outcome.ok, outcome.result.structuredContent], [true, { inCart: 6 }]);
    assert.equal(ask.status, 'approved');
    assert.equal(book.getSnapshot().pending.length, 0);
    assert.equal(signal.aborted, true, "the approver's signal aborts once the request is answered");
  });

  test('deny, cancel and the deadline: how each ends, and what the agent reads', async () => {
    c.configure({ policy: { ask: ['*'] }, askTimeout: 80, onAsk: () => new Promise(() => {}) });
    const book = asksOf(internalOf(c));
    const t = c.webmcp(() => 'ran', { name: 'act', description: 'd' });
    const next = async () => {
      await sleep(10);
      return book.getSnapshot().pending.at(-1);
    };
    let call = t.invoke({});
    const denied = await next();
    denied.deny('Not now.', { halt: true });
    assert.deepEqual([(await call).error.reason, textOf(await call), denied.status], ['ask_halt', 'Denied: Not now.', 'denied']);
    call = t.invoke({});
    const cancelled = await next();
    cancelled.cancel('The dialog was closed.');
    assert.deepEqual([(await call).error.reason, textOf(await call), cancelled.status], ['ask_denied', 'Denied: The dialog was closed.', 'cancelled']);
    call = t.invoke({});
    const expiring = await next();
    const expired = await call;
    assert.deepEqual([expired.error.reason, expired.error.cause, expiring.status], ['ask_failed', 'timeout', 'expired']);
    expiring.approve();
    assert.equal(expiring.status, 'expired', 'an answer after the end changes nothing');
  });

  test('the summary writes hidden characters out and cuts long values; without a rule naming arguments, the top-level ones', async () => {
    c.configure({ policy: { ask: ['*'] }, onAsk: () => new Promise(() => {}) });
    const book = asksOf(internalOf(c));
    const t = c.webmcp(() => 'ran', { name: 'send', description: 'd' });
    const call = t.invoke({ to: 'bob\u202Eexe.txt', body: 'x'.repeat(500), a: 1, b: 2, c: 3, d: 4 });
    await sleep(10);
    const [ask] = book.getSnapshot().pending;
    assert.equal(ask.summary.label, undefined);
    assert.deepEqual(ask.summary.arguments.map((arg) => arg.path), ['/to', '/body', '/a', '/b', '/c']);
    assert.equal(ask.summary.arguments[0].value, '"bob\\u{202E}exe.txt"');
    assert.ok(ask.summary.arguments[1].value.length <= 81 && ask.summary.arguments[1].value.endsWith('…'));
    ask.deny('no');
    await call;
  });
});

describe('development mode (hotReload)', () => {
  for (const hotReload of [true, false]) {
    test(`a tool re-defined with another description ${hotReload ? 'is baselined again' : 'meets the pin'} (hotReload: ${hotReload})`, async () => {
      c.configure({ hotReload, policy: { default: 'allow' } });
      const first = c.webmcp(() => 'v1', { name: 'edited', description: 'first' });
      await first.register();
      assert.equal((await c.invokeTool('edited', {})).ok, true);
      first.unregister();
      await c.webmcp(() => 'v2', { name: 'edited', description: 'edited during development' }).register();
      const outcome = await c.invokeTool('edited', {});
      if (hotReload) assert.equal(outcome.ok, true);
      else assert.deepEqual([outcome.ok, outcome.error.reason, outcome.error.decision.pin.changed], [false, 'no_approver', ['description']]);
    });
  }

  test('its default is off where there is no page (Node, servers)', () => {
    assert.equal(internalOf(createWarden()).settings.hotReload, false);
    assert.equal(internalOf(createWarden()).settings.debug, process.env.NODE_ENV !== 'production');
  });
});
