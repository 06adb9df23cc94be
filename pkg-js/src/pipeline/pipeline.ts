// The pipeline chunk: what runs a call, a listing and the browser's registrations, loaded by
// `api/pipeline-loader.ts` when a page first registers, calls or lists (a dynamic import every
// bundler splits into a chunk of its own). What `webmcp()` needs to define a tool stays in the
// page's entry; this is the rest, so a page's import carries none of it. Its modules import
// what they use like any module; `pipeline` is what the loader calls.
//
// The core is imported here, first, though the chunk's modules import it themselves: esbuild lays
// out the modules a chunk shares with the page's entry nearest an entry point first, and with the
// core (its embedded bytes, then its code) first the code stays in one stretch, which compresses
// better (bench/RESULTS.md, "Build choices").
import { core } from '../boundary/core.js';
import { loadExtras, runCall, runSubjectCall } from './call.js';
import { readCallOptions, readListingOptions } from './call-options.js';
import { listContracts } from './listing.js';
import { noteOutcome, noticeRuntime, syncRegistrations } from './registration.js';
import { normalizeResult } from '../shape/normalize.js';
import { loadedShaping, loadShaper } from '../shape/shape-loader.js';
import { compileSchema, toJson, validateJson, validateJsonText } from '../validator/validation.js';
import type { ClientState } from '../client/client.js';
import type { PipelineTool } from '../types/internal.js';
import type { CallOptions, CallOutcome } from '../types/types.js';

/** The chunk's one export: what the entry's doors (`api/pipeline-loader.ts`) call. */
export const pipeline = {
  /** A call's options read once (call-options.ts): checked, or a sentence saying what is wrong. */
  readCallOptions,
  /** A listing's options read once (call-options.ts): checked, or a sentence saying what is wrong. */
  readListingOptions,
  /**
   * Runs one governed call (call.ts) on an in-page path; never throws for a failed call. What
   * shaping did may change what browsers are told (registration.ts).
   */
  runCall: (w: ClientState, tool: PipelineTool, input: unknown, options: CallOptions | null | undefined, scope: number): Promise<CallOutcome> =>
    runCall(w, tool, input, options, scope).then((outcome) => {
      noteOutcome(w, tool, outcome);
      return outcome;
    }),
  /** Runs one governed resource read or prompt get (call.ts). */
  runSubjectCall,
  /** The contracts an agent sees, after the `toolsListed` hooks (listing.ts). */
  listContracts,
  /** Brings the browser's registrations in line with the page (registration.ts). */
  syncRegistrations,
  /** Syncs when the page's runtime changed since the last sync (registration.ts). */
  noticeRuntime,
  /** Compiles a JSON Schema once per schema object (validation.ts). */
  compileSchema,
  /** A value as JSON text, or the diagnostic of why it has none (validation.ts). */
  toJson,
  /** Loads what few calls need (call-extras.ts: `call.display`, the `rejectProtoKeys` check). */
  loadExtras,
  /** Validates JSON text against a JSON Schema (validation.ts). */
  validateJsonText,
  /** Validates a value against a JSON Schema (validation.ts). */
  validateJson,
  /** A tool's return value as an MCP result (normalize.ts). */
  normalizeResult,
  /** Loads the shaping chunk and compiles its module once (shape-loader.ts). */
  loadShaper,
  /** The loaded shaping chunk (shape-loader.ts); throws when it is not loaded. */
  loadedShaping,
  /** The core the chunk's calls and listings cross (core.ts). */
  core,
};
