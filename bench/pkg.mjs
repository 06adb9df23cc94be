// Where the built package is. By default the repository's pkg-js/ (what `npm run build` made);
// BENCH_PKG=/path/to/a/copy/of/pkg-js benchmarks a copy instead (useful while someone rebuilds:
// the build empties pkg-js/wasm and pkg-js/dist for a while).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const PKG_DIR = process.env.BENCH_PKG ? pathToFileURL(process.env.BENCH_PKG.replace(/\/?$/, '/')).href : new URL('../pkg-js/', import.meta.url).href;

/** A URL inside the package (`dist/shape/shaping.js`, `wasm/sizes.json`, …). */
export function pkgUrl(file) {
  return new URL(file, PKG_DIR);
}

/** The package's entry: the bare specifier for the repository's build, the copy's dist otherwise. */
export function entrySpecifier() {
  return process.env.BENCH_PKG ? pkgUrl('dist/index.js').href : 'webmcp-warden';
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
