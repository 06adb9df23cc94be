// The shaping module (`wasm/shape/lib.rs`) on its own: the module that
// shapes on a page that validates with no JSON Schema (a page that does loads the validator
// module, which shapes too; `shape-loader.ts` picks). A chunk with the module's glue and bytes, loaded
// lazily.
import * as glue from '../../wasm/warden_shape.js';
import { WASM_FILE, WASM_LZMA_BASE64 } from '../../wasm/warden_shape_bytes.js';
import { wasmBytesAsync } from '../boundary/wasm-bytes.js';
import type { ShapingExports } from '../types/internal.js';
import { TrapGuard } from '../boundary/trap-guard.js';

// The page's module, compiled or compiling, and its live instance's memory: shaping keeps no
// client's state.
let compiled: Promise<WebAssembly.Module> | undefined;
let memory: WebAssembly.Memory | undefined;
/** The instance: made from the compiled module on first crossing, and again after a trap. */
let instance: TrapGuard | undefined;

/** Runs one crossing on the live instance (made from the compiled module if none is); a trap drops it. */
function guard<T>(crossing: () => T): T {
  if (instance === undefined) throw new Error('webmcp-warden: the shaping module is not loaded yet');
  return instance.run(crossing);
}

/**
 * Decodes and compiles the module once (in slices, then `WebAssembly.compile`, off the main
 * thread); answers its shaping exports, each crossing guarded.
 */
export async function start(): Promise<ShapingExports> {
  // One compile however many ask at once (a first call's prefetch, then the call); one that
  // failed is tried again by the next.
  if (compiled === undefined) {
    const compiling = wasmBytesAsync(WASM_FILE, WASM_LZMA_BASE64).then((bytes) => WebAssembly.compile(bytes as BufferSource));
    compiled = compiling;
    compiling.catch(() => {
      if (compiled === compiling) compiled = undefined;
    });
  }
  const module = await compiled;
  instance ??= new TrapGuard(() => {
    memory = glue.initSync({ module }).memory;
  });
  return {
    scanText: (text) => guard(() => glue.scanText(text)),
    shapeFlagNames: () => guard(() => glue.shapeFlagNames()),
    shapeLimits: () => guard(() => glue.shapeLimits()),
    shapeMediaKinds: (mime) => guard(() => glue.shapeMediaKinds(mime)),
    shapeResult: (request) => guard(() => glue.shapeResult(request)),
    testTrap: () => guard(() => glue.__testTrap()),
    memoryBytes: () => (instance?.live === true && memory !== undefined ? memory.buffer.byteLength : 0),
  };
}
