// The URI module: the Rust crate's rules about resource URIs (`src/uri.rs`, and resource URI
// templates in `src/matcher.rs`), built from `wasm/uri/`. Which URI a read reads,
// what is refused, which resource serves it and the template's variables are decided there;
// this file only runs it. A module of its own rather than part of the core, because a page of
// tools must not download it: only the resource code (`subject*.ts`) imports this file, so a
// page that makes or reads no resource carries none of it (`bundle-contents.test.mjs`).
//
// Compiled synchronously on first use, as the core is (`webmcpResource()` refuses a bad URI at
// once), from bytes shipped in the package; stateless, so a trapped instance is simply
// replaced by the next crossing.
import * as glue from '../../wasm/warden_uri.js';
import { WASM_FILE, WASM_LZMA_BASE64 } from '../../wasm/warden_uri_bytes.js';
import { wasmBytes } from '../boundary/wasm-bytes.js';
import type { ResolveUriAnswer, UriTemplateAnswer } from '../boundary/answers.js';
import { TrapGuard } from '../boundary/trap-guard.js';

/** The page's compiled URI module: one instance for every client. */
let compiled: WebAssembly.Module | undefined;
/** The resources' keys the live instance holds (it keeps the last it was sent, whichever client's). */
let sentKeys: string | undefined;

/**
 * The instance: made from the compiled module on first crossing, and again after a trap.
 * `@__PURE__`: nothing happens at import, so a page's bundler drops it (and the module's bytes)
 * from a bundled chunk when no resource is read (ARCHITECTURE.md, "Build outputs").
 */
const instance = /* @__PURE__ */ new TrapGuard(() => {
  compiled ??= new WebAssembly.Module(wasmBytes(WASM_FILE, WASM_LZMA_BASE64) as BufferSource);
  glue.initSync({ module: compiled });
  sentKeys = undefined;
});

/** Runs one crossing on the live instance (made from the compiled module if none is); a trap drops it. */
const guard = <T>(crossing: () => T): T => instance.run(crossing);

/** A refusal's lines (`-<code>`, then the message) as an answer's `error`. */
function refusal(lines: string[]) {
  return { ok: false as const, error: { code: lines[0] ?? '', message: lines.slice(1).join('\n') } };
}

/**
 * `resolveUri`'s lines as its answer: `+<index>`, the canonical URI, then each variable's name
 * and value; or a refusal (`wasm/uri/lib.rs` says why no line breaks within). Read with
 * `indexOf` rather than `split`: every read of a template instance comes through here.
 */
function resolved(text: string): ResolveUriAnswer {
  if (text.startsWith('-')) return refusal(text.slice(1).split('\n'));
  let end = text.indexOf('\n');
  const index = end === 1 ? null : Number(text.slice(1, end));
  let at = end + 1;
  end = text.indexOf('\n', at);
  const uri = end < 0 ? text.slice(at) : text.slice(at, end);
  const params: Record<string, string> = {};
  while (end >= 0) {
    at = end + 1;
    end = text.indexOf('\n', at);
    const name = text.slice(at, end);
    at = end + 1;
    end = text.indexOf('\n', at);
    const value = end < 0 ? text.slice(at) : text.slice(at, end);
    // An own property: a variable named `__proto__` is a variable like any other.
    if (name === '__proto__') Object.defineProperty(params, name, { value, enumerable: true, writable: true, configurable: true });
    else params[name] = value;
  }
  return { ok: true, uri, index, params };
}

/** The URI module's exports (`wasm/uri/lib.rs`), each crossing guarded, each answer read. */
export const uriModule = {
  /**
   * The canonical form of the URI `raw` (`href`: what the platform's `URL` made of it, `null`
   * when it threw) and which of the resources `keys` (their URIs and templates in order, one a
   * line) serves it. `href` crosses only when it differs from `raw`, `keys` only when they
   * changed.
   */
  resolveUri: (raw: string, href: string | null, keys: string) =>
    resolved(
      guard(() => {
        // The keys cross only when they changed since the last read (the instance keeps them).
        const send = keys === sentKeys ? undefined : keys;
        const answer = glue.resolveUri(raw, href !== null, href === raw || href === null ? undefined : href, send);
        sentKeys = keys;
        return answer;
      }),
    ),
  /** A resource's URI template checked, and an instance of it (each variable `x`). */
  uriTemplate: (template: string): UriTemplateAnswer => {
    const text = guard(() => glue.uriTemplate(template));
    return text.startsWith('+') ? { ok: true, sample: text.slice(1) } : refusal(text.slice(1).split('\n'));
  },
};
