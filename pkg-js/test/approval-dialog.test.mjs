// <ApprovalDialog> (webmcp-warden/react) in a DOM (jsdom), through the built package
// (docs/behaviour.md, "Approvals"): its minimal markup is an alertdialog labelled by the rule's
// label and described by the summary, lists the arguments that decided and the time left, takes
// the focus, answers Allow once / Always allow / Deny, denies on Escape, and announces an ask
// that expired while waiting until dismissed; its render function (headless) gets the ask, the
// time left, the count and the answers, cancel included; on a server it renders nothing.
// test-browser/react.test.mjs does the same in Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { sleep, textOf } from '../test-support/helpers.mjs';

let window;
let React;
let createRoot;
let renderToString;
let warden;
let react;
let runtime;

before(async () => {
  ({ window } = new JSDOM('<!doctype html><html><body></body></html>', { url: 'http://127.0.0.1/' }));
  Object.assign(globalThis, { window, document: window.document, HTMLElement: window.HTMLElement, Node: window.Node, Element: window.Element });
  Object.defineProperty(globalThis, 'navigator', { value: window.navigator, configurable: true });
  React = await import('react');
  ({ createRoot } = await import('react-dom/client'));
  ({ renderToString } = await import('react-dom/server'));
  warden = await import('webmcp-warden');
  react = await import('webmcp-warden/react');
  const { installFakeModelContext } = await import('webmcp-warden/testing');
  runtime = installFakeModelContext();
});

after(() => {
  runtime?.uninstall();
  // The window stays: React may still have work scheduled as the file ends.
});

/** Waits until `check()` answers something truthy, and answers it. */
async function until(check, what) {
  for (let i = 0; i < 300; i++) {
    const found = check();
    if (found) return found;
    await sleep(5);
  }
  assert.fail(`timed out: ${what}`);
}

/** Mounts `<WebMCPProvider client approver>` with a paying tool and `dialog` in it. */
async function mount(c, dialog) {
  const h = React.createElement;
  const element = window.document.createElement('div');
  window.document.body.append(element);
  const root = createRoot(element);
  let tool;
  function Pay() {
    tool = react.useWebMCP(({ amount }) => `paid ${amount}`, { name: 'pay', title: 'Pay', description: 'Pays.', inputSchema: { type: 'object', properties: { amount: { type: 'number' }, memo: { type: 'string' } } } }).tool;
    return null;
  }
  root.render(h(react.WebMCPProvider, { client: c, approver: true }, h(Pay), dialog));
  await until(() => tool?.status === 'registered', 'the tool registered');
  return { element, tool, q: (selector) => element.querySelector(selector), unmount: () => root.unmount() };
}

const buttons = (element) => [...element.querySelectorAll('button')];
const press = (element, label) => buttons(element).find((b) => b.textContent === label).click();

test('the minimal markup: an alertdialog with the label, the summary, the arguments that decided and the time left; Allow once; Escape denies; an expiry is announced until dismissed', async () => {
  const c = warden.createWarden({ debug: false, askTimeout: 1500, policy: { ask: [{ match: 'pay', label: 'Big payments need your approval', when: { arg: '/amount', min: 5 } }], default: 'allow' } });
  const page = await mount(c, React.createElement(react.ApprovalDialog, { className: 'approval' }));
  try {
    assert.equal(page.element.innerHTML, '', 'nothing is rendered while no ask waits');
    let call = page.tool.invoke({ amount: 6, memo: 'rent' });
    const dialog = await until(() => page.q('[role="alertdialog"]'), 'the dialog');
    assert.equal(dialog.className, 'approval');
    assert.equal(page.q('h2').textContent, 'Big payments need your approval', "the rule's own label");
    assert.equal(window.document.getElementById(dialog.getAttribute('aria-labelledby')).textContent, 'Big payments need your approval');
    assert.equal(window.document.getElementById(dialog.getAttribute('aria-describedby')).textContent, 'Big payments need your approval — amount 6');
    assert.deepEqual([...page.element.querySelectorAll('dt, dd')].map((el) => el.textContent), ['/amount', '6'], 'the argument the rule read, not the others');
    assert.match(page.q('[aria-live="polite"]').textContent, /^[12] s left$/);
    assert.equal(window.document.activeElement, dialog, 'a new ask takes the focus (the dialog, not a button)');
    assert.deepEqual(buttons(page.element).map((b) => b.textContent), ['Allow once', 'Always allow', 'Deny']);
    press(page.element, 'Allow once');
    assert.equal(textOf(await call), 'paid 6');
    await until(() => page.q('[role="alertdialog"]') === null, 'the dialog closed');

    call = page.tool.invoke({ amount: 7 });
    const second = await until(() => page.q('[role="alertdialog"]'), 'the dialog again');
    second.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    const denied = await call;
    assert.deepEqual([denied.error.reason, textOf(denied)], ['ask_denied', 'Denied: The user declined.']);

    call = page.tool.invoke({ amount: 8 });
    await until(() => page.q('[role="alertdialog"]'), 'the dialog a third time');
    const expired = await call;
    assert.deepEqual([expired.error.reason, expired.error.cause], ['ask_failed', 'timeout']);
    const notice = await until(() => page.q('[role="alert"]'), 'the expired notice');
    assert.match(notice.textContent, /^The request from Pay expired before anyone answered it; the agent was told it was denied\./);
    press(page.element, 'Dismiss');
    await until(() => page.element.innerHTML === '', 'the notice dismissed');
  } finally {
    page.unmount();
    c.dispose();
  }
});

test('headless: the render function gets the ask, the time left, the count and the answers; Always allow records a grant; cancel withdraws', async () => {
  const c = warden.createWarden({ debug: false, askTimeout: 60_000, policy: { ask: ['pay'], default: 'allow' } });
  const seen = [];
  const h = React.createElement;
  const dialog = h(react.ApprovalDialog, { allowAlways: false, denyReason: 'Not today.' }, (state) => {
    seen.push(state);
    if (state.ask === undefined) return h('p', { id: 'idle' }, 'idle');
    return h('section', { 'aria-labelledby': state.ids.title }, h('h2', { id: state.ids.title }, state.ask.summary.text), h('span', { id: 'count' }, String(state.pendingCount)));
  });
  const page = await mount(c, dialog);
  try {
    assert.ok(page.q('#idle'), 'the render function is called while idle too');
    const first = page.tool.invoke({ amount: 1, memo: 'coffee' });
    const second = page.tool.invoke({ amount: 2 });
    await until(() => page.q('#count')?.textContent === '2', 'both asks wait');
    const state = seen.at(-1);
    assert.equal(state.expired, false);
    assert.equal(state.ask.summary.text, 'Pay — amount 1, memo "coffee"', 'without arguments named by a rule, the top-level ones');
    assert.equal(state.ask.explanation, 'Asked by ask[0].');
    assert.equal(state.ask.deadline - state.ask.createdAt, 60_000);
    assert.ok(state.remainingMs > 55_000 && state.remainingMs <= 60_000, String(state.remainingMs));
    assert.equal(page.q('h2').id, state.ids.title);
    state.approve('always');
    assert.equal(textOf(await first), 'paid 1');
    assert.equal((await c.listGrants()).length, 1, '"always" records a grant');
    await until(() => page.q('#count')?.textContent === '1', 'one ask waits');
    seen.at(-1).cancel('The page moved on.');
    // The grant recorded by the first answer does not settle the second: it was already asked.
    const withdrawn = await second;
    assert.deepEqual([withdrawn.error.reason, textOf(withdrawn)], ['ask_denied', 'Denied: The page moved on.']);
    await until(() => page.q('#idle'), 'idle again');
    const third = page.tool.invoke({ amount: 3 });
    // A live grant answers the ask before the dialog sees it.
    assert.equal(textOf(await third), 'paid 3');
    await c.clearGrants();
    const fourth = page.tool.invoke({ amount: 4 });
    const shown = await until(() => page.q('section'), 'the dialog for the fourth');
    shown.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    assert.deepEqual(textOf(await fourth), 'Denied: Not today.', 'Escape denies with the denyReason');
  } finally {
    page.unmount();
    c.dispose();
  }
});

test('on a server, <ApprovalDialog> renders nothing; outside a provider with an approver it says so', () => {
  const h = React.createElement;
  const c = warden.createWarden({ debug: false });
  try {
    assert.equal(renderToString(h(react.WebMCPProvider, { client: c, approver: true }, h(react.ApprovalDialog))), '');
    assert.throws(() => renderToString(h(react.WebMCPProvider, { client: c }, h(react.ApprovalDialog))), (err) => err instanceof warden.ConfigurationError && err.code === 'no_approver');
  } finally {
    c.dispose();
  }
});
