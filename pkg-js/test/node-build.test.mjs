// The Node build (dist/node/: package.json's `node` condition; pkg-js/bundle.mjs, buildForNode):
// the same API as dist/, laid out for start-up time. Its wasm modules are read from the `.wasm`
// files beside it (src/boundary/wasm-bytes-node.ts), falling back to the embedded copies when a
// server bundler left the files behind; one file holds the main entry, and every other entry
// imports what it shares from it (docs/behaviour.md, "Node").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runFresh } from '../test-support/fresh-process.mjs';

const pkgDir = new URL('../', import.meta.url);
const nodeDir = new URL('../dist/node/', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', pkgDir), 'utf8'));
/** Each export of package.json with a `node` condition: [subpath, its Node file, its default file]. */
const nodeEntries = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === 'object' && target.node)
  .map(([subpath, target]) => [subpath, target.node, target.default]);

test('every entry has a Node file under dist/node/, and Node resolves the package to it', () => {
  assert.ok(nodeEntries.length >= 9, `${nodeEntries.length} entries with a node condition`);
  for (const [subpath, node] of nodeEntries) {
    assert.match(node, /^\.\/dist\/node\/[a-z-]+\.js$/, subpath);
    const specifier = subpath === '.' ? 'webmcp-warden' : `webmcp-warden/${subpath.slice(2)}`;
    assert.equal(import.meta.resolve(specifier), new URL(node, pkgDir).href, specifier);
  }
  assert.equal(pkg.exports['./slim'].node, undefined, '/slim has one build: it loads the core by init()');
});

test('each Node entry exports the names of the same entry in dist/', async () => {
  for (const [subpath, node, browser] of nodeEntries) {
    const names = Object.keys(await import(new URL(node, pkgDir).href)).sort();
    assert.deepEqual(names, Object.keys(await import(new URL(browser, pkgDir).href)).sort(), subpath);
    assert.ok(names.length > 0, subpath);
    assert.ok(!names.some((name) => name.startsWith('__m')), `${subpath} shows none of warden.js's shared names`);
  }
});

test('no source module is in two files of dist/node/: one copy of each piece of state, whichever entries a program imports', () => {
  const filesOf = new Map();
  for (const map of readdirSync(nodeDir).filter((file) => file.endsWith('.js.map'))) {
    for (const source of JSON.parse(readFileSync(new URL(map, nodeDir), 'utf8')).sources) filesOf.set(source, [...(filesOf.get(source) ?? []), map]);
  }
  assert.ok(filesOf.has('../../src/client/client.ts'), 'the source maps name the modules (so the check below can fail)');
  assert.deepEqual([...filesOf].filter(([, files]) => files.length > 1), []);
  // The entries other than the main one reach the client through warden.js.
  const imports = (file) => [...readFileSync(new URL(file, nodeDir), 'utf8').matchAll(/from\s*["']\.\/([^"']+)["']/g)].map((m) => m[1]);
  const closure = (file, seen = new Set()) => (seen.has(file) ? seen : (seen.add(file), imports(file).forEach((next) => closure(next, seen)), seen));
  for (const entry of ['index.js', 'react.js', 'otel.js', 'limits.js', 'devtools.js', 'forms.js']) assert.ok(closure(entry).has('warden.js'), entry);
});

/** Records the bytes of every wasm module compiled, synchronously or not, as `compiled` (hex SHA-256s). */
const RECORD_COMPILES = `
  const { createHash } = await import('node:crypto');
  const compiled = [];
  const sha = (bytes) => createHash('sha256').update(new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength)).digest('hex');
  const compileAsync = WebAssembly.compile;
  WebAssembly.compile = (bytes) => (compiled.push(sha(bytes)), compileAsync(bytes));
  const Module = WebAssembly.Module;
  WebAssembly.Module = new Proxy(Module, { construct(target, [bytes]) { compiled.push(sha(bytes)); return new target(bytes); } });
`;

/** A script that makes one governed call (shaped: the shaping module loads) through `entry`. */
const firstCall = (entry) => `
  ${RECORD_COMPILES}
  const { webmcp } = await import(${JSON.stringify(entry)});
  const tool = webmcp(({ a, b }) => 'sum: ' + (a + b) + '\\u200b', { name: 'add', description: 'Adds.' });
  const outcome = await tool.invoke({ a: 1, b: 2 });
  console.log(JSON.stringify({ text: outcome.result.content[0].text, compiled }));
`;

/** The SHA-256 of each `.wasm` file of dist/node/, by name. */
function shippedFiles() {
  return Object.fromEntries(readdirSync(nodeDir).filter((file) => file.endsWith('.wasm')).map((file) => [file, createHash('sha256').update(readFileSync(new URL(file, nodeDir))).digest('hex')]));
}

test('a first call compiles the modules read from their .wasm files: nothing is decoded', () => {
  const shipped = shippedFiles();
  assert.ok(shipped['warden_core.wasm'] && shipped['warden_shape.wasm'] && shipped['warden_validate.wasm'], Object.keys(shipped).join(', '));
  const result = runFresh(firstCall('webmcp-warden'));
  assert.equal(result.text, 'sum: 3', 'the call was governed and shaped (the hidden character is gone)');
  const byHash = Object.fromEntries(Object.entries(shipped).map(([file, hash]) => [hash, file]));
  assert.deepEqual(result.compiled.map((hash) => byHash[hash] ?? 'another module (the LZMA decoder?)').sort(), ['warden_core.wasm', 'warden_shape.wasm']);
});

test('without the .wasm files beside it (a server bundler copied only the code), the Node build decodes its embedded copies: the same modules', () => {
  const copy = mkdtempSync(join(tmpdir(), 'warden-node-build-'));
  try {
    for (const file of readdirSync(nodeDir).filter((name) => name.endsWith('.js'))) copyFileSync(new URL(file, nodeDir), join(copy, file));
    writeFileSync(join(copy, 'package.json'), '{ "type": "module" }\n');
    const result = runFresh(firstCall(pathToFileURL(join(copy, 'index.js')).href));
    assert.equal(result.text, 'sum: 3');
    const shipped = Object.values(shippedFiles());
    const fromFiles = result.compiled.filter((hash) => shipped.includes(hash));
    assert.equal(fromFiles.length, 2, 'the core and the shaping module, decoded to the same bytes as the files');
    assert.ok(result.compiled.length > fromFiles.length, 'and the decoder was compiled to decode them');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
