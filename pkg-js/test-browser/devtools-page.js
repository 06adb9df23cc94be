// The page of devtools.test.mjs: one tool under a policy that asks about big orders, an approver
// that never answers on its own (the panel answers), and the devtools panel mounted in #panel.
import { webmcp, configureWebMCP, invokeTool, listGrants } from 'webmcp-warden';
import { mountWardenDevtools } from 'webmcp-warden/devtools';

configureWebMCP({
  policy: { ask: [{ match: 'add_to_cart', id: 'big-orders', label: 'Large orders need your approval', when: { arg: '/quantity', min: 5 } }], default: 'allow' },
  onAsk: () => new Promise(() => {}),
  debug: false,
});

const addToCart = webmcp(({ quantity }) => ({ inCart: quantity }), {
  name: 'add_to_cart',
  description: 'Adds a mug to the cart.',
  inputSchema: { type: 'object', properties: { quantity: { type: 'integer', minimum: 1 } }, required: ['quantity'] },
});

await addToCart.register();
mountWardenDevtools(document.getElementById('panel'));

window.__page = {
  call: (quantity) => invokeTool('add_to_cart', { quantity }),
  pending: new Map(),
  /** Starts a call without waiting for it; `settled(id)` answers its outcome once it has one. */
  start(id, quantity) {
    const entry = { outcome: undefined };
    window.__page.pending.set(id, entry);
    invokeTool('add_to_cart', { quantity }).then((outcome) => (entry.outcome = outcome));
  },
  settled: (id) => window.__page.pending.get(id)?.outcome,
  grants: () => listGrants(),
  pageStyle: () => getComputedStyle(document.querySelector('button.page')).borderTopWidth,
};
window.__ready = true;
