// The hook fixtures of tests/fixtures/hooks/ (issue 3), run through the BUILT package: the same
// files `cargo test --test hooks_fixtures` runs against the core. Each fixture hook becomes a
// real JS hook (see tests/fixtures/hooks/README.md), each case runs through `tool.invoke` and
// through `register()` + `invokeTool`, and the outcome must match the fixture exactly: the order
// hooks ran in, ok, the error object, and the text the agent reads.
//
// Build first: `npm run build -w pkg-js` (or `WASM_OPT=0 node pkg-js/build.mjs`).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import {
  webmcp,
  configureWebMCP,
  getGlobalHooks,
  invokeTool,
  listTools,
  onTelemetry,
  resetWebMCP,
  webmcpResource,
  webmcpPrompt,
  readResource,
  getPrompt,
  CallFailure,
  ConfigurationError,
  WardenError,
} from 'webmcp-warden';
import { captureConsole, clone, loadFixture, never, settled } from '../test-support/helpers.mjs';

const load = (file) => {
  const cases = loadFixture(`hooks/${file}`).cases;
  assert.ok(cases.length > 0, `${file} has no cases`);
  return cases;
};

const OPTION_KEYS = ['match', 'id', 'timeout', 'onError'];
const EVENTS = ['before', 'after', 'error', 'denied', 'toolsListed', 'resourceRead', 'promptGet'];
const later = (fn) => new Promise((resolve, reject) => setTimeout(() => { try { resolve(fn()); } catch (err) { reject(err); } }, 0));

// ------------------------------------------------------------------ console and warnings

/** Everything written to the console or emitted as a process warning while the file runs. */
const written = [];
let restoreConsole;
before(() => {
  restoreConsole = captureConsole(written);
});
after(() => restoreConsole());

// ------------------------------------------------------------------ making hooks from fixtures

function toMatcher(match) {
  if (match && typeof match === 'object') {
    if (match.regex) return new RegExp(match.regex.source, match.regex.flags);
    return Object.fromEntries(Object.entries(match).map(([k, v]) => [k, v && v.regex ? new RegExp(v.regex.source, v.regex.flags) : v]));
  }
  return match;
}

/** What a fixture hook does when called. */
function behave(spec, rec, args) {
  const does = spec.do ?? 'nothing';
  const secret = () => new Error(`SECRET-${spec.label}`);
  if (does === 'nothing') return undefined;
  if (does === 'throw') throw secret();
  if (does === 'reject') return later(() => { throw secret(); });
  if (does === 'hang') return never();
  if (does === 'abort') {
    rec.controller.abort();
    return undefined;
  }
  if (does === 'abortAndHang') {
    rec.controller.abort();
    return never();
  }
  if ('return' in does) return fixtureValue(does.return);
  if ('resolve' in does) return later(() => fixtureValue(does.resolve));
  const [tools] = args;
  if ('keep' in does) return tools.filter((tool) => does.keep.includes(tool.name));
  if ('annotate' in does) return tools.map((tool) => ({ ...tool, annotations: clone(does.annotate) }));
  throw new Error(`unknown fixture behaviour ${JSON.stringify(does)}`);
}

/** A fixture value as JS: a copy, with the string `"$undefined"` standing for `undefined`. */
function fixtureValue(value) {
  if (value === '$undefined') return undefined;
  if (Array.isArray(value)) return value.map(fixtureValue);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fixtureValue(v)]));
  return value;
}

/** A fixture hook as a real hook entry: a bare function, or `{ run, ...options }`. */
function makeHook(spec, event, rec) {
  const run = (...args) => {
    rec.order.push(spec.label);
    if (event !== 'toolsListed') {
      const [ctx] = args;
      rec.metadata.add(ctx.metadata);
      rec.invocationIds.add(ctx.invocationId);
      assert.equal(ctx.signal, rec.signal, 'ctx.signal is the call signal');
      const seen = event === 'promptGet' ? { args: clone(ctx.args) } : event === 'resourceRead' ? { uri: ctx.uri } : { input: clone(ctx.input) };
      if (event === 'after') seen.output = clone(ctx.output);
      if (event === 'error') {
        seen.error = { kind: ctx.error instanceof CallFailure ? ctx.error.kind : 'thrown', message: ctx.error?.message };
        // Everything the error hook can reach, non-enumerable properties (an error's message,
        // stack and cause) and getters included: what must stay withheld must not be in it.
        rec.errorCtx.push(inspect(ctx, { depth: Infinity, showHidden: true, getters: true, maxArrayLength: Infinity, maxStringLength: Infinity, breakLength: Infinity }));
      }
      if (event === 'denied') Object.assign(seen, { reason: ctx.reason, code: ctx.code });
      rec.seen[spec.label] = seen;
    }
    return behave(spec, rec, args);
  };
  const objectForm = spec.form === 'object' || OPTION_KEYS.some((key) => spec[key] !== undefined);
  if (!objectForm) return run;
  const entry = { run };
  for (const key of OPTION_KEYS) {
    if (spec[key] !== undefined) entry[key] = key === 'match' ? toMatcher(spec.match) : spec[key];
  }
  return entry;
}

function makeSet(set, rec) {
  const hooks = {};
  for (const event of EVENTS) {
    if (set[event]) hooks[event] = set[event].map((spec) => makeHook(spec, event, rec));
  }
  return hooks;
}

function makeToolFn(does, rec) {
  return (input, extra) => {
    rec.order.push('tool');
    rec.toolInput = clone(input);
    assert.equal(extra?.signal, rec.signal, 'the tool gets the call signal as fn(input, { signal })');
    if (does === 'echo') return input;
    if (does === 'abortAndHang') {
      rec.controller.abort();
      return never();
    }
    if ('return' in does) return clone(does.return);
    if ('throw' in does) throw new Error(does.throw);
    if ('reject' in does) return later(() => { throw new Error(does.reject); });
    throw new Error(`unknown tool behaviour ${JSON.stringify(does)}`);
  };
}

function newRecord() {
  const controller = new AbortController();
  return { order: [], seen: {}, controller, signal: controller.signal, metadata: new Set(), invocationIds: new Set(), toolInput: undefined, badReturns: [], errorCtx: [] };
}

function configure(c, rec, { globals }) {
  const settings = {};
  if (c.config?.hookTimeout !== undefined) settings.hookTimeout = c.config.hookTimeout;
  if (c.config?.serverId !== undefined) settings.serverId = c.config.serverId;
  if (c.config?.hookReturns !== undefined) settings.hookReturns = c.config.hookReturns;
  if (Object.keys(settings).length) configureWebMCP(settings);
  if (globals) for (const set of c.global ?? []) configureWebMCP({ hooks: makeSet(set, rec) });
}

/** `webmcp(fn, { hooks: first })`, then `webmcp(tool, { hooks })` for every further set. */
function makeTool(spec, fn, rec) {
  const [first, ...rest] = spec.hooks ?? [];
  const options = { name: spec.name, description: `fixture tool ${spec.name}` };
  if (spec.server !== undefined) options.server = spec.server;
  if (first !== undefined) options.hooks = makeSet(first, rec);
  let tool = webmcp(fn, options);
  for (const set of rest) tool = webmcp(tool, { hooks: makeSet(set, rec) });
  return tool;
}

// ------------------------------------------------------------------ running cases

async function runCall(c, path) {
  resetWebMCP();
  const rec = newRecord();
  const toolFirst = c.toolFirst === true;
  configure(c, rec, { globals: !toolFirst });
  const tool = makeTool(c.tool, makeToolFn(c.toolDoes ?? 'echo', rec), rec);
  if (toolFirst) configure({ global: c.global }, rec, { globals: true });
  if (c.abortBefore) rec.controller.abort();
  const input = c.input === undefined ? { q: 1 } : clone(c.input);
  const before = written.length;
  // The hooks the core judged a bad return (`hook.exception`, cause `bad_return`), in order.
  const unsubscribe = onTelemetry((event) => {
    if (event.name === 'hook.exception' && event.cause === 'bad_return') rec.badReturns.push(event.hookId);
  });
  let outcome;
  try {
    if (path === 'invoke') {
      outcome = await settled(tool.invoke(input, { signal: rec.signal }));
    } else {
      await tool.register();
      outcome = await settled(invokeTool(c.tool.name, input, { signal: rec.signal }));
    }
  } finally {
    unsubscribe();
    tool.unregister();
  }
  return { outcome, rec, output: written.slice(before) };
}

function checkCall(c, { outcome, rec, output }) {
  const expect = c.expect;
  assert.deepEqual(rec.order, expect.order, 'order');
  assert.equal(outcome.ok, expect.ok, `ok (error: ${JSON.stringify(outcome.error)})`);
  assert.equal(outcome.result.content[0].text, expect.text, 'agent-visible text');
  assert.equal(outcome.result.isError, expect.ok ? undefined : true, 'isError');
  if (expect.ok) assert.equal(outcome.error, undefined);
  else assert.deepEqual(outcome.error, expect.error, 'error');
  if ('toolInput' in expect) assert.deepEqual(rec.toolInput, fixtureValue(expect.toolInput), 'tool input');
  for (const [label, want] of Object.entries(expect.seen ?? {})) {
    assert.ok(rec.seen[label], `hook ${label} ran`);
    for (const [key, value] of Object.entries(want)) assert.deepEqual(rec.seen[label][key], value, `${label} saw ${key}`);
  }
  assert.ok(rec.metadata.size <= 1, 'one metadata object per call, shared by every hook');
  assert.ok(rec.invocationIds.size <= 1, 'one invocationId per call');
  const json = JSON.stringify(outcome);
  assert.ok(!json.includes('SECRET'), `a hook's thrown message or a withheld result leaked: ${json}`);
  for (const text of expect.absent ?? []) {
    assert.ok(!json.includes(text), `${text} leaked`);
    for (const ctx of rec.errorCtx) assert.ok(!ctx.includes(text), `${text} reached an error hook: ${ctx}`);
  }
  if ('badReturns' in expect) assert.deepEqual(rec.badReturns, expect.badReturns, 'hooks judged a bad return');
  assert.ok(!output.some((line) => line.includes('SECRET')), `console output leaked a secret: ${output.join('\n')}`);
}

async function runListing(c) {
  resetWebMCP();
  const rec = newRecord();
  configure(c, rec, { globals: true });
  const tools = [];
  try {
    for (const spec of c.tools) {
      const tool = makeTool(spec, () => 'unused', rec);
      tools.push(tool);
      await tool.register();
    }
    const expect = c.expect;
    if (expect.fails !== undefined) {
      await assert.rejects(settled(listTools()), (err) => {
        assert.ok(err instanceof WardenError, `a WardenError, not ${err}`);
        assert.equal(err.code, 'hook_failed');
        assert.ok(err.message.includes(`"${expect.fails}"`), `names the hook: ${err.message}`);
        assert.ok(!err.message.includes('SECRET'), 'never quotes what the hook threw');
        return true;
      });
    } else {
      const listed = await settled(listTools());
      assert.deepEqual(listed.map((tool) => tool.name), expect.names, 'listed names');
      const annotations = Object.fromEntries(listed.filter((tool) => tool.annotations).map((tool) => [tool.name, tool.annotations]));
      assert.deepEqual(annotations, expect.annotations ?? {}, 'annotations');
    }
    assert.deepEqual(rec.order, expect.order, 'order');
  } finally {
    for (const tool of tools) tool.unregister();
  }
}

function defineCallCases(file, cases) {
  describe(file, () => {
    for (const c of cases) {
      if (c.scoped) {
        test(c.name, { skip: 'provider scopes come from the React layer: cargo test runs this case, the Chromium React tests (test-browser/react.test.mjs) run providers' }, () => {});
        continue;
      }
      if (c.kind === 'listing') {
        test(c.name, () => runListing(c));
        continue;
      }
      test(c.name, async (t) => {
        for (const path of ['invoke', 'invokeTool']) {
          await t.test(path, async () => checkCall(c, await runCall(c, path)));
        }
      });
    }
  });
}

defineCallCases('order.json', load('order.json'));
defineCallCases('returns.json', load('returns.json'));
defineCallCases('failures.json', load('failures.json'));

/** A matcher case as a call case, exactly as tests/hooks_fixtures.rs builds it. */
function matcherCall(c) {
  return {
    name: c.name,
    config: c.config ?? {},
    global: [{ before: c.hooks, after: c.hooks.map((h) => ({ ...h, label: `${h.label}@after` })) }],
    tool: c.tool,
    expect: { order: [...c.run, 'tool', ...c.after.map((label) => `${label}@after`)], ok: true, text: '{\n  "q": 1\n}' },
  };
}
defineCallCases('matchers.json', load('matchers.json').map(matcherCall));

// ------------------------------------------------------------------ resources and prompts

/** Runs a `subjects.json` case through `webmcpResource` / `webmcpPrompt` and `readResource` / `getPrompt` (after `register()`), or the object's own `read` / `get`. */
async function runSubject(c, path) {
  resetWebMCP();
  const rec = newRecord();
  configure(c, rec, { globals: true });
  const spec = c.kind === 'resource' ? c.resource : c.prompt;
  const does = c.subjectDoes;
  const run = (input) => {
    rec.order.push(c.kind === 'resource' ? 'read' : 'get');
    rec.toolInput = clone(input);
    if (does?.throw) throw new Error(does.throw);
    return c.kind === 'resource' ? 'contents' : 'a prompt';
  };
  const [first] = spec.hooks ?? [];
  const options = { name: spec.name, description: `fixture ${c.kind}` };
  if (spec.server !== undefined) options.server = spec.server;
  if (first !== undefined) options.hooks = makeSet(first, rec);
  if (c.abortBefore) rec.controller.abort();
  const before = written.length;
  let outcome;
  let subject;
  if (c.kind === 'resource') {
    subject = webmcpResource((uri, params, extra) => {
      assert.ok(uri instanceof URL, 'read gets a URL');
      assert.equal(uri.href, c.read);
      assert.equal(extra?.signal, rec.signal, 'the read gets the call signal');
      return run(params);
    }, { ...options, uri: spec.uri });
  } else {
    subject = webmcpPrompt((args, extra) => {
      assert.equal(extra?.signal, rec.signal, 'the get gets the call signal');
      return run(args);
    }, options);
  }
  try {
    if (path === 'own') {
      outcome = await settled(c.kind === 'resource' ? subject.read(c.read, { signal: rec.signal }) : subject.get(clone(c.args), { signal: rec.signal }));
    } else {
      await subject.register();
      assert.equal(subject.status, 'unsupported', 'Node has no runtime with resources or prompts');
      outcome = await settled(c.kind === 'resource' ? readResource(c.read, { signal: rec.signal }) : getPrompt(spec.name, clone(c.args), { signal: rec.signal }));
    }
  } finally {
    subject.unregister();
  }
  return { outcome, rec, output: written.slice(before) };
}

function checkSubject(c, { outcome, rec, output }) {
  const expect = c.expect;
  assert.deepEqual(rec.order, expect.order, 'order');
  assert.equal(outcome.ok, expect.ok, `ok (error: ${JSON.stringify(outcome.error)})`);
  if (expect.ok) {
    assert.equal(outcome.error, undefined);
    if (c.kind === 'resource') assert.deepEqual(outcome.result.contents.map((item) => item.text), ['contents']);
    else assert.deepEqual(outcome.result.messages.map((m) => [m.role, m.content.text]), [['user', 'a prompt']]);
  } else {
    assert.deepEqual(outcome.error, expect.error, 'error');
    assert.equal(outcome.text, expect.text, 'agent-visible text');
  }
  if ('args' in expect) assert.deepEqual(rec.toolInput, expect.args, 'the get received');
  for (const [label, want] of Object.entries(expect.seen ?? {})) {
    assert.ok(rec.seen[label], `hook ${label} ran`);
    for (const [key, value] of Object.entries(want)) assert.deepEqual(rec.seen[label][key], value, `${label} saw ${key}`);
  }
  assert.ok(rec.metadata.size <= 1, 'one metadata object per call');
  assert.ok(rec.invocationIds.size <= 1, 'one invocationId per call');
  const json = JSON.stringify(outcome);
  assert.ok(!json.includes('SECRET'), `a hook's thrown message leaked: ${json}`);
  assert.ok(!output.some((line) => line.includes('SECRET')), `console output leaked a secret: ${output.join('\n')}`);
}

describe('subjects.json', () => {
  for (const c of load('subjects.json')) {
    if (c.scoped) {
      test(c.name, { skip: 'provider scopes come from the React layer: cargo test runs this case, the Chromium MCP-B test (test-browser/mcp-b.test.mjs, React) shows the order global → provider → own' }, () => {});
      continue;
    }
    test(c.name, async (t) => {
      for (const path of ['own', 'registered']) {
        await t.test(path, async () => checkSubject(c, await runSubject(c, path)));
      }
    });
  }
});

// ------------------------------------------------------------------ configuration errors

function materialize(template) {
  if (template === '$fn') return () => {};
  if (Array.isArray(template)) return template.map(materialize);
  if (template !== null && typeof template === 'object') {
    if (template.$regex) return new RegExp(template.$regex.source, template.$regex.flags);
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, materialize(value)]));
  }
  return template;
}

function checkConfigError(err, expect) {
  assert.ok(err instanceof ConfigurationError, `a ConfigurationError, not ${err?.name}: ${err?.message}`);
  assert.ok(err instanceof WardenError);
  if (expect.code !== undefined) assert.equal(err.code, expect.code, 'code');
  else assert.ok(typeof err.code === 'string' && err.code.length > 0, 'a code');
  assert.equal(err.path, expect.path ?? undefined, 'path');
  assert.ok(err.message.includes(expect.message), `message ${JSON.stringify(err.message)} lacks ${JSON.stringify(expect.message)}`);
  return true;
}

describe('config.json', () => {
  for (const c of load('config.json')) {
    test(c.name, async () => {
      resetWebMCP();
      const fn = function cfg() {};
      const hooks = materialize(c.hooks);
      const first = materialize(c.first);
      const options = { name: 'cfg', description: 'config fixture' };
      let globalsBefore;
      const rejects = (action) => assert.throws(action, (err) => checkConfigError(err, c.expect));
      switch (c.at) {
        case 'webmcp':
          rejects(() => webmcp(fn, { ...options, hooks }));
          break;
        case 'configure':
          globalsBefore = getGlobalHooks();
          rejects(() => configureWebMCP({ hooks }));
          assert.deepEqual(getGlobalHooks(), globalsBefore, 'a refused configuration changes nothing');
          break;
        case 'configureTwice':
          configureWebMCP({ hooks: first });
          globalsBefore = getGlobalHooks();
          rejects(() => configureWebMCP({ hooks }));
          assert.deepEqual(getGlobalHooks(), globalsBefore, 'a refused configuration changes nothing');
          break;
        case 'globalThenTool':
          configureWebMCP({ hooks: first });
          rejects(() => webmcp(fn, { ...options, hooks }));
          break;
        case 'toolThenGlobal': {
          webmcp(fn, { ...options, hooks: first });
          globalsBefore = getGlobalHooks();
          rejects(() => configureWebMCP({ hooks }));
          assert.deepEqual(getGlobalHooks(), globalsBefore, 'a refused configuration changes nothing');
          break;
        }
        case 'rewrap': {
          const tool = webmcp(fn, { ...options, hooks: first });
          rejects(() => webmcp(tool, { hooks }));
          break;
        }
        case 'toolName':
          rejects(() => webmcp(fn, { name: c.toolName, description: 'x' }));
          break;
        case 'register': {
          const tool = webmcp(fn, c.description === undefined ? { name: c.toolName } : { name: c.toolName, description: c.description });
          await assert.rejects(tool.register(), (err) => checkConfigError(err, c.expect));
          assert.equal(tool.status, 'error');
          assert.ok(tool.error instanceof ConfigurationError);
          break;
        }
        default:
          assert.fail(`unknown config case kind ${c.at}`);
      }
    });
  }
});

test('the console got one diagnostic per hook and cause (a bad return says what it may return), never a value, and nothing else', () => {
  const badReturns = written.filter((line) => line.includes('returned a value outside its contract'));
  assert.ok(badReturns.length > 0, 'the bad returns of the fixtures were warned about');
  for (const line of written) {
    assert.match(line, /^webmcp-warden: (before|after|error|denied|toolsListed|resourceRead|promptGet) hook "[^"]*" \(tools? "[^"]*"\) (threw|ran past its deadline|returned a value outside its contract|was removed while the call waited for it)(,| \(\d+ ms\),) so .*\. (Fix: |It may return )/);
    assert.ok(!line.includes('SECRET'), line);
  }
  for (const line of badReturns) assert.match(line, /It may return /);
  assert.equal(new Set(written).size, written.length, 'each hook and cause is written once');
});
