// Governed declarative tools (pkg-js/src/forms.ts; docs/runtimes.md, "Declarative forms"), in a
// jsdom document with MCP-B's real `@mcp-b/webmcp-polyfill` 5.1.0, which lists a
// `<form toolname>` as a tool and, for an agent's `executeTool`, fills it and submits it with an
// agent-invoked `SubmitEvent` answered through `respondWith`, as Chromium 156 does (Chromium runs
// of the same: test-browser/forms.test.mjs). The page's own submit listener answers the agent.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { createWarden } from 'webmcp-warden';
import { governForms } from 'webmcp-warden/forms';
import { sleep } from '../test-support/helpers.mjs';

const dom = new JSDOM('<!doctype html><html><body></body></html>', { url: 'https://shop.example/' });
const GLOBALS = ['Event', 'EventTarget', 'FormData', 'window', 'document', 'navigator', 'location', 'Document', 'SubmitEvent', 'ShadowRoot', 'MutationObserver', 'HTMLFormElement', 'HTMLElement', 'Element', 'Node', 'HTMLInputElement', 'HTMLSelectElement', 'HTMLTextAreaElement', 'HTMLButtonElement', 'CustomEvent'];
let polyfill;
before(async () => {
  for (const key of GLOBALS) Object.defineProperty(globalThis, key, { value: dom.window[key], configurable: true, writable: true });
  polyfill = await import('@mcp-b/webmcp-polyfill');
  polyfill.initializeWebMCPPolyfill();
});
after(() => {
  polyfill.cleanupWebMCPPolyfill();
  dom.window.close();
});

/** The page's own submit listener: what it saw, and what it answers an agent. */
let seen;
let answerText;
let w;
let governed;
let events;

const FORM = `<form id="book" toolname="book_table" tooldescription="Book a table." toolautosubmit>
  <input name="guests" type="number" required>
  <input name="name" type="text">
  <input name="csrf" type="hidden" value="token-1">
  <button type="submit" name="go" value="1">Book</button>
</form>`;

/** Adds the form and the page's listener (which counts submits and answers an agent). */
function addForm(html = FORM, id = 'book') {
  document.body.insertAdjacentHTML('beforeend', html);
  const form = document.getElementById(id);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    seen.push({ agentInvoked: event.agentInvoked, values });
    if (event.agentInvoked) event.respondWith(Promise.resolve({ content: [{ type: 'text', text: answerText ?? `Booked for ${values.guests} (${values.name ?? ''})` }] }));
  });
  return form;
}

beforeEach(async () => {
  document.body.innerHTML = '';
  seen = [];
  answerText = undefined;
  events = [];
  w = createWarden({
    policy: {
      deny: [{ match: 'book_table', when: { arg: '/guests', min: 9 }, reason: 'Parties over 8 book by phone.' }],
      ask: [{ match: 'book_table', when: { arg: '/guests', min: 5 }, id: 'big-party' }],
      default: 'allow',
    },
    telemetry: (event) => events.push(event),
  });
  governed = governForms({ client: w });
  addForm();
  await sleep(10); // the polyfill's observer registers the form's tool
});
afterEach(() => {
  governed.stop();
  w.dispose();
});

/** An agent's call of a form tool through the runtime: what it reads. */
async function agentCall(name, input) {
  const tools = await document.modelContext.getTools();
  const tool = tools.find((t) => t.name === name);
  assert.ok(tool, `the runtime lists ${name}`);
  const text = await document.modelContext.executeTool(tool, JSON.stringify(input));
  return JSON.parse(text);
}

test('an allowed agent submit runs the pipeline, submits once, and the agent reads the page answer shaped', async () => {
  answerText = 'Booked\u200b for two';
  const result = await agentCall('book_table', { guests: 2, name: 'Ada' });
  assert.equal(result.content[0].text, 'Booked for two', 'shaping removed the hidden character');
  assert.deepEqual(result._meta['webmcp-warden/provenance'].flags, ['zero_width']);
  assert.deepEqual(seen, [{ agentInvoked: true, values: { guests: '2', name: 'Ada', csrf: 'token-1' } }], 'the page saw one submit, as an agent one');
  const stop = events.find((event) => event.name === 'tool_call.stop');
  assert.equal(stop?.tool, 'book_table');
  assert.equal(stop?.status, 'ok');
});

test('a submit policy denies never reaches the page; the agent reads the reason', async () => {
  const result = await agentCall('book_table', { guests: 12, name: 'Ada' });
  assert.equal(result.isError, true);
  assert.equal(result.content[0].text, 'Denied: Parties over 8 book by phone.');
  assert.deepEqual(seen, [], 'never submitted');
});

test('an ask holds the submit: approved, it submits once; refused, never', async () => {
  const asked = [];
  let allow = true;
  w.configure({ onAsk: async (call) => (asked.push(call.arguments), allow ? { allow: 'once' } : { deny: 'Not tonight.' }) });
  const approved = await agentCall('book_table', { guests: 6, name: 'Bo' });
  assert.equal(approved.content[0].text, 'Booked for 6 (Bo)');
  assert.deepEqual(asked, [{ guests: 6, name: 'Bo' }], 'the approver saw the form fields as the arguments');
  assert.equal(seen.length, 1);
  allow = false;
  const refused = await agentCall('book_table', { guests: 7, name: 'Cy' });
  assert.equal(refused.content[0].text, 'Denied: Not tonight.');
  assert.equal(seen.length, 1, 'the refused one never submitted');
});

test("a user's own submit is untouched: the page sees it directly, nothing governed runs", async () => {
  const form = document.getElementById('book');
  form.querySelector('[name=guests]').value = '20';
  form.requestSubmit();
  assert.deepEqual(seen, [{ agentInvoked: false, values: { guests: '20', name: '', csrf: 'token-1' } }]);
  assert.deepEqual(events, [], 'no call, no telemetry');
});

test('before-hooks rewrite the arguments the form submits; validation against the form schema refuses what does not fit', async () => {
  governed.stop();
  governed = governForms({
    client: w,
    hooks: {
      before: [(ctx) => (ctx.input.name === 'rename' ? { input: { ...ctx.input, name: 'Renamed' } } : ctx.input.name === 'bad' ? { input: { ...ctx.input, guests: 'many' } } : undefined)],
    },
  });
  const rewritten = await agentCall('book_table', { guests: 3, name: 'rename' });
  assert.equal(rewritten.content[0].text, 'Booked for 3 (Renamed)');
  assert.equal(seen.at(-1).values.name, 'Renamed', 'the form was submitted with the rewritten field');
  const invalid = await agentCall('book_table', { guests: 3, name: 'bad' });
  assert.equal(invalid.isError, true);
  assert.match(invalid.content[0].text, /guests/);
  assert.equal(seen.length, 1, 'the invalid one never submitted');
});

test('forms added later are governed; stop() ends governing', async () => {
  addForm(FORM.replace('id="book" toolname="book_table"', 'id="late" toolname="late_table"'), 'late');
  await sleep(10);
  const denied = await agentCall('late_table', { guests: 10 });
  // Not named by the policy's rules: its default allows, but it is governed (telemetry, shaping).
  assert.equal(denied.content[0].text, 'Booked for 10 ()');
  assert.ok(events.some((event) => event.name === 'tool_call.stop' && event.tool === 'late_table'));
  governed.stop();
  const before = events.length;
  const ungoverned = await agentCall('book_table', { guests: 12 });
  assert.equal(ungoverned.content[0].text, 'Booked for 12 ()', 'after stop() the page answers the agent itself');
  assert.equal(events.length, before);
});

test('a form the tool filter hides answers like an unknown tool and never submits', async () => {
  w.configure({ tools: { exclude: ['book_table'] } });
  const hidden = await agentCall('book_table', { guests: 2 });
  assert.equal(hidden.content[0].text, 'Error: Unknown tool "book_table"');
  assert.deepEqual(seen, []);
});

test('a page listener that prevents without respondWith fails the call as the tool; a rejected answer too', async () => {
  document.body.innerHTML = '';
  document.body.insertAdjacentHTML('beforeend', FORM);
  const form = document.getElementById('book');
  let mode = 'prevent';
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (mode === 'reject') event.respondWith(Promise.reject(new Error('kitchen closed')));
  });
  await sleep(10);
  const prevented = await agentCall('book_table', { guests: 2 });
  assert.equal(prevented.isError, true);
  mode = 'reject';
  const rejected = await agentCall('book_table', { guests: 2 });
  assert.equal(rejected.isError, true);
  assert.equal(events.filter((event) => event.name === 'tool_call.stop' && event.errorKind === 'tool').length, 2);
});

test('useWebMCPForm: the form is governed while mounted, under its provider\'s client; mounted again, governed again', async () => {
  const React = await import('react');
  const { createRoot } = await import('react-dom/client');
  const { WebMCPProvider, useWebMCPForm } = await import('webmcp-warden/react');
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  governed.stop(); // only the component governs here
  const h = React.createElement;
  const answered = [];
  function Booking() {
    const ref = useWebMCPForm();
    const onSubmit = (event) => {
      event.preventDefault();
      const guests = new FormData(event.currentTarget).get('guests');
      answered.push(guests);
      if (event.nativeEvent.agentInvoked) event.nativeEvent.respondWith(Promise.resolve(`React booked ${guests}`));
    };
    return h('form', { ref, id: 'react-book', toolname: 'react_book', tooldescription: 'Book from React.', toolautosubmit: 'true', onSubmit }, h('input', { name: 'guests', type: 'number' }), h('button', { type: 'submit' }, 'Book'));
  }
  const other = createWarden({ policy: { deny: [{ match: 'react_book', when: { arg: '/guests', min: 9 }, reason: 'Too many.' }], default: 'allow' } });
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  try {
    await React.act(async () => root.render(h(WebMCPProvider, { client: other }, h(Booking))));
    await sleep(20);
    assert.equal((await agentCall('react_book', { guests: 3 })).content[0].text, 'React booked 3');
    const denied = await agentCall('react_book', { guests: 12 });
    assert.equal(denied.content[0].text, 'Denied: Too many.', "the provider's client's policy applies");
    assert.deepEqual(answered, ['3']);
    await React.act(async () => root.render(h(WebMCPProvider, { client: other }, h('div'))));
    await React.act(async () => root.render(h(WebMCPProvider, { client: other }, h(Booking))));
    await sleep(20);
    assert.equal((await agentCall('react_book', { guests: 12 })).content[0].text, 'Denied: Too many.', 'mounted again, governed again (one listener: the old one stopped)');
    await React.act(async () => root.unmount());
  } finally {
    other.dispose();
    globalThis.IS_REACT_ACT_ENVIRONMENT = false;
  }
});
