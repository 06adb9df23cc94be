// The governed pipeline through the BUILT package: what only JS can show (concurrency, timers,
// abort signals, the console, the simple-webmcp utilities). The data-driven cases shared with
// `cargo test` live in hooks-fixtures.test.mjs.
//
// Build first: `npm run build -w pkg-js` (or `WASM_OPT=0 node pkg-js/build.mjs`).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  webmcp,
  configureWebMCP,
  getGlobalHooks,
  resetGlobalHooks,
  resetWebMCP,
  mergeHooks,
  mergeHooksOrdered,
  createHookedExecute,
  genInvocationId,
  invokeTool,
  listTools,
  onTelemetry,
  isWebMCPTool,
  CallFailure,
  ConfigurationError,
  WardenError,
} from 'webmcp-warden';
import { captureConsole, settled as settledWithin, sleep, textOf, toolMaker, trackTools } from '../test-support/helpers.mjs';

const jitter = () => sleep(Math.floor(Math.random() * 3));
const settled = (promise, ms = 2000) => settledWithin(promise, ms, 'the call did not settle');

/**
 * Tools made by a test, unregistered after it so names can be reused. These tests are about
 * hooks, so results are compared unshaped (`shape: false`); shaping has its own tests.
 */
const made = trackTools();
const tool = toolMaker(() => ({ shape: false }), made);
let nameCounter = 0;
const uniqueName = (base) => `${base}_${++nameCounter}`;

/** Runs `body` with console.* and process warnings captured; returns what was written. */
async function captureOutput(body) {
  const written = [];
  const restore = captureConsole(written, {
    methods: ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table'],
    format: (a) => (typeof a === 'string' ? a : safeJson(a)),
  });
  try {
    await body();
    await sleep(5); // warnings are emitted on a later tick
  } finally {
    restore();
  }
  return written;
}

function safeJson(value) {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

// ------------------------------------------------------------------ concurrency

describe('10,000 concurrent invocations', () => {
  test('all settle and each call sees only its own input, metadata, assigns and principal', async () => {
    const N = 10_000;
    const problems = [];
    const invocationIds = new Set();
    const check = (ctx, where) => {
      const token = ctx.assigns.token;
      if (ctx.principal !== `p${token}`) problems.push(`${where}: principal ${ctx.principal} in call ${token}`);
      if (ctx.input?.token !== token) problems.push(`${where}: input token ${ctx.input?.token} in call ${token}`);
      const keys = Object.keys(ctx.metadata);
      if (keys.some((k) => k !== 'token' && k !== 'seenBy')) problems.push(`${where}: foreign metadata ${keys}`);
      if ('token' in ctx.metadata && ctx.metadata.token !== token) problems.push(`${where}: metadata token ${ctx.metadata.token} in call ${token}`);
    };
    configureWebMCP({
      hooks: {
        before: [
          async (ctx) => {
            check(ctx, 'global before');
            invocationIds.add(ctx.invocationId);
            await jitter();
            ctx.metadata.token = ctx.input.token;
            ctx.metadata.seenBy = ['global'];
          },
        ],
        after: [
          async (ctx) => {
            await jitter();
            check(ctx, 'global after');
            if (ctx.output.token !== ctx.metadata.token) problems.push(`global after: output ${ctx.output.token} in call ${ctx.metadata.token}`);
            ctx.metadata.seenBy.push('global-after');
            return { output: `call ${ctx.output.token} stamped ${ctx.output.stamp} via ${ctx.metadata.seenBy.join(',')}` };
          },
        ],
      },
    });
    const t = tool(
      async (input, { signal }) => {
        await jitter();
        if (!(signal instanceof AbortSignal)) problems.push('tool got no signal');
        return { token: input.token, stamp: input.stamp };
      },
      {
        name: uniqueName('concurrent'),
        hooks: {
          before: [
            async (ctx) => {
              await jitter();
              check(ctx, 'tool before');
              ctx.metadata.seenBy.push('tool');
              return { input: { ...ctx.input, stamp: `s${ctx.metadata.token}` } };
            },
          ],
        },
      },
    );
    const started = performance.now();
    const output = await captureOutput(async () => {
      const outcomes = await Promise.all(
        Array.from({ length: N }, (_, token) => {
          // Half the calls carry their own signal, half run on none.
          const options = { principal: `p${token}`, assigns: { token } };
          if (token % 2) options.signal = new AbortController().signal;
          return t.invoke({ token }, options);
        }),
      );
      outcomes.forEach((outcome, token) => {
        if (!outcome.ok || textOf(outcome) !== `call ${token} stamped s${token} via global,tool,global-after`) {
          problems.push(`call ${token} answered ${JSON.stringify(outcome)}`);
        }
      });
    });
    const elapsed = performance.now() - started;
    assert.deepEqual(problems.slice(0, 5), [], `${problems.length} problems`);
    assert.equal(invocationIds.size, N, 'every call has its own invocationId');
    assert.deepEqual(output, [], 'nothing written, no MaxListeners warning');
    assert.ok(elapsed < 20_000, `took ${elapsed} ms`);
  });

  test('concurrent failures stay with their own call', async () => {
    const t = tool((input) => input.n, {
      name: uniqueName('concurrent_fail'),
      hooks: {
        before: [
          async (ctx) => {
            await jitter();
            if (ctx.input.n % 3 === 0) throw new Error(`SECRET-${ctx.input.n}`);
            if (ctx.input.n % 3 === 1) return { action: 'deny', message: `no ${ctx.input.n}` };
            return undefined;
          },
        ],
      },
    });
    const outcomes = await Promise.all(Array.from({ length: 3000 }, (_, n) => t.invoke({ n })));
    outcomes.forEach((outcome, n) => {
      if (n % 3 === 0) assert.equal(outcome.error.kind, 'hook');
      else if (n % 3 === 1) assert.equal(textOf(outcome), `Denied: no ${n}`);
      else assert.equal(textOf(outcome), String(n));
      assert.ok(!JSON.stringify(outcome).includes('SECRET'));
    });
  });
});

// ------------------------------------------------------------------ what a hook threw

describe('what a failing hook threw never leaves the hook', () => {
  const SECRET = 'SECRET-5d1c0e-quoted-arguments';
  const secretError = () => Object.assign(new Error(SECRET, { cause: SECRET }), { stack: SECRET, detail: SECRET });

  test('before, after, error and denied hooks that throw or reject: not in any result, error, ctx.failure or console; ctx.error is the thrown value itself', async () => {
    const seenErrors = [];
    const recorder = (ctx) => {
      seenErrors.push({ error: ctx.error, failure: ctx.failure });
    };
    const cases = [
      { before: [() => { throw secretError(); }], error: [recorder] },
      { before: [async () => { throw SECRET; }], error: [recorder] },
      { before: [() => Promise.reject({ message: SECRET, toString: () => SECRET })], error: [recorder] },
      { after: [() => { throw secretError(); }], error: [recorder] },
      { after: [async () => { await jitter(); throw secretError(); }] },
      { error: [() => { throw secretError(); }, recorder], before: [() => { throw new Error('first'); }] },
      { before: [() => ({ action: 'deny', message: 'denied' })], denied: [() => { throw secretError(); }, async () => { throw SECRET; }] },
    ];
    const outcomes = [];
    const output = await captureOutput(async () => {
      for (const hooks of cases) {
        const t = tool(() => 'result', { name: uniqueName('secret'), description: 'd', hooks });
        outcomes.push(await t.invoke({}));
        await t.register();
        outcomes.push(await invokeTool(t.toolName, {}));
      }
    });
    assert.equal(outcomes.length, cases.length * 2);
    assert.ok(seenErrors.length >= 4, 'error hooks ran and saw an error');
    for (const outcome of outcomes) {
      assert.ok(!JSON.stringify(outcome).includes(SECRET), JSON.stringify(outcome));
      if (!outcome.ok) {
        assert.ok(!String(outcome.error.message).includes(SECRET));
        assert.ok(!Object.values(outcome.error).some((v) => String(v).includes(SECRET)));
      }
    }
    // The page's own error hooks get what was thrown, as it was thrown (for Sentry and the
    // like); the structured failure beside it never quotes it.
    const thrown = seenErrors.filter(({ error }) => !(error instanceof CallFailure));
    assert.ok(thrown.some(({ error }) => error instanceof Error && error.message === SECRET), 'a thrown Error reaches ctx.error as it is');
    assert.ok(thrown.some(({ error }) => error === SECRET), 'a thrown string reaches ctx.error as it is');
    for (const { failure } of seenErrors) {
      assert.equal(typeof failure.kind, 'string');
      assert.ok(!JSON.stringify(failure).includes(SECRET), `ctx.failure carried the secret: ${JSON.stringify(failure)}`);
    }
    assert.deepEqual(output.filter((line) => line.includes(SECRET)), []);
    // The console gets the diagnostics (debug is on in development), which name the hook and never quote it.
    assert.ok(output.length > 0 && output.every((line) => line.startsWith('webmcp-warden: ')), output.join('\n'));
  });

  test('a toolsListed hook that throws fails the listing without quoting it', async () => {
    const t = tool(() => 1, { name: uniqueName('secret_list'), description: 'd', hooks: { toolsListed: [() => { throw secretError(); }] } });
    await t.register();
    let caught;
    const output = await captureOutput(async () => {
      caught = await listTools().then(() => undefined, (err) => err);
    });
    assert.ok(caught instanceof WardenError);
    assert.equal(caught.code, 'hook_failed');
    for (const text of [caught.message, caught.stack, String(caught.cause), JSON.stringify(caught)]) assert.ok(!String(text).includes(SECRET));
    assert.deepEqual(output.filter((line) => line.includes(SECRET)), []);
    assert.ok(output.every((line) => /^webmcp-warden: toolsListed hook "toolsListed:0" \(tools "[^"]*"\) threw, so the listing failed/.test(line)), output.join('\n'));
  });
});

// ------------------------------------------------------------------ cancellation

describe('cancellation', () => {
  test('the per-call signal reaches the tool as fn(input, { signal }) and every hook as ctx.signal', async () => {
    const controller = new AbortController();
    const got = [];
    const t = tool(
      (input, extra) => {
        got.push(['tool', input, extra.signal]);
        return 'ok';
      },
      { name: uniqueName('signal'), hooks: { before: [(ctx) => void got.push(['before', ctx.signal])], after: [(ctx) => void got.push(['after', ctx.signal])] } },
    );
    const outcome = await settled(t.invoke({ a: 1 }, { signal: controller.signal }));
    assert.equal(outcome.ok, true);
    assert.deepEqual(got.map((g) => g[0]), ['before', 'tool', 'after']);
    assert.equal(got[0][1], controller.signal);
    assert.deepEqual(got[1][1], { a: 1 });
    assert.equal(got[1][2], controller.signal);
    assert.equal(got[2][1], controller.signal);
    // Without a signal the tool still gets one that is not aborted.
    got.length = 0;
    await settled(t.invoke({}));
    assert.ok(got[1][2] instanceof AbortSignal && !got[1][2].aborted);
  });

  test('the browser execute(input, { signal }) runs the pipeline with that signal', async () => {
    const registered = new Map();
    globalThis.document = { modelContext: { registerTool: (descriptor) => void registered.set(descriptor.name, descriptor) } };
    try {
      let toolSignal;
      const order = [];
      const t = tool(
        (input, { signal }) => {
          toolSignal = signal;
          order.push('tool');
          return `got ${input.x}`;
        },
        { name: uniqueName('execute'), description: 'd', hooks: { before: [() => void order.push('before')] } },
      );
      await t.register();
      assert.equal(t.status, 'registered');
      const execute = registered.get(t.toolName).execute;
      const controller = new AbortController();
      assert.deepEqual(await settled(execute({ x: 1 }, { signal: controller.signal })), { content: [{ type: 'text', text: 'got 1' }] });
      assert.equal(toolSignal, controller.signal);
      assert.deepEqual(order, ['before', 'tool']);
      controller.abort();
      assert.deepEqual(await settled(execute({ x: 2 }, { signal: controller.signal })), { content: [{ type: 'text', text: 'Error: Aborted' }], isError: true });
      assert.deepEqual(order, ['before', 'tool'], 'nothing ran for the aborted call');
    } finally {
      delete globalThis.document;
    }
  });

  const ABORTED = { kind: 'aborted', reason: 'aborted', message: 'Aborted' };

  test('an abort before the call: no hook, no tool', async () => {
    const order = [];
    const t = tool(() => order.push('tool'), { name: uniqueName('abort_before'), hooks: { before: [() => void order.push('before')], after: [() => void order.push('after')] } });
    const controller = new AbortController();
    controller.abort();
    const outcome = await settled(t.invoke({}, { signal: controller.signal }));
    assert.deepEqual(outcome, { ok: false, error: ABORTED, result: { content: [{ type: 'text', text: 'Error: Aborted' }], isError: true } });
    assert.deepEqual(order, []);
  });

  test('an abort between before-hooks: the next hook and the tool do not run', async () => {
    const order = [];
    const controller = new AbortController();
    const t = tool(() => order.push('tool'), {
      name: uniqueName('abort_between'),
      hooks: {
        before: [
          async () => {
            order.push('b1');
            await sleep(1);
            controller.abort();
          },
          () => void order.push('b2'),
        ],
      },
    });
    const outcome = await settled(t.invoke({}, { signal: controller.signal }));
    assert.deepEqual(outcome.error, ABORTED);
    assert.equal(textOf(outcome), 'Error: Aborted');
    assert.deepEqual(order, ['b1']);
  });

  test('an abort during a slow tool ends the call at once, whether or not the tool listens', async () => {
    for (const honours of [false, true]) {
      const controller = new AbortController();
      const t = tool(
        (input, { signal }) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(() => resolve('late result'), 400);
            if (honours) signal.addEventListener('abort', () => { clearTimeout(timer); reject(new DOMException('stop', 'AbortError')); });
          }),
        { name: uniqueName('abort_tool'), hooks: { after: [() => ({ output: 'after ran' })] } },
      );
      setTimeout(() => controller.abort(), 10);
      const started = performance.now();
      const outcome = await settled(t.invoke({}, { signal: controller.signal }));
      const elapsed = performance.now() - started;
      assert.deepEqual(outcome.error, ABORTED, `honours=${honours}`);
      assert.equal(textOf(outcome), 'Error: Aborted');
      assert.ok(elapsed < 300, `waited ${elapsed} ms for the tool`);
    }
  });

  test('a tool that aborts the call itself and hangs ends as aborted (not stuck)', async () => {
    const controller = new AbortController();
    const t = tool(() => {
      controller.abort();
      return new Promise(() => {});
    }, { name: uniqueName('abort_self') });
    const outcome = await settled(t.invoke({}, { signal: controller.signal }));
    assert.deepEqual(outcome.error, ABORTED);
  });

  test('an abort during an async after-hook drops the result', async () => {
    const controller = new AbortController();
    const t = tool(() => 'raw-result', {
      name: uniqueName('abort_after'),
      hooks: { after: [async () => { setTimeout(() => controller.abort(), 5); await sleep(200); return { output: 'x' }; }] },
    });
    const outcome = await settled(t.invoke({}, { signal: controller.signal }));
    assert.deepEqual(outcome.error, ABORTED);
    assert.ok(!JSON.stringify(outcome).includes('raw-result'));
  });

  test('error hooks of an aborted call still run, and an async one may recover', async () => {
    const controller = new AbortController();
    controller.abort();
    const t = tool(() => 'never', {
      name: uniqueName('abort_recover'),
      hooks: { error: [async (ctx) => { await sleep(1); return { action: 'recover', result: `recovered from ${ctx.error.kind}` }; }] },
    });
    const outcome = await settled(t.invoke({}, { signal: controller.signal }));
    assert.deepEqual(outcome, { ok: true, result: { content: [{ type: 'text', text: 'recovered from aborted' }] } });
  });
});

// ------------------------------------------------------------------ timeouts

describe('hook timeouts', () => {
  const hang = () => new Promise(() => {});

  test('timeout on an entry fails a before-hook with cause timeout, promptly', async () => {
    const t = tool(() => 'never', { name: uniqueName('timeout_entry'), hooks: { before: [{ run: () => sleep(1000), timeout: 20, id: 't.slow' }] } });
    const started = performance.now();
    const outcome = await t.invoke({});
    const elapsed = performance.now() - started;
    assert.deepEqual(outcome.error, { kind: 'hook', reason: 'hook_failed', message: 'before hook "t.slow" failed (timeout)', hookId: 't.slow', cause: 'timeout' });
    assert.ok(elapsed >= 15 && elapsed < 500, `took ${elapsed} ms`);
  });

  test('the global hookTimeout applies to hooks without their own, and an entry timeout overrides it', async () => {
    configureWebMCP({ hookTimeout: 20 });
    const slow = tool(() => 'never', { name: uniqueName('timeout_global'), hooks: { before: [() => sleep(1000)] } });
    const started = performance.now();
    const outcome = await slow.invoke({});
    assert.equal(outcome.error.cause, 'timeout');
    assert.ok(performance.now() - started < 500);
    const patient = tool(() => 'done', { name: uniqueName('timeout_override'), hooks: { before: [{ run: () => sleep(60), timeout: 2000 }] } });
    assert.equal(textOf(await patient.invoke({})), 'done');
    // A global hookTimeout set after the tool was made applies too; resetWebMCP restores 5000.
    const later = tool(() => 'done', { name: uniqueName('timeout_later'), hooks: { before: [() => sleep(60)] } });
    assert.equal((await later.invoke({})).error.cause, 'timeout');
    resetWebMCP();
    assert.equal(textOf(await later.invoke({})), 'done');
  });

  test('a synchronous hook that runs past its timeout fails with cause timeout', async () => {
    const busy = () => {
      const until = performance.now() + 30;
      while (performance.now() < until);
    };
    const t = tool(() => 'never', { name: uniqueName('timeout_sync'), hooks: { before: [{ run: busy, timeout: 5 }] } });
    assert.equal((await t.invoke({})).error.cause, 'timeout');
    // The same for a toolsListed hook: the listing fails, naming the hook, with cause timeout.
    const listed = tool(() => 1, { name: uniqueName('timeout_sync_list'), description: 'd', hooks: { toolsListed: [{ run: (tools) => (busy(), tools), timeout: 5, id: 't.sync' }] } });
    await listed.register();
    try {
      await assert.rejects(listTools(), (err) => err.code === 'hook_failed' && err.message.includes('"t.sync"') && /time/i.test(err.message));
    } finally {
      await listed.unregister();
    }
  });

  test("a synchronous hook's time is its own: a slow tool or telemetry handler before it does not count, a slow hook after a fast one does", async () => {
    const busy = (ms) => () => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const quick = () => {};
    // Hook after hook: the second one's own 30 ms are past its 10 ms.
    const second = tool(() => 'never', { name: uniqueName('clock_second'), hooks: { before: [quick, { run: busy(30), timeout: 10, id: 'slow' }] } });
    assert.equal((await second.invoke({})).error.hookId, 'slow');
    // A slow synchronous tool between a before-hook and an after-hook: the after-hook is quick.
    const slowTool = tool(busy(30), { name: uniqueName('clock_tool'), hooks: { before: [{ run: quick, timeout: 10 }], after: [{ run: quick, timeout: 10 }] } });
    assert.equal((await slowTool.invoke({})).ok, true);
    // A slow telemetry handler between two hooks: the second hook is quick.
    const unsubscribe = onTelemetry((event) => {
      if (event.name === 'hook.stop') busy(30)();
    });
    try {
      const observed = tool(() => 'done', { name: uniqueName('clock_telemetry'), hooks: { before: [quick, { run: quick, timeout: 10 }] } });
      assert.equal((await observed.invoke({})).ok, true);
    } finally {
      unsubscribe();
    }
  });

  test('after (withheld), error (skipped), denied (skipped) and toolsListed (listing fails) time out too', async () => {
    const after = tool(() => 'raw', { name: uniqueName('timeout_after'), hooks: { after: [{ run: hang, timeout: 20, id: 't.a' }] } });
    assert.equal(textOf(await after.invoke({})), 'Error: result withheld (after hook "t.a" failed)');
    const error = tool(() => { throw new Error('tool error'); }, { name: uniqueName('timeout_error'), hooks: { error: [{ run: hang, timeout: 20 }, () => ({ action: 'recover', result: 'second ran' })] } });
    assert.equal(textOf(await error.invoke({})), 'second ran');
    const seen = [];
    const denied = tool(() => 'never', {
      name: uniqueName('timeout_denied'),
      hooks: { before: [() => ({ action: 'deny', message: 'no' })], denied: [{ run: hang, timeout: 20 }, (ctx) => void seen.push(ctx.reason)] },
    });
    assert.equal(textOf(await denied.invoke({})), 'Denied: no');
    assert.deepEqual(seen, ['no']);
    const listed = tool(() => 1, { name: uniqueName('timeout_list'), description: 'd', hooks: { toolsListed: [{ run: hang, timeout: 20, id: 't.l' }] } });
    await listed.register();
    await assert.rejects(listTools(), (err) => err.code === 'hook_failed' && err.message.includes('"t.l"'));
  });
});

// ------------------------------------------------------------------ onError, halt, recover, allow

describe('hook contracts', () => {
  test("onError: 'ignore' skips a failing after-hook (throw, reject, timeout, bad return)", async () => {
    const failing = [() => { throw new Error('x'); }, () => Promise.reject(new Error('x')), () => new Promise(() => {}), () => ({ action: 'halt', result: 'no' })];
    const t = tool(() => 'raw', {
      name: uniqueName('ignore_after'),
      hooks: { after: [...failing.map((run) => ({ run, onError: 'ignore', timeout: 20 })), (ctx) => ({ output: `${ctx.output}+last` })] },
    });
    assert.deepEqual(await t.invoke({}), { ok: true, result: { content: [{ type: 'text', text: 'raw+last' }] } });
  });

  test("onError: 'ignore' on an error hook: skipped like any failing error hook; the error stands", async () => {
    const ran = [];
    const t = tool(() => { throw new Error('tool broke'); }, {
      name: uniqueName('ignore_error'),
      hooks: { error: [{ run: () => { ran.push(1); throw new Error('x'); }, onError: 'ignore' }, { run: () => { ran.push(2); return 'bad'; }, onError: 'fail' }, () => void ran.push(3)] },
    });
    const outcome = await t.invoke({});
    assert.deepEqual(ran, [1, 2, 3]);
    assert.deepEqual(outcome.error, { kind: 'tool', reason: 'tool_error', message: 'tool broke' });
  });

  test('halt: the tool is not called, later before-hooks are skipped, after-hooks see the halt result', async () => {
    const order = [];
    const t = tool(() => order.push('tool'), {
      name: uniqueName('halt'),
      hooks: {
        before: [() => ({ action: 'halt', result: { cached: true } }), () => void order.push('before-2')],
        after: [(ctx) => { order.push(['after', ctx.output]); return { output: { ...ctx.output, seen: true } }; }],
      },
    });
    const outcome = await t.invoke({});
    assert.deepEqual(order, [['after', { cached: true }]]);
    assert.equal(textOf(outcome), JSON.stringify({ cached: true, seen: true }, null, 2));
    assert.equal(outcome.ok, true);
  });

  test('recover: the call counts as ok with the recovery result; later error hooks do not run', async () => {
    const order = [];
    configureWebMCP({ hooks: { error: [() => void order.push('global')] } });
    const t = tool(() => Promise.reject(new Error('down')), {
      name: uniqueName('recover'),
      hooks: { error: [(ctx) => { order.push(ctx.error.message); return { action: 'recover', result: 7 }; }] },
    });
    assert.deepEqual(await t.invoke({}), { ok: true, result: { content: [{ type: 'text', text: '7' }] } });
    assert.deepEqual(order, ['down']);
  });

  test('an allow return is a bad return for every event', async () => {
    const allows = [{ allow: true }, { action: 'allow' }, { allow: 'once', input: { x: 1 } }];
    for (const allow of allows) {
      const before = tool(() => 'tool ran', { name: uniqueName('allow_before'), hooks: { before: [() => allow] } });
      assert.equal((await before.invoke({})).error.cause, 'bad_return');

      const after = tool(() => 'raw', { name: uniqueName('allow_after'), hooks: { after: [{ run: () => allow, id: 't.allow' }] } });
      const afterOutcome = await after.invoke({});
      assert.equal(afterOutcome.error.cause, 'bad_return');
      assert.equal(textOf(afterOutcome), 'Error: result withheld (after hook "t.allow" failed)');

      const error = tool(() => { throw new Error('stands'); }, { name: uniqueName('allow_error'), hooks: { error: [() => allow] } });
      assert.equal(textOf(await error.invoke({})), 'Error: stands');

      const denied = tool(() => 'never', { name: uniqueName('allow_denied'), hooks: { before: [() => ({ action: 'deny' })], denied: [() => allow] } });
      assert.equal(textOf(await denied.invoke({})), 'Denied: Tool execution denied');

      const listed = tool(() => 1, { name: uniqueName('allow_listed'), description: 'd', hooks: { toolsListed: [(tools) => (allow.input ? tools.map((t) => ({ ...t, ...allow })) && allow : allow)] } });
      await listed.register();
      await assert.rejects(listTools(), (err) => err.code === 'hook_failed');
      listed.unregister();
    }
  });

  test('ctx holds the documented fields; ctx.contract is a frozen snapshot a hook cannot change', async () => {
    let ctxSeen;
    const t = tool(() => 'ok', {
      name: uniqueName('ctx'),
      description: 'original',
      server: 'shop',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      hooks: {
        before: [
          (ctx) => {
            ctxSeen = ctx;
            try { ctx.contract.description = 'HACKED'; } catch { /* frozen */ }
            try { ctx.contract.inputSchema.properties.a.type = 'string'; } catch { /* frozen */ }
          },
        ],
      },
    });
    await t.invoke({ a: 1 }, { principal: 'alice', taint: ['web'], assigns: { tenant: 't1' } });
    for (const key of ['invocationId', 'tool', 'contract', 'signal', 'metadata', 'input', 'serverId', 'principal', 'taint', 'assigns']) assert.ok(key in ctxSeen, key);
    assert.equal(ctxSeen.tool, t);
    assert.equal(ctxSeen.serverId, 'shop');
    assert.equal(ctxSeen.principal, 'alice');
    assert.deepEqual([...ctxSeen.taint], ['web']);
    assert.deepEqual(ctxSeen.assigns, { tenant: 't1' });
    assert.equal(t.definition.description, 'original');
    assert.equal(t.definition.inputSchema.properties.a.type, 'number');
    assert.equal(ctxSeen.contract.description, 'original');
    await t.register();
    assert.equal((await listTools()).find((d) => d.name === t.toolName).description, 'original');
  });
});

// ------------------------------------------------------------------ wrapping

describe('wrapping', () => {
  test('webmcp(existingTool, { hooks }) concatenates hooks; the original keeps its own', async () => {
    const order = [];
    const mark = (label) => () => void order.push(label);
    const t1 = tool((x) => `v${x.v}`, { name: uniqueName('rewrap'), description: 'first', hooks: { before: [mark('b1')], after: [mark('a1')] } });
    const t2 = webmcp(t1, { hooks: { before: [mark('b2')], after: [mark('a2')] } });
    made.push(t2);
    const t3 = webmcp(t2, { hooks: { before: [mark('b3')] } });
    made.push(t3);
    assert.ok(isWebMCPTool(t3));
    assert.equal(t3.toolName, t1.toolName);
    assert.equal(t3.definition.description, 'first');
    assert.equal(textOf(await t3.invoke({ v: 3 })), 'v3');
    assert.deepEqual(order, ['b1', 'b2', 'b3', 'a1', 'a2']);
    order.length = 0;
    await t1.invoke({ v: 1 });
    assert.deepEqual(order, ['b1', 'a1']);
    assert.equal(webmcp(t1), t1, 're-wrapping without options is the same tool');
  });

  test('a direct call tool(x) bypasses every hook and returns the raw value', async () => {
    const order = [];
    configureWebMCP({ hooks: { before: [() => { order.push('global'); return { action: 'deny' }; }] } });
    const t = tool(function add(x, y) { order.push('fn'); return { sum: x + y, self: this?.tag }; }, { name: uniqueName('direct'), hooks: { before: [() => { throw new Error('x'); }], after: [() => void order.push('after')] } });
    assert.deepEqual(t(2, 3), { sum: 5, self: undefined });
    assert.deepEqual(t.call({ tag: 'me' }, 1, 1), { sum: 2, self: 'me' });
    assert.deepEqual(order, ['fn', 'fn']);
    assert.equal(t.name, 'add');
    assert.equal((await t.invoke(1)).error.kind, 'denied', 'the agent path still runs the hooks');
  });

  test('global hooks configured after a tool was created still apply, and resetGlobalHooks removes them', async () => {
    const order = [];
    const t = tool(() => 'x', { name: uniqueName('late_global') });
    await t.invoke({});
    configureWebMCP({ hooks: { before: [() => void order.push('late')] } });
    await t.invoke({});
    assert.deepEqual(order, ['late']);
    resetGlobalHooks();
    await t.invoke({});
    assert.deepEqual(order, ['late']);
  });
});

// ------------------------------------------------------------------ global configuration

describe('configureWebMCP and the simple-webmcp utilities', () => {
  test('hooks concatenate, replace: true replaces, getGlobalHooks returns a copy, webmcp.configure is the same', async () => {
    const order = [];
    const a = () => void order.push('a');
    const b = () => void order.push('b');
    const c = () => void order.push('c');
    configureWebMCP({ hooks: { before: [a] } });
    webmcp.configure({ hooks: { before: [b] } });
    assert.deepEqual(getGlobalHooks(), { before: [a, b] });
    assert.equal(webmcp.getGlobalHooks, getGlobalHooks);
    const t = tool(() => 'x', { name: uniqueName('configure') });
    await t.invoke({});
    assert.deepEqual(order, ['a', 'b']);
    configureWebMCP({ hooks: { before: [c] }, replace: true });
    assert.deepEqual(getGlobalHooks(), { before: [c] });
    order.length = 0;
    await t.invoke({});
    assert.deepEqual(order, ['c']);
    const copy = getGlobalHooks();
    copy.before.push(a);
    assert.deepEqual(getGlobalHooks(), { before: [c] }, 'mutating the copy changes nothing');
    configureWebMCP({ replace: true });
    assert.deepEqual(getGlobalHooks(), {});
    order.length = 0;
    await t.invoke({});
    assert.deepEqual(order, []);
  });

  test('a refused configureWebMCP changes nothing', async () => {
    const a = () => {};
    configureWebMCP({ hooks: { before: [{ run: a, id: 'g.keep' }] }, hookTimeout: 1234 });
    assert.throws(() => configureWebMCP({ hooks: { before: [{ run: a, id: 'g.keep' }] }, replace: false }), ConfigurationError);
    assert.throws(() => configureWebMCP({ hooks: { after: [42] }, replace: true }), ConfigurationError);
    assert.throws(() => configureWebMCP({ hooks: { before: [a] }, hookTimeout: -1 }), ConfigurationError);
    assert.equal(getGlobalHooks().before.length, 1);
    const t = tool(() => 'x', { name: uniqueName('refused'), hooks: { before: [() => new Promise(() => {})] } });
    const started = performance.now();
    // hookTimeout is still 1234, not the -1 of the refused call.
    const outcome = await Promise.race([t.invoke({}), sleep(3000).then(() => 'slow')]);
    assert.equal(outcome.error.cause, 'timeout');
    assert.ok(performance.now() - started > 1000);
  });

  test('mergeHooks concatenates per event; mergeHooksOrdered orders scopes as simple-webmcp does', () => {
    const [g, s, t, g2, t2] = [1, 2, 3, 4, 5].map((n) => Object.assign(() => n, { n }));
    assert.deepEqual(mergeHooks({ before: [g], after: [g2] }, { before: [t], denied: [t2] }), { before: [g, t], after: [g2], denied: [t2] });
    assert.deepEqual(mergeHooks(undefined, { error: [s] }), { error: [s] });
    assert.deepEqual(mergeHooks({}, {}), {});
    const ordered = mergeHooksOrdered({
      globalHooks: { before: [g], after: [g], error: [g], denied: [g], toolsListed: [g] },
      scopedHooks: { before: [s], after: [s], error: [s], denied: [s], toolsListed: [s] },
      toolHooks: { before: [t, t2], after: [t, t2], error: [t], denied: [t], toolsListed: [t] },
    });
    assert.deepEqual(ordered, {
      before: [g, s, t, t2],
      after: [t, t2, s, g],
      error: [t, s, g],
      denied: [t, s, g],
      toolsListed: [g, s, t],
    });
  });

  test('genInvocationId gives unique strings', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => genInvocationId()));
    assert.equal(ids.size, 10_000);
    for (const id of [...ids].slice(0, 10)) assert.equal(typeof id, 'string');
  });
});

describe('createHookedExecute', () => {
  test('runs getHooks() in order, validate after the before-hooks, and a normalized result', async () => {
    const order = [];
    const mark = (label, ret) => (ctx) => { order.push(label); return ret?.(ctx); };
    const fn = (input, { signal }) => { order.push(['fn', input, signal instanceof AbortSignal]); return { echoed: input }; };
    const t = tool(fn, { name: uniqueName('hooked'), description: 'd' });
    const validated = [];
    const execute = createHookedExecute(fn, t, t.definition, {
      getHooks: () => mergeHooksOrdered({
        globalHooks: { before: [mark('g-before')], after: [mark('g-after')] },
        toolHooks: { before: [mark('t-before', (ctx) => ({ input: { ...ctx.input, enriched: true } }))], after: [mark('t-after')] },
      }),
      validate: (input) => {
        validated.push(input);
        if (input.bad) throw new Error('input.bad must not be set');
      },
    });
    const result = await execute({ a: 1 });
    assert.deepEqual(result, { content: [{ type: 'text', text: JSON.stringify({ echoed: { a: 1, enriched: true } }, null, 2) }] });
    assert.deepEqual(order, ['g-before', 't-before', ['fn', { a: 1, enriched: true }, true], 't-after', 'g-after']);
    assert.deepEqual(validated, [{ a: 1, enriched: true }]);
    order.length = 0;
    assert.deepEqual(await execute({ bad: true }), { content: [{ type: 'text', text: 'Error: input.bad must not be set' }], isError: true });
    assert.deepEqual(order, ['g-before', 't-before'], 'a validation failure never reaches fn');
  });

  test("the global hooks of configureWebMCP are not run a second time (getHooks already has them)", async () => {
    const order = [];
    const audit = { run: () => void order.push('audit'), id: 'g.audit' };
    configureWebMCP({ hooks: { before: [audit] } });
    const t = tool(() => 'ok', { name: uniqueName('hooked_global'), description: 'd' });
    const execute = createHookedExecute(() => 'ok', t, t.definition, {
      getHooks: () => mergeHooksOrdered({ globalHooks: getGlobalHooks(), toolHooks: { before: [() => void order.push('tool')] } }),
    });
    assert.deepEqual(await execute({}), { content: [{ type: 'text', text: 'ok' }] });
    assert.deepEqual(order, ['audit', 'tool']);
    // And configuring the same global hooks again (replace) is not a duplicate of the execute's copy.
    configureWebMCP({ hooks: { before: [audit] }, replace: true });
  });

  test('getHooks is read per call: changed hooks apply, the same hooks in a new object are reused', async () => {
    const order = [];
    let hooks = { before: [() => void order.push('one')] };
    const t = tool(() => 'ok', { name: uniqueName('hooked_per_call'), description: 'd' });
    let built = 0;
    const execute = createHookedExecute(() => 'ok', t, t.definition, { getHooks: () => { built++; return { before: [...hooks.before] }; } });
    await execute({});
    hooks = { before: [() => void order.push('two')] };
    await execute({});
    await Promise.all(Array.from({ length: 100 }, () => execute({})));
    assert.equal(built, 102);
    assert.deepEqual(order, ['one', ...Array(101).fill('two')]);
    const signal = AbortSignal.abort();
    assert.deepEqual(await execute({}, { signal }), { content: [{ type: 'text', text: 'Error: Aborted' }], isError: true });
  });
});

// ------------------------------------------------------------------ toolsListed

describe('toolsListed hooks', () => {
  test('subset, annotation, and the listing never leaks a hidden tool', async () => {
    const calls = [];
    configureWebMCP({
      hooks: {
        toolsListed: [
          (tools, ctx) => {
            calls.push(['drop', tools.map((t) => t.name), typeof ctx.invocationId]);
            ctx.metadata.mark = 'shared';
            tools[0].description = 'mutated copy';
            return tools.filter((t) => !t.name.startsWith('hidden'));
          },
          (tools, ctx) => {
            calls.push(['annotate', tools.map((t) => t.name), ctx.metadata.mark]);
            return tools.map((t) => ({ ...t, annotations: { readOnlyHint: true } }));
          },
        ],
      },
    });
    const visible = tool(() => 1, { name: uniqueName('visible'), description: 'shown' });
    const hidden = tool(() => 1, { name: uniqueName('hidden'), description: 'hidden' });
    await visible.register();
    await hidden.register();
    const listed = await listTools();
    assert.deepEqual(listed.map((t) => t.name), [visible.toolName]);
    assert.deepEqual(listed[0].annotations, { readOnlyHint: true });
    assert.equal(visible.definition.description, 'shown', 'hooks get copies');
    assert.deepEqual(calls, [
      ['drop', [visible.toolName, hidden.toolName], 'string'],
      ['annotate', [visible.toolName], 'shared'],
    ]);
  });

  test('a bad return, a throw or a rejection rejects listTools() (never an empty list)', async () => {
    const t = tool(() => 1, { name: uniqueName('listed'), description: 'd' });
    await t.register();
    const bad = [() => [{ name: 'someone_else' }], () => ({ input: 'x' }), () => { throw new Error('x'); }, async () => { throw new Error('x'); }, () => [{ name: t.toolName }, { name: t.toolName }]];
    for (const run of bad) {
      configureWebMCP({ hooks: { toolsListed: [{ run, id: 'g.lister' }] }, replace: true });
      await assert.rejects(listTools(), (err) => err instanceof WardenError && err.code === 'hook_failed' && err.message.includes('"g.lister"'));
    }
    // A value that means nothing has no effect by default, and is a bad return under 'strict'.
    configureWebMCP({ hooks: { toolsListed: [{ run: () => 'x', id: 'g.lister' }] }, replace: true });
    assert.deepEqual((await listTools()).map((d) => d.name), [t.toolName]);
    configureWebMCP({ hookReturns: 'strict' });
    await assert.rejects(listTools(), (err) => err instanceof WardenError && err.code === 'hook_failed');
    resetGlobalHooks();
    assert.deepEqual((await listTools()).map((d) => d.name), [t.toolName]);
  });
});

// ------------------------------------------------------------------ configuration errors JSON cannot express

describe('ConfigurationError for entries JSON fixtures cannot express', () => {
  const fn = () => {};
  const throwsConfig = (action, code, fragment) =>
    assert.throws(action, (err) => err instanceof ConfigurationError && err.code === code && err.message.includes(fragment));

  test('a class instance, Infinity / NaN timeouts, a Symbol id', () => {
    class Hook { run() {} }
    throwsConfig(() => webmcp(fn, { name: 'c1', hooks: { before: [new Hook()] } }), 'invalid_hook', 'not an object');
    throwsConfig(() => webmcp(fn, { name: 'c2', hooks: { after: [{ run: fn, timeout: Infinity }] } }), 'invalid_hook', 'not Infinity');
    throwsConfig(() => webmcp(fn, { name: 'c3', hooks: { after: [{ run: fn, timeout: NaN }] } }), 'invalid_hook', 'not NaN');
    throwsConfig(() => webmcp(fn, { name: 'c4', hooks: { error: [{ run: fn, id: Symbol('s') }] } }), 'invalid_hook', 'not a symbol');
    throwsConfig(() => configureWebMCP({ hooks: { denied: [{ run: fn, match: /a/, id: 7n }] } }), 'invalid_hook', 'not a BigInt');
  });

  test('no name option: snake_case of the function name; no name or a minified-looking one is refused, saying what to write', () => {
    assert.equal(webmcp(function searchProducts() {}, { description: 'd' }).toolName, 'search_products');
    const shown = Object.assign(function x() {}, { displayName: 'GetCart' });
    assert.equal(webmcp(shown).toolName, 'get_cart', 'displayName first, as simple-webmcp');
    const warnings = [];
    const warn = console.warn;
    console.warn = (message) => warnings.push(String(message));
    try {
      assert.equal(webmcp(function zap() {}).toolName, 'zap', 'three lowercase characters pass');
      assert.equal(webmcp(function zap() {}).toolName, 'zap');
    } finally {
      console.warn = warn;
    }
    assert.equal(warnings.length, 1, 'one warning per name: a minifier could have written it');
    assert.match(warnings[0], /the tool "zap" is named after its function "zap".*webmcp\(fn, \{ name: "zap"/);
    throwsConfig(() => webmcp(function I3e() {}, { description: 'd' }), 'missing_name', `the function's name "I3e" looks like a minifier's`);
    throwsConfig(() => webmcp(function aBc() {}, { description: 'd' }), 'missing_name', 'looks like a minifier');
    throwsConfig(() => webmcp(() => 1), 'missing_name', 'webmcp(fn, { name: "my_tool"');
    throwsConfig(() => webmcp(function () { return 1; }, { description: 'd' }), 'missing_name', 'the function has no name, and production builds rename functions');
    throwsConfig(() => webmcp(function hc() {}, { description: 'd' }), 'missing_name', `the function's name "hc" looks like a minifier's`);
    throwsConfig(() => webmcp(function a$b() {}, { description: 'd' }), 'missing_name', 'looks like a minifier');
    assert.equal(webmcp(function hc() {}, { name: 'find' }).toolName, 'find', 'an explicit name is never judged');
  });

  test('hooks are checked when given, not at the first call; ids that only look like default ids are fine', async () => {
    throwsConfig(() => webmcp(fn, { name: 'c5', hooks: { before: [{ run: fn, onError: 'ignore' }] } }), 'invalid_hook', '`onError` is only for after and error hooks');
    const t = tool(() => 'ok', { name: uniqueName('ids'), hooks: { before: [{ run: fn, id: 'before:x' }, { run: fn, id: 'audit:1' }, fn] } });
    assert.equal(textOf(await t.invoke({})), 'ok');
  });

  test('createHookedExecute checks its hooks too (the call rejects with the ConfigurationError)', async () => {
    const t = tool(() => 'ok', { name: uniqueName('hooked_bad'), description: 'd' });
    const execute = createHookedExecute(() => 'ok', t, t.definition, { getHooks: () => ({ before: [{ run: fn, when: 1 }] }) });
    await assert.rejects(execute({}), (err) => err instanceof ConfigurationError && err.code === 'unknown_hook_option');
  });
});
