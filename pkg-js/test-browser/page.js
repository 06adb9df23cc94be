// Test page for native-webmcp.test.mjs: loads the package's browser entry without a bundler,
// under a CSP that allows only 'self' scripts and 'wasm-unsafe-eval'.
import { webmcp, configureWebMCP, resetGlobalHooks } from '../dist/index.js';

window.__api = { webmcp, configureWebMCP, resetGlobalHooks };

const show = (text) => { document.getElementById('status').textContent = text; };

try {
  const add = webmcp(({ a, b }) => ({ sum: a + b }), {
    name: 'add',
    description: 'Add two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    hooks: {
      before: [
        (ctx) => {
          window.__hookRan = (window.__hookRan || 0) + 1;
          return { input: { ...ctx.input, b: ctx.input.b + 1 } };
        },
      ],
    },
  });
  window.__add = add;
  await add.register();
  window.__status = add.status;
  show(`tool "add": ${add.status}`);
} catch (err) {
  window.__error = String(err && err.stack || err);
  show(`error: ${err}`);
} finally {
  window.__ready = true;
}
