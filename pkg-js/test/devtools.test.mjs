// webmcp-warden/devtools in a DOM (jsdom), through the built package (docs/behaviour.md,
// "Devtools"): the panel lives in a shadow root; it lists the tools with their status,
// fingerprint and schema; a call appears with its decision and its steps; an ask is approved or
// denied from the panel; the grant an "Always" recorded is revoked there; the kill switch denies
// the next call with its reason and resumes; it collapses; what a definition says is text, never
// markup; unmounting stops it. test-browser/devtools.test.mjs does the same in Chromium (real
// focus, styles and keyboard).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { createWarden, ConfigurationError } from 'webmcp-warden';
import { mountWardenDevtools } from 'webmcp-warden/devtools';
import { installFakeModelContext } from 'webmcp-warden/testing';
import { sleep, textOf } from '../test-support/helpers.mjs';

let window;
let runtime;
let c;
let panel;
let shadow;

/** Waits until `check()` is truthy (the panel renders in a microtask, grants after a promise). */
async function until(check, what) {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await sleep(5);
  }
  assert.fail(`timed out: ${what}`);
}

const $ = (selector) => shadow.querySelector(selector);
const $$ = (selector) => [...shadow.querySelectorAll(selector)];
const buttonIn = (node, label) => [...node.querySelectorAll('button')].find((b) => b.textContent === label);

before(async () => {
  runtime = installFakeModelContext();
  ({ window } = new JSDOM('<!doctype html><html><head><style>button { border: 3px solid red; }</style></head><body><div id="panel"></div></body></html>'));
  c = createWarden({
    debug: false,
    policy: { ask: [{ match: 'add_to_cart', id: 'big-orders', label: 'Large orders need your approval', when: { arg: '/quantity', min: 5 } }], default: 'allow' },
    onAsk: () => new Promise(() => {}),
  });
  await c
    .webmcp(({ quantity }) => ({ inCart: quantity }), {
      name: 'add_to_cart',
      description: 'Adds a mug to the cart.',
      inputSchema: { type: 'object', properties: { quantity: { type: 'integer', minimum: 1 }, note: { type: 'string' } }, required: ['quantity'] },
    })
    .register();
  panel = mountWardenDevtools(window.document.getElementById('panel'), { client: c });
  shadow = window.document.querySelector('webmcp-warden-devtools').shadowRoot;
});

after(() => {
  panel?.unmount();
  c?.dispose();
  window?.close();
  runtime?.uninstall();
});

test('the panel is in a shadow root of its own, and lists the tool with its status, fingerprint and schema', () => {
  assert.ok(shadow, 'an open shadow root');
  assert.equal(window.document.querySelectorAll('button').length, 0, "none of the panel's buttons is in the page's tree, where its styles apply");
  assert.ok(shadow.querySelector('style'), 'its styles are inside the shadow root');
  const tool = $('[data-tool="add_to_cart"]');
  assert.match(tool.querySelector('summary').textContent, /^add_to_cart · registered · [0-9a-f]{12}$/);
  const shown = JSON.parse(tool.querySelector('pre').textContent);
  assert.equal(shown.description, 'Adds a mug to the cart.');
  assert.deepEqual(shown.inputSchema.required, ['quantity']);
});

test('a call appears with its decision and its steps', async () => {
  assert.equal((await c.invokeTool('add_to_cart', { quantity: 1 })).ok, true);
  await until(() => $('[data-call]'), 'the call is listed');
  const call = $('[data-call]');
  assert.match(call.querySelector('summary').textContent, /^add_to_cart · ok · allow \(default\) · \d+\.\d ms$/);
  const steps = [...call.querySelectorAll('li')].map((li) => li.textContent);
  assert.ok(steps.some((line) => /^validation of the input: valid/.test(line)), steps.join('\n'));
  assert.ok(steps.some((line) => /^policy: allow \(default\)/.test(line)), steps.join('\n'));
  assert.ok(steps.some((line) => /^tool: returned, \d+\.\d ms$/.test(line)), steps.join('\n'));
  // A call the validation refused shows which keyword failed (telemetry's record carries no
  // path: it could quote what the agent sent).
  assert.equal((await c.invokeTool('add_to_cart', { quantity: 0 })).error.kind, 'validation');
  await until(() => $$('[data-call]').length === 2, 'the refused call is listed');
  const refused = [...$$('[data-call]')[0].querySelectorAll('li')].map((li) => li.textContent);
  assert.ok(refused.some((line) => /^validation of the input: invalid \(minimum\)$/.test(line)), refused.join('\n'));
});

test('an ask is approved from the panel ("Always"), its grant listed, then revoked from the panel', async () => {
  const pending = c.invokeTool('add_to_cart', { quantity: 6 });
  await until(() => $('[data-ask]'), 'the ask is listed');
  const ask = $('[data-ask]');
  assert.match(ask.textContent, /^Large orders need your approval — quantity 6/);
  assert.match(ask.textContent, /Asked by ask\[0\] \("big-orders"\)\. · \d+ s left/);
  buttonIn(ask, 'Always').click();
  const outcome = await pending;
  assert.deepEqual([outcome.ok, outcome.result.structuredContent], [true, { inCart: 6 }]);
  await until(() => !$('[data-ask]'), 'the ask left the panel');
  await until(() => $('[data-grant="page/add_to_cart"]'), 'the grant is listed');
  assert.equal((await c.listGrants()).length, 1);
  buttonIn($('[data-grant="page/add_to_cart"]'), 'Revoke').click();
  await until(() => !$('[data-grant]'), 'the grant left the panel');
  assert.deepEqual(await c.listGrants(), []);
});

test('an ask denied from the panel: the agent reads the panel\'s reason; a definition\'s markup is drawn as text', async () => {
  const pending = c.invokeTool('add_to_cart', { quantity: 7, note: 'not shown' });
  await until(() => $('[data-ask]'), 'the ask is listed');
  // The summary shows the arguments the rule read (only /quantity).
  assert.match($('[data-ask]').textContent, /^Large orders need your approval — quantity 7Asked by/);
  buttonIn($('[data-ask]'), 'Deny').click();
  const outcome = await pending;
  assert.deepEqual([outcome.error.reason, textOf(outcome)], ['ask_denied', 'Denied: Denied from the webmcp-warden devtools.']);
  await until(() => !$('[data-ask]'), 'the ask left the panel');
  // A definition's text is drawn as text: markup in a description stays characters.
  const markup = c.webmcp(() => '<b>bold</b>', { name: 'markup', description: '<script>globalThis.ran = 1</script><img src=x>' });
  await markup.register();
  await until(() => $('[data-tool="markup"]'), 'the new tool is listed (the panel looks once a second)');
  assert.deepEqual([$$('script').length, $$('img').length], [0, 0]);
  assert.match($('[data-tool="markup"] pre').textContent, /<script>globalThis\.ran = 1<\/script><img src=x>/);
  markup.unregister();
});

test('the kill switch denies the next call with its reason, then resumes', async () => {
  const kill = () => $('button[data-key="kill"]');
  assert.equal(kill().textContent, 'Suspend agents');
  kill().click();
  assert.equal(c.suspension(), 'Suspended from the webmcp-warden devtools.');
  await until(() => /agents suspended: Suspended from the webmcp-warden devtools\./.test($('header').textContent), 'the header says so');
  const denied = await c.invokeTool('add_to_cart', { quantity: 1 });
  assert.deepEqual([denied.error.kind, denied.error.reason, textOf(denied)], ['denied', 'suspended', 'Denied: Suspended from the webmcp-warden devtools.']);
  await until(() => /denied \/ suspended/.test($('[data-call] summary').textContent), 'the denied call is listed with why');
  assert.equal(kill().textContent, 'Resume agents');
  kill().click();
  assert.equal(c.suspension(), null);
  assert.equal((await c.invokeTool('add_to_cart', { quantity: 1 })).ok, true);
  await until(() => kill().textContent === 'Suspend agents', 'the header offers to suspend again');
});

test('it collapses and expands (a button with aria-expanded and aria-controls)', async () => {
  const toggle = () => $('button[data-key="toggle"]');
  assert.deepEqual([toggle().getAttribute('aria-expanded'), toggle().getAttribute('aria-controls')], ['true', 'body']);
  toggle().click();
  assert.equal(toggle().getAttribute('aria-expanded'), 'false');
  assert.equal($('#body').hidden, true);
  assert.equal($$('[data-tool]').length, 0, 'a collapsed panel draws nothing but its header');
  toggle().click();
  assert.equal($('#body').hidden, false);
  assert.ok($('[data-tool="add_to_cart"]'));
});

test('misuse is refused; unmounting removes the panel and stops watching', async () => {
  assert.throws(() => mountWardenDevtools(null), (err) => err instanceof ConfigurationError && err.code === 'invalid_options');
  assert.throws(() => mountWardenDevtools(window.document.body, { client: {} }), (err) => err instanceof ConfigurationError && err.path === 'client');
  const other = window.document.createElement('div');
  window.document.body.append(other);
  const second = mountWardenDevtools(other, { client: c, collapsed: true });
  assert.equal(other.querySelector('webmcp-warden-devtools').shadowRoot.querySelector('button[data-key="toggle"]').getAttribute('aria-expanded'), 'false');
  second.unmount();
  second.unmount();
  assert.equal(other.children.length, 0);
  panel.unmount();
  assert.equal(window.document.querySelector('webmcp-warden-devtools'), null);
  // Calls after unmounting reach no panel (nothing throws, nothing is drawn).
  assert.equal((await c.invokeTool('add_to_cart', { quantity: 1 })).ok, true);
  panel = undefined;
});
