// Test page of mcp-b.test.mjs: the package on a page running MCP-B (`@mcp-b/global`), with a real
// MCP client (`@modelcontextprotocol/sdk`'s `Client`, 1.x, or `@modelcontextprotocol/client`'s,
// 2.x) over MCP-B's tab transport acting as the agent. Bundled by esbuild; mcp-b-options.js runs
// first so MCP-B waits for `initializeWebModelContext()` (each scenario decides when it comes).
// Scenarios answer plain JSON for the test to check; each runs on a fresh page.
import { initializeWebModelContext } from '@mcp-b/global';
import { TabClientTransport } from '@mcp-b/transports';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, GetPromptResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, specTypeSchemas } from '@modelcontextprotocol/client';
import { configureWebMCP, createWarden, getModelContext, getPrompt, invokeTool, listTools, onTelemetry, readResource, webmcp, webmcpPrompt, webmcpResource } from 'webmcp-warden';
import { createElement as h, StrictMode } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { WebMCPProvider, useWebMCPPrompt, useWebMCPResource } from 'webmcp-warden/react';
import { sleep, waitFor } from './page-helpers.js';

// ------------------------------------------------------------------ the agent

/** An MCP client of generation `gen` ('v1': sdk 1.x, 'v2': client 2.x) connected over the tab transport. */
async function connect(gen) {
  const info = { name: `warden-test-${gen}`, version: '1.0.0' };
  const client = gen === 'v1' ? new ClientV1(info, { capabilities: {} }) : new ClientV2(info, { capabilities: {} });
  await client.connect(new TabClientTransport({ targetOrigin: window.location.origin }));
  return {
    client,
    listTools: async () => (await client.listTools()).tools,
    // Each generation's own way: 1.x takes a result schema second, 2.x the request options.
    callTool: (name, args, signal) =>
      gen === 'v1' ? client.callTool({ name, arguments: args }, CallToolResultSchema, signal ? { signal } : undefined) : client.callTool({ name, arguments: args }, signal ? { signal } : undefined),
    listResources: async () => (await client.listResources()).resources,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    listPrompts: async () => (await client.listPrompts()).prompts,
    /** A read or a get: its result, or the message of the error it answered. */
    readResource: (uri) => client.readResource({ uri }).then((result) => ({ result }), (err) => ({ error: String(err?.message ?? err) })),
    getPrompt: (name, args) => client.getPrompt({ name, arguments: args }).then((result) => ({ result }), (err) => ({ error: String(err?.message ?? err) })),
    close: () => client.close(),
  };
}

/** Problems a value has against MCP's schema of `type`, by both generations' zod schemas ([] when it conforms). */
async function schemaProblems(type, value) {
  const v1 = { CallToolResult: CallToolResultSchema, ReadResourceResult: ReadResourceResultSchema, GetPromptResult: GetPromptResultSchema }[type];
  const problems = [];
  const parsed = v1.safeParse(value);
  if (!parsed.success) problems.push(`sdk 1.x: ${parsed.error.message}`);
  const checked = await specTypeSchemas[type]['~standard'].validate(value);
  if (checked.issues?.length) problems.push(`client 2.x: ${checked.issues.map((i) => i.message).join('; ')}`);
  return problems;
}

/** A result as the test reads it: the text, the flags, and whether it conforms. */
async function summary(result) {
  return {
    isError: result.isError ?? false,
    texts: (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text),
    types: (result.content ?? []).map((b) => b.type),
    structured: result.structuredContent ?? null,
    provenance: result._meta?.['webmcp-warden/provenance'] ?? null,
    topLevelProvenance: 'provenance' in result,
    keys: Object.keys(result).sort(),
    schemaProblems: await schemaProblems('CallToolResult', result),
  };
}

// ------------------------------------------------------------------ the page's tools

const events = [];
onTelemetry((event) => events.push(event));

function defineTools() {
  configureWebMCP({
    serverId: 'shop',
    policy: {
      ask: ['shop/checkout'],
      allow: ['*'],
      default: 'deny',
      resources: { deny: [{ match: 'vault://*', reason: 'The vault is not for agents.' }], allow: ['*'] },
      prompts: { allow: ['summarize'] },
    },
    onAsk: (call) => (call.arguments.total < 100 ? { allow: 'once' } : { deny: 'Too expensive for an agent.' }),
    hooks: {
      // Gate hooks in the global set: a resource hook on a URI glob, a prompt hook that rewrites.
      resourceRead: [{ id: 'no-secrets', match: 'secret://*', run: () => ({ action: 'deny', message: 'Secrets stay on the page.' }) }],
      promptGet: [{ id: 'house-style', match: 'summarize', run: (ctx) => ({ args: { ...ctx.args, tone: 'dry' } }) }],
    },
  });
  const tools = {};
  tools.add = webmcp(({ a, b }) => ({ sum: a + b }), {
    name: 'add',
    description: 'Add two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
    hooks: { before: [(ctx) => (ctx.input.a === 666 ? { action: 'deny', message: 'Not that number.' } : undefined)] },
  });
  tools.reviews = webmcp(() => ({ content: [{ type: 'text', text: 'Great\u200b mug\u202e!' }, { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zy8+' }] }), {
    name: 'reviews',
    description: 'Reviews of the mug.',
    inputSchema: { type: 'object', properties: {} },
  });
  tools.checkout = webmcp(({ total }) => `paid ${total}`, {
    name: 'checkout',
    description: 'Pay.',
    inputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
  });
  tools.slow = webmcp(
    (_input, { signal }) => {
      window.__slow = { started: true, aborted: false };
      return new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          window.__slow.aborted = true;
          resolve('stopped');
        });
      });
    },
    { name: 'slow', description: 'Waits until cancelled.', inputSchema: { type: 'object', properties: {} } },
  );
  tools.notes = webmcpResource(() => 'Buy milk.', { uri: 'notes://today', name: 'today', description: "Today's notes.", mimeType: 'text/plain' });
  tools.secret = webmcpResource(() => 'the plans', { uri: 'secret://plans', name: 'plans', description: 'Plans.' });
  tools.vault = webmcpResource(() => 'the keys', { uri: 'vault://keys', name: 'keys', description: 'Keys.' });
  tools.reviewsDoc = webmcpResource(
    () => ({ contents: [{ uri: 'reviews://mug', mimeType: 'text/plain', text: 'Great\u200b mug' }, { uri: 'reviews://mug/photo', mimeType: 'image/svg+xml', blob: 'PHN2Zy8+' }] }),
    { uri: 'reviews://mug', name: 'mug_reviews', description: 'Reviews, as text and a picture.' },
  );
  tools.profile = webmcpResource((uri, params) => `Profile of user ${params.id}`, { uri: 'user://{id}/profile', name: 'profile', description: 'A user profile.' });
  tools.summarize = webmcpPrompt(
    ({ topic, tone }) => ({ description: 'A summary\u200b prompt', messages: [{ role: 'user', content: { type: 'text', text: `Summarize ${topic}, ${tone}.` } }] }),
    { name: 'summarize', description: 'Summarize a topic.', argsSchema: { type: 'object', properties: { topic: { type: 'string', minLength: 3 }, tone: { type: 'string' } }, required: ['topic'] } },
  );
  return tools;
}

async function registerAll(tools) {
  for (const tool of Object.values(tools)) await tool.register();
  return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, tool.status]));
}

/** The agent lists and calls every kind of tool call. */
async function exercise(gen) {
  const agent = await connect(gen);
  const listed = await agent.listTools();
  const out = { listed: listed.map((t) => ({ name: t.name, inputSchema: t.inputSchema })).sort((a, b) => a.name.localeCompare(b.name)) };
  out.valid = await summary(await agent.callTool('add', { a: 2, b: 3 }));
  events.length = 0;
  out.invalid = await summary(await agent.callTool('add', { a: 'x', b: 3 }));
  out.invalidTelemetry = events.filter((e) => e.name === 'tool_call.stop').map((e) => ({ tool: e.tool, status: e.status, errorKind: e.errorKind, errorReason: e.errorReason }));
  out.denied = await summary(await agent.callTool('add', { a: 666, b: 1 }));
  out.shaped = await summary(await agent.callTool('reviews', {}));
  out.approved = await summary(await agent.callTool('checkout', { total: 42 }));
  out.refused = await summary(await agent.callTool('checkout', { total: 500 }));
  // Cancellation: the client aborts its request; MCP cancels it; the tool's signal aborts.
  events.length = 0;
  const controller = new AbortController();
  const pending = agent.callTool('slow', {}, controller.signal).then(
    () => 'resolved',
    (err) => `rejected: ${err?.name ?? ''} ${err?.message ?? err}`,
  );
  await waitFor(() => window.__slow?.started, 'the slow tool to start');
  controller.abort('the user cancelled');
  out.cancelledCall = await pending;
  await waitFor(() => window.__slow.aborted, "the slow tool's signal to abort", 3000).catch(() => undefined);
  out.toolSignalAborted = window.__slow.aborted;
  await waitFor(() => events.some((e) => e.name === 'tool_call.stop' && e.tool === 'slow'), 'the cancelled call to end', 3000).catch(() => undefined);
  out.cancelledTelemetry = events.filter((e) => e.name === 'tool_call.stop' && e.tool === 'slow').map((e) => ({ status: e.status, errorKind: e.errorKind, errorReason: e.errorReason }));
  // Resources: listed; read allowed, hook-denied, policy-denied, shaped, from a template.
  out.resources = (await agent.listResources()).map((r) => r.uri).sort();
  out.resourceTemplates = (await agent.listResourceTemplates()).map((t) => t.uriTemplate);
  events.length = 0;
  out.reads = {};
  for (const uri of ['notes://today', 'secret://plans', 'vault://keys', 'reviews://mug', 'user://42/profile']) {
    const read = await agent.readResource(uri);
    out.reads[uri] = read.error !== undefined
      ? { error: read.error }
      : { texts: read.result.contents.map((c) => c.text ?? null), blobs: read.result.contents.filter((c) => 'blob' in c).length, provenance: read.result._meta?.['webmcp-warden/provenance'] ?? null, topLevelProvenance: 'provenance' in read.result, schemaProblems: await schemaProblems('ReadResourceResult', read.result) };
  }
  out.readTelemetry = events.filter((e) => e.name === 'resource_read.stop').map((e) => ({ uri: e.uri, status: e.status, errorKind: e.errorKind, errorReason: e.errorReason }));
  // Prompts: listed; got with arguments a hook rewrote; invalid arguments refused by us.
  out.prompts = (await agent.listPrompts()).map((p) => ({ name: p.name, arguments: (p.arguments ?? []).map((a) => `${a.name}${a.required ? '!' : ''}`).sort() }));
  events.length = 0;
  const got = await agent.getPrompt('summarize', { topic: 'mugs' });
  out.got = got.error !== undefined ? { error: got.error } : { description: got.result.description, messages: got.result.messages.map((m) => [m.role, m.content.text]), provenance: got.result._meta?.['webmcp-warden/provenance'] ?? null, schemaProblems: await schemaProblems('GetPromptResult', got.result) };
  out.invalidPrompt = await agent.getPrompt('summarize', { topic: 'x' });
  out.promptTelemetry = events.filter((e) => e.name === 'prompt_get.stop').map((e) => ({ status: e.status, errorKind: e.errorKind, errorReason: e.errorReason }));
  out.promptHook = events.filter((e) => e.name === 'hook.stop' && e.event === 'promptGet').map((e) => `${e.hookId}:${e.status}`);
  await agent.close();
  return out;
}

// ------------------------------------------------------------------ scenarios

window.__mcpb = {
  /** MCP-B first, then the tools: the supported order. */
  async interop(gen) {
    initializeWebModelContext();
    const runtime = document.modelContext;
    const tools = defineTools();
    const statuses = await registerAll(tools);
    const out = await exercise(gen);
    // In-page: the same governed reads and gets, with `provenance` on the result.
    const inPageRead = await readResource('secret://plans');
    out.inPageRead = { ok: inPageRead.ok, text: inPageRead.text ?? null };
    const inPageGet = await getPrompt('summarize', { topic: 'tea' });
    out.inPageGet = { messages: inPageGet.result?.messages.map((m) => m.content.text), provenance: inPageGet.result?.provenance ?? null };
    // In-page callers keep `provenance` on the result.
    const inPage = await invokeTool('reviews', {});
    out.inPage = { provenance: inPage.result.provenance ?? null, meta: inPage.result._meta ?? null };
    out.statuses = statuses;
    out.runtimeIsMcpB = runtime?.__isBrowserMcpServer === true && getModelContext() === runtime;
    // unregister() removes the tool from MCP too.
    tools.add.unregister();
    tools.reviewsDoc.unregister();
    tools.summarize.unregister();
    const agent = await connect(gen);
    out.afterUnregister = (await agent.listTools()).map((t) => t.name).sort();
    out.resourcesAfterUnregister = (await agent.listResources()).map((r) => r.uri).sort();
    out.promptsAfterUnregister = (await agent.listPrompts()).map((p) => p.name);
    await agent.close();
    return out;
  },

  /** The tools first, MCP-B later (with or without Chromium's native WebMCP). */
  async late(gen) {
    const native = document.modelContext !== undefined;
    const tools = defineTools();
    const before = await registerAll(tools);
    const started = performance.now();
    initializeWebModelContext();
    // Registration notices the runtime by itself (MCP-B's transport announces it on `window`):
    // the agent polls until a call works, and keeps what failed meanwhile.
    const agent = await connect(gen);
    const failures = [];
    const worked = await waitFor(async () => {
      try {
        const result = await agent.callTool('add', { a: 1, b: 2 });
        if (!result.isError) return true;
        failures.push(result.content?.[0]?.text ?? 'isError');
      } catch (err) {
        failures.push(String(err?.message ?? err));
      }
      return false;
    }, 'a call through MCP-B to work', 5000).catch(() => false);
    const noticedMs = performance.now() - started;
    await agent.close();
    const meanwhile = [...new Set(failures.map((f) => f.replace(/\d+/g, 'N')))];
    if (!worked) return { worked, meanwhile };
    const out = await exercise(gen);
    out.worked = worked;
    out.native = native;
    out.before = before;
    out.after = Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, tool.status]));
    out.noticedMs = noticedMs;
    out.failuresMeanwhile = meanwhile;
    out.nativeListing = native ? (await document.modelContext.getTools()).filter((t) => t.name === 'add').length : null;
    out.mcpbListing = document.modelContext.listTools().filter((t) => t.name === 'add').length;
    return out;
  },

  /** How a late runtime is noticed without MCP-B's announcement: the next listTools() or invokeTool(). */
  async noticedOnCall() {
    const w = createWarden();
    const tool = w.webmcp(() => 'ok', { name: 'probe', description: 'Probe.', inputSchema: { type: 'object', properties: {} } });
    await tool.register();
    const before = tool.status;
    // A runtime appears without any event: a minimal WebMCP runtime installed by hand.
    const registered = [];
    Object.defineProperty(document, 'modelContext', { configurable: true, value: { registerTool: async (d) => void registered.push(d.name) } });
    await sleep(50);
    const untouched = tool.status;
    await w.listTools();
    await waitFor(() => tool.status === 'registered', 'the listing to register the tool');
    // The cost of the check on every call: a property read and a comparison.
    const n = 200_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) getModelContext();
    const nsPerCheck = ((performance.now() - t0) * 1e6) / n;
    delete document.modelContext;
    w.dispose();
    return { before, untouched, after: 'registered', registered, nsPerCheck };
  },

  /** React: useWebMCPResource / useWebMCPPrompt under a provider with gate hooks, in StrictMode, read by an MCP client. */
  async react(gen) {
    initializeWebModelContext();
    const seen = { renders: [], providerReads: 0, version: 1, order: [] };
    // One hook per level, to show the onion across levels: global → provider → the resource's or
    // prompt's own hooks.
    configureWebMCP({
      hooks: {
        resourceRead: [() => void seen.order.push('read:global')],
        promptGet: [() => void seen.order.push('get:global')],
      },
    });
    function Notes({ version }) {
      const r = useWebMCPResource(() => `notes v${version}`, { uri: 'notes://react', name: 'react_notes', description: 'Notes from React.', hooks: { resourceRead: [() => void seen.order.push('read:own')] } });
      seen.notes = { status: r.status, registered: r.registered, supported: r.supported };
      return null;
    }
    function Prompt() {
      const p = useWebMCPPrompt(({ topic }) => `About ${topic}`, { name: 'react_prompt', description: 'A prompt from React.', argsSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] }, hooks: { promptGet: [() => void seen.order.push('get:own')] } });
      seen.prompt = { status: p.status };
      return null;
    }
    const providerHooks = (version) => ({
      resourceRead: [{ id: 'provider-gate', match: 'notes://*', run: () => { seen.providerReads += version; seen.order.push('read:provider'); } }],
      promptGet: [(ctx) => { seen.order.push('get:provider'); return { args: { ...ctx.args, topic: String(ctx.args.topic).toUpperCase() } }; }],
    });
    const app = (version) => h(StrictMode, null, h(WebMCPProvider, { hooks: providerHooks(version) }, h(Notes, { version }), h(Prompt)));
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    flushSync(() => root.render(app(1)));
    await waitFor(() => seen.notes?.status === 'registered' && seen.prompt?.status === 'registered', 'the resource and the prompt to register');
    const agent = await connect(gen);
    const out = { mounted: { ...seen.notes }, promptStatus: seen.prompt.status };
    out.listed = (await agent.listResources()).filter((r) => r.uri === 'notes://react').length;
    out.prompts = (await agent.listPrompts()).filter((p) => p.name === 'react_prompt').length;
    out.read1 = (await agent.readResource('notes://react')).result?.contents[0].text;
    out.providerReads1 = seen.providerReads;
    out.got = (await agent.getPrompt('react_prompt', { topic: 'mugs' })).result?.messages[0].content.text;
    out.order = [...seen.order];
    // A re-render with new inline functions and hooks: no re-registration, the latest are called.
    flushSync(() => root.render(app(10)));
    await sleep(20);
    out.listedAfterRerender = (await agent.listResources()).filter((r) => r.uri === 'notes://react').length;
    out.read2 = (await agent.readResource('notes://react')).result?.contents[0].text;
    out.providerReads2 = seen.providerReads;
    flushSync(() => root.unmount());
    await sleep(20);
    out.listedAfterUnmount = (await agent.listResources()).filter((r) => r.uri === 'notes://react').length;
    out.promptsAfterUnmount = (await agent.listPrompts()).filter((p) => p.name === 'react_prompt').length;
    await agent.close();
    return out;
  },

  listTools,
};
window.__ready = true;
