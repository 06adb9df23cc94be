// The pipeline chunk: what runs a call, a listing and the browser's registrations, loaded by
// `pipeline-loader.ts` when a page first registers, calls or lists (a dynamic import every
// bundler splits into a chunk of its own). What `webmcp()` needs to define a tool stays in the
// page's entry; this is the rest, so a page's import carries none of it. What it uses of the
// entry it is handed when it loads (`bindEntry`, from-entry.ts); what it offers is
// `PipelineChunk` (pipeline-contract.ts).
import type { PipelineChunk } from './pipeline-contract.js';
import { bindEntry } from './from-entry.js';
import { loadExtras, runCall, runSubjectCall } from './call.js';
import { readCallOptions, readListingOptions } from './call-options.js';
import { listContracts } from './listing.js';
import { noteOutcome, noticeRuntime, syncRegistrations } from './registration.js';
import { normalizeResult } from '../shape/normalize.js';
import { loadedShaping, loadShaper } from '../shape/shaper.js';
import { compileSchema, toJson, validateJson, validateJsonText } from '../validator/validation.js';

/** The chunk's one export. */
export const pipeline: PipelineChunk = {
  bindEntry,
  readCallOptions,
  readListingOptions,
  // A tool's call on any agent path; what shaping did may change what browsers are told (registration.ts).
  runCall: (w, tool, input, options, scope) =>
    runCall(w, tool, input, options, scope).then((outcome) => {
      noteOutcome(w, tool, outcome);
      return outcome;
    }),
  runSubjectCall,
  listContracts,
  syncRegistrations,
  noticeRuntime,
  compileSchema,
  toJson,
  loadExtras,
  validateJsonText,
  validateJson,
  normalizeResult,
  loadShaper,
  loadedShaping,
};
