// Pay for what you use: what a page's bundler takes in of the built package (its modules one per
// source file, lib/: the shipped dist/ bundles the same modules) for the features the
// page uses. Small apps are bundled with esbuild as a page's build would (`--bundle --minify
// --format=esm --splitting`: the validator module stays a chunk of its own) and the modules the
// page loads at import (the entry's chunk and the chunks it imports statically) are checked: a one-tool app never carries resources and prompts, dry runs,
// the activity store, MCP-B's interop (a chunk of its own, fetched on MCP-B pages only) or
// simple-webmcp's engine API, and an app that uses one of them does carry it
// (so the check would see it if the one-tool app ever pulled it in). What each module weighs is
// printed (`--test-reporter=spec` shows it), for the size work (README, "Size").
//
// Build first: `npm run build -w pkg-js` (or `node pkg-js/build.mjs`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from 'esbuild';

/**
 * The package's entries resolved to lib/, its modules one per source file (pkg-js/bundle.mjs):
 * the shipped dist/ is a bundle whose files do not name the modules this test is about.
 */
const ENTRY_FILE = { '': 'index', '/devtools/react': 'devtools-react' };
/** Resolves the package's entries to `tree`: lib/ (one module per source file) or dist/ (the shipped bundle). */
const entriesIn = (tree) => ({
  name: `webmcp-warden-${tree}`,
  setup(builder) {
    builder.onResolve({ filter: /^webmcp-warden(\/.*)?$/ }, ({ path }) => {
      const sub = path.slice('webmcp-warden'.length);
      return { path: new URL(`../${tree}/${ENTRY_FILE[sub] ?? sub.slice(1)}.js`, import.meta.url).pathname, sideEffects: false };
    });
  },
});

/**
 * Bundles an app whose entry is `source` against lib/ (or `tree`); answers the bytes each package
 * module puts in the entry chunk (`.bytes`: the minified bytes the page loads at import).
 */
async function bundle(source, external = [], tree = 'lib') {
  const result = await build({
    plugins: [entriesIn(tree)],
    // React stays external: bundled, its CommonJS makes esbuild share a helper chunk among all chunks.
    external,
    stdin: { contents: source, resolveDir: new URL('.', import.meta.url).pathname, loader: 'js' },
    bundle: true,
    minify: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    outdir: 'out',
    // Paths in the metafile are relative to this: the package's root, wherever the test runs from.
    absWorkingDir: new URL('..', import.meta.url).pathname,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  // The page's entry (esbuild also names each dynamically imported chunk an entry point), and the
  // chunks it imports statically: esbuild puts the code an entry shares with a lazily imported
  // chunk in a chunk of its own, which the page loads at import with the entry.
  const outputs = result.metafile.outputs;
  const [entryPath] = Object.entries(outputs).find(([, output]) => output.entryPoint === '<stdin>');
  const atImport = new Set([entryPath]);
  for (const path of atImport) {
    for (const imported of outputs[path].imports) if (imported.kind === 'import-statement' && !imported.external) atImport.add(imported.path);
  }
  const modules = new Map();
  for (const path of atImport) {
    for (const [file, { bytesInOutput }] of Object.entries(outputs[path].inputs)) {
      const found = /^((?:lib|wasm)\/.+)$/.exec(file);
      if (found && bytesInOutput > 0) modules.set(found[1], bytesInOutput);
    }
  }
  // The package's modules in the lazily imported chunks, so a test can tell "left out" from "renamed".
  modules.lazy = new Set(Object.entries(outputs).filter(([path]) => !atImport.has(path)).flatMap(([, output]) => Object.keys(output.inputs)));
  modules.files = atImport.size;
  modules.bytes = [...atImport].reduce((sum, path) => sum + outputs[path].bytes, 0);
  return modules;
}

const ONE_TOOL = `
import { webmcp } from 'webmcp-warden';
const tool = webmcp(({ host }) => 'ok ' + host, {
  name: 'check_host',
  description: 'Checks a host name.',
  inputSchema: { type: 'object', properties: { host: { type: 'string' } }, required: ['host'] },
});
await tool.register();
`;

/**
 * Modules a page that only defines, registers and serves tools must not carry in its entry:
 * shaping (its code, the module's glue and bytes) is a chunk `register()` or the first call loads;
 * resources (with the URI module, its glue and bytes) are carried only by pages that use them.
 */
const OPTIONAL = [
  'lib/subjects/subject.js', 'lib/subjects/subject-call.js', 'lib/api/explain.js', 'lib/client/activity-store.js', 'lib/runtime/mcp-b.js', 'lib/validator/validator-module.js', 'lib/api/hooked-execute.js', 'lib/otel.js',
  'lib/shape/shaping.js', 'lib/shape/shape-module.js', 'wasm/warden_shape.js', 'wasm/warden_shape_bytes.js',
  'lib/subjects/uri-module.js', 'wasm/warden_uri.js', 'wasm/warden_uri_bytes.js',
  'lib/api/forms.js', 'lib/react/use-webmcp-form.js', 'lib/runtime/schema-compat.js', 'lib/api/lint-tool.js',
  // The pattern judgement and the linear engine: chunks of their own, loaded when a page has
  // patterns; lintPolicy's synchronous copy of the judgement only with lintPolicy.
  'lib/boundary/judge-chunk.js', 'wasm/warden_patterns.js', 'wasm/warden_patterns_bytes.js', 'lib/boundary/linear-chunk.js', 'wasm/warden_linear.js', 'wasm/warden_linear_bytes.js',
  'lib/api/lint.js', 'wasm/warden_patterns_sync.js',
  'lib/devtools.js', 'lib/client/asks.js', 'lib/pipeline/diagnostics.js',
  // Policy lint (lintPolicy, with its copy of the judgement), limits (webmcp-warden/limits) and presence (webmcp-warden/presence).
  'lib/api/lint-module.js', 'wasm/warden_lint.js', 'wasm/warden_lint_bytes.js',
  'lib/limits.js', 'wasm/warden_limits.js', 'wasm/warden_limits_bytes.js', 'lib/presence.js',
];

test('a one-tool app carries none of the optional features', async (t) => {
  const modules = await bundle(ONE_TOOL);
  assert.ok(modules.has('lib/api/tool.js'), 'the bundle took in the package');
  // What runs calls, listings and the browser registration is a chunk register() loads.
  for (const file of ['lib/pipeline/call.js', 'lib/pipeline/listing.js', 'lib/pipeline/registration.js', 'lib/validator/validation.js']) {
    assert.ok(!modules.has(file) && modules.lazy.has(file), `${file} is in a lazily imported chunk, not in the entry`);
  }
  const carried = OPTIONAL.filter((file) => modules.has(file));
  assert.deepEqual(carried, [], `the one-tool app carries ${carried.join(', ')}`);
  const lazy = ['lib/shape/shaping.js', 'lib/shape/shape-module.js', 'wasm/warden_shape.js', 'wasm/warden_shape_bytes.js', 'lib/boundary/judge-chunk.js', 'wasm/warden_patterns_bytes.js', 'lib/boundary/linear-chunk.js', 'wasm/warden_linear_bytes.js'];
  for (const file of [...lazy, 'lib/validator/validator-chunk.js', 'wasm/warden_validate_bytes.js', 'wasm/warden_validate_judge_bytes.js']) {
    assert.ok(modules.lazy.has(file), `${file} is in a lazily imported chunk`);
  }
  assert.ok(!modules.lazy.has('wasm/warden_patterns_sync.js'), "lintPolicy's copy of the judgement is in no chunk");
  const rows = [...modules].sort((a, b) => b[1] - a[1]);
  t.diagnostic(`at import (${modules.files} files), package modules (minified bytes): ${rows.map(([file, bytes]) => `${file} ${bytes}`).join(', ')}`);
});

test('the devtools and the approval requests are nowhere in a page that does not import them; the diagnostics are a lazy chunk', async () => {
  const modules = await bundle(ONE_TOOL);
  for (const file of ['lib/devtools.js', 'lib/devtools-react.js', 'lib/client/asks.js']) {
    assert.ok(!modules.has(file) && !modules.lazy.has(file), `${file} is in the one-tool app's build`);
  }
  // Written only when a diagnostic is due with debug on: a chunk a production page never fetches.
  assert.ok(!modules.has('lib/pipeline/diagnostics.js') && modules.lazy.has('lib/pipeline/diagnostics.js'));
  const withDevtools = await bundle(`import { mountWardenDevtools } from 'webmcp-warden/devtools'; mountWardenDevtools(document.body);`);
  assert.ok(withDevtools.has('lib/devtools.js') && withDevtools.has('lib/client/asks.js'), 'a page that imports the devtools carries them');
});

test('a client of its own, configured, called and disposed, carries none of them either', async () => {
  const modules = await bundle(`
    import { createWarden } from 'webmcp-warden';
    const client = createWarden({ policy: { allow: ['*'] } });
    client.webmcp(() => 'ok', { name: 'ping', description: 'Pings.' });
    await client.invokeTool('ping', {});
    await client.listTools();
    client.reset();
    client.dispose();
  `);
  const carried = OPTIONAL.filter((file) => modules.has(file));
  assert.deepEqual(carried, [], `the app carries ${carried.join(', ')}`);
});

test("lintPolicy() carries the pattern judgement in the entry, compiled synchronously; other pages never download that copy", async () => {
  const lint = await bundle(`import { lintPolicy } from 'webmcp-warden'; console.log(lintPolicy({ deny: [{ when: { arg: '/q', matches: '^(a+)+$' } }] }));`);
  for (const file of ['lib/api/lint.js', 'wasm/warden_patterns_sync.js']) assert.ok(lint.has(file), `${file} is in the entry`);
  // Its bytes are most of it (the module, LZMA-compressed, base64-encoded).
  assert.ok(lint.get('wasm/warden_patterns_sync.js') > 10_000, `${lint.get('wasm/warden_patterns_sync.js')} bytes`);
});

test('what a page uses, it carries: resources and prompts, dry runs', async () => {
  const subjects = await bundle(`
    import { createWarden, webmcpResource, readResource } from 'webmcp-warden';
    const client = createWarden();
    webmcpResource(() => 'x', { uri: 'notes://a', name: 'a', client });
    await readResource('notes://a', { client });
  `);
  for (const file of ['lib/subjects/subject.js', 'lib/subjects/subject-call.js', 'lib/subjects/uri-module.js', 'wasm/warden_uri.js', 'wasm/warden_uri_bytes.js']) {
    assert.ok(subjects.has(file), `${file} is carried`);
  }
  const explain = await bundle(`import { explain } from 'webmcp-warden'; await explain('t', {});`);
  assert.ok(explain.has('lib/api/explain.js'));
});

test('form governance is carried only by pages that govern forms; the schema lint is a chunk of its own', async () => {
  const oneTool = await bundle(ONE_TOOL);
  for (const file of ['lib/api/forms.js', 'lib/react/use-webmcp-form.js']) assert.ok(!oneTool.has(file) && !oneTool.lazy.has(file), `a one-tool app carries none of ${file}, lazily or not`);
  assert.ok(!oneTool.has('lib/runtime/schema-compat.js') && oneTool.lazy.has('lib/runtime/schema-compat.js'), 'the lint is a chunk registration loads when a definition has something to adapt');
  const react = await bundle(`
    import { useWebMCP } from 'webmcp-warden/react';
    export function App() { useWebMCP(() => 'ok', { name: 'ping', description: 'Pings.' }); return null; }
  `, ['react']);
  for (const file of ['lib/api/forms.js', 'lib/react/use-webmcp-form.js']) assert.ok(!react.has(file) && !react.lazy.has(file), `a React app without useWebMCPForm carries none of ${file}`);
  const forms = await bundle(`import { governForms } from 'webmcp-warden/forms'; governForms();`);
  assert.ok(forms.has('lib/api/forms.js'), 'an app that governs forms carries it');
  const reactForms = await bundle(`
    import { useWebMCPForm } from 'webmcp-warden/react';
    export function App() { useWebMCPForm(); return null; }
  `, ['react']);
  assert.ok(reactForms.has('lib/api/forms.js') && reactForms.has('lib/react/use-webmcp-form.js'), 'so does a React app with useWebMCPForm');
});

test('what a page uses, it carries: policy lint, limits', async () => {
  const lint = await bundle(`import { lintPolicy } from 'webmcp-warden'; console.log(lintPolicy({}));`);
  for (const file of ['lib/api/lint.js', 'lib/api/lint-module.js', 'wasm/warden_lint.js', 'wasm/warden_lint_bytes.js']) assert.ok(lint.has(file), `${file} is carried`);
  assert.ok(!lint.has('wasm/warden_limits_bytes.js'));
  const limits = await bundle(`
    import { configureWebMCP } from 'webmcp-warden';
    import { withLimits } from 'webmcp-warden/limits';
    configureWebMCP({ policy: withLimits({ limits: [{ max: 5, window: 1000 }] }) });
  `);
  for (const file of ['lib/limits.js', 'wasm/warden_limits.js', 'wasm/warden_limits_bytes.js']) assert.ok(limits.has(file), `${file} is carried`);
  assert.ok(!limits.has('wasm/warden_lint_bytes.js'), 'limits do not bring the lint module');
});

// The shipped dist/ is esbuild's bundle of lib/ (pkg-js/bundle.mjs). A page's bundler leaves out
// what a page does not use per file and per top-level statement; bundling merges modules into
// chunks, so a statement with an effect, or an import of a shared chunk, would keep in the page
// what lib/ lets it drop (ARCHITECTURE.md, "Build outputs"). The same apps, built from either.
const APPS = {
  'one tool': ONE_TOOL,
  'a client of its own': `import { createWarden } from 'webmcp-warden'; const c = createWarden({ policy: { allow: ['*'] } }); c.webmcp(() => 'ok', { name: 'ping', description: 'Pings.' }); await c.invokeTool('ping', {});`,
  'a resource': `import { createWarden, webmcpResource, readResource } from 'webmcp-warden'; const client = createWarden(); webmcpResource(() => 'x', { uri: 'notes://a', name: 'a', client }); await readResource('notes://a', { client });`,
  'lintPolicy': `import { lintPolicy } from 'webmcp-warden'; console.log(lintPolicy({ allow: ['*'] }));`,
};
for (const [name, source] of Object.entries(APPS)) {
  test(`${name}: a page built from dist/ (the bundle) carries no more at import than one built from lib/`, async (t) => {
    const fromLib = await bundle(source, [], 'lib');
    const fromDist = await bundle(source, [], 'dist');
    t.diagnostic(`at import, minified: lib/ ${fromLib.bytes} B in ${fromLib.files} files, dist/ ${fromDist.bytes} B in ${fromDist.files} files`);
    assert.ok(fromLib.bytes > 10_000, 'the page took in the package');
    // Minified names and esbuild's chunk boundaries differ a little between the two builds.
    assert.ok(fromDist.bytes <= fromLib.bytes * 1.01, `dist/ ${fromDist.bytes} B > lib/ ${fromLib.bytes} B + 1 %`);
  });
}
