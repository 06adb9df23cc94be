// Where the built package is. By default the repository's pkg-js/ (what `npm run build` made);
// BENCH_PKG=/path/to/a/copy/of/pkg-js benchmarks a copy instead (useful while someone rebuilds:
// the build empties pkg-js/wasm and pkg-js/dist for a while).
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const PKG_DIR = process.env.BENCH_PKG ? pathToFileURL(process.env.BENCH_PKG.replace(/\/?$/, '/')).href : new URL('../pkg-js/', import.meta.url).href;

/** A URL inside the package (`dist/index.js`, `wasm/sizes.json`, …). */
export function pkgUrl(file) {
  return new URL(file, PKG_DIR);
}

/**
 * Where a build keeps its modules one per source file, which a benchmark that reaches the
 * package's internals imports: `lib/` in a build whose dist/ is a bundle, `dist/` in builds
 * from before it (bench/ab.mjs and BENCH_PKG time those too).
 */
export const INTERNAL_DIR = existsSync(new URL('lib/', PKG_DIR)) ? 'lib/' : 'dist/';

/**
 * A URL of an internal module, by its path under src/ compiled (`boundary/unlzma.js`,
 * `shape/shaping.js`, `index.js`), in the tree {@link INTERNAL_DIR} names. A script that imports
 * one imports the entry from the same tree too ({@link internalEntry}): two copies of the
 * package's modules in one process would each have their own state.
 */
export function internalUrl(file) {
  return new URL(INTERNAL_DIR + file, PKG_DIR);
}

/** The main entry in the tree of {@link internalUrl}, for a script that reaches internals too. */
export function internalEntry() {
  return internalUrl('index.js').href;
}

/**
 * The package's entry as users get it, for a script that uses only the public API: the bare
 * specifier for the repository's build; for a copy, the file Node would take (dist/node/index.js,
 * or dist/index.js in builds from before the Node build).
 */
export function entrySpecifier() {
  if (!process.env.BENCH_PKG) return 'webmcp-warden';
  const node = pkgUrl('dist/node/index.js');
  return (existsSync(node) ? node : pkgUrl('dist/index.js')).href;
}

/**
 * Writes a page (`index.html` and the app's `main.js`) to a fresh temporary directory and builds
 * it with Vite (production, no config beyond naming the package's build in `pkgDir`, as an
 * installed package would resolve). Answers the directory; the page is in its `dist/`.
 */
export async function buildVitePage({ pkgDir, index, main, prefix, minify = true }) {
  // Imported here: the Node benchmarks that read this file need no Vite.
  const { build } = await import('vite');
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  writeFileSync(path.join(dir, 'index.html'), index);
  writeFileSync(path.join(dir, 'main.js'), main);
  await build({
    root: dir,
    configFile: false,
    logLevel: 'warn',
    resolve: { alias: [{ find: /^webmcp-warden$/, replacement: path.join(pkgDir, 'dist', 'index.js') }] },
    build: { outDir: path.join(dir, 'dist'), chunkSizeWarningLimit: 4096, minify },
  });
  return dir;
}
