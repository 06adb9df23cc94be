// What MCP clients get through MCP-B (pkg-js/src/util/mcp.ts, mcp-b.ts, registration.ts; docs/mcp-b.md), checked
// in Node against a stand-in of MCP-B's `BrowserMcpServer` that does what MCP-B 5.1 does: its
// `registerTool` awaits (its native mirror) and then registers with its `McpServer`, whose
// `tools/call` validates the arguments with the registered schema and calls the callback with
// the request context. The real MCP-B runs in test-browser/mcp-b.test.mjs.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createWarden, PROVENANCE_META_KEY, webmcpPrompt, webmcpResource } from '../lib/index.js';
import { toWireResult } from '../lib/util/mcp.js';
import { passthroughSchema, withMcpCallback } from '../lib/runtime/mcp-b.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('results that leave the page', () => {
  test('provenance moves into _meta under our key; the rest is kept', () => {
    assert.equal(PROVENANCE_META_KEY, 'webmcp-warden/provenance');
    const provenance = { serverId: 'page', truncated: false, flags: [] };
    assert.deepEqual(toWireResult({ content: [], isError: true, provenance }), { content: [], isError: true, _meta: { [PROVENANCE_META_KEY]: provenance } });
    assert.deepEqual(toWireResult({ content: [], _meta: { other: 1 }, provenance }), { content: [], _meta: { other: 1, [PROVENANCE_META_KEY]: provenance } });
    const plain = { content: [{ type: 'text', text: 'x' }] };
    assert.equal(toWireResult(plain), plain, 'a result without provenance (shape: false) is unchanged');
  });
});

describe('passthroughSchema', () => {
  const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
  test('advertises the JSON Schema, accepts every value unchanged, and stays JSON for the browser', async () => {
    const wrapped = passthroughSchema(schema);
    assert.deepEqual(JSON.parse(JSON.stringify(wrapped)), schema, 'JSON sees the schema only');
    assert.deepEqual(Object.keys(wrapped), Object.keys(schema), '~standard is not enumerable');
    const standard = wrapped['~standard'];
    assert.equal(standard.version, 1);
    assert.deepEqual(standard.jsonSchema.input({ target: 'draft-2020-12' }), schema);
    const bad = { a: 'x' };
    assert.equal(standard.validate(bad).value, bad, 'validation is left to the pipeline');
    assert.equal(standard.validate(undefined).issues, undefined);
    schema.required.push('b');
    assert.deepEqual(wrapped.required, ['a'], 'a copy: later changes of the original do not reach it');
    schema.required.pop();
  });
});

describe('withMcpCallback', () => {
  class Server {
    constructor() {
      this.calls = [];
    }
    registerTool(name, config, cb) {
      this.calls.push({ name, config, cb });
      return { name };
    }
  }

  test('calls for the name go through the override, others pass; the method is back afterwards', async () => {
    const server = new Server();
    const ours = () => 'ours';
    const { value, used } = await withMcpCallback(server, 'registerTool', 'mine', (args) => [args[0], args[1], ours], async () => {
      await sleep(1);
      server.registerTool('other', {}, () => 'theirs');
      return server.registerTool('mine', { c: 1 }, () => 'theirs');
    });
    assert.deepEqual(value, { name: 'mine' });
    assert.equal(used, true);
    assert.equal(server.calls[0].cb(), 'theirs', 'another name keeps its callback');
    assert.equal(server.calls[1].cb, ours);
    assert.deepEqual(server.calls[1].config, { c: 1 });
    assert.equal(Object.hasOwn(server, 'registerTool'), false, 'the own override is gone');
    assert.equal(server.registerTool, Server.prototype.registerTool);
  });

  test('concurrent registrations each get theirs; the method comes back after the last, even when one throws', async () => {
    const server = new Server();
    const a = withMcpCallback(server, 'registerTool', 'a', (args) => [args[0], args[1], 'A'], async () => {
      await sleep(5);
      server.registerTool('a', {}, 'x');
    });
    const b = withMcpCallback(server, 'registerTool', 'b', (args) => [args[0], args[1], 'B'], async () => {
      await sleep(1);
      server.registerTool('b', {}, 'x');
      throw new Error('refused');
    });
    await assert.rejects(b, /refused/);
    assert.equal(Object.hasOwn(server, 'registerTool'), true, 'still overridden while a waits');
    await a;
    assert.deepEqual(server.calls.map((c) => [c.name, c.cb]), [['b', 'B'], ['a', 'A']]);
    assert.equal(Object.hasOwn(server, 'registerTool'), false);
  });

  test('no such method: register() runs as is, unused', async () => {
    assert.deepEqual(await withMcpCallback({}, 'registerTool', 'x', (args) => args, () => 1), { value: 1, used: false });
    assert.deepEqual(await withMcpCallback(undefined, 'registerTool', 'x', (args) => args, () => 2), { value: 2, used: false });
  });
});

/** A stand-in of MCP-B 5.1's BrowserMcpServer and its McpServer (see the file's header). */
function fakeMcpB() {
  const tools = new Map();
  const mcpServer = {
    registered: new Map(),
    registerTool(name, config, cb) {
      if (this.registered.has(name)) throw new Error(`Tool ${name} is already registered`);
      const entry = { config, cb, remove: () => this.registered.delete(name) };
      this.registered.set(name, entry);
      return entry;
    },
    /** `tools/call` as the SDK serves it: validate with the schema, then call the callback. */
    async call(name, args, signal) {
      const entry = this.registered.get(name);
      const std = entry.config.inputSchema['~standard'];
      const checked = await std.validate(args);
      if (checked.issues) return { content: [{ type: 'text', text: 'Input validation error' }], isError: true };
      return entry.cb(checked.value, { mcpReq: { signal } });
    },
  };
  const runtime = {
    __isBrowserMcpServer: true,
    mcpServer,
    async registerTool(tool, { signal } = {}) {
      await sleep(1); // the native mirror
      const inputSchema = tool.inputSchema['~standard'] ? tool.inputSchema : { '~standard': { version: 1, validate: (v) => (typeof v?.a === 'number' ? { value: v } : { issues: [{ message: 'a' }] }) } };
      // MCP-B's own callback: one argument, no signal.
      const handle = this.mcpServer.registerTool(tool.name, { inputSchema }, (args) => tool.execute(args));
      tools.set(tool.name, handle);
      signal?.addEventListener('abort', () => {
        tools.delete(tool.name);
        handle.remove();
      });
    },
    listTools: () => [...tools.keys()].map((name) => ({ name })),
    // MCP-B 5.1's resources and prompts: its own callbacks drop the request context, and a
    // prompt's argsSchema becomes the SDK's validator.
    registerResource(descriptor) {
      const template = descriptor.uri.includes('{');
      const handle = this.mcpServer.registerResource(descriptor.name, template ? { uriTemplate: descriptor.uri } : descriptor.uri, { description: descriptor.description }, template ? (uri, vars) => descriptor.read(uri, vars) : (uri) => descriptor.read(uri));
      return { unregister: () => handle.remove() };
    },
    registerPrompt(descriptor) {
      const argsSchema = descriptor.argsSchema && { '~standard': { version: 1, validate: (v) => (typeof v?.topic === 'string' && v.topic.length >= 3 ? { value: v } : { issues: [{ message: 'SDK says no' }] }) } };
      const handle = this.mcpServer.registerPrompt(descriptor.name, { argsSchema }, (args) => descriptor.get(args));
      return { unregister: () => handle.remove() };
    },
  };
  Object.assign(mcpServer, {
    resources: new Map(),
    prompts: new Map(),
    registerResource(name, uriOrTemplate, config, cb) {
      const key = typeof uriOrTemplate === 'string' ? uriOrTemplate : name;
      this.resources.set(key, { uriOrTemplate, cb });
      return { remove: () => this.resources.delete(key) };
    },
    /** `resources/read` as the SDK serves it: a static resource's callback gets (uri, ctx), a template's (uri, variables, ctx). */
    async read(uri, signal) {
      const ctx = { mcpReq: { signal } };
      const url = new URL(uri);
      const own = this.resources.get(uri);
      if (own) return own.cb(url, ctx);
      for (const { uriOrTemplate, cb } of this.resources.values()) {
        const match = typeof uriOrTemplate === 'object' && new RegExp('^' + uriOrTemplate.uriTemplate.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)') + '$').exec(uri);
        if (match) return cb(url, { ...match.groups }, ctx);
      }
      throw new Error('not found');
    },
    registerPrompt(name, config, cb) {
      this.prompts.set(name, { config, cb });
      return { remove: () => this.prompts.delete(name) };
    },
    /** `prompts/get` as the SDK serves it: validate with the schema, then the callback. */
    async getPrompt(name, args, signal) {
      const { config, cb } = this.prompts.get(name);
      const checked = await config.argsSchema['~standard'].validate(args);
      if (checked.issues) throw new Error('Invalid arguments (the SDK)');
      return cb(checked.value, { mcpReq: { signal } });
    },
  });
  return runtime;
}

describe('a tool registered through MCP-B', () => {
  let w;
  afterEach(() => {
    w?.dispose();
    delete globalThis.document;
  });

  test('arguments reach our validation, the request signal aborts the tool, provenance is in _meta', async () => {
    const runtime = fakeMcpB();
    globalThis.document = { modelContext: runtime };
    w = createWarden();
    const events = [];
    w.onTelemetry((e) => events.push(e));
    let aborted = false;
    const add = w.webmcp(
      async ({ a, b }, { signal }) => {
        if (a === 0) {
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
          aborted = true;
        }
        return { sum: a + b };
      },
      { name: 'add', description: 'Add.', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
    );
    const original = runtime.mcpServer.registerTool;
    await add.register();
    assert.equal(add.status, 'registered');
    const ok = await runtime.mcpServer.call('add', { a: 1, b: 2 });
    assert.deepEqual(ok.structuredContent, { sum: 3 });
    assert.deepEqual(ok._meta, { [PROVENANCE_META_KEY]: { serverId: 'page', truncated: false, flags: [] } });
    assert.equal('provenance' in ok, false);
    const invalid = await runtime.mcpServer.call('add', { a: 'x', b: 2 });
    assert.match(invalid.content[0].text, /^Error: Validation failed: \/a /, 'our refusal, not the SDK stand-in');
    assert.equal(events.filter((e) => e.name === 'tool_call.stop').at(-1).errorKind, 'validation');
    const controller = new AbortController();
    const pending = runtime.mcpServer.call('add', { a: 0, b: 1 }, controller.signal);
    await sleep(5);
    controller.abort();
    const cancelled = await pending;
    assert.equal(aborted, true, "the request's signal aborted the tool's");
    assert.equal(cancelled.content[0].text, 'Error: Aborted');
    assert.equal(runtime.mcpServer.registerTool, original, 'the McpServer is left as it was');
    add.unregister();
    await sleep(5);
    assert.deepEqual(runtime.listTools(), []);
  });

  test('a runtime that appears later is used by the next listTools(), and status follows', async () => {
    delete globalThis.document;
    globalThis.document = {};
    w = createWarden();
    const t = w.webmcp(() => 'ok', { name: 'late_tool', description: 'Late.', inputSchema: { type: 'object', properties: {} } });
    await t.register();
    assert.equal(t.status, 'unsupported');
    const runtime = fakeMcpB();
    globalThis.document.modelContext = runtime;
    await sleep(5);
    assert.equal(t.status, 'unsupported', 'nothing announced it');
    await w.listTools();
    for (let i = 0; i < 50 && t.status !== 'registered'; i++) await sleep(2);
    assert.equal(t.status, 'registered');
    assert.deepEqual(runtime.listTools(), [{ name: 'late_tool' }]);
    // The runtime goes away: the next call notices, and status says so.
    delete globalThis.document.modelContext;
    await w.invokeTool('late_tool', {});
    for (let i = 0; i < 50 && t.status !== 'unsupported'; i++) await sleep(2);
    assert.equal(t.status, 'unsupported');
  });
});

describe('resources and prompts registered through MCP-B', () => {
  let w;
  afterEach(() => {
    w?.dispose();
    delete globalThis.document;
  });

  test("MCP's callbacks are ours: the request's signal, prompt arguments validated by us, failures as errors, _meta", async () => {
    const runtime = fakeMcpB();
    globalThis.document = { modelContext: runtime };
    w = createWarden({ policy: { resources: { deny: ['secret://*'], allow: ['*'] }, prompts: { allow: ['*'] } } });
    let readAborted = false;
    const profile = webmcpResource(
      (uri, params, { signal }) => {
        if (params.id === 'slow') return new Promise((resolve) => signal.addEventListener('abort', () => resolve((readAborted = true))));
        return `user ${params.id}`;
      },
      { uri: 'user://{id}/profile', name: 'profile', client: w },
    );
    const secret = webmcpResource(() => 'plans', { uri: 'secret://plans', name: 'plans', client: w });
    const prompt = webmcpPrompt(({ topic }) => `Summarize ${topic}`, { name: 'summarize', argsSchema: { type: 'object', properties: { topic: { type: 'string', minLength: 3 } }, required: ['topic'] }, client: w });
    await Promise.all([profile.register(), secret.register(), prompt.register()]);
    assert.deepEqual([profile.status, secret.status, prompt.status], ['registered', 'registered', 'registered']);
    const read = await runtime.mcpServer.read('user://42/profile');
    assert.deepEqual(read.contents, [{ uri: 'user://42/profile', mimeType: 'text/plain', text: 'user 42' }]);
    assert.deepEqual(read._meta, { [PROVENANCE_META_KEY]: { serverId: 'page', truncated: false, flags: [] } });
    await assert.rejects(runtime.mcpServer.read('secret://plans'), /^Error: Denied: No rule matched|Denied/);
    const controller = new AbortController();
    const pending = runtime.mcpServer.read('user://slow/profile', controller.signal);
    await sleep(5);
    controller.abort();
    await assert.rejects(pending, /Error: Aborted/);
    assert.equal(readAborted, true, "a cancelled resources/read aborts the read's signal");
    const got = await runtime.mcpServer.getPrompt('summarize', { topic: 'mugs' });
    assert.deepEqual(got.messages, [{ role: 'user', content: { type: 'text', text: 'Summarize mugs' } }]);
    await assert.rejects(runtime.mcpServer.getPrompt('summarize', { topic: 'x' }), /^Error: Error: Validation failed: \/topic /, 'our refusal, not the SDK stand-in');
    assert.equal(Object.hasOwn(runtime.mcpServer, 'registerPrompt'), true, 'the stand-in keeps its own method');
    prompt.unregister();
    assert.equal(runtime.mcpServer.prompts.size, 0, 'unregister() removes it from the MCP server');
  });
  test("a read through MCP gets the canonical URI and the variables read from it, not the ones MCP's server matched", async () => {
    const runtime = fakeMcpB();
    globalThis.document = { modelContext: runtime };
    const seen = [];
    w = createWarden({ hooks: { resourceRead: [(ctx) => void seen.push(['hook', ctx.uri, ctx.params])] } });
    const profile = webmcpResource((url, params) => (seen.push(['read', url.href, params]), `user ${params.id}`), { uri: 'user://{id}/profile', name: 'profile', client: w });
    await profile.register();
    // The stand-in, as the SDK does, matches the URI as sent: its variable would be `%34%32`.
    const read = await runtime.mcpServer.read('user://%34%32/profile');
    assert.deepEqual(read.contents, [{ uri: 'user://42/profile', mimeType: 'text/plain', text: 'user 42' }]);
    assert.deepEqual(seen, [
      ['hook', 'user://42/profile', { id: '42' }],
      ['read', 'user://42/profile', { id: '42' }],
    ]);
    await assert.rejects(runtime.mcpServer.read('user://a%2Fb/profile'), /^Error: Error: "user:\/\/a%2Fb\/profile" holds an encoded '\/'/);
    assert.equal(seen.length, 2, 'refused before anything ran');
  });

  test('a template variable named __proto__ of a read through MCP arrives as an ordinary own property; nothing is polluted', async () => {
    const runtime = fakeMcpB();
    globalThis.document = { modelContext: runtime };
    w = createWarden({ policy: { resources: { deny: [{ match: '*', when: { arg: '/__proto__', equals: 'admin' }, reason: 'no admin notes' }], allow: ['*'] } } });
    const seen = [];
    const note = webmcpResource((uri, params) => (seen.push(params), `note ${params.__proto__}/${params.id}`), { uri: 'note://{__proto__}/{id}', name: 'note', client: w });
    await note.register();
    const read = await runtime.mcpServer.read('note://mine/7');
    assert.equal(read.contents[0].text, 'note mine/7');
    const [params] = seen;
    assert.ok(Object.hasOwn(params, '__proto__'), JSON.stringify(Object.keys(params)));
    assert.deepEqual(Object.keys(params), ['__proto__', 'id']);
    assert.equal(Object.getPrototypeOf(params), Object.prototype);
    assert.equal(params.__proto__, 'mine');
    await assert.rejects(runtime.mcpServer.read('note://admin/1'), /Denied: no admin notes/, 'the policy reads it as any variable');
    assert.equal(seen.length, 1);
    assert.equal(Object.prototype.__proto__, null);
    assert.equal({}.id, undefined);
  });
});
