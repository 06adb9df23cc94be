// Resources and prompts (issue 16; docs/resources-and-prompts.md) through the built package:
// options checked at once, what a read or a get answers, shaping through the core's result
// shaping, policy with approvals and grants, cancellation, a trapped core, hook contexts. The
// hook and policy fixtures they share with the core run in hooks-fixtures.test.mjs and
// policy-fixtures.test.mjs; MCP-B registration in mcp.test.mjs and test-browser/mcp-b.test.mjs.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createWarden, ConfigurationError, RegistrationError, getPrompt, readResource, webmcpPrompt, webmcpResource } from '../lib/index.js';
import { core } from '../lib/boundary/core.js';
import { internalOf } from '../lib/api/api.js';

let w;
afterEach(() => {
  w?.dispose();
  w = undefined;
});
const client = (options) => (w = createWarden(options));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('options are checked at once', () => {
  test('webmcpResource', () => {
    const c = client();
    const read = () => 'x';
    const refuses = (options, code, fragment) =>
      assert.throws(() => webmcpResource(read, { ...options, client: c }), (err) => err instanceof ConfigurationError && err.code === code && err.message.includes(fragment), JSON.stringify(options));
    refuses({ name: 'n' }, 'invalid_uri', 'uri must be a non-empty string');
    refuses({ uri: 'notes://a' }, 'missing_name', 'needs a name');
    refuses({ uri: 'not a uri', name: 'n' }, 'invalid_uri', 'uri "not a uri" is not a URI');
    refuses({ uri: 'user://{id/profile', name: 'n' }, 'invalid_uri', "has a '{' without its '}'");
    refuses({ uri: 'user://{}/profile', name: 'n' }, 'invalid_uri', 'empty or not a name');
    refuses({ uri: 'notes://a', name: 'n', colour: 'red' }, 'unknown_option', 'unknown option "colour"');
    refuses({ uri: 'notes://a', name: 'n', hooks: { before: [() => {}] } }, 'invalid_hooks', 'resourceRead hooks only, not "before"');
    refuses({ uri: 'notes://a', name: 'n', hooks: { resourceRead: [{ run: () => {}, match: 'user://{id' }] } }, 'invalid_matcher', "without its '}'");
    refuses({ uri: 'notes://a', name: 'n', shape: 'html' }, 'invalid_options', "shape must be 'llm' or false");
    assert.throws(() => webmcpResource('read', { uri: 'notes://a', name: 'n', client: c }), (err) => err.code === 'invalid_resource');
  });

  test('webmcpPrompt', async () => {
    const c = client();
    const get = () => 'x';
    const refuses = (options, code, fragment) =>
      assert.throws(() => webmcpPrompt(get, { ...options, client: c }), (err) => err instanceof ConfigurationError && err.code === code && err.message.includes(fragment), JSON.stringify(options));
    refuses({ name: 'has space' }, 'invalid_name', 'is invalid');
    refuses({}, 'invalid_name', 'is invalid');
    refuses({ name: 'p', argsSchema: [] }, 'invalid_options', 'argsSchema must be a plain object');
    refuses({ name: 'p', hooks: { promptGet: [{ run: () => {}, onError: 'ignore' }] } }, 'invalid_hook', '`onError` is only for after and error hooks');
    refuses({ name: 'p', hooks: { resourceRead: [() => {}] } }, 'invalid_hooks', 'promptGet hooks only');
    const bad = webmcpPrompt(get, { name: 'bad_schema', argsSchema: { type: 'nonsense' }, client: c });
    await assert.rejects(bad.register(), (err) => err instanceof ConfigurationError && err.code === 'invalid_schema' && err.message.includes('argsSchema is not valid JSON Schema'));
    assert.equal(bad.status, 'error');
  });
});

describe('the client option', () => {
  test('resources, prompts, reads and gets act on the client given, else on the default client', async () => {
    const c = client();
    const r = webmcpResource(() => 'mine', { uri: 'notes://mine', name: 'mine', client: c });
    await r.register();
    assert.equal((await readResource('notes://mine', { client: c })).result.contents[0].text, 'mine');
    assert.equal((await readResource('notes://mine')).error.reason, 'unknown_resource', 'the default client has no such resource');
    assert.equal((await readResource('notes://mine', { client: undefined })).error.reason, 'unknown_resource', '`client: undefined` is the default client');
    const p = webmcpPrompt(() => 'got', { name: 'mine', client: c });
    await p.register();
    assert.equal((await getPrompt('mine', {}, { client: c })).ok, true);
    c.reset();
    assert.equal(r.status, 'unregistered', 'reset() unregisters the resources and prompts of the client');
    assert.equal(p.status, 'unregistered');
  });

  test('a client not made by createWarden() is refused', async () => {
    const refused = (err) => err instanceof ConfigurationError && err.code === 'invalid_options' && err.message.includes('client must be a client made by createWarden()');
    assert.throws(() => webmcpResource(() => 'x', { uri: 'notes://a', name: 'a', client: {} }), refused);
    assert.throws(() => webmcpPrompt(() => 'x', { name: 'p', client: 'default' }), refused);
    await assert.rejects(readResource('notes://a', { client: {} }), refused);
    await assert.rejects(getPrompt('p', {}, { client: {} }), refused);
  });
});

describe('what a read or a get answers', () => {
  test('a read: a string, contents, a value as JSON, nothing', async () => {
    const c = client();
    const answers = ['plain', { contents: [{ uri: 'notes://a', text: 'as is' }] }, { n: 1 }, undefined];
    let next = 0;
    const r = webmcpResource(() => answers[next++], { uri: 'notes://a', name: 'a', mimeType: 'text/markdown', shape: false, client: c });
    assert.deepEqual((await r.read()).result, { contents: [{ uri: 'notes://a', mimeType: 'text/markdown', text: 'plain' }] });
    assert.deepEqual((await r.read()).result, { contents: [{ uri: 'notes://a', text: 'as is' }] });
    assert.deepEqual((await r.read()).result, { contents: [{ uri: 'notes://a', mimeType: 'application/json', text: '{\n  "n": 1\n}' }] });
    assert.deepEqual((await r.read()).result, { contents: [] });
  });

  test('a get: messages, a string as one user message', async () => {
    const c = client();
    const p = webmcpPrompt((args) => (args.raw ? { messages: [{ role: 'assistant', content: { type: 'text', text: 'hi' } }] } : `Summarize ${args.topic}`), { name: 'p', shape: false, client: c });
    assert.deepEqual((await p.get({ topic: 'mugs' })).result, { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize mugs' } }] });
    assert.deepEqual((await p.get({ raw: 'yes' })).result.messages, [{ role: 'assistant', content: { type: 'text', text: 'hi' } }]);
  });

  test('a URI that is not the resource\'s, or not a URI, is refused before anything runs', async () => {
    const c = client();
    let ran = 0;
    const r = webmcpResource(() => ran++, { uri: 'user://{id}/profile', name: 'profile', client: c });
    assert.deepEqual((await r.read('user://1/settings')).error.reason, 'invalid_uri');
    assert.equal((await r.read()).error.reason, 'invalid_uri', 'a template has no URI of its own to read');
    await r.register();
    assert.deepEqual(await readResource('nothing://here', { client: c }), { ok: false, error: { kind: 'not_found', reason: 'unknown_resource', message: 'Unknown resource "nothing://here"' }, text: 'Error: Unknown resource "nothing://here"' });
    assert.equal((await readResource(42, { client: c })).error.reason, 'invalid_uri');
    assert.equal((await getPrompt('nope', undefined, { client: c })).error.reason, 'unknown_prompt');
    assert.equal(ran, 0);
    assert.equal((await readResource('user://7/profile', { colour: 'red', client: c })).error.reason, 'invalid_options');
  });
});

describe('shaping through the core', () => {
  test('contents: hidden characters stripped, non-image blobs dropped, image blobs kept, provenance', async () => {
    const c = client({ serverId: 'docs' });
    const r = webmcpResource(
      () => ({
        contents: [
          { uri: 'doc://a', mimeType: 'text/plain', text: 'Read\u200b me\u202e' },
          { uri: 'doc://a/pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' },
          { uri: 'doc://a/png', mimeType: 'image/png', blob: 'iVBORw0KGgo=', _meta: { secret: 1 } },
        ],
        _meta: { dropped: true },
      }),
      { uri: 'doc://a', name: 'a', client: c },
    );
    const { result } = await r.read();
    assert.deepEqual(result.contents[0], { uri: 'doc://a', mimeType: 'text/plain', text: 'Read me' });
    assert.equal(result.contents[1].uri, 'doc://a');
    assert.match(result.contents[1].text, /application\/pdf/);
    assert.deepEqual(result.contents[2], { uri: 'doc://a/png', mimeType: 'image/png', blob: 'iVBORw0KGgo=' });
    assert.deepEqual(result.provenance, { serverId: 'docs', truncated: false, flags: ['bidi', 'zero_width', 'media_dropped'] });
    assert.equal('_meta' in result, false);
  });

  test('a read over the cap is cut, with a notice item', async () => {
    const c = client({ maxResultBytesForLlm: 20 });
    const r = webmcpResource(() => ({ contents: [{ uri: 'doc://b', text: 'x'.repeat(30) }, { uri: 'doc://c', text: 'never' }] }), { uri: 'doc://b', name: 'b', client: c });
    const { result } = await r.read();
    assert.equal(result.provenance.truncated, true);
    assert.equal(result.contents.length, 2);
    assert.ok(result.contents[0].text.length < 30, 'the first item is cut');
    assert.deepEqual(Object.keys(result.contents[1]).sort(), ['mimeType', 'text', 'uri']);
    assert.match(result.contents[1].text, /^\[truncated by the MCP client: kept \d+ of \d+ bytes\]$/);
    assert.equal(result.contents[1].uri, 'doc://b');
  });

  test('messages: roles kept in place, the description shaped, a cut ends with a user notice', async () => {
    const c = client({ maxResultBytesForLlm: 30 });
    const p = webmcpPrompt(
      () => ({
        description: 'Sum\u200bmary',
        messages: [
          { role: 'assistant', content: { type: 'text', text: 'Hi\u2066!' } },
          { role: 'system', content: { type: 'text', text: 'odd role' } },
          { role: 'user', content: { type: 'text', text: 'y'.repeat(40) } },
        ],
      }),
      { name: 'cut', client: c },
    );
    const { result } = await p.get();
    assert.equal(result.description, 'Summary');
    assert.deepEqual(result.messages[0], { role: 'assistant', content: { type: 'text', text: 'Hi!' } });
    assert.deepEqual(result.messages[1], { role: 'user', content: { type: 'text', text: 'odd role' } }, 'MCP has user and assistant only');
    assert.equal(result.provenance.truncated, true);
    const last = result.messages.at(-1);
    assert.equal(last.role, 'user');
    assert.match(last.content.text, /^\[truncated by the MCP client: /);
    assert.deepEqual([...result.provenance.flags].sort(), ['bidi', 'zero_width']);
  });

  test('messages: media a model should not get (SVG, PDF) becomes a text notice in place; a PNG passes', async () => {
    const c = client();
    const p = webmcpPrompt(
      () => ({
        messages: [
          { role: 'assistant', content: { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zy8+' } },
          { role: 'user', content: { type: 'resource', resource: { uri: 'doc://a.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' } } },
          { role: 'user', content: { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      }),
      { name: 'media', client: c },
    );
    const { result } = await p.get();
    assert.deepEqual(result.messages[0], { role: 'assistant', content: { type: 'text', text: '[image/svg+xml content removed by the MCP client]' } });
    assert.deepEqual(result.messages[1], { role: 'user', content: { type: 'text', text: '[application/pdf content removed by the MCP client]' } });
    assert.deepEqual(result.messages[2], { role: 'user', content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } });
    assert.deepEqual(result.provenance.flags, ['media_dropped']);
  });
});

describe('policy, approvals and grants', () => {
  test('an ask settled with allow: always records a grant for the URI read, not for every instance', async () => {
    const asked = [];
    const c = client({ policy: { resources: { ask: ['user://{id}/profile'] } }, onAsk: (call) => (asked.push([call.kind, call.name]), { allow: 'always' }) });
    webmcpResource((uri, params) => `user ${params.id}`, { uri: 'user://{id}/profile', name: 'profile', client: c }).register();
    await sleep(1);
    assert.equal((await readResource('user://1/profile', { client: c })).ok, true);
    assert.equal((await readResource('user://1/profile', { client: c })).ok, true);
    assert.equal((await readResource('user://2/profile', { client: c })).ok, true);
    assert.deepEqual(asked, [['resource', 'user://1/profile'], ['resource', 'user://2/profile']], 'asked once per URI');
    const grants = await c.listGrants();
    assert.deepEqual(grants.map((g) => g.tool).sort(), ['user://1/profile', 'user://2/profile']);
  });

  test('a prompt grant is named prompt:<name>, apart from a tool of the same name', async () => {
    const asked = [];
    const c = client({ policy: { ask: ['*'], prompts: { ask: ['*'] } }, onAsk: (call) => (asked.push(call.kind ?? 'tool'), { allow: 'always' }) });
    const p = webmcpPrompt(() => 'p', { name: 'same', client: c });
    const t = c.webmcp(() => 't', { name: 'same', description: 'A tool.' });
    await p.get();
    await p.get();
    assert.equal((await t.invoke({})).ok, true);
    assert.equal((await t.invoke({})).ok, true);
    assert.deepEqual(asked, ['prompt', 'tool']);
    assert.deepEqual((await c.listGrants()).map((g) => g.tool).sort(), ['prompt:same', 'same']);
  });

  test('the approver may deny; no approver denies an ask', async () => {
    const c = client({ policy: { prompts: { ask: ['*'] } }, onAsk: () => ({ deny: 'Not now.' }) });
    const p = webmcpPrompt(() => 'p', { name: 'asked', client: c });
    assert.deepEqual(await p.get(), { ok: false, error: (await p.get()).error, text: 'Denied: Not now.' });
    c.configure({ onAsk: null });
    assert.equal((await p.get()).error.reason, 'no_approver');
  });
});

describe('cancellation, deadlines and a trapped core', () => {
  test("an aborted read aborts the read's signal and ends as aborted", async () => {
    const c = client();
    let aborted = false;
    const r = webmcpResource((uri, params, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve((aborted = true)))), { uri: 'slow://x', name: 'slow', client: c });
    const controller = new AbortController();
    const pending = r.read(undefined, { signal: controller.signal });
    await sleep(5);
    controller.abort();
    assert.deepEqual((await pending).error, { kind: 'aborted', reason: 'aborted', message: 'Aborted' });
    assert.equal(aborted, true);
    const timed = await r.read(undefined, { timeout: 10 });
    assert.equal(timed.error.reason, 'timeout');
  });

  test('after a wasm trap, resources and prompts keep their hooks (the client replays them)', async () => {
    const c = client({ hooks: { promptGet: [(ctx) => ({ args: { ...ctx.args, n: String(Number(ctx.args.n) + 1) } })] } });
    const p = webmcpPrompt((args) => `n=${args.n}`, { name: 'count', hooks: { promptGet: [(ctx) => ({ args: { ...ctx.args, n: String(Number(ctx.args.n) * 10) } })] }, client: c });
    const r = webmcpResource(() => 'read', { uri: 'notes://x', name: 'x', hooks: { resourceRead: [() => ({ action: 'deny' })] }, client: c });
    assert.equal((await p.get({ n: '1' })).result.messages[0].content.text, 'n=20');
    assert.throws(() => core.testTrap());
    assert.equal((await p.get({ n: '1' })).result.messages[0].content.text, 'n=20', 'global then own hook, after the trap too');
    assert.equal((await r.read()).text, 'Denied: Resource read denied');
  });
});

describe('hook contexts', () => {
  test('resourceRead sees the URI, the template variables and the resource; promptGet the name, args and prompt', async () => {
    const seen = {};
    const c = client({
      hooks: {
        resourceRead: [(ctx) => void (seen.read = ctx)],
        promptGet: [(ctx) => void (seen.get = ctx)],
      },
    });
    const r = webmcpResource(() => 'x', { uri: 'user://{id}/profile', name: 'profile', description: 'A profile.', client: c });
    const p = webmcpPrompt(() => 'x', { name: 'summarize', argsSchema: { type: 'object' }, client: c });
    await r.read('user://5/profile', { principal: 'alice', assigns: { a: 1 } });
    await p.get({ topic: 'mugs' });
    assert.equal(seen.read.uri, 'user://5/profile');
    assert.deepEqual(seen.read.params, { id: '5' });
    assert.deepEqual(seen.read.resource, { uri: 'user://{id}/profile', name: 'profile', description: 'A profile.' });
    assert.ok(Object.isFrozen(seen.read.resource));
    assert.equal(seen.read.principal, 'alice');
    assert.deepEqual(seen.read.assigns, { a: 1 });
    assert.ok(seen.read.signal instanceof AbortSignal);
    assert.equal(seen.read.serverId, 'page');
    assert.equal(seen.get.name, 'summarize');
    assert.deepEqual(seen.get.args, { topic: 'mugs' });
    assert.deepEqual(seen.get.prompt, { name: 'summarize', argsSchema: { type: 'object' } });
  });
});

describe('a template variable named __proto__', () => {
  test('arrives as an ordinary own property (in the read, its hooks and the policy); nothing is polluted', async () => {
    const seen = {};
    const c = client({
      policy: { resources: { deny: [{ match: '*', when: { arg: '/__proto__', equals: 'admin' }, reason: 'no admin notes' }], allow: ['*'] } },
      hooks: { resourceRead: [(ctx) => void (seen.hook = ctx.params)] },
    });
    const r = webmcpResource((uri, params) => ((seen.read = params), `note ${params.__proto__}/${params.id}`), { uri: 'note://{__proto__}/{id}', name: 'note', client: c });
    const read = await r.read('note://mine/7');
    assert.equal(read.result.contents[0].text, 'note mine/7');
    for (const params of [seen.read, seen.hook]) {
      assert.ok(Object.hasOwn(params, '__proto__'), JSON.stringify(Object.keys(params)));
      assert.deepEqual(Object.keys(params), ['__proto__', 'id']);
      assert.equal(Object.getPrototypeOf(params), Object.prototype);
      assert.equal(params.__proto__, 'mine');
    }
    // The policy reads it as it reads any variable.
    assert.equal((await r.read('note://admin/1')).text, 'Denied: no admin notes');
    assert.equal({}.id, undefined);
    assert.equal(Object.prototype.__proto__, null);
  });
});

describe('registration', () => {
  test('without a runtime that has resources or prompts: unsupported, still readable in-page; duplicates refused', async () => {
    const c = client();
    const r = webmcpResource(() => 'x', { uri: 'notes://dup', name: 'a', client: c });
    await r.register();
    assert.equal(r.status, 'unsupported');
    const twin = webmcpResource(() => 'y', { uri: 'notes://dup', name: 'b', client: c });
    await assert.rejects(twin.register(), (err) => err instanceof RegistrationError && err.code === 'duplicate_name');
    assert.equal((await readResource('notes://dup', { client: c })).result.contents[0].text, 'x');
    r.unregister();
    assert.equal(r.status, 'unregistered');
    assert.equal((await readResource('notes://dup', { client: c })).error.reason, 'unknown_resource');
    const p = webmcpPrompt(() => 'x', { name: 'once', client: c });
    const unregister = await p.register();
    assert.equal(await p.register(), unregister, 'a second register() answers the live registration');
    unregister();
    assert.equal((await getPrompt('once', undefined, { client: c })).error.reason, 'unknown_prompt');
  });

  test('a disposed client drops what its core held and refuses new prompts', async () => {
    const c = createWarden();
    webmcpResource(() => 'x', { uri: 'notes://a', name: 'a', hooks: { resourceRead: [() => {}] }, client: c });
    assert.equal(internalOf(c).counts().hooks, 1, "the resource's hook is in the core");
    c.dispose();
    assert.throws(() => internalOf(c).counts(), (err) => err.code === 'disposed', 'the engine is gone');
    assert.throws(() => webmcpPrompt(() => 'x', { name: 'after', client: c }), (err) => err.code === 'disposed');
  });
});

describe('bad input is refused as data', () => {
  test('a URI longer than the core tests, a tool given gate hooks', async () => {
    const c = client();
    const r = webmcpResource(() => 'x', { uri: 'notes://{+path}', name: 'notes', client: c });
    const long = 'notes://' + 'a'.repeat(70_000);
    const outcome = await r.read(long);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error.reason, 'invalid_uri');
    assert.match(outcome.text, /longer than 65536/);
    assert.throws(() => c.webmcp(() => 1, { name: 't', hooks: { resourceRead: [() => {}] } }), (err) => err.code === 'invalid_hooks' && err.message.includes('no resourceRead hooks'));
  });
});
