// Builds the package's JavaScript from src/ and the wasm/ that build.mjs made (run alone after a
// TypeScript change: `node pkg-js/bundle.mjs`; build.mjs runs it last):
//
//   lib/    tsc's output, one ES module per source file, with source maps and declarations.
//           Not shipped: the tests and benchmarks that reach the package's internals import it
//           (ARCHITECTURE.md, "Build outputs").
//   dist/   what npm ships: esbuild's bundle of lib/ (ESM, `--splitting`, not minified, source
//           maps): one module per public entry, one per lazily loaded chunk (each lazy
//           `import()` stays lazy), shared code in shared chunks (dist/chunks/), the glue and
//           embedded bytes of wasm/ inside the chunks that use them; tsc's declarations under
//           dist/types/ (one per source file) and the glue's under dist/wasm/.
//   dist/slim/  the `webmcp-warden/slim` entry, a build of its own: the same code with the core
//           loaded from `warden_core.wasm` beside it by `init()` (src/slim.ts).
//
// A page's bundler drops what a page does not use: whole files (`"sideEffects": false`) and,
// inside a file it keeps, the top-level statements nothing uses. So that a page built from dist/
// carries no more than one built from lib/ (pkg-js/test-pack/size.test.mjs holds the budgets),
// the code keeps its top-level statements free of side effects (`/* @__PURE__ */` where one
// makes an object: build.mjs's pureTopLevel for the glue), and this file writes no bare
// `import "./chunk.js"` (see {@link dropBareImports}) and keeps a few modules in files of their
// own ({@link OWN_FILES}).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const pkgDir = dirname(fileURLToPath(import.meta.url));
const root = join(pkgDir, '..');
const lib = join(pkgDir, 'lib');
const dist = join(pkgDir, 'dist');
const wasmDir = join(pkgDir, 'wasm');

/** The public entries (package.json `exports`): src/<name>.ts → dist/<name>.js. */
export const ENTRIES = ['index', 'react', 'testing', 'otel', 'devtools', 'devtools-react', 'forms', 'limits', 'presence'];

/** Every file under `dir` whose name ends with `suffix`, as paths relative to `dir`. */
function filesUnder(dir, suffix) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)));
}

/** Copies every file of `from` whose name ends with one of `suffixes` to the same place under `to`. */
function copyTree(from, to, ...suffixes) {
  for (const file of suffixes.flatMap((suffix) => filesUnder(from, suffix))) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(from, file), join(to, file));
  }
}

/** The esbuild options both bundles share. */
const COMMON = {
  bundle: true,
  splitting: true,
  format: 'esm',
  // Neither Node nor a browser assumed: the code checks what the platform has.
  platform: 'neutral',
  target: 'es2022',
  // react, @opentelemetry/api and the other peers stay imports the page resolves.
  packages: 'external',
  sourcemap: true,
  // Readable: a page's bundler minifies, and a stack trace in Node names our functions.
  minify: false,
  // `import.meta.env.DEV` and `process.env.NODE_ENV` stay as written, for the page's bundler
  // to replace (src/client/client.ts).
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  metafile: true,
};

/**
 * Modules of the public API that a page may not use, kept in files of their own (extra entry
 * points of the bundle, under dist/chunks/): a module the entry only re-exports is dropped whole
 * by a page that does not use it, imports and all. Bundled into the entry's file instead, its
 * code would import the chunk of what it wraps (`normalize.ts`, `json-walk.ts`, which only the
 * lazily loaded pipeline uses otherwise), and a page's bundler would put that chunk in the page's
 * import (src/api/public-results.ts says why it is a module of its own).
 */
const OWN_FILES = ['api/public-results'];

/** tsc → lib/. */
function tsc() {
  rmSync(lib, { recursive: true, force: true });
  const bin = join(root, 'node_modules', '.bin', 'tsc');
  console.log('$ tsc -p pkg-js/tsconfig.json');
  execFileSync(bin, ['-p', join(pkgDir, 'tsconfig.json')], { stdio: 'inherit', cwd: root });
}

/**
 * esbuild writes `import "./chunks/chunk-X.js";` where an entry or chunk reaches a module of a
 * shared chunk but imports none of its names (to keep the evaluation order of side effects).
 * The package has none (`"sideEffects": false`), and a page's bundler follows such an import and
 * puts that chunk in the page's import even when only a lazily loaded chunk uses it. Each such
 * line is blanked (not removed: the source map's lines stay where they are).
 */
function dropBareImports(dir) {
  let dropped = 0;
  for (const file of filesUnder(dir, '.js')) {
    const path = join(dir, file);
    const text = readFileSync(path, 'utf8');
    const out = text.replace(/^import "\.{1,2}\/(?:chunks\/)?chunk-[A-Z0-9]+\.js";$/gm, () => {
      dropped++;
      return '';
    });
    if (out !== text) writeFileSync(path, out);
  }
  return dropped;
}

/** tsc → lib/, and esbuild's bundle of lib/ → dist/ (see the top of this file); answers esbuild's result. */
export async function compile() {
  if (!existsSync(join(wasmDir, 'warden_core.wasm'))) throw new Error('pkg-js/wasm/ is missing (or older than webmcp-warden/slim): run node pkg-js/build.mjs first');
  tsc();
  const { build } = await import('esbuild');
  rmSync(dist, { recursive: true, force: true });
  const result = await build({
    ...COMMON,
    entryPoints: [
      ...ENTRIES.map((name) => ({ in: join(lib, `${name}.js`), out: name })),
      ...OWN_FILES.map((name) => ({ in: join(lib, `${name}.js`), out: `chunks/${name.replaceAll('/', '-')}` })),
    ],
    outdir: dist,
  });
  // `webmcp-warden/slim` (src/slim.ts): a build of its own, so that the main entry's files stay
  // as they are and a page of the main entry downloads nothing of it. Its core is the `.wasm`
  // file beside it, loaded by `init()` (core-source-slim.ts in place of core-source.ts); the
  // lazily loaded modules stay embedded in its chunks.
  const slimDir = join(dist, 'slim');
  await build({
    ...COMMON,
    entryPoints: [{ in: join(lib, 'slim.js'), out: 'slim' }],
    outdir: slimDir,
    plugins: [{
      name: 'slim-core',
      setup(builder) {
        builder.onResolve({ filter: /^\.\/core-source\.js$/ }, ({ importer }) => ({ path: join(dirname(importer), 'core-source-slim.js') }));
      },
    }],
  });
  copyFileSync(join(wasmDir, 'warden_core.wasm'), join(slimDir, 'warden_core.wasm'));
  await buildForNode(build, result.metafile);
  dropBareImports(dist);
  // The declarations stay tsc's, one per source file: types/ mirrors src/, and the glue's
  // declarations they import (`../wasm/…` from an entry, `../../wasm/…` from a folder) resolve
  // to wasm/ beside it.
  copyTree(lib, join(dist, 'types'), '.d.ts');
  copyTree(wasmDir, join(dist, 'wasm'), '.d.ts');
  return result;
}

/**
 * dist/node/: what Node (and runtimes that take package.json's `node` condition) loads. The same
 * code as dist/, laid out for start-up time rather than for what a page downloads (measured:
 * bench/RESULTS.md, "Node start-up"):
 *
 * - wasm-bytes-node.ts in place of wasm-bytes.ts: each wasm module is read from its `.wasm` file,
 *   copied beside the code, instead of decoded from the embedded copy (which stays, for a server
 *   bundler that copies the code without the files).
 * - One file, `warden.js`, holds the main entry and the lazily loaded modules every first call
 *   needs ({@link FIRST_CALL}; esbuild runs each when it is first imported, as before): Node pays
 *   per file it loads far more than per byte. `index.js` re-exports the entry's names from it.
 * - Every other entry, and every other lazily loaded module, is a build of its own that imports
 *   what it shares with the main entry from `warden.js`, so that there is one copy of every
 *   piece of state (the clients, the core's instance) whichever modules a program loads.
 */
async function buildForNode(build, mainMetafile) {
  const nodeDir = join(dist, 'node');
  const common = { ...COMMON, outdir: nodeDir, chunkNames: '[name]-[hash]', minifyWhitespace: true, minifySyntax: true };
  /** The module path an import names, wasm-bytes.ts read as wasm-bytes-node.ts. */
  const target = (path, importer) => join(dirname(importer), path.replace(/(^|\/)wasm-bytes\.js$/, '$1wasm-bytes-node.js'));
  const nodeBytes = {
    name: 'node-wasm-bytes',
    setup(builder) {
      builder.onResolve({ filter: /(?:^|\/)wasm-bytes\.js$/ }, ({ path, importer }) => ({ path: target(path, importer) }));
      // The validator's embedded copies, which it imports lazily, stay files of their own, read
      // only when its `.wasm` file is missing: Node would parse them with warden.js otherwise.
      builder.onResolve({ filter: LAZY_BYTES }, ({ path }) => ({ path: `./${basename(path)}`, external: true }));
    },
  };
  // The lazily loaded modules warden.js leaves out: each one's file, named after it.
  const apart = new Map();
  const leaveApart = {
    name: 'node-lazy-apart',
    setup(builder) {
      builder.onResolve({ filter: /^\.{1,2}\// }, ({ path, importer, kind }) => {
        const module = target(path, importer);
        if (kind !== 'dynamic-import' || !module.startsWith(lib) || FIRST_CALL.some((file) => module === join(lib, file))) return undefined;
        const name = basename(module, '.js');
        if (apart.has(name) && apart.get(name) !== module) throw new Error(`bundle.mjs: two lazily loaded modules are named ${name}`);
        apart.set(name, module);
        return { path: `./${name}.js`, external: true };
      });
    },
  };
  const main = join(lib, 'index.js');
  const names = mainMetafile.outputs[relative(root, join(dist, 'index.js'))]?.exports ?? [];
  /** warden.js: the main entry's names as they are, then each shared module's under its number. */
  const warden = (modules, write) => build({
    ...common,
    write,
    splitting: false,
    outdir: undefined,
    outfile: join(nodeDir, 'warden.js'),
    stdin: { contents: [`export { ${names.join(', ')} } from ${JSON.stringify(main)};`, ...modules].join('\n'), resolveDir: lib, loader: 'js' },
    plugins: [nodeBytes, leaveApart],
  });
  /** A module's names (lib/ is tsc's output: importing it runs nothing but declarations). */
  const namesOf = async (path) => Object.keys(await import(pathToFileURL(path).href));
  // The main entry's modules (a first pass, not written).
  const inWarden = new Set(Object.keys((await warden([], false)).metafile.inputs).map((input) => join(root, input)));
  const shared = [];
  await build({
    ...common,
    entryPoints: [
      ...ENTRIES.filter((name) => name !== 'index').map((name) => ({ in: join(lib, `${name}.js`), out: name })),
      ...[...apart].map(([name, module]) => ({ in: module, out: name })),
    ],
    external: ['./warden.js'],
    plugins: [{
      name: 'node-shared-state',
      setup(builder) {
        // An import of a module of the main entry becomes an import of its names from warden.js.
        builder.onResolve({ filter: /^\.{1,2}\// }, ({ path, importer, kind }) => {
          const module = target(path, importer);
          if (kind === 'entry-point' || !inWarden.has(module)) return undefined;
          if (!shared.includes(module)) shared.push(module);
          return { path: module, namespace: 'warden-shared' };
        });
        builder.onLoad({ filter: /.*/, namespace: 'warden-shared' }, async ({ path }) => {
          const names = await namesOf(path);
          return { contents: `export { ${names.map((x) => `__m${shared.indexOf(path)}_${x} as ${x}`).join(', ')} } from "./warden.js";`, loader: 'js' };
        });
      },
    }, nodeBytes],
  });
  const lines = [];
  for (const [index, path] of shared.entries()) lines.push(`export { ${(await namesOf(path)).map((x) => `${x} as __m${index}_${x}`).join(', ')} } from ${JSON.stringify(path)};`);
  await warden(lines, true);
  writeFileSync(join(nodeDir, 'index.js'), `// The main entry for Node: its names, from warden.js (pkg-js/bundle.mjs, buildForNode).\nexport { ${names.join(', ')} } from './warden.js';\n`);
  for (const file of readdirSync(wasmDir).filter((name) => name.endsWith('.wasm') || LAZY_BYTES.test(name))) copyFileSync(join(wasmDir, file), join(nodeDir, file));
}

/** The lazily loaded modules every first call loads (the pipeline, the shaping module): the Node build keeps them in warden.js. */
const FIRST_CALL = ['pipeline/pipeline.js', 'shape/shape-module.js'];

/** The embedded copies the Node build keeps out of warden.js (see buildForNode). */
const LAZY_BYTES = /(?:^|\/)warden_validate(?:_judge)?_bytes\.js$/;

/** The modules of dist/ that `file` (a path under dist/) loads at import: itself and its static imports, read from the files. */
export function staticClosure(file) {
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const [, spec] of readFileSync(join(dist, path), 'utf8').matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"(\.{1,2}\/[^"]+)";$/gm)) {
      visit(relative(dist, join(dist, dirname(path), spec)));
    }
  };
  visit(file);
  return seen;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await compile();
  console.log(`pkg-js compiled: lib/, and dist/ (${filesUnder(dist, '.js').length} modules; the main entry loads ${staticClosure('index.js').size} at import)`);
}
