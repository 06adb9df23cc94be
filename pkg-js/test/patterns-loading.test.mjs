// Patterns compiled before the pattern judgement has loaded, and a judgement that cannot load
// (docs/behaviour.md, "Patterns"), through the BUILT package. Each scenario runs in a fresh
// process, where nothing of the package has loaded yet:
//
// - a pattern compiled while the judgement is missing is accepted; the first call waits for the
//   judgement and tests it where it says (the linear engine at the cap), and `register()`
//   refuses a pattern the judgement refuses, naming it;
// - a judgement that does not load: `register()` rejects with `internal_error`, a call fails the
//   pattern closed as data, and the next use loads it.
//
// Build first: `node pkg-js/build.mjs`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runFresh } from '../test-support/fresh-process.mjs';

const pkg = fileURLToPath(new URL('..', import.meta.url));

/** Runs `body` in a fresh `node` after a preamble; answers what it printed last (JSON). */
function fresh(body, preamble = '') {
  return runFresh(`
    ${preamble}
    const host = await import(${JSON.stringify(pkg + 'wasm/pattern-host.js')});
    const { configureWebMCP, webmcp, invokeTool, lintPolicy } = await import(${JSON.stringify(pkg + 'lib/index.js')});
    const { installFakeModelContext } = await import(${JSON.stringify(pkg + 'lib/testing.js')});
    installFakeModelContext();
    const EVIL = '^(a+)+$';
    const evil = 'a'.repeat(65_535) + '!';
    const result = {};
    const failure = async (promise) => promise.then(() => 'resolved', (err) => ({ name: err.name, code: err.code, message: err.message }));
    ${body}
    console.log(JSON.stringify(result));
  `);
}

test('a pattern compiled before the judgement loaded: accepted, judged before the first call, which tests it where the judgement says', () => {
  const result = fresh(`
    configureWebMCP({ policy: { deny: [{ match: 'echo', when: { arg: '/q', matches: EVIL } }], default: 'allow' } });
    result.loadedAtConfigure = host.hasJudge();
    const echo = webmcp(({ q }) => q.length, { name: 'echo', description: 'Echoes.' });
    // No register(): the call itself waits for the judgement (and the linear engine).
    result.allowed = (await echo.invoke({ q: evil })).ok;
    result.denied = (await echo.invoke({ q: 'a'.repeat(65_536) })).error?.kind;
    result.loadedAtCall = host.hasJudge();
  `);
  assert.equal(result.loadedAtConfigure, false, 'configureWebMCP did not wait for the judgement');
  assert.equal(result.allowed, true, 'the first call tested the long string on the linear engine: no match');
  assert.equal(result.denied, 'denied');
  assert.equal(result.loadedAtCall, true);
});

test('register() refuses a refused pattern the core compiled before the judgement loaded, naming it; a call fails it closed', () => {
  const result = fresh(`
    configureWebMCP({ policy: { deny: [{ match: 'guarded', when: { arg: '/q', matches: '^(b+)+\\\\1$' } }], default: 'allow' } });
    result.loadedAtConfigure = host.hasJudge();
    const guarded = webmcp(() => 'ok', { name: 'guarded', description: 'd' });
    result.register = await failure(guarded.register());
    result.status = guarded.status;
    const outcome = await guarded.invoke({ q: 'bb' });
    result.call = { kind: outcome.error?.kind, explanation: outcome.error?.decision?.explanation };
    // Now that it is loaded, the same pattern is refused at once.
    try {
      configureWebMCP({ policy: { deny: [{ when: { arg: '/q', matches: '^(c+)+\\\\1$' } }] } });
      result.configure = 'accepted';
    } catch (err) {
      result.configure = err.code;
    }
    // Replaced by a policy without it, the tool registers.
    configureWebMCP({ policy: { deny: [{ match: 'guarded', when: { arg: '/q', matches: '^b+$' } }], default: 'allow' } });
    result.again = await failure(guarded.register());
  `);
  assert.equal(result.loadedAtConfigure, false);
  assert.equal(result.register.name, 'ConfigurationError');
  assert.equal(result.register.code, 'unsafe_pattern');
  assert.match(result.register.message, /^the pattern \/\^\(b\+\)\+\\1\$\/ can take exponential time .*a back-reference/);
  assert.equal(result.status, 'error');
  assert.equal(result.call.kind, 'denied');
  assert.match(result.call.explanation, /failing closed because a pattern could not test the argument/);
  assert.equal(result.configure, 'unsafe_pattern');
  assert.equal(result.again, 'resolved');
});

/**
 * Loaders that fail every load of the judgement while `globalThis.online` is false (each failure
 * waiting for `globalThis.release()` first), then load the real chunks.
 */
const flakyLoaders = () => `
  const { setPatternLoaders } = await import(${JSON.stringify(pkg + 'wasm/pattern-host.js')});
  const deps = { ...(await import(${JSON.stringify(pkg + 'lib/boundary/embedded-bytes.js')})), ...(await import(${JSON.stringify(pkg + 'lib/boundary/unlzma.js')})) };
  let attempts = 0;
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  Object.assign(globalThis, { online: false, release, judgeAttempts: () => attempts });
  // Installed before the package's own (the first loaders installed win).
  setPatternLoaders({
    judge: async () => {
      attempts++;
      if (!globalThis.online) {
        await gate;
        throw new Error('offline');
      }
      return (await import(${JSON.stringify(pkg + 'lib/boundary/judge-chunk.js')})).start(deps);
    },
    linear: async () => (await import(${JSON.stringify(pkg + 'lib/boundary/linear-chunk.js')})).start(deps),
  });
`;

test('a judgement that does not load: register() rejects with a code, calls fail closed, the next use loads it', () => {
  const result = fresh(`
    release();
    configureWebMCP({ policy: { deny: [{ match: 'echo', when: { arg: '/q', matches: EVIL } }], allow: [{ match: 'echo', when: { arg: '/q', matches: '^a' } }], default: 'deny' } });
    const echo = webmcp(({ q }) => q.length, { name: 'echo', description: 'Echoes.' });
    result.register = await failure(echo.register());
    online = true;
    // The pattern cannot be tested: the deny rule holds (fail closed), the allow rule would not.
    const first = await echo.invoke({ q: 'ab' });
    result.first = { kind: first.error?.kind, explanation: first.error?.decision?.explanation };
    // That call asked for the judgement again; the next one waits for it.
    result.second = (await echo.invoke({ q: 'ab' })).ok;
    result.attempts = globalThis.judgeAttempts();
    result.again = await failure(echo.register());
  `, flakyLoaders());
  assert.equal(result.register.name, 'WardenError');
  assert.equal(result.register.code, 'internal_error');
  assert.match(result.register.message, /the pattern judgement did not load \(offline\)/);
  assert.equal(result.first.kind, 'denied');
  assert.match(result.first.explanation, /Denied by deny\[0\], failing closed because a pattern could not test the argument/);
  assert.equal(result.second, true);
  assert.equal(result.attempts, 3, 'configureWebMCP, register() and the first call each asked');
  assert.equal(result.again, 'resolved');
});

test("a schema compiled while the judgement module was loading, and it did not load: register() rejects, a call's validation fails closed", () => {
  // A policy's pattern starts loading the judgement module; the tool's schema is compiled while
  // that load is in flight (so the validator is the build without the judgement), and it fails.
  const result = fresh(`
    configureWebMCP({ policy: { deny: [{ match: 'nothing', when: { arg: '/q', matches: '^x' } }], default: 'allow' } });
    const t = webmcp(() => 'ok', { name: 'checked', description: 'd', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$' } } } });
    // The load fails once register() has picked the validator's build (the judgement was loading).
    const registering = failure(t.register());
    setTimeout(release, 0);
    result.register = await registering;
    online = true;
    const first = await t.invoke({ q: 'abc' });
    result.first = { reason: first.error?.reason, diagnostics: first.error?.diagnostics };
    result.second = (await t.invoke({ q: 'abc' })).ok;
    result.again = await failure(t.register());
  `, flakyLoaders());
  assert.equal(result.register.code, 'internal_error');
  assert.match(result.register.message, /the pattern judgement did not load \(offline\)/);
  assert.equal(result.first.reason, 'invalid_arguments');
  assert.equal(result.first.diagnostics[0].keyword, 'pattern');
  assert.match(result.first.diagnostics[0].message, /not judged/);
  assert.equal(result.second, true);
  assert.equal(result.again, 'resolved');
});

test('a page whose schemas hold patterns gets its judgement from the validator: no judgement module of its own', () => {
  const result = fresh(`
    const t = webmcp(({ q }) => q, { name: 'checked', description: 'd', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } } });
    await t.register();
    result.loaded = host.hasJudge();
    result.long = (await t.invoke({ q: 'a'.repeat(9_999) + '!' })).error?.reason;
    // The core's patterns are judged by it too.
    try {
      configureWebMCP({ policy: { deny: [{ when: { arg: '/q', matches: '^(b+)+\\\\1$' } }] } });
      result.refused = 'accepted';
    } catch (err) {
      result.refused = err.code;
    }
    result.attempts = globalThis.judgeAttempts();
  `, flakyLoaders());
  assert.equal(result.loaded, true);
  assert.equal(result.long, 'invalid_arguments', 'the long string was tested (on the linear engine): no match');
  assert.equal(result.refused, 'unsafe_pattern');
  assert.equal(result.attempts, 0, 'the judgement module was never loaded');
});
