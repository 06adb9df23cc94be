// Where the built package is. By default the repository's pkg-js/ (what `npm run build` made);
// BENCH_PKG=/path/to/a/copy/of/pkg-js benchmarks a copy instead (useful while someone rebuilds:
// the build empties pkg-js/wasm and pkg-js/dist for a while).
import { pathToFileURL } from 'node:url';

export const PKG_DIR = process.env.BENCH_PKG ? pathToFileURL(process.env.BENCH_PKG.replace(/\/?$/, '/')).href : new URL('../pkg-js/', import.meta.url).href;

/** A URL inside the package (`dist/shape.js`, `wasm/sizes.json`, …). */
export function pkgUrl(path) {
  return new URL(path, PKG_DIR);
}

/** The package's entry: the bare specifier for the repository's build, the copy's dist otherwise. */
export function entrySpecifier() {
  return process.env.BENCH_PKG ? pkgUrl('dist/index.js').href : 'webmcp-warden';
}
