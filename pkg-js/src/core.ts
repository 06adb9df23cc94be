// Loading the Rust core: compiled synchronously, on first use, from bytes shipped in the package.
//
// Nothing is compiled at import time and there is no top-level await, so importing the package
// costs nothing and works where there is no `document` (SSR, Node). The first `webmcp()` or
// `configureWebMCP()` compiles the module (a few ms) so they can validate and throw at once.
import { initSync, Core } from '../wasm/warden_core.js';
import { WASM_BASE64 } from '../wasm/warden_core_base64.js';

let core: Core | undefined;
let memory: WebAssembly.Memory | undefined;

/** The page's core, compiled on first use. */
export function getCore(): Core {
  if (core === undefined) {
    memory = initSync({ module: decodeBase64(WASM_BASE64) }).memory;
    core = new Core();
  }
  return core;
}

/**
 * The size of the core module's linear memory in bytes (`memory.buffer.byteLength` of the
 * instance the glue made). Wasm memory only grows, so tests read it before and after a large
 * result to show what shaping keeps.
 */
export function coreMemoryBytes(): number {
  getCore();
  return memory === undefined ? 0 : memory.buffer.byteLength;
}

/**
 * Resolves when the core is loaded. Optional: every API loads the core when it needs it; call
 * this to move the few milliseconds of compilation to a moment of your choosing.
 */
export function ready(): Promise<void> {
  try {
    getCore();
    return Promise.resolve();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Decodes base64 with `Buffer` in Node and `atob` in browsers. */
export function decodeBase64(base64: string): Uint8Array {
  const buffer = (globalThis as { Buffer?: { from(data: string, encoding: string): Uint8Array } }).Buffer;
  if (buffer) return buffer.from(base64, 'base64');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** What the TS layer reports after performing a step (mirrors `call::Outcome` in Rust). */
export const Outcome = {
  Start: 0,
  Nothing: 1,
  Input: 2,
  Output: 3,
  Deny: 4,
  Halt: 5,
  Recover: 6,
  Allow: 7,
  BadReturn: 8,
  Raise: 9,
  Timeout: 10,
  Aborted: 11,
  ToolReturned: 12,
  ToolThrew: 13,
  Valid: 14,
  Invalid: 15,
  InvalidSchema: 16,
  PredicateTrue: 17,
  PredicateFalse: 18,
  PredicateFailed: 19,
  ApproveOnce: 20,
  ApproveAlways: 21,
  ApproveDeny: 22,
  ApproveHalt: 23,
  ArgsSame: 24,
  ArgsChanged: 25,
} as const;

/** Opcodes of the packed actions the core answers with (mirrors `call::Action::encode`). */
export const Op = {
  CallHook: 1,
  RunTool: 2,
  Finish: 3,
  ValidateInput: 4,
  EvaluatePolicy: 5,
  Predicate: 6,
  Approve: 7,
  CheckArgs: 8,
  ValidateOutput: 9,
} as const;
/** The opcode bits of a packed action. */
export const OP_MASK = 15;
/** Bit set in an action when the value the last reported step returned takes effect. */
export const ACCEPTED = 16;
/** The event of a `CallHook` action, or `ok` of a `Finish`: bits 5–7. */
export const fieldOf = (action: number): number => (action >>> 5) & 7;
/** The function handle of a `CallHook` or `Predicate` action. */
export const handleOf = (action: number): number => action >>> 8;
/** Hook events by their number in a packed action (mirrors `hooks::Event`). */
export const EVENTS = ['before', 'after', 'error', 'denied', 'toolsListed'] as const;
