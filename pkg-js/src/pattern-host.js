// Placeholder: the linear engine's host (see src/wasm/host.rs). Filled in with the linear module.
export function linearPrepare(slot, source, flags) {}
export function linearTest(slot, text) { throw new Error('the linear engine is not loaded'); }
export function linearRelease(slot) {}
