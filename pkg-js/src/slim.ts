// webmcp-warden/slim: the main entry's API, with the core shipped as a `.wasm` file beside this
// module instead of inside it. A page (or Node) calls `await init()` once before the first use;
// a bundler that understands `new URL('…', import.meta.url)` (Vite, webpack) emits the file as
// an asset. The lazily loaded modules (shaping, the validator, the pattern engines, …) stay
// embedded in their chunks in this first step. docs/behaviour.md, "The /slim entry".
import { initCore, type CoreWasmSource } from './boundary/core-source-slim.js';

export * from './index.js';
export type { CoreWasmSource };

/**
 * Loads the core (`warden_core.wasm`, shipped beside this module) before the first use of the
 * package. `source` overrides where it comes from, for a page that hosts the file elsewhere: a
 * URL (string or `URL`; `file:` in Node), a `Response` or a promise of one, the bytes, or a
 * compiled `WebAssembly.Module`; or `{ core: <any of those> }`. Resolves once the core is
 * compiled; later calls resolve at once. Rejects with `ConfigurationError('invalid_init')` for a
 * source it cannot read as one, and `WardenError('internal_error')` when the file cannot be
 * fetched or compiled (a later call tries again). Until it resolves, what needs the core throws
 * (or rejects with) `ConfigurationError('not_initialized')`.
 */
export function init(source?: CoreWasmSource | { core?: CoreWasmSource }): Promise<void> {
  const core = isMap(source) ? source.core : source;
  // Only `undefined` means the file beside this module: `null` or another value is a mistake to report.
  return initCore(core === undefined ? new URL('./warden_core.wasm', import.meta.url) : core);
}

function isMap(value: unknown): value is { core?: CoreWasmSource } {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
