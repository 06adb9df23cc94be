// One start-up sample, run in a fresh `node` process by run.mjs; prints one JSON line of ms.
//   node bench/startup-child.mjs package   import('webmcp-warden') → first governed call done
//   node bench/startup-child.mjs schema    the same for a tool with a JSON Schema (the validator
//                                          module is loaded and compiled during that call)
//   node bench/startup-child.mjs module    import the core's compressed bytes, decode, compile
//   node bench/startup-child.mjs file      read the core's .wasm file (the Node build's), compile
import { entrySpecifier, internalUrl, pkgUrl } from './pkg.mjs';

const mode = process.argv[2];
const t0 = performance.now();
if (mode === 'package' || mode === 'schema') {
  const { webmcp } = await import(entrySpecifier());
  const options = { name: 'add', description: 'Adds two numbers', hooks: { before: [(ctx) => { ctx.metadata.seen = true; }] } };
  if (mode === 'schema') options.inputSchema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
  const tool = webmcp(({ a, b }) => a + b, options);
  const t1 = performance.now();
  const outcome = await tool.invoke({ a: 1, b: 2 });
  const t2 = performance.now();
  if (!outcome.ok || outcome.result.content[0].text !== '3') throw new Error('start-up call failed: ' + JSON.stringify(outcome));
  console.log(JSON.stringify({ total: t2 - t0, toFirstTool: t1 - t0, firstCall: t2 - t1 }));
} else if (mode === 'module') {
  const { stream, decode } = await coreStream();
  const t1 = performance.now();
  const bytes = decode(stream);
  const t2 = performance.now();
  const module = new WebAssembly.Module(bytes);
  const t3 = performance.now();
  if (WebAssembly.Module.exports(module).length === 0) throw new Error('no exports');
  console.log(JSON.stringify({ total: t3 - t0, importJs: t1 - t0, decode: t2 - t1, compile: t3 - t2 }));
} else if (mode === 'file') {
  const { readFileSync } = await import('node:fs');
  const bytes = readFileSync(pkgUrl('wasm/warden_core.wasm'));
  const module = new WebAssembly.Module(bytes);
  if (WebAssembly.Module.exports(module).length === 0) throw new Error('no exports');
  console.log(JSON.stringify({ total: performance.now() - t0 }));
} else {
  throw new Error('mode: package | schema | module | file');
}

/**
 * The core's embedded bytes and the package's own decoder for them: LZMA and the wasm `unlzma`
 * decoder today; a build from before them deflated the core and inflated it with a wasm
 * inflater, and one before that with fflate (so that bench/ab.mjs can time older builds).
 */
async function coreStream() {
  const embedded = await import(pkgUrl('wasm/warden_core_bytes.js').href);
  if (embedded.WASM_LZMA_BASE64) {
    const { unlzma } = await import(internalUrl('boundary/unlzma.js').href);
    return { stream: Buffer.from(embedded.WASM_LZMA_BASE64, 'base64'), decode: unlzma };
  }
  const inflate = await import(internalUrl('inflate.js').href).then((m) => m.inflateRaw, () => import(internalUrl('vendor/fflate.js').href).then((m) => m.inflateSync));
  return { stream: Buffer.from(embedded.WASM_DEFLATED_BASE64, 'base64'), decode: inflate };
}
