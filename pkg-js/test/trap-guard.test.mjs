// The one trap guard of the wasm modules (src/boundary/trap-guard.ts): what counts as a trap, that a
// crossing that traps marks the instance dead and the next one makes a fresh instance, and that
// every module's driver keeps its instance in it. The core, the validator and the shaping module
// trap for real through their test-only exports (core-trap.test.mjs, validator-module.test.mjs,
// shape-loader.test.mjs); the URI, lint and limits modules have no such export, so their drivers run
// here, each in a process of its own, on a stand-in glue whose crossing traps for real (a wasm
// `unreachable`) when told to.
//
// Build first: `node pkg-js/build.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isTrap, TrapGuard } from '../lib/boundary/trap-guard.js';

const pkgRoot = fileURLToPath(new URL('..', import.meta.url));

/** `(module (func (export "t") unreachable))`: calling `t` traps. */
const TRAPPING = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 0x74, 0, 0, 10, 5, 1, 3, 0, 0, 0x0b];
const trapNow = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(TRAPPING))).exports.t;

test('a trap is a RuntimeError or the glue refusing to re-enter a trapped instance; nothing else is', () => {
  let trapped;
  try {
    trapNow();
  } catch (err) {
    trapped = err;
  }
  assert.ok(trapped instanceof WebAssembly.RuntimeError);
  assert.equal(isTrap(trapped), true);
  assert.equal(isTrap(new Error('recursive use of an object detected which would lead to unsafe aliasing in rust')), true);
  for (const other of [new TypeError('expected a string argument'), new RangeError('invalid array length'), 'unreachable', undefined]) assert.equal(isTrap(other), false, String(other));
});

test('a crossing that traps marks the instance dead; the next crossing makes a fresh one', () => {
  let starts = 0;
  const guard = new TrapGuard(() => void starts++, (err) => new Error('trapped', { cause: err }));
  assert.equal(guard.live, false, 'nothing is made before the first crossing');
  assert.equal(guard.run(() => 1), 1);
  assert.equal(guard.run(() => 2), 2);
  assert.equal(starts, 1, 'one instance for every crossing until a trap');
  assert.throws(() => guard.run(trapNow), (err) => err.message === 'trapped' && err.cause instanceof WebAssembly.RuntimeError);
  assert.equal(guard.live, false);
  assert.equal(guard.run(() => 3), 3);
  assert.equal(starts, 2, 'a fresh instance after the trap');
  // Anything else is thrown as it is, and the instance stays.
  assert.throws(() => guard.run(() => { throw new TypeError('bad argument'); }), TypeError);
  assert.equal(guard.live, true);
  // Crossings guarded inline (the core's hot path) do the same through `failed`.
  const thrown = (() => {
    try {
      trapNow();
    } catch (err) {
      return guard.failed(err);
    }
  })();
  assert.equal(thrown.message, 'trapped');
  assert.equal(guard.live, false);
  // An instance that cannot be made is not live: the next crossing tries again.
  const failing = new TrapGuard(() => {
    throw new Error('no wasm here');
  });
  assert.throws(() => failing.run(() => 1), /no wasm here/);
  assert.equal(failing.live, false);
});

test('every driver of a wasm module keeps its instance in the trap guard, and none tells traps apart itself', () => {
  const src = path.join(pkgRoot, 'src');
  const drivers = [];
  for (const file of readdirSync(src, { recursive: true }).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(path.join(src, file), 'utf8');
    // A driver: it makes an instance of a module (`initSync`), through the glue it imports.
    if (/initSync\(\{ module/.test(text)) drivers.push(file);
    if (path.basename(file) !== 'trap-guard.ts') assert.doesNotMatch(text, /\/unreachable\/|recursive use of an object/, `${file} tells traps apart itself`);
  }
  assert.deepEqual(drivers.map((file) => path.basename(file)).sort(), ['core.ts', 'limits.ts', 'lint-module.ts', 'shape-module.ts', 'uri-module.ts', 'validator-module.ts']);
  for (const file of drivers) assert.match(readFileSync(path.join(src, file), 'utf8'), /new TrapGuard\(/, `${file} makes its instance through the trap guard`);
});

// ------------------------------------------------------------------ the URI, lint and limits drivers

/**
 * Runs `script` (a module) in a process of its own where the drivers import stand-in glues:
 * each counts the instances made (`globalThis.made[name]`) and traps in the crossing after
 * `globalThis.trapNext = true`. Answers what the script printed, parsed.
 */
function withStandInGlue(script) {
  const dir = mkdtempSync(path.join(tmpdir(), 'warden-trap-'));
  try {
    const wire = pathToFileURL(path.join(pkgRoot, 'lib', 'boundary', 'wire.js')).href;
    const common = `
      import { encode } from ${JSON.stringify(wire)};
      const trapNow = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(${JSON.stringify(TRAPPING)}))).exports.t;
      globalThis.made ??= {};
      globalThis.sent ??= [];
      const crossing = () => { if (globalThis.trapNext) { globalThis.trapNext = false; trapNow(); } };
      const init = (name) => () => { globalThis.made[name] = (globalThis.made[name] ?? 0) + 1; return { memory: new WebAssembly.Memory({ initial: 1 }) }; };
    `;
    const glues = {
      warden_uri: `${common}
        export const initSync = init('uri');
        export function uriTemplate(template) { crossing(); return '+' + template; }
        export function resolveUri() { crossing(); return '+\\nx:/a'; }`,
      warden_lint: `${common}
        export const initSync = init('lint');
        export function lintPolicy() { crossing(); return encode({ ok: true, diagnostics: [] }); }`,
      warden_limits: `${common}
        const made = init('limits');
        export const initSync = (...args) => { globalThis.nextToken = 0; return made(...args); };
        export function limitsSet(id) { crossing(); globalThis.sent.push(id); return encode({ ok: true }); }
        export function limitsTool() { crossing(); return 3; }
        export function limitsCheck(id, tool, principal, same, now, count, costs, ended) { crossing(); (globalThis.endedSent ??= []).push(ended); return globalThis.tokens ? ++globalThis.nextToken : 0; }
        export function limitsHit() { crossing(); return encode(null); }
        export function limitsDrop() { crossing(); }
        export function limitsRelease(id, token) { crossing(); (globalThis.released ??= []).push(token); }`,
    };
    for (const [name, text] of Object.entries(glues)) writeFileSync(path.join(dir, `${name}.mjs`), text);
    // Resolves the drivers' `…/wasm/<glue>.js` (not its `_bytes.js`) to the stand-in.
    const hooks = `
      const glues = ${JSON.stringify(Object.fromEntries(Object.keys(glues).map((name) => [name, pathToFileURL(path.join(dir, `${name}.mjs`)).href])))};
      export async function resolve(specifier, context, next) {
        const name = /\\/wasm\\/(warden_(?:uri|lint|limits))\\.js$/.exec(specifier)?.[1];
        return name ? { url: glues[name], shortCircuit: true } : next(specifier, context);
      }`;
    writeFileSync(path.join(dir, 'hooks.mjs'), hooks);
    writeFileSync(path.join(dir, 'register.mjs'), `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(path.join(dir, 'hooks.mjs')).href)});`);
    writeFileSync(path.join(dir, 'script.mjs'), script);
    const out = execFileSync(process.execPath, ['--import', pathToFileURL(path.join(dir, 'register.mjs')).href, path.join(dir, 'script.mjs')], { cwd: pkgRoot, encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').at(-1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const dist = (file) => JSON.stringify(pathToFileURL(path.join(pkgRoot, 'lib', file)).href);

test('the URI module: a crossing that traps throws, and the next one runs on a fresh instance', () => {
  const seen = withStandInGlue(`
    import { uriModule } from ${dist('subjects/uri-module.js')};
    const before = uriModule.uriTemplate('a').sample;
    globalThis.trapNext = true;
    let trapped = false;
    try { uriModule.uriTemplate('b'); } catch (err) { trapped = err instanceof WebAssembly.RuntimeError; }
    const after = uriModule.uriTemplate('c').sample;
    console.log(JSON.stringify({ before, trapped, after, made: globalThis.made.uri }));
  `);
  assert.deepEqual(seen, { before: 'a', trapped: true, after: 'c', made: 2 });
});

test('the lint module: a lint that traps throws, and the next lint runs on a fresh instance', () => {
  const seen = withStandInGlue(`
    import { lintBytes } from ${dist('api/lint-module.js')};
    import { decode } from ${dist('boundary/wire.js')};
    const before = decode(lintBytes(new Uint8Array([0]))).ok;
    globalThis.trapNext = true;
    let trapped = false;
    try { lintBytes(new Uint8Array([0])); } catch (err) { trapped = err instanceof WebAssembly.RuntimeError; }
    const after = decode(lintBytes(new Uint8Array([0]))).ok;
    console.log(JSON.stringify({ before, trapped, after, made: globalThis.made.lint }));
  `);
  assert.deepEqual(seen, { before: true, trapped: true, after: true, made: 2 });
});

test("the limits module: a crossing that traps throws; the fresh instance gets each client's limits again before that client's next crossing", () => {
  const seen = withStandInGlue(`
    import { withLimits } from ${dist('limits.js')};
    import { limitsHook } from ${dist('client/limits-hook.js')};
    withLimits({});
    const engine = limitsHook.module;
    const a = {}, b = {};
    engine.set(a, new Uint8Array([0]));
    engine.set(b, new Uint8Array([0]));
    const before = engine.selects(a, 's', 't');
    globalThis.trapNext = true;
    let trapped = false;
    try { engine.selects(b, 's', 't'); } catch (err) { trapped = err instanceof WebAssembly.RuntimeError; }
    const after = engine.selects(b, 's', 't');
    const sentAfterB = globalThis.sent.slice();
    const afterA = engine.selects(a, 's', 't');
    console.log(JSON.stringify({ before, trapped, after, afterA, made: globalThis.made.limits, sentAfterB, sent: globalThis.sent }));
  `);
  // Client a's and b's limits are sent once each; then, to the fresh instance, b's as b crosses
  // next, and a's as a does.
  assert.deepEqual(seen, { before: true, trapped: true, after: true, afterA: true, made: 2, sentAfterB: [0, 1, 1], sent: [0, 1, 1, 0] });
});

test("the limits module: a call counted by an instance that trapped releases nothing in the fresh one", () => {
  const seen = withStandInGlue(`
    import { withLimits } from ${dist('limits.js')};
    import { limitsHook } from ${dist('client/limits-hook.js')};
    withLimits({});
    const limits = limitsHook.module;
    const a = { settings: { clock: () => 0, hookTimeout: 1000 }, predicates: { table: [] } };
    limits.set(a, new Uint8Array([0]));
    globalThis.tokens = true;
    // Two calls in flight, counted by the first instance (its tokens 1 and 2).
    const old = [limits.check(a, 's', 't', 'p', undefined, () => ({})), limits.check(a, 's', 't', 'p', undefined, () => ({}))];
    globalThis.trapNext = true;
    try { limits.selects(a, 's', 'u'); } catch {}
    // A call counted by the fresh instance: its own token 1.
    const fresh = limits.check(a, 's', 't', 'p', undefined, () => ({}));
    globalThis.endedSent = [];
    // The calls of the trapped instance end: nothing reaches the fresh one.
    for (const token of old) limits.release(a, token);
    limits.check(a, 's', 't', 'p', undefined, () => ({}));
    const afterOld = { ended: globalThis.endedSent.slice(), released: globalThis.released ?? [] };
    // The fresh instance's call ends: its token rides with the next check.
    limits.release(a, fresh);
    limits.check(a, 's', 't', 'p', undefined, () => ({}));
    console.log(JSON.stringify({ distinct: old.every((t) => t !== fresh), afterOld, endedNext: globalThis.endedSent.at(-1) }));
  `);
  assert.deepEqual(seen, { distinct: true, afterOld: { ended: [0], released: [] }, endedNext: 1 });
});

test('the limits module: a call counted before its client\'s limits were removed and set again releases nothing in the new state', () => {
  const seen = withStandInGlue(`
    import { withLimits } from ${dist('limits.js')};
    import { limitsHook } from ${dist('client/limits-hook.js')};
    withLimits({});
    const limits = limitsHook.module;
    const a = { settings: { clock: () => 0, hookTimeout: 1000 }, predicates: { table: [] }, limitsSlot: undefined };
    limits.set(a, new Uint8Array([0]));
    globalThis.tokens = true;
    const old = limits.check(a, 's', 't', 'p', undefined, () => ({}));
    // The policy loses its limits, then gets them back: the module makes the client a new state.
    limits.set(a, undefined);
    limits.set(a, new Uint8Array([0]));
    const fresh = limits.check(a, 's', 't', 'p', undefined, () => ({}));
    globalThis.endedSent = [];
    limits.release(a, old);
    limits.check(a, 's', 't', 'p', undefined, () => ({}));
    const afterOld = globalThis.endedSent.slice();
    limits.release(a, fresh);
    limits.check(a, 's', 't', 'p', undefined, () => ({}));
    console.log(JSON.stringify({ ids: globalThis.sent, afterOld, endedNext: globalThis.endedSent.at(-1), distinct: old !== fresh }));
  `);
  // The new state has an id of its own; the old call's token reaches nothing, the new one's does.
  assert.deepEqual(seen, { ids: [0, 1], afterOld: [0], endedNext: 2, distinct: true });
});
