// Helpers the bundled test pages share (mcp-b-page.js, react-page.jsx); esbuild bundles this
// file into each page.

/** Resolves after `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `predicate` every 10 ms until it answers something truthy (that value), or throws after `ms`. */
export async function waitFor(predicate, what, ms = 5000) {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
