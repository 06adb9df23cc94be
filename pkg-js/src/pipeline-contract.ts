// The pipeline chunk's contract, in types only: what the chunk exports (`PipelineChunk`, which
// pipeline.ts implements) and what the entry hands it when it loads (`Entry`, which from-entry.ts
// binds). Declared on the entry's side, from the entry's own modules and the shared type
// modules, so the entry's types never depend on the chunk's modules (and the chunk's on the
// entry's only through here).
import type { Warden } from './client.js';
import type { Compiled, JsonText, PipelineTool, ReadCallOptions, RegisteredTool, SubjectCall } from './internal.js';
import type { Shaping } from './shape.js';
import type * as Extras from './call-extras.js';
import type { CallOptions, CallOutcome, CallToolResult, Diagnostic, JsonSchema, JsonValidated, Limits, ListingOptions, NormalizeOptions, ToolContract } from './types.js';
import type * as Canonical from './canonical.js';
import type * as Codes from './codes.js';
import type * as Core from './core.js';
import type * as EmbeddedBytes from './embedded-bytes.js';
import type * as Errors from './errors.js';
import type * as Frozen from './frozen.js';
import type * as Governance from './governance.js';
import type * as Grants from './grants.js';
import type * as Mcp from './mcp.js';
import type * as Outcomes from './outcomes.js';
import type * as Registry from './registry.js';
import type * as Runtime from './runtime.js';
import type * as Patterns from './patterns.js';
import type * as Telemetry from './telemetry.js';
import type * as Traps from './trap-guard.js';
import type * as Unlzma from './unlzma.js';
import type * as ValidatorLoader from './validator-loader.js';
import type * as Wire from './wire.js';

/** Everything the entry hands the chunk, by the name its module exports it under (from-entry.ts). */
export type Entry = Pick<typeof Canonical, 'canonicalJson'> &
  Pick<typeof Codes, 'ActionBits' | 'Bounds' | 'CallFlags' | 'EVENTS' | 'Facts' | 'Op' | 'Outcome' | 'Signal' | 'Verdict'> &
  Pick<typeof Core, 'core' | 'CoreTrapped'> &
  Pick<typeof EmbeddedBytes, 'decodeBase64'> &
  Pick<typeof Errors, 'CallFailure' | 'RegistrationError' | 'WardenError'> &
  Pick<typeof Frozen, 'deepFrozenCopy'> &
  Pick<typeof Governance, 'approverFor' | 'sealFirstListing'> &
  Pick<typeof Grants, 'ensureGrants' | 'recordGrant'> &
  Pick<typeof Mcp, 'toWireResult'> &
  Pick<typeof Outcomes, 'disposedOutcome' | 'failedOutcome' | 'genInvocationId' | 'snapshotOf'> &
  Pick<typeof Registry, 'dropBrowserRegistration' | 'isVisible' | 'unknownToolOutcome'> &
  Pick<typeof Runtime, 'getModelContext' | 'isMcpB'> &
  Pick<typeof Patterns, 'hasJudge' | 'patternsSettled' | 'validatorMisses'> &
  Pick<typeof Telemetry, 'emitHookEvent'> &
  Pick<typeof Traps, 'TrapGuard'> &
  Pick<typeof Unlzma, 'unlzmaAsync'> &
  Pick<typeof ValidatorLoader, 'loadedValidator' | 'loadingValidator' | 'loadValidator'> &
  Pick<typeof Wire, 'decode' | 'encode' | 'encodeJson' | 'Tag' | 'Writer'>;


/** What the pipeline chunk exports: pipeline.ts's `pipeline`. */
export interface PipelineChunk {
  /** Hands the chunk what it uses of the entry; called once, before anything else. */
  bindEntry(entry: Entry): void;
  /** A call's options read once (call-options.ts): checked, or a sentence saying what is wrong. */
  readCallOptions(options: unknown): ReadCallOptions | string;
  /** A listing's options read once (call-options.ts): checked, or a sentence saying what is wrong. */
  readListingOptions(options: unknown): ListingOptions | string;
  /** Runs one governed call (call.ts); never throws for a failed call. */
  runCall(w: Warden, tool: PipelineTool, input: unknown, options: CallOptions | null | undefined, scope: number): Promise<CallOutcome>;
  /** Runs one governed resource read or prompt get (call.ts). */
  runSubjectCall(w: Warden, subject: PipelineTool, about: SubjectCall, input: unknown, options: CallOptions | null | undefined, scope: number): Promise<CallOutcome>;
  /** The contracts an agent sees, after the `toolsListed` hooks (listing.ts). */
  listContracts(w: Warden, tools: RegisteredTool[], options?: ListingOptions): Promise<ToolContract[]>;
  /** Brings the browser's registrations in line with the page (registration.ts). */
  syncRegistrations(w: Warden): Promise<void>;
  /** Syncs when the page's runtime changed since the last sync (registration.ts). */
  noticeRuntime(w: Warden): void;
  /** Compiles a JSON Schema once per schema object (validation.ts). */
  compileSchema(schema: JsonSchema, allowUnsafe?: boolean): Promise<Compiled>;
  /** A value as JSON text, or the diagnostic of why it has none (validation.ts). */
  toJson(value: unknown, limits?: Limits): ({ ok: true } & JsonText) | { ok: false; diagnostic: Diagnostic };
  /** Loads what few calls need (call-extras.ts: `call.display`, the `rejectProtoKeys` check). */
  loadExtras(): Promise<typeof Extras>;
  /** Validates JSON text against a JSON Schema (validation.ts). */
  validateJsonText(schema: JsonSchema, json: JsonText, which: 'inputSchema' | 'outputSchema', limits: { maxArgumentBytes: number; maxArgumentDepth: number }, allowUnsafe?: boolean): Promise<JsonValidated>;
  /** Validates a value against a JSON Schema (validation.ts). */
  validateJson(schema: JsonSchema, value: unknown, limits?: Limits): Promise<JsonValidated>;
  /** A tool's return value as an MCP result (normalize.ts). */
  normalizeResult(value: unknown, options?: NormalizeOptions): CallToolResult;
  /** Loads the shaping chunk and compiles its module once (shaper.ts). */
  loadShaper(): Promise<Shaping>;
  /** The loaded shaping chunk (shaper.ts); throws when it is not loaded. */
  loadedShaping(): Shaping;
}
