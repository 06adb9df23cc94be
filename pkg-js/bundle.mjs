// Builds the package's JavaScript from src/ and the wasm/ that build.mjs made (run alone after a
// TypeScript change: `node pkg-js/bundle.mjs`; build.mjs runs it last):
//
//   lib/    tsc's output, one ES module per source file, with source maps and declarations.
//           Not shipped: the tests and benchmarks that reach the package's internals import it
//           (ARCHITECTURE.md, "Build outputs").
//   dist/   what npm ships: today the same modules as lib/ (without the source maps), importing
//           the glue and embedded bytes of wasm/ by path.
//
// `node pkg-js/bundle.mjs --bundled` also writes dist-bundled/ (not shipped, .gitignore'd):
// esbuild's bundle of lib/, one ES module per public entry and one per lazily loaded chunk,
// shared code in shared chunks, the glue and embedded bytes inside the chunks that use them,
// with source maps and dist-bundled/types/. It is what dist/ is meant to become; a page that
// bundles it with esbuild carries code it does not use (bench/RESULTS.md, "A bundled dist/").
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = dirname(fileURLToPath(import.meta.url));
const root = join(pkgDir, '..');
const lib = join(pkgDir, 'lib');
const dist = join(pkgDir, 'dist');
const bundled = join(pkgDir, 'dist-bundled');
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

/** tsc → lib/, and dist/ from it. */
export function compile() {
  if (!existsSync(join(wasmDir, 'warden_core.js'))) throw new Error('pkg-js/wasm/ is missing: run node pkg-js/build.mjs first');
  rmSync(lib, { recursive: true, force: true });
  rmSync(dist, { recursive: true, force: true });
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  console.log('$ tsc -p pkg-js/tsconfig.json');
  execFileSync(tsc, ['-p', join(pkgDir, 'tsconfig.json')], { stdio: 'inherit', cwd: root });
  copyTree(lib, dist, '.d.ts');
  // dist/ ships no source maps (src/ is not in the package), so no module names one.
  for (const file of filesUnder(lib, '.js')) {
    mkdirSync(dirname(join(dist, file)), { recursive: true });
    writeFileSync(join(dist, file), readFileSync(join(lib, file), 'utf8').replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n'));
  }
}

/** esbuild's bundle of lib/ into dist-bundled/ (see the top of this file); answers esbuild's result. */
export async function bundle() {
  const { build } = await import('esbuild');
  rmSync(bundled, { recursive: true, force: true });
  const result = await build({
    ...COMMON,
    entryPoints: ENTRIES.map((name) => ({ in: join(lib, `${name}.js`), out: name })),
    outdir: bundled,
  });
  // The declarations stay tsc's, one per source file: types/ mirrors src/, and the glue's
  // declarations they import (`../wasm/…` from an entry, `../../wasm/…` from a folder) resolve
  // to wasm/ beside it.
  copyTree(lib, join(bundled, 'types'), '.d.ts');
  copyTree(wasmDir, join(bundled, 'wasm'), '.d.ts');
  return result;
}

/** The modules a bundle's entry loads at import (itself and its static imports), by output path. */
export function staticClosure(metafile, output) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  visit(output);
  return seen;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  compile();
  console.log('pkg-js compiled: lib/ and dist/');
  if (process.argv.includes('--bundled')) {
    const { metafile } = await bundle();
    const outputs = Object.keys(metafile.outputs).filter((file) => file.endsWith('.js'));
    const index = outputs.find((file) => file.endsWith('dist-bundled/index.js'));
    console.log(`dist-bundled/: ${outputs.length} modules (the main entry loads ${staticClosure(metafile, index).size} at import)`);
  }
}
