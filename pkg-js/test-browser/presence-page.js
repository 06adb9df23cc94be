// Test page for presence.test.mjs: the package's main entry and its `webmcp-warden/presence`
// entry without a bundler. The test, acting as the person's authenticator through Chromium's
// virtual authenticator (CDP), registers a credential and settles the tool's asks with it; the
// agent calls the tool in-page (`invokeTool`). Every `navigator.credentials.get` is counted, so
// the test can tell a locked approver from one that asked.
import { webmcp, configureWebMCP, invokeTool, listGrants } from '../dist/index.js';
import { presenceApprover, registerPresence } from '../dist/presence.js';

const get = navigator.credentials.get.bind(navigator.credentials);
window.__gets = 0;
navigator.credentials.get = (options) => {
  window.__gets++;
  return get(options);
};

let runs = 0;
const transfer = webmcp(({ amount }) => `sent ${amount}`, { name: 'transfer', description: 'Sends money.', shape: false });
await transfer.register();
const shown = [];
window.__shown = shown;
window.__approver = presenceApprover({
  attempts: 3,
  windowMs: 60_000,
  // The page's own dialog: it shows the call, then presence confirms its allow.
  dialog: (call) => {
    shown.push(call.arguments);
    runs++;
    return call.arguments.remember ? { allow: 'always', scope: 'arguments' } : { allow: 'once' };
  },
});
configureWebMCP({ policy: { ask: ['*'] }, onAsk: window.__approver });

window.__register = async () => {
  try {
    return { ok: true, credential: await registerPresence({ rpId: 'localhost' }) };
  } catch (err) {
    return { ok: false, error: `${err.name}: ${err.message}` };
  }
};
window.__call = async (input) => {
  const outcome = await invokeTool('transfer', input);
  return outcome.ok ? { ok: true, text: outcome.result.content[0].text } : { ok: false, reason: outcome.error.reason, code: outcome.error.code ?? null, message: outcome.error.message };
};
window.__grants = async () => (await listGrants()).map((grant) => grant.scope);
window.__dialogs = () => runs;
window.__ready = true;
