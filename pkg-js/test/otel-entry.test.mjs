// The OpenTelemetry support costs nothing to a page that does not use it: the BUILT main entry
// (and the react and testing entries), bundled with esbuild as a page's bundler would, contains
// no OpenTelemetry code and no import of it, while the `webmcp-warden/otel` entry does import
// `@opentelemetry/api` (so the check below would see it if the main entry ever pulled it in).
// Also checks the package.json that publishes it: the export and the optional peer dependency.
//
// Build first: `npm run build -w pkg-js` (or `node pkg-js/build.mjs`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Bundles `entry` (a package specifier) for the browser; answers the text and the input files. */
async function bundle(entry, external = []) {
  const result = await build({
    stdin: { contents: `export * from '${entry}';`, resolveDir: new URL('.', import.meta.url).pathname, loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    metafile: true,
    logLevel: 'silent',
    external,
  });
  const text = result.outputFiles.map((f) => f.text).join('\n');
  return { text, inputs: Object.keys(result.metafile.inputs) };
}

for (const entry of ['webmcp-warden', 'webmcp-warden/testing']) {
  test(`${entry} bundles without any OpenTelemetry code`, async () => {
    const { text, inputs } = await bundle(entry);
    const otel = inputs.filter((file) => file.includes('@opentelemetry') || /(^|\/)otel\.js$/.test(file));
    assert.deepEqual(otel, [], `the bundle of ${entry} takes in ${otel.join(', ')}`);
    assert.ok(inputs.some((file) => /dist\/(index|testing)\.js$/.test(file)), 'the bundle did take in the package');
    for (const needle of ['@opentelemetry', 'execute_tool', 'gen_ai.']) assert.ok(!text.includes(needle), `the bundle of ${entry} contains ${needle}`);
  });
}

test('webmcp-warden/react bundles without any OpenTelemetry code (react itself left external)', async () => {
  const { text, inputs } = await bundle('webmcp-warden/react', ['react', 'react/*', 'react-dom', 'react-dom/*']);
  assert.deepEqual(inputs.filter((file) => file.includes('@opentelemetry') || /(^|\/)otel\.js$/.test(file)), []);
  assert.ok(!text.includes('@opentelemetry'));
});

test('webmcp-warden/otel is where OpenTelemetry comes in: it imports @opentelemetry/api (left to the page)', async () => {
  const external = await bundle('webmcp-warden/otel', ['@opentelemetry/api']);
  assert.match(external.text, /from\s*["']@opentelemetry\/api["']/);
  assert.ok(external.inputs.some((file) => file.endsWith('dist/otel.js')));
  const inlined = await bundle('webmcp-warden/otel');
  assert.ok(inlined.inputs.some((file) => file.includes('@opentelemetry/api')), 'bundled, it takes in the API');
});

test('package.json publishes ./otel with types, and @opentelemetry/api as an optional peer', () => {
  assert.deepEqual(pkg.exports['./otel'], { types: './dist/types/otel.d.ts', node: './dist/node/otel.js', default: './dist/otel.js' });
  assert.ok(pkg.peerDependencies['@opentelemetry/api'], 'a peer dependency');
  assert.deepEqual(pkg.peerDependenciesMeta['@opentelemetry/api'], { optional: true });
  assert.ok(!('dependencies' in pkg) || !Object.keys(pkg.dependencies).some((name) => name.startsWith('@opentelemetry/')), 'never a dependency');
  // Tests run against exact versions (the peer range is what users may bring).
  for (const name of ['@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@opentelemetry/context-async-hooks']) {
    assert.match(pkg.devDependencies[name] ?? '', /^\d+\.\d+\.\d+$/, `${name} is pinned exactly`);
  }
});
