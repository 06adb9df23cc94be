// Test page for lazy-chunks.test.mjs: the package's browser entry without a bundler; the test
// decides whether a lazily loaded chunk (the pipeline, the shaping module) downloads. `?tree=dist`
// loads the shipped bundle (../dist/index.js, its chunks under dist/chunks/), otherwise the
// unbundled ../lib/index.js. Nothing registers at load.
const tree = new URLSearchParams(location.search).get('tree') === 'dist' ? 'dist' : 'lib';
const { webmcp } = await import(`../${tree}/index.js`);

const leaky = webmcp(() => 'se\u200bcret', { name: 'leaky', description: 'Answers with a hidden character.' });

/** Registers the tool with document.modelContext: its status, or the error's code and message. */
window.__register = async () => {
  try {
    await leaky.register();
    return { status: leaky.status };
  } catch (err) {
    return { status: leaky.status, code: err.code, message: err.message };
  }
};

/** Calls the tool in the page: whether it succeeded, its text, the failure's reason. */
window.__invoke = async () => {
  const outcome = await leaky.invoke({});
  return { ok: outcome.ok, text: outcome.result.content[0].text, reason: outcome.error?.reason };
};

window.__ready = true;
