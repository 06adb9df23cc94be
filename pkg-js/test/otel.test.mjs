// `webmcp-warden/otel` through the BUILT package, with the real OpenTelemetry API and SDK
// (@opentelemetry/sdk-trace-base's in-memory exporter): one `execute_tool <name>` span per
// governed call following the GenAI conventions, its kind, attributes and status for every way a
// call ends, the approval wait and the tool run as child spans, hooks and the decision as span
// events, the parent taken when the agent path was entered (with Node's async context manager and
// with a browser-like one that only follows synchronous code), payloads only when asked, and
// isolation (a broken tracer never fails a call).
//
// Build first: `npm run build -w pkg-js` (or `node pkg-js/build.mjs`).
import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { context, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { configureWebMCP, createWarden, invokeTool, resetWebMCP } from 'webmcp-warden';
import { APPROVAL_SPAN_NAME, GEN_AI_SEMCONV_VERSION, SEMCONV_SCHEMA_URL, TOOL_RUN_SPAN_NAME, instrumentWebMCP } from 'webmcp-warden/otel';
import { sleep, toolMaker } from '../test-support/helpers.mjs';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('otel-test');
const asyncContext = new AsyncLocalStorageContextManager().enable();
context.setGlobalContextManager(asyncContext);

const tool = toolMaker((n) => ({ name: `otel_${n}`, description: 'an otel test tool' }));
beforeEach(() => exporter.reset());

/** Every finished span, by name. */
const spans = () => exporter.getFinishedSpans();
const named = (name) => spans().filter((s) => s.name === name);
/** The one `execute_tool` span. */
function callSpan() {
  const calls = spans().filter((s) => s.name.startsWith('execute_tool '));
  assert.equal(calls.length, 1, `exactly one execute_tool span, got ${spans().map((s) => s.name).join(', ')}`);
  return calls[0];
}
const parentOf = (span) => span.parentSpanContext?.spanId;
const idOf = (span) => span.spanContext().spanId;
/** The span's `webmcp_warden.*` and `gen_ai.*` / `error.type` attributes. */
const attrs = (span) => ({ ...span.attributes });
const eventsOf = (span, name) => span.events.filter((e) => e.name === name);
const ms = (hrTime) => hrTime[0] * 1000 + hrTime[1] / 1e6;
/** Everything a span (and its events) would export, as text: for "never appears" checks. */
const exported = (span) => JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events, status: span.status });

const GEN_AI_CALL = (name, id) => ({
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': name,
  'gen_ai.tool.call.id': id,
  'gen_ai.tool.type': 'function',
});
const PAYLOAD_KEYS = ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'];

describe('the execute_tool span of each way a call ends', () => {
  test('an allowed call: name, kind, GenAI attributes, the decision, shaping, UNSET status, the tool run as a child', async () => {
    configureWebMCP({ serverId: 'shop', policy: { allow: [{ match: 'shop/otel_*', id: 'reads' }] } });
    instrumentWebMCP({ tracer });
    let invocationId;
    const t = tool((input) => `found ${input.q}\u200b`, { hooks: { before: [{ id: 'seen', run: (ctx) => void (invocationId = ctx.invocationId) }] } });
    const outcome = await t.invoke({ q: 'mugs' });
    assert.equal(outcome.ok, true);

    const span = callSpan();
    assert.equal(span.name, `execute_tool ${t.toolName}`);
    assert.equal(span.kind, SpanKind.INTERNAL);
    assert.deepEqual(span.status, { code: SpanStatusCode.UNSET });
    assert.deepEqual(attrs(span), {
      ...GEN_AI_CALL(t.toolName, invocationId),
      'webmcp_warden.server.id': 'shop',
      'webmcp_warden.outcome.kind': 'ok',
      'webmcp_warden.decision.effect': 'allow',
      'webmcp_warden.decision.reason': 'rule',
      'webmcp_warden.decision.rule.list': 'allow',
      'webmcp_warden.decision.rule.index': 0,
      'webmcp_warden.decision.rule.id': 'reads',
      'webmcp_warden.tool.outcome': 'returned',
      'webmcp_warden.shape.flags': ['zero_width'],
      'webmcp_warden.shape.truncated': false,
    });
    assert.equal(parentOf(span), undefined, 'no span was active: the call is a root');

    const [hook] = eventsOf(span, 'webmcp_warden.hook');
    const { 'webmcp_warden.hook.duration_ms': hookMs, ...hookAttrs } = hook.attributes;
    assert.deepEqual(hookAttrs, { 'webmcp_warden.hook.id': 'seen', 'webmcp_warden.hook.event': 'before', 'webmcp_warden.hook.outcome': 'cont' });
    assert.ok(typeof hookMs === 'number' && hookMs >= 0);
    const [decision] = eventsOf(span, 'webmcp_warden.policy.decision');
    assert.equal(decision.attributes['webmcp_warden.decision.explanation'], 'Allowed by allow[0] ("reads").');
    assert.equal(decision.attributes['webmcp_warden.decision.rule.id'], 'reads');
    // The hook ran before the policy decided; both lie within the span.
    assert.ok(ms(hook.time) <= ms(decision.time));
    for (const e of span.events) assert.ok(ms(e.time) >= ms(span.startTime) && ms(e.time) <= ms(span.endTime), `${e.name} lies within the span`);

    const [run] = named(TOOL_RUN_SPAN_NAME);
    assert.equal(parentOf(run), idOf(span));
    assert.equal(run.spanContext().traceId, span.spanContext().traceId);
    assert.equal(run.kind, SpanKind.INTERNAL);
    assert.deepEqual(attrs(run), { 'webmcp_warden.tool.outcome': 'returned' });
    assert.deepEqual(run.status, { code: SpanStatusCode.UNSET });
    assert.ok(ms(run.startTime) >= ms(span.startTime) && ms(run.endTime) <= ms(span.endTime));
    assert.equal(named(APPROVAL_SPAN_NAME).length, 0, 'nobody was asked');
    for (const key of PAYLOAD_KEYS) assert.ok(!(key in span.attributes), `${key} is not recorded unless asked`);
  });

  test('a hook denial: ERROR with error.type "denied", the hook as an event, no tool run', async () => {
    instrumentWebMCP({ tracer });
    const t = tool(() => 'never', { hooks: { before: [{ id: 'gate', run: () => ({ action: 'deny', message: 'not now' }) }] } });
    const outcome = await t.invoke({});
    assert.deepEqual([outcome.error.kind, outcome.error.reason], ['denied', 'hook_denied']);
    const span = callSpan();
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: 'hook_denied' });
    assert.equal(span.attributes['error.type'], 'denied');
    assert.equal(span.attributes['webmcp_warden.outcome.kind'], 'denied');
    assert.equal(span.attributes['webmcp_warden.outcome.reason'], 'hook_denied');
    assert.deepEqual(eventsOf(span, 'webmcp_warden.hook').map((e) => [e.attributes['webmcp_warden.hook.id'], e.attributes['webmcp_warden.hook.outcome']]), [['gate', 'deny']]);
    assert.equal(named(TOOL_RUN_SPAN_NAME).length, 0);
    assert.ok(!('webmcp_warden.tool.outcome' in span.attributes));
  });

  test('a policy denial: the deciding rule, ERROR with error.type "denied" and reason "rule"', async () => {
    configureWebMCP({ policy: { deny: [{ match: 'otel_*', id: 'no-otel', reason: 'Not for agents.' }], allow: ['*'] } });
    instrumentWebMCP({ tracer });
    const outcome = await tool(() => 'never').invoke({});
    assert.equal(outcome.result.content[0].text, 'Denied: Not for agents.');
    const span = callSpan();
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: 'rule' });
    assert.equal(span.attributes['error.type'], 'denied');
    assert.deepEqual(
      ['effect', 'reason', 'rule.list', 'rule.index', 'rule.id'].map((k) => span.attributes[`webmcp_warden.decision.${k}`]),
      ['deny', 'rule', 'deny', 0, 'no-otel'],
    );
    assert.equal(eventsOf(span, 'webmcp_warden.policy.decision').length, 1);
    assert.equal(named(TOOL_RUN_SPAN_NAME).length, 0);
  });

  test('an ask a person approves: the wait is its own span, before the tool run, as long as the person took', async () => {
    configureWebMCP({ policy: { ask: [{ match: '*', id: 'ask-all' }] }, onAsk: async () => { await sleep(40); return { allow: 'once' }; } });
    instrumentWebMCP({ tracer });
    const outcome = await tool(() => 'paid').invoke({});
    assert.equal(outcome.ok, true);
    const span = callSpan();
    assert.deepEqual(span.status, { code: SpanStatusCode.UNSET });
    assert.equal(span.attributes['webmcp_warden.decision.effect'], 'ask');
    assert.equal(span.attributes['webmcp_warden.approval.outcome'], 'allow_once');
    const [approval] = named(APPROVAL_SPAN_NAME);
    const [run] = named(TOOL_RUN_SPAN_NAME);
    assert.equal(approval.kind, SpanKind.INTERNAL);
    assert.equal(parentOf(approval), idOf(span));
    assert.equal(parentOf(run), idOf(span));
    assert.deepEqual(attrs(approval), { 'webmcp_warden.approval.outcome': 'allow_once' });
    assert.deepEqual(approval.status, { code: SpanStatusCode.UNSET });
    const waited = ms(approval.endTime) - ms(approval.startTime);
    assert.ok(waited >= 35, `the approval span lasts the wait (${waited} ms)`);
    assert.ok(ms(approval.endTime) <= ms(run.startTime), 'the tool ran after the person said yes');
    const [decision] = eventsOf(span, 'webmcp_warden.policy.decision');
    assert.ok(ms(decision.time) <= ms(approval.startTime) + 1, 'the decision came before the wait');
  });

  test('an ask a person denies: the approval span ends with the answer, the call is ERROR "denied"/"ask_denied"', async () => {
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: () => ({ deny: 'not today' }) });
    instrumentWebMCP({ tracer });
    const outcome = await tool(() => 'never').invoke({});
    assert.equal(outcome.error.reason, 'ask_denied');
    const span = callSpan();
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: 'ask_denied' });
    assert.equal(span.attributes['error.type'], 'denied');
    const [approval] = named(APPROVAL_SPAN_NAME);
    assert.equal(parentOf(approval), idOf(span));
    assert.equal(approval.attributes['webmcp_warden.approval.outcome'], 'deny');
    assert.deepEqual(approval.status, { code: SpanStatusCode.UNSET }, 'a person who says no answered: not an error of the wait');
    assert.equal(named(TOOL_RUN_SPAN_NAME).length, 0);
    assert.ok(!exported(span).includes('not today') && !exported(approval).includes('not today'), "the approver's reason is the caller's");
  });

  test('an approver that never answers: the approval span is ERROR "timeout"', async () => {
    configureWebMCP({ policy: { ask: ['*'] }, askTimeout: 20, onAsk: () => new Promise(() => {}) });
    instrumentWebMCP({ tracer });
    const outcome = await tool(() => 'never').invoke({});
    assert.equal(outcome.error.reason, 'ask_failed');
    const [approval] = named(APPROVAL_SPAN_NAME);
    assert.deepEqual(approval.status, { code: SpanStatusCode.ERROR, message: 'timeout' });
    assert.equal(approval.attributes['error.type'], 'timeout');
    assert.ok(ms(approval.endTime) - ms(approval.startTime) >= 15);
  });

  test('a validation failure: counts and keywords, never the values; the tool does not run', async () => {
    const SECRET = `value-${Math.random().toString(36).slice(2)}`;
    instrumentWebMCP({ tracer });
    const t = tool(() => 'never', { inputSchema: { type: 'object', properties: { q: { type: 'integer' }, n: { type: 'integer' } }, required: ['q', 'n', 'm'] } });
    const outcome = await t.invoke({ q: SECRET, n: `${SECRET}-2` });
    assert.deepEqual([outcome.error.kind, outcome.error.reason], ['validation', 'invalid_arguments']);
    const span = callSpan();
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: 'invalid_arguments' });
    assert.equal(span.attributes['error.type'], 'validation');
    assert.equal(span.attributes['webmcp_warden.validation.input.ok'], false);
    assert.equal(span.attributes['webmcp_warden.validation.input.failures'], 3);
    assert.deepEqual([...span.attributes['webmcp_warden.validation.input.keywords']].sort(), ['required', 'type']);
    assert.equal(named(TOOL_RUN_SPAN_NAME).length, 0);
    assert.ok(!exported(span).includes(SECRET), 'no argument value reaches the span');
  });

  test('a valid call records validation ok for input and output', async () => {
    instrumentWebMCP({ tracer });
    const t = tool(() => ({ content: [{ type: 'text', text: 'ok' }], structuredContent: { n: 1 } }), {
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
    });
    await t.invoke({});
    const span = callSpan();
    assert.equal(span.attributes['webmcp_warden.validation.input.ok'], true);
    assert.equal(span.attributes['webmcp_warden.validation.output.ok'], true);
    assert.ok(!('webmcp_warden.validation.input.failures' in span.attributes));
  });

  test('a tool error: the run span and the call are ERROR, and what the tool threw is nowhere', async () => {
    const SECRET = `thrown-${Math.random().toString(36).slice(2)}`;
    instrumentWebMCP({ tracer });
    const outcome = await tool(async () => {
      await sleep(5);
      throw new TypeError(SECRET);
    }).invoke({});
    assert.deepEqual([outcome.error.kind, outcome.error.reason], ['tool', 'tool_error']);
    const span = callSpan();
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: 'tool_error' });
    assert.equal(span.attributes['error.type'], 'tool');
    assert.equal(span.attributes['webmcp_warden.tool.outcome'], 'threw');
    const [run] = named(TOOL_RUN_SPAN_NAME);
    assert.deepEqual(run.status, { code: SpanStatusCode.ERROR, message: 'threw' });
    assert.equal(run.attributes['error.type'], 'threw');
    assert.ok(ms(run.endTime) - ms(run.startTime) >= 4);
    for (const s of spans()) assert.ok(!exported(s).includes(SECRET), `${s.name} quotes what the tool threw`);
  });

  test('an aborted call: ERROR "aborted", the run span aborted, an abort event', async () => {
    instrumentWebMCP({ tracer });
    const controller = new AbortController();
    const t = tool((_input, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    const pending = t.invoke({}, { signal: controller.signal });
    await sleep(10);
    controller.abort();
    const outcome = await pending;
    assert.equal(outcome.error.kind, 'aborted');
    const span = callSpan();
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: outcome.error.reason });
    assert.equal(span.attributes['error.type'], 'aborted');
    const [run] = named(TOOL_RUN_SPAN_NAME);
    assert.equal(run.attributes['webmcp_warden.tool.outcome'], 'aborted');
    assert.deepEqual(run.status, { code: SpanStatusCode.ERROR, message: 'aborted' });
  });

  test('an abort between hooks shows as an abort event', async () => {
    instrumentWebMCP({ tracer });
    const controller = new AbortController();
    const t = tool(() => 'never', { hooks: { before: [{ id: 'aborts', run: () => void controller.abort() }, { id: 'not-run', run: () => {} }] } });
    const outcome = await t.invoke({}, { signal: controller.signal });
    assert.equal(outcome.error.kind, 'aborted');
    const span = callSpan();
    assert.equal(eventsOf(span, 'webmcp_warden.aborted').length, 1);
    assert.deepEqual(eventsOf(span, 'webmcp_warden.hook').map((e) => e.attributes['webmcp_warden.hook.id']), ['aborts']);
    assert.equal(named(TOOL_RUN_SPAN_NAME).length, 0);
  });

  test('hooks: every one an event with its outcome; a skipped failure says so; what a hook threw never appears', async () => {
    const SECRET = `hook-${Math.random().toString(36).slice(2)}`;
    instrumentWebMCP({ tracer, capturePayloads: true });
    const t = tool(() => 'ok', {
      hooks: {
        before: [{ id: 'b1', run: () => {} }, { id: 'b2', run: ({ input }) => ({ input: { ...input, extra: 1 } }) }],
        after: [{ id: 'optional', onError: 'ignore', run: () => { throw new Error(SECRET); } }],
      },
    });
    await t.invoke({});
    const span = callSpan();
    assert.deepEqual(
      eventsOf(span, 'webmcp_warden.hook').map((e) => [e.attributes['webmcp_warden.hook.event'], e.attributes['webmcp_warden.hook.id'], e.attributes['webmcp_warden.hook.outcome'], e.attributes['webmcp_warden.hook.skipped']]),
      [['before', 'b1', 'cont', undefined], ['before', 'b2', 'rewrite', undefined], ['after', 'optional', 'raise', true]],
    );
    const times = eventsOf(span, 'webmcp_warden.hook').map((e) => ms(e.time));
    assert.deepEqual(times, [...times].sort((a, b) => a - b), 'hook events are in the order the hooks ran');
    for (const s of spans()) assert.ok(!exported(s).includes(SECRET), `${s.name} quotes what a hook threw`);
  });
});

describe('parents and children', () => {
  test("an in-page agent's span wraps the call; the call's spans wrap what hooks and the tool do (async context)", async () => {
    instrumentWebMCP({ tracer });
    const t = tool(async () => {
      await sleep(5);
      // After an await: only an async context manager still knows the tool run is active.
      tracer.startSpan('db.query').end();
      return 'ok';
    }, { hooks: { before: [{ id: 'log', run: () => void tracer.startSpan('hook.work').end() }] } });
    await t.register();
    await tracer.startActiveSpan('invoke_agent shop-assistant', async (agent) => {
      await sleep(1);
      await invokeTool(t.toolName, {});
      agent.end();
    });
    const [agent] = named('invoke_agent shop-assistant');
    const span = callSpan();
    assert.equal(parentOf(span), idOf(agent), 'the agent span is the parent of execute_tool');
    assert.equal(span.spanContext().traceId, agent.spanContext().traceId);
    const [run] = named(TOOL_RUN_SPAN_NAME);
    assert.equal(parentOf(named('db.query')[0]), idOf(run), "the tool's own span is a child of the tool run");
    assert.equal(parentOf(named('hook.work')[0]), idOf(span), "a hook's span is a child of the call");
    t.unregister();
  });

  test('concurrent calls each get their own span and children', async () => {
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: async (call) => { await sleep(call.arguments.wait); return { allow: 'once' }; } });
    instrumentWebMCP({ tracer });
    const t = tool(async ({ wait }) => { await sleep(wait); return 'ok'; });
    const results = await Promise.all([tracer.startActiveSpan('agent-a', async (s) => { await t.invoke({ wait: 30 }); s.end(); }), tracer.startActiveSpan('agent-b', async (s) => { await t.invoke({ wait: 5 }); s.end(); })]);
    assert.equal(results.length, 2);
    const calls = spans().filter((s) => s.name.startsWith('execute_tool '));
    assert.equal(calls.length, 2);
    const ids = new Set(calls.map(idOf));
    for (const agentName of ['agent-a', 'agent-b']) {
      const [agent] = named(agentName);
      const [call] = calls.filter((c) => parentOf(c) === idOf(agent));
      assert.ok(call, `${agentName} wraps one call`);
      const children = spans().filter((s) => parentOf(s) === idOf(call)).map((s) => s.name).sort();
      assert.deepEqual(children, [APPROVAL_SPAN_NAME, TOOL_RUN_SPAN_NAME]);
    }
    assert.equal(ids.size, 2);
  });

  describe('with a context manager that only follows synchronous code (the browser default)', () => {
    /** What the web SDK's StackContextManager does: a context is active only while `with` runs. */
    class SyncOnlyContextManager {
      current = ROOT_CONTEXT;
      active() {
        return this.current;
      }
      with(ctx, fn, thisArg, ...args) {
        const previous = this.current;
        this.current = ctx;
        try {
          return fn.call(thisArg, ...args);
        } finally {
          this.current = previous;
        }
      }
      bind(_ctx, target) {
        return target;
      }
      enable() {
        return this;
      }
      disable() {
        this.current = ROOT_CONTEXT;
        return this;
      }
    }
    before(() => {
      context.disable();
      context.setGlobalContextManager(new SyncOnlyContextManager());
    });
    after(() => {
      context.disable();
      context.setGlobalContextManager(asyncContext);
    });

    test('the parent is the span active when the call was entered, though the call goes on asynchronously', async () => {
      instrumentWebMCP({ tracer });
      let spanInTool;
      const t = tool(async () => {
        // Synchronously at the tool's start, its run span is active even here.
        spanInTool = trace.getActiveSpan();
        tracer.startSpan('fetch').end();
        await sleep(5);
        return 'ok';
      }, { hooks: { before: [async () => { await sleep(5); }] } });
      const agent = tracer.startSpan('invoke_agent page-agent');
      const pending = context.with(trace.setSpan(ROOT_CONTEXT, agent), () => t.invoke({}));
      assert.equal(trace.getActiveSpan(), undefined, 'the agent span is no longer active once the call is under way');
      await pending;
      agent.end();
      const span = callSpan();
      assert.equal(parentOf(span), idOf(agent));
      const [run] = named(TOOL_RUN_SPAN_NAME);
      assert.equal(spanInTool?.spanContext().spanId, idOf(run));
      assert.equal(parentOf(named('fetch')[0]), idOf(run));
    });

    test('a call entered with no active span is a root', async () => {
      instrumentWebMCP({ tracer });
      await tool(() => 'ok').invoke({});
      assert.equal(parentOf(callSpan()), undefined);
    });
  });
});

describe('payloads', () => {
  const ARG = `arg-${Math.random().toString(36).slice(2)}`;
  const RESULT = `result-${Math.random().toString(36).slice(2)}`;

  test('none by default, even when the client captures payloads for onTelemetry', async () => {
    configureWebMCP({ capturePayloads: true });
    instrumentWebMCP({ tracer });
    await tool((input) => `${RESULT} for ${input.q}`).invoke({ q: ARG });
    for (const s of spans()) {
      for (const key of PAYLOAD_KEYS) assert.ok(!(key in s.attributes), `${s.name} has ${key}`);
      assert.ok(!exported(s).includes(ARG) && !exported(s).includes(RESULT), `${s.name} holds a payload`);
    }
  });

  test('with capturePayloads: the arguments the tool received and the result received, as JSON text', async () => {
    instrumentWebMCP({ tracer, capturePayloads: true });
    const outcome = await tool((input) => `${RESULT} for ${input.q}`, { hooks: { before: [({ input }) => ({ input: { q: `${input.q}!` } })] } }).invoke({ q: ARG });
    const span = callSpan();
    assert.equal(span.attributes['gen_ai.tool.call.arguments'], JSON.stringify({ q: `${ARG}!` }), 'the arguments the tool received, after the rewrite');
    assert.deepEqual(JSON.parse(span.attributes['gen_ai.tool.call.result']), outcome.result, 'the result the caller received');
    for (const s of spans().filter((s) => s !== span)) assert.ok(!exported(s).includes(ARG), `${s.name} holds a payload`);
  });

  test('with capturePayloads, a failed call records its arguments but no result', async () => {
    instrumentWebMCP({ tracer, capturePayloads: true });
    await tool(() => { throw new Error('broken'); }).invoke({ q: ARG });
    const span = callSpan();
    assert.equal(span.attributes['gen_ai.tool.call.arguments'], JSON.stringify({ q: ARG }));
    assert.ok(!('gen_ai.tool.call.result' in span.attributes));
  });

  test('arguments JSON cannot say are a notice, and the call goes on', async () => {
    instrumentWebMCP({ tracer, capturePayloads: true });
    const cyclic = { a: 1 };
    cyclic.self = cyclic;
    const outcome = await tool(() => 'ok', { shape: false }).invoke(cyclic);
    assert.equal(outcome.ok, true);
    assert.equal(callSpan().attributes['gen_ai.tool.call.arguments'], '[payload omitted by webmcp-warden: it has no JSON form]');
  });

  test('a refused 10 MB argument is a notice of a bounded size, not a 10 MB attribute; a large result too', async () => {
    instrumentWebMCP({ tracer, capturePayloads: true });
    const huge = 'x'.repeat(10_000_000);
    const refused = await tool(() => 'never', { inputSchema: { type: 'object', properties: { q: { type: 'string', maxLength: 10 } } } }).invoke({ q: huge });
    assert.equal(refused.ok, false);
    const attribute = callSpan().attributes['gen_ai.tool.call.arguments'];
    assert.ok(attribute.length < 200, `${attribute.length} characters`);
    assert.match(attribute, /longer than \d+ characters/);
    exporter.reset();
    await tool(() => huge.slice(0, 100_000), { shape: false }).invoke({});
    assert.ok(callSpan().attributes['gen_ai.tool.call.result'].length < 200);
    exporter.reset();
    // Just under the cap is recorded whole.
    await tool(() => 'ok', { shape: false }).invoke({ q: 'y'.repeat(16_000) });
    assert.equal(callSpan().attributes['gen_ai.tool.call.arguments'], JSON.stringify({ q: 'y'.repeat(16_000) }));
  });

  test('redact(value, where) decides what is recorded: a copy to change, undefined for nothing, a throw a notice', async () => {
    const seen = [];
    instrumentWebMCP({
      tracer,
      capturePayloads: true,
      redact: (value, where) => {
        seen.push(where);
        if (where === 'arguments') {
          delete value.card;
          return value;
        }
        value.content[0].text = '[redacted]';
        return value;
      },
    });
    const outcome = await tool(() => 'the secret result', { shape: false }).invoke({ q: 'ok', card: '4111' });
    assert.equal(outcome.result.content[0].text, 'the secret result', "the caller's result is untouched: redact got a copy");
    const span = callSpan();
    assert.equal(span.attributes['gen_ai.tool.call.arguments'], JSON.stringify({ q: 'ok' }));
    assert.ok(!span.attributes['gen_ai.tool.call.result'].includes('secret'));
    assert.deepEqual(seen, ['arguments', 'result']);
    resetWebMCP();
    exporter.reset();
    instrumentWebMCP({ tracer, capturePayloads: true, redact: (value, where) => (where === 'arguments' ? undefined : (() => { throw new Error('secret redactor bug'); })()) });
    await tool(() => 'r', { shape: false }).invoke({ q: 1 });
    const quiet = callSpan();
    assert.ok(!('gen_ai.tool.call.arguments' in quiet.attributes), 'undefined: nothing recorded');
    assert.match(quiet.attributes['gen_ai.tool.call.result'], /redact threw/);
    assert.ok(!exported(quiet).includes('secret redactor bug'));
    assert.throws(() => instrumentWebMCP({ redact: 'no' }), /redact must be a function/);
  });
});

describe('setup and isolation', () => {
  test('the default tracer comes from the global provider, with the pinned conventions schema URL', async () => {
    assert.equal(GEN_AI_SEMCONV_VERSION, '1.41.0');
    assert.equal(SEMCONV_SCHEMA_URL, 'https://opentelemetry.io/schemas/1.41.0');
    trace.setGlobalTracerProvider(provider);
    try {
      instrumentWebMCP();
      await tool(() => 'ok').invoke({});
      const scope = callSpan().instrumentationScope;
      assert.equal(scope.name, 'webmcp-warden');
      assert.equal(scope.schemaUrl, SEMCONV_SCHEMA_URL);
    } finally {
      trace.disable();
    }
  });

  test('the returned function stops tracing; a call in flight still ends its span', async () => {
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: async () => { await sleep(20); return { allow: 'once' }; } });
    const stop = instrumentWebMCP({ tracer });
    const t = tool(() => 'ok');
    const inFlight = t.invoke({});
    await sleep(5);
    stop();
    stop();
    const outcome = await inFlight;
    assert.equal(outcome.ok, true);
    const span = callSpan();
    assert.ok(span.endTime[0] > 0, 'ended');
    assert.equal(span.attributes['webmcp_warden.outcome.kind'], 'ok');
    assert.equal(named(APPROVAL_SPAN_NAME).length, 1);
    exporter.reset();
    await t.invoke({});
    assert.equal(spans().length, 0, 'no span once tracing stopped');
  });

  test('resetWebMCP removes the instrumentation, as it removes telemetry subscribers', async () => {
    instrumentWebMCP({ tracer });
    resetWebMCP();
    await tool(() => 'ok').invoke({});
    assert.equal(spans().length, 0);
  });

  test('a client of its own: only its calls are traced', async () => {
    const client = createWarden();
    try {
      const stop = instrumentWebMCP({ tracer, client });
      const mine = client.webmcp(() => 'mine', { name: 'otel_mine', description: 'a tool of the client' });
      await mine.invoke({});
      await tool(() => 'default client').invoke({});
      assert.equal(callSpan().name, 'execute_tool otel_mine');
      stop();
    } finally {
      client.dispose();
    }
  });

  test('calls that started before instrumenting and listings make no span', async () => {
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: async () => { await sleep(15); return { allow: 'once' }; }, hooks: { toolsListed: [{ id: 'list', run: () => {} }] } });
    const t = tool(() => 'ok');
    await t.register();
    const early = t.invoke({});
    await sleep(2);
    instrumentWebMCP({ tracer });
    await early;
    const { listTools } = await import('webmcp-warden');
    await listTools();
    assert.equal(spans().length, 0);
    t.unregister();
  });

  test('bad options throw a TypeError', () => {
    assert.throws(() => instrumentWebMCP({ tracr: tracer }), TypeError);
    assert.throws(() => instrumentWebMCP({ tracer: {} }), TypeError);
    assert.throws(() => instrumentWebMCP({ capturePayloads: 'yes' }), TypeError);
    assert.throws(() => instrumentWebMCP({ client: {} }), TypeError);
    assert.throws(() => instrumentWebMCP(null), TypeError);
  });

  test('a tracer that throws never fails a call, and the call still runs exactly once', async () => {
    let runs = 0;
    instrumentWebMCP({ tracer: { startSpan: () => { throw new Error('tracer bug'); }, startActiveSpan: () => { throw new Error('tracer bug'); } } });
    const outcome = await tool(() => `ran ${++runs}`, { shape: false }).invoke({});
    assert.deepEqual(outcome, { ok: true, result: { content: [{ type: 'text', text: 'ran 1' }] } });
    assert.equal(runs, 1);
  });

  test('a span whose methods throw never fails a call (steps run once; approval and tool included)', async () => {
    configureWebMCP({ policy: { ask: ['*'] }, onAsk: () => ({ allow: 'once' }) });
    const broken = new Proxy({}, { get: () => () => { throw new Error('span bug'); } });
    let children = 0;
    const flaky = {
      startSpan: (name) => {
        if (name === APPROVAL_SPAN_NAME || name === TOOL_RUN_SPAN_NAME) children += 1;
        return name.startsWith('execute_tool') ? tracer.startSpan(name) : broken;
      },
    };
    instrumentWebMCP({ tracer: flaky });
    let runs = 0;
    const outcome = await tool(() => `ran ${++runs}`, { shape: false }).invoke({});
    assert.equal(outcome.ok, true, JSON.stringify(outcome));
    assert.equal(runs, 1);
    assert.equal(children, 2);
  });
});
