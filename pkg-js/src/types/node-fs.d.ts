// The one Node API the package's source uses (boundary/wasm-bytes-node.ts, only in the Node
// build): declared here rather than with @types/node, which would let every other module reach
// Node's globals unnoticed (tsconfig.json's `"types": []`).
declare module 'node:fs' {
  export function readFileSync(path: URL): Uint8Array;
}
