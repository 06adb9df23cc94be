// <WardenDevtools /> (webmcp-warden/devtools/react) in a DOM (jsdom), through the built package
// (docs/behaviour.md, "Devtools"): it mounts the panel for the nearest <WebMCPProvider client>
// (else the default client, or the one given), follows a change of client, and removes the panel
// when it unmounts; on a server it renders an empty holder and mounts nothing.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { sleep } from '../test-support/helpers.mjs';

let window;
let React;
let createRoot;
let renderToString;
let warden;
let react;
let WardenDevtools;

before(async () => {
  ({ window } = new JSDOM('<!doctype html><html><body></body></html>', { url: 'http://127.0.0.1/' }));
  Object.assign(globalThis, { window, document: window.document, HTMLElement: window.HTMLElement, Node: window.Node, Element: window.Element });
  Object.defineProperty(globalThis, 'navigator', { value: window.navigator, configurable: true });
  React = await import('react');
  ({ createRoot } = await import('react-dom/client'));
  ({ renderToString } = await import('react-dom/server'));
  warden = await import('webmcp-warden');
  react = await import('webmcp-warden/react');
  ({ WardenDevtools } = await import('webmcp-warden/devtools/react'));
});

async function until(check, what) {
  for (let i = 0; i < 300; i++) {
    const found = check();
    if (found) return found;
    await sleep(5);
  }
  assert.fail(`timed out: ${what}`);
}

/** The panel's shadow root under `element`, if one is mounted. */
const panelIn = (element) => element.querySelector('webmcp-warden-devtools')?.shadowRoot;

test("the panel of the nearest provider's client; a change of client; unmounting removes it", async () => {
  const h = React.createElement;
  const first = warden.createWarden({ debug: false });
  const second = warden.createWarden({ debug: false });
  first.webmcp(() => 1, { name: 'first_tool', description: 'd' });
  second.webmcp(() => 2, { name: 'second_tool', description: 'd' });
  const element = window.document.createElement('div');
  window.document.body.append(element);
  const root = createRoot(element);
  try {
    root.render(h(react.WebMCPProvider, { client: first }, h(WardenDevtools, { className: 'devtools' })));
    const shadow = await until(() => panelIn(element), 'the panel mounted');
    assert.equal(element.firstElementChild.className, 'devtools', 'the holder takes the class name');
    first.suspendAgents('Stopped in the test.');
    await until(() => /agents suspended: Stopped in the test\./.test(shadow.querySelector('header').textContent), "the panel watches the provider's client");
    // Another client: the panel is mounted again for it.
    root.render(h(react.WebMCPProvider, { client: second }, h(WardenDevtools, { collapsed: true })));
    await until(() => panelIn(element) !== undefined && panelIn(element) !== shadow, 'a panel for the other client');
    assert.equal(element.querySelectorAll('webmcp-warden-devtools').length, 1, 'the old panel is gone');
    assert.equal(panelIn(element).querySelector('button[data-key="toggle"]').getAttribute('aria-expanded'), 'false');
    assert.match(panelIn(element).querySelector('header').textContent, /agents may act/, 'the second client is not suspended');
    root.render(h(react.WebMCPProvider, { client: second }, null));
    await until(() => element.querySelector('webmcp-warden-devtools') === null, 'the panel removed on unmount');
  } finally {
    root.unmount();
    first.dispose();
    second.dispose();
  }
});

test('on a server it renders an empty holder and mounts nothing', () => {
  const h = React.createElement;
  const c = warden.createWarden({ debug: false });
  try {
    assert.equal(renderToString(h(react.WebMCPProvider, { client: c }, h(WardenDevtools, { className: 'devtools' }))), '<div class="devtools"></div>');
  } finally {
    c.dispose();
  }
});
