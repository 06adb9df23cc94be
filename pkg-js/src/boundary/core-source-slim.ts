// Where the core's compiled module comes from under `webmcp-warden/slim`: the `.wasm` file that
// `init()` loads (by URL, or from what the page hands it), instead of the bytes the other
// entries carry. pkg-js/bundle.mjs builds `/slim` with this module in place of core-source.ts.
//
// Until `init()` has loaded the module, what needs the core fails with
// `ConfigurationError('not_initialized')`: synchronously where the API is synchronous, as a
// rejection where it is asynchronous (an `init()` still loading is waited for there). See
// docs/behaviour.md, "The /slim entry".
import { ConfigurationError, WardenError } from '../util/errors.js';

/** What `init()` takes for the core: where its `.wasm` is, its response, its bytes, or its compiled module. */
export type CoreWasmSource = string | URL | Response | PromiseLike<Response> | ArrayBuffer | ArrayBufferView | WebAssembly.Module;

/** The compiled core, once `init()` loaded it. */
let compiled: WebAssembly.Module | undefined;
/** The `init()` in progress. */
let loading: Promise<WebAssembly.Module> | undefined;

const notInitialized = () =>
  new ConfigurationError('not_initialized', 'webmcp-warden/slim: the core is not loaded yet; `await init()` (exported by webmcp-warden/slim) before the first use');

/** The core's compiled module, or `ConfigurationError('not_initialized')` before `init()` loaded it. */
export function coreSource(): WebAssembly.Module {
  if (compiled === undefined) throw notInitialized();
  return compiled;
}

/** The core's compiled module: waits for an `init()` in progress; rejects with `not_initialized` when none was called. */
export async function coreSourceAsync(): Promise<WebAssembly.Module> {
  if (compiled !== undefined) return compiled;
  if (loading !== undefined) return loading;
  throw notInitialized();
}

/**
 * Loads the core from `source` (see {@link CoreWasmSource}); once it is loaded, later calls
 * resolve at once and their source is not read. A failed load leaves nothing behind: the next
 * call tries again.
 */
export function initCore(source: unknown): Promise<void> {
  if (compiled !== undefined) return Promise.resolve();
  loading ??= compileFrom(source).then(
    (module) => {
      compiled = module;
      loading = undefined;
      return module;
    },
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading.then(() => undefined);
}

/** The core's compiled module from one source; a clear error for what is none or is not the core. */
async function compileFrom(source: unknown): Promise<WebAssembly.Module> {
  const module = await compileAny(source);
  // The core is the module with an engine; a page that points `init()` at another `.wasm` hears so.
  if (!WebAssembly.Module.exports(module).some((e) => e.name === 'engineNew')) {
    throw new ConfigurationError('invalid_init', 'webmcp-warden/slim: init() was given a WebAssembly module that is not the core (warden_core.wasm)');
  }
  return module;
}

async function compileAny(source: unknown): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return compileBytes(source as BufferSource, 'the bytes given');
  if (typeof source === 'string' || source instanceof URL) return compileResponse(await fetchUrl(source), String(source));
  if (typeof Response === 'function' && source instanceof Response) return compileResponse(source, source.url || 'the response given');
  if (isThenable(source)) {
    const settled: unknown = await source;
    if (typeof Response === 'function' && settled instanceof Response) return compileResponse(settled, settled.url || 'the response given');
    throw invalid(settled, 'a promise that resolved to');
  }
  throw invalid(source, '');
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function invalid(value: unknown, how: string): ConfigurationError {
  const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? `an object (${Object.prototype.toString.call(value)})` : typeof value;
  return new ConfigurationError('invalid_init', `webmcp-warden/slim: init() takes the core's .wasm as a URL, a Response, its bytes or a WebAssembly.Module; got ${how ? `${how} ` : ''}${what}`);
}

/** A load that failed (a network error, a 404, bytes that do not compile), as the package says it. */
function loadFailed(where: string, err: unknown): WardenError {
  if (err instanceof WardenError) return err;
  return new WardenError('internal_error', `webmcp-warden/slim: the core module could not be loaded from ${where} (${err instanceof Error ? err.message : String(err)})`, { cause: err });
}

async function compileBytes(bytes: BufferSource, where: string): Promise<WebAssembly.Module> {
  try {
    return await WebAssembly.compile(bytes);
  } catch (err) {
    throw loadFailed(where, err);
  }
}

/**
 * The response for a URL: `fetch` for http(s) and the rest; a `file:` URL (Node, where `fetch`
 * does not read files) is read with `node:fs`.
 */
async function fetchUrl(source: string | URL): Promise<Response | Uint8Array> {
  let url: URL;
  try {
    url = new URL(source, (globalThis as { location?: { href?: string } }).location?.href);
  } catch (err) {
    throw new ConfigurationError('invalid_init', `webmcp-warden/slim: init() was given ${JSON.stringify(String(source))}, which is no URL`);
  }
  try {
    if (url.protocol === 'file:') {
      // Kept from bundlers: only Node (and runtimes like it) reach this line.
      const fs = 'node:fs/promises';
      const { readFile } = (await import(/* webpackIgnore: true */ /* @vite-ignore */ fs)) as { readFile(path: URL): Promise<Uint8Array> };
      return await readFile(url);
    }
    return await fetch(url);
  } catch (err) {
    throw loadFailed(url.href, err);
  }
}

async function compileResponse(response: Response | Uint8Array, where: string): Promise<WebAssembly.Module> {
  if (!(typeof Response === 'function' && response instanceof Response)) return compileBytes(response as BufferSource, where);
  if (!response.ok) throw loadFailed(where, new Error(`HTTP ${response.status}`));
  let bytes: ArrayBuffer;
  try {
    bytes = await response.arrayBuffer();
  } catch (err) {
    throw loadFailed(where, err);
  }
  return compileBytes(bytes, where);
}
