// Test page of runtimes.test.mjs: the package on each WebMCP runtime Chromium can run (native,
// MCP-B's `@mcp-b/webmcp-polyfill`, `@mcp-b/global`), and governed declarative forms. Bundled by
// esbuild; mcp-b-options.js runs first so MCP-B waits for a scenario. Scenarios answer plain JSON
// for the test to check; each runs on a fresh page. The test itself acts as the agent where it
// can (Playwright's `page.webmcp`, through the browser's own agent path).
import { initializeWebModelContext } from '@mcp-b/global';
import { initializeWebMCPPolyfill } from '@mcp-b/webmcp-polyfill';
import { createWarden } from 'webmcp-warden';
import { governForms } from 'webmcp-warden/forms';
import { sleep, waitFor } from './page-helpers.js';

/** Wraps `runtime.registerTool` to keep every `execute` it is given, by name. */
function captureExecutes(runtime) {
  const captured = new Map();
  const original = runtime.registerTool;
  runtime.registerTool = function (tool, ...rest) {
    if (tool && typeof tool.execute === 'function') captured.set(tool.name, tool.execute);
    return Reflect.apply(original, this, [tool, ...rest]);
  };
  return captured;
}

/** An agent's call through the page's runtime (`executeTool`, object or JSON text), parsed. */
async function agentCall(name, input) {
  const runtime = document.modelContext;
  const tool = (await runtime.getTools()).find((t) => t.name === name);
  if (!tool) return { missing: name };
  let text;
  try {
    text = await runtime.executeTool(tool, input);
  } catch {
    text = await runtime.executeTool(tool, JSON.stringify(input)); // MCP-B: JSON text only
  }
  return typeof text === 'string' ? JSON.parse(text) : text;
}

const listed = async () => (await document.modelContext.getTools()).map((t) => t.name);

let client;
let runs = 0;
let deleteAccount;
let captured;

window.__rt = {
  /**
   * Registers `delete_account` on the page's runtime (`runtime`: 'native' as it is, 'polyfill' or
   * 'global' started first) and keeps the execute the runtime got.
   */
  async setup(runtime) {
    if (runtime === 'polyfill') initializeWebMCPPolyfill();
    if (runtime === 'global') initializeWebModelContext({ transport: { tabServer: { allowedOrigins: [location.origin] } } });
    captured = captureExecutes(document.modelContext);
    client = createWarden();
    deleteAccount = client.webmcp(async ({ id }) => (runs++, `deleted ${id}`), {
      name: 'delete_account',
      description: 'Deletes an account.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      annotations: { destructiveHint: true },
    });
    await deleteAccount.register();
    return { status: deleteAccount.status, listed: await listed(), runs };
  },
  /** Calls through the runtime, then unregisters and calls the captured execute; registers again. */
  async lifecycle() {
    const first = await agentCall('delete_account', { id: 'a1' });
    const execute = captured.get('delete_account');
    deleteAccount.unregister();
    await sleep(50);
    const after = await listed();
    const stale = await execute({ id: 'a2' });
    const runsAfterStale = runs;
    await deleteAccount.register();
    const again = await agentCall('delete_account', { id: 'a3' });
    return { first: first.content?.[0]?.text, after, stale, runsAfterStale, status: deleteAccount.status, again: again.content?.[0]?.text, runs };
  },
  /** Unregisters only (the test then looks with page.webmcp and the captured execute). */
  async unregister() {
    deleteAccount.unregister();
    await sleep(50);
    return { runs };
  },
  async callCaptured() {
    const stale = await captured.get('delete_account')({ id: 'zz' });
    return { stale, runs };
  },
  /** Tools first, no runtime; MCP-B's polyfill starts later: picked up without register(). */
  async late() {
    client = createWarden();
    const early = client.webmcp(async () => 'early', { name: 'early_tool', description: 'Registered before the runtime.' });
    await early.register();
    const before = early.status;
    await sleep(400);
    const started = performance.now();
    initializeWebMCPPolyfill();
    await waitFor(() => early.status === 'registered', 'the late runtime to get the tool', 10_000);
    const pickedUpMs = Math.round(performance.now() - started);
    const result = await agentCall('early_tool', {});
    return { before, pickedUpMs, listed: await listed(), text: result.content?.[0]?.text };
  },
  /** A schema with $ref and format, sent compatible; the validator enforces the full one. */
  async compatible() {
    client = createWarden();
    const schema = {
      type: 'object',
      $defs: { city: { type: 'string', minLength: 2 } },
      properties: { email: { type: 'string', format: 'email' }, city: { $ref: '#/$defs/city' } },
      required: ['email', 'city'],
    };
    const order = client.webmcp(async ({ email, city }) => `ok ${email} ${city}`, { name: 'order', description: 'Orders.', inputSchema: schema, browserSchema: 'compatible' });
    await order.register();
    const tool = (await document.modelContext.getTools()).find((t) => t.name === 'order');
    return {
      status: order.status,
      shown: typeof tool.inputSchema === 'string' ? JSON.parse(tool.inputSchema) : tool.inputSchema,
      ok: (await agentCall('order', { email: 'a@example.com', city: 'Oslo' })).content[0].text,
      badEmail: await agentCall('order', { email: 'nope', city: 'Oslo' }),
      badCity: await agentCall('order', { email: 'a@example.com', city: 'X' }),
    };
  },
  /** Declarative forms: the form, the page's own listener, governForms under a policy. */
  async forms() {
    document.body.insertAdjacentHTML(
      'beforeend',
      `<form id="book" toolname="book_table" tooldescription="Book a table." toolautosubmit>
        <input name="guests" type="number" min="1" max="20" required>
        <input name="name" type="text">
        <button type="submit">Book</button>
      </form>`,
    );
    const form = document.getElementById('book');
    window.__seen = [];
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const values = Object.fromEntries(new FormData(form));
      window.__seen.push({ agentInvoked: event.agentInvoked, isTrusted: event.isTrusted, values });
      if (event.agentInvoked) event.respondWith(Promise.resolve({ content: [{ type: 'text', text: `Booked\u200b for ${values.guests} (${values.name})` }] }));
    });
    window.__asked = [];
    window.__events = [];
    client = createWarden({
      policy: {
        deny: [{ match: 'book_table', when: { arg: '/guests', min: 9 }, reason: 'Parties over 8 book by phone.' }],
        ask: [{ match: 'book_table', when: { arg: '/guests', min: 5 } }],
        default: 'allow',
      },
      onAsk: async (call) => (window.__asked.push(call.arguments), call.arguments.name === 'ok' ? { allow: 'once' } : { deny: 'Not tonight.' }),
      telemetry: (event) => window.__events.push(event.name === 'tool_call.stop' ? `${event.tool}:${event.status}` : event.name),
    });
    governForms({ client });
    await sleep(50);
    return { listed: await listed() };
  },
  seen: () => ({ seen: window.__seen, asked: window.__asked, events: window.__events.filter((e) => e.startsWith('book_table')) }),
};
window.__ready = true;
