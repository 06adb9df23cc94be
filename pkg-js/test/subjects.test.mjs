// Resources and prompts (issue 16; docs/resources-and-prompts.md) through the built package:
// options checked at once, what a read or a get answers, shaping through the core's result
// shaping, policy with approvals and grants, cancellation, a trapped core, hook contexts. The
// hook and policy fixtures they share with the core run in hooks-fixtures.test.mjs and
// policy-fixtures.test.mjs; MCP-B registration in mcp.test.mjs and test-browser/mcp-b.test.mjs.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createWarden, ConfigurationError, RegistrationError } from 'webmcp-warden';
import { core } from '../dist/core.js';

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
      assert.throws(() => c.webmcpResource(read, options), (err) => err instanceof ConfigurationError && err.code === code && err.message.includes(fragment), JSON.stringify(options));
    refuses({ name: 'n' }, 'invalid_uri', 'uri must be a non-empty string');
    refuses({ uri: 'notes://a' }, 'missing_name', 'needs a name');
    refuses({ uri: 'not a uri', name: 'n' }, 'invalid_uri', 'it is not a URI');
    refuses({ uri: 'user://{id/profile', name: 'n' }, 'invalid_uri', "has a '{' without its '}'");
    refuses({ uri: 'user://{}/profile', name: 'n' }, 'invalid_uri', 'empty or not a name');
    refuses({ uri: 'notes://a', name: 'n', colour: 'red' }, 'unknown_option', 'unknown option "colour"');
    refuses({ uri: 'notes://a', name: 'n', hooks: { before: [() => {}] } }, 'invalid_hooks', 'resourceRead hooks only, not "before"');
    refuses({ uri: 'notes://a', name: 'n', hooks: { resourceRead: [{ run: () => {}, match: 'user://{id' }] } }, 'invalid_matcher', "without its '}'");
    refuses({ uri: 'notes://a', name: 'n', shape: 'html' }, 'invalid_options', "shape must be 'llm' or false");
    assert.throws(() => c.webmcpResource('read', { uri: 'notes://a', name: 'n' }), (err) => err.code === 'invalid_resource');
  });

  test('webmcpPrompt', async () => {
    const c = client();
    const get = () => 'x';
    const refuses = (options, code, fragment) =>
      assert.throws(() => c.webmcpPrompt(get, options), (err) => err instanceof ConfigurationError && err.code === code && err.message.includes(fragment), JSON.stringify(options));
    refuses({ name: 'has space' }, 'invalid_name', 'is invalid');
    refuses({}, 'invalid_name', 'is invalid');
    refuses({ name: 'p', argsSchema: [] }, 'invalid_options', 'argsSchema must be a plain object');
    refuses({ name: 'p', hooks: { promptGet: [{ run: () => {}, onError: 'ignore' }] } }, 'invalid_hook', '`onError` is only for after and error hooks');
    refuses({ name: 'p', hooks: { resourceRead: [() => {}] } }, 'invalid_hooks', 'promptGet hooks only');
    const bad = c.webmcpPrompt(get, { name: 'bad_schema', argsSchema: { type: 'nonsense' } });
    await assert.rejects(bad.register(), (err) => err instanceof ConfigurationError && err.code === 'invalid_schema' && err.message.includes('argsSchema is not valid JSON Schema'));
    assert.equal(bad.status, 'error');
  });
});

describe('what a read or a get answers', () => {
  test('a read: a string, contents, a value as JSON, nothing', async () => {
    const c = client();
    const answers = ['plain', { contents: [{ uri: 'notes://a', text: 'as is' }] }, { n: 1 }, undefined];
    let next = 0;
    const r = c.webmcpResource(() => answers[next++], { uri: 'notes://a', name: 'a', mimeType: 'text/markdown', shape: false });
    assert.deepEqual((await r.read()).result, { contents: [{ uri: 'notes://a', mimeType: 'text/markdown', text: 'plain' }] });
    assert.deepEqual((await r.read()).result, { contents: [{ uri: 'notes://a', text: 'as is' }] });
    assert.deepEqual((await r.read()).result, { contents: [{ uri: 'notes://a', mimeType: 'application/json', text: '{\n  "n": 1\n}' }] });
    assert.deepEqual((await r.read()).result, { contents: [] });
  });

  test('a get: messages, a string as one user message', async () => {
    const c = client();
    const p = c.webmcpPrompt((args) => (args.raw ? { messages: [{ role: 'assistant', content: { type: 'text', text: 'hi' } }] } : `Summarize ${args.topic}`), { name: 'p', shape: false });
    assert.deepEqual((await p.get({ topic: 'mugs' })).result, { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize mugs' } }] });
    assert.deepEqual((await p.get({ raw: 'yes' })).result.messages, [{ role: 'assistant', content: { type: 'text', text: 'hi' } }]);
  });

  test('a URI that is not the resource\'s, or not a URI, is refused before anything runs', async () => {
    const c = client();
    let ran = 0;
    const r = c.webmcpResource(() => ran++, { uri: 'user://{id}/profile', name: 'profile' });
    assert.deepEqual((await r.read('user://1/settings')).error.reason, 'invalid_uri');
    assert.equal((await r.read()).error.reason, 'invalid_uri', 'a template has no URI of its own to read');
    await r.register();
    assert.deepEqual(await c.readResource('nothing://here'), { ok: false, error: { kind: 'not_found', reason: 'unknown_resource', message: 'Unknown resource "nothing://here"' }, text: 'Error: Unknown resource "nothing://here"' });
    assert.equal((await c.readResource(42)).error.reason, 'invalid_uri');
    assert.equal((await c.getPrompt('nope')).error.reason, 'unknown_prompt');
    assert.equal(ran, 0);
    assert.equal((await c.readResource('user://7/profile', { colour: 'red' })).error.reason, 'invalid_options');
  });
});

describe('shaping through the core', () => {
  test('contents: hidden characters stripped, non-image blobs dropped, image blobs kept, provenance', async () => {
    const c = client({ serverId: 'docs' });
    const r = c.webmcpResource(
      () => ({
        contents: [
          { uri: 'doc://a', mimeType: 'text/plain', text: 'Read\u200b me\u202e' },
          { uri: 'doc://a/pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' },
          { uri: 'doc://a/png', mimeType: 'image/png', blob: 'iVBORw0KGgo=', _meta: { secret: 1 } },
        ],
        _meta: { dropped: true },
      }),
      { uri: 'doc://a', name: 'a' },
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
    const r = c.webmcpResource(() => ({ contents: [{ uri: 'doc://b', text: 'x'.repeat(30) }, { uri: 'doc://c', text: 'never' }] }), { uri: 'doc://b', name: 'b' });
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
    const p = c.webmcpPrompt(
      () => ({
        description: 'Sum\u200bmary',
        messages: [
          { role: 'assistant', content: { type: 'text', text: 'Hi\u2066!' } },
          { role: 'system', content: { type: 'text', text: 'odd role' } },
          { role: 'user', content: { type: 'text', text: 'y'.repeat(40) } },
        ],
      }),
      { name: 'cut' },
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
});

describe('policy, approvals and grants', () => {
  test('an ask settled with allow: always records a grant for the URI read, not for every instance', async () => {
    const asked = [];
    const c = client({ policy: { resources: { ask: ['user://{id}/profile'] } }, onAsk: (call) => (asked.push([call.kind, call.name]), { allow: 'always' }) });
    c.webmcpResource((uri, params) => `user ${params.id}`, { uri: 'user://{id}/profile', name: 'profile' }).register();
    await sleep(1);
    assert.equal((await c.readResource('user://1/profile')).ok, true);
    assert.equal((await c.readResource('user://1/profile')).ok, true);
    assert.equal((await c.readResource('user://2/profile')).ok, true);
    assert.deepEqual(asked, [['resource', 'user://1/profile'], ['resource', 'user://2/profile']], 'asked once per URI');
    const grants = await c.listGrants();
    assert.deepEqual(grants.map((g) => g.tool).sort(), ['user://1/profile', 'user://2/profile']);
  });

  test('a prompt grant is named prompt:<name>, apart from a tool of the same name', async () => {
    const asked = [];
    const c = client({ policy: { ask: ['*'], prompts: { ask: ['*'] } }, onAsk: (call) => (asked.push(call.kind ?? 'tool'), { allow: 'always' }) });
    const p = c.webmcpPrompt(() => 'p', { name: 'same' });
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
    const p = c.webmcpPrompt(() => 'p', { name: 'asked' });
    assert.deepEqual(await p.get(), { ok: false, error: (await p.get()).error, text: 'Denied: Not now.' });
    c.configure({ onAsk: null });
    assert.equal((await p.get()).error.reason, 'no_approver');
  });
});

describe('cancellation, deadlines and a trapped core', () => {
  test("an aborted read aborts the read's signal and ends as aborted", async () => {
    const c = client();
    let aborted = false;
    const r = c.webmcpResource((uri, params, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve((aborted = true)))), { uri: 'slow://x', name: 'slow' });
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
    const p = c.webmcpPrompt((args) => `n=${args.n}`, { name: 'count', hooks: { promptGet: [(ctx) => ({ args: { ...ctx.args, n: String(Number(ctx.args.n) * 10) } })] } });
    const r = c.webmcpResource(() => 'read', { uri: 'notes://x', name: 'x', hooks: { resourceRead: [() => ({ action: 'deny' })] } });
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
    const r = c.webmcpResource(() => 'x', { uri: 'user://{id}/profile', name: 'profile', description: 'A profile.' });
    const p = c.webmcpPrompt(() => 'x', { name: 'summarize', argsSchema: { type: 'object' } });
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

describe('registration', () => {
  test('without a runtime that has resources or prompts: unsupported, still readable in-page; duplicates refused', async () => {
    const c = client();
    const r = c.webmcpResource(() => 'x', { uri: 'notes://dup', name: 'a' });
    await r.register();
    assert.equal(r.status, 'unsupported');
    const twin = c.webmcpResource(() => 'y', { uri: 'notes://dup', name: 'b' });
    await assert.rejects(twin.register(), (err) => err instanceof RegistrationError && err.code === 'duplicate_name');
    assert.equal((await c.readResource('notes://dup')).result.contents[0].text, 'x');
    r.unregister();
    assert.equal(r.status, 'unregistered');
    assert.equal((await c.readResource('notes://dup')).error.reason, 'unknown_resource');
    const p = c.webmcpPrompt(() => 'x', { name: 'once' });
    const unregister = await p.register();
    assert.equal(await p.register(), unregister, 'a second register() answers the live registration');
    unregister();
    assert.equal((await c.getPrompt('once')).error.reason, 'unknown_prompt');
  });

  test('the core frees what a disposed client held; counts return to zero', async () => {
    const c = createWarden();
    c.webmcpResource(() => 'x', { uri: 'notes://a', name: 'a', hooks: { resourceRead: [() => {}] } });
    c.dispose();
    assert.throws(() => c.webmcpPrompt(() => 'x', { name: 'after' }), (err) => err.code === 'disposed');
  });
});

describe('bad input is refused as data', () => {
  test('a URI longer than the core tests, a tool given gate hooks', async () => {
    const c = client();
    const r = c.webmcpResource(() => 'x', { uri: 'notes://{+path}', name: 'notes' });
    const long = 'notes://' + 'a'.repeat(70_000);
    const outcome = await r.read(long);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error.reason, 'invalid_uri');
    assert.match(outcome.text, /longer than 65536/);
    assert.throws(() => c.webmcp(() => 1, { name: 't', hooks: { resourceRead: [() => {}] } }), (err) => err.code === 'invalid_hooks' && err.message.includes('no resourceRead hooks'));
  });
});
