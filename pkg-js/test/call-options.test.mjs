// Call options that are not what `CallOptions` says end the call as data, with a message naming the
// option, and the tool never runs (a misuse must not become an exception out of invoke()).
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { webmcp, resetWebMCP, invokeTool } from 'webmcp-warden';

let ran = 0;
let tool;
beforeEach(async () => {
  resetWebMCP();
  ran = 0;
  tool?.unregister();
  tool = webmcp(() => ++ran, { name: 'count', description: 'Counts' });
  await tool.register();
});

const cases = [
  ['a non-object', 7, /call options must be an object/],
  ['a number principal', { principal: 5 }, /principal must be a string/],
  ['a signal that is not an AbortSignal', { signal: {} }, /signal must be an AbortSignal/],
  ['an unknown shape', { shape: 'html' }, /shape must be 'llm' or false/],
  ['null assigns', { assigns: null }, /assigns must be an object/],
];

for (const [what, options, message] of cases) {
  test(`${what} ends the call as invalid_options`, async () => {
    for (const outcome of [await tool.invoke({}, options), await invokeTool('count', {}, options)]) {
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error.kind, 'validation');
      assert.equal(outcome.error.reason, 'invalid_options');
      assert.match(outcome.error.message, message);
      assert.equal(outcome.result.content[0].text, 'Error: ' + outcome.error.message);
    }
    assert.equal(ran, 0, 'the tool never ran');
  });
}

test('null options mean no options', async () => {
  const outcome = await tool.invoke({}, null);
  assert.equal(outcome.ok, true);
  assert.equal(ran, 1);
});
