// What the pipeline chunk (`pipeline.ts`) uses of the page's entry, handed over when the chunk
// loads: `pipeline-loader.ts` calls `bindEntry` before any of the chunk's code runs. The chunk's
// modules import these names from here, not from the modules that define them. A lazily loaded
// chunk that imported the entry's modules would make esbuild move them into a third chunk that
// the entry imports at once: one more request on every page view, and bytes lost to compressing
// two files (the shaping and validator chunks import nothing of the package for the same
// reason). The bindings are live, so the chunk's modules read the entry's own objects: one
// `WardenError` class, one core.
import type { Entry } from './pipeline-contract.js';

/** canonical.ts's `canonicalJson`. */
export let canonicalJson: Entry['canonicalJson'];
/** codes.ts's `ActionBits`. */
export let ActionBits: Entry['ActionBits'];
/** codes.ts's `Bounds`. */
export let Bounds: Entry['Bounds'];
/** codes.ts's `CallFlags`. */
export let CallFlags: Entry['CallFlags'];
/** codes.ts's `EVENTS`. */
export let EVENTS: Entry['EVENTS'];
/** codes.ts's `Facts`. */
export let Facts: Entry['Facts'];
/** codes.ts's `Op`. */
export let Op: Entry['Op'];
/** codes.ts's `Outcome`. */
export let Outcome: Entry['Outcome'];
/** codes.ts's `Signal`. */
export let Signal: Entry['Signal'];
/** codes.ts's `Verdict`. */
export let Verdict: Entry['Verdict'];
/** core.ts's `core`. */
export let core: Entry['core'];
/** core.ts's `CoreTrapped`. */
export let CoreTrapped: Entry['CoreTrapped'];
/** embedded-bytes.ts's `decodeBase64`. */
export let decodeBase64: Entry['decodeBase64'];
/** errors.ts's `CallFailure`. */
export let CallFailure: Entry['CallFailure'];
/** errors.ts's `RegistrationError`. */
export let RegistrationError: Entry['RegistrationError'];
/** errors.ts's `WardenError`. */
export let WardenError: Entry['WardenError'];
/** frozen.ts's `deepFrozenCopy`. */
export let deepFrozenCopy: Entry['deepFrozenCopy'];
/** governance.ts's `approverFor`. */
export let approverFor: Entry['approverFor'];
/** governance.ts's `sealFirstListing`. */
export let sealFirstListing: Entry['sealFirstListing'];
/** grants.ts's `ensureGrants`. */
export let ensureGrants: Entry['ensureGrants'];
/** grants.ts's `recordGrant`. */
export let recordGrant: Entry['recordGrant'];
/** mcp.ts's `toWireResult`. */
export let toWireResult: Entry['toWireResult'];
/** outcomes.ts's `disposedOutcome`. */
export let disposedOutcome: Entry['disposedOutcome'];
/** outcomes.ts's `failedOutcome`. */
export let failedOutcome: Entry['failedOutcome'];
/** outcomes.ts's `genInvocationId`. */
export let genInvocationId: Entry['genInvocationId'];
/** outcomes.ts's `snapshotOf`. */
export let snapshotOf: Entry['snapshotOf'];
/** registry.ts's `dropBrowserRegistration`. */
export let dropBrowserRegistration: Entry['dropBrowserRegistration'];
/** registry.ts's `isVisible`. */
export let isVisible: Entry['isVisible'];
/** registry.ts's `unknownToolOutcome`. */
export let unknownToolOutcome: Entry['unknownToolOutcome'];
/** runtime.ts's `getModelContext`. */
export let getModelContext: Entry['getModelContext'];
/** runtime.ts's `isMcpB`. */
export let isMcpB: Entry['isMcpB'];
/** telemetry.ts's `emitHookEvent`. */
export let emitHookEvent: Entry['emitHookEvent'];
/** validator-loader.ts's `loadedValidator`. */
export let loadedValidator: Entry['loadedValidator'];
/** validator-loader.ts's `loadingValidator`. */
export let loadingValidator: Entry['loadingValidator'];
/** validator-loader.ts's `loadValidator`. */
export let loadValidator: Entry['loadValidator'];
/** patterns.ts's `hasJudge`. */
export let hasJudge: Entry['hasJudge'];
/** patterns.ts's `patternsSettled`. */
export let patternsSettled: Entry['patternsSettled'];
/** patterns.ts's `validatorMisses`. */
export let validatorMisses: Entry['validatorMisses'];
/** trap-guard.ts's `TrapGuard`. */
export let TrapGuard: Entry['TrapGuard'];
/** unlzma.ts's `unlzmaAsync`. */
export let unlzmaAsync: Entry['unlzmaAsync'];
/** wire.ts's `decode`. */
export let decode: Entry['decode'];
/** wire.ts's `encode`. */
export let encode: Entry['encode'];
/** wire.ts's `encodeJson`. */
export let encodeJson: Entry['encodeJson'];
/** wire.ts's `Tag`. */
export let Tag: Entry['Tag'];
/** wire.ts's `Writer`. */
export let Writer: Entry['Writer'];

/** Binds every name above to the entry's own; called once, before the chunk's code runs. */
export function bindEntry(entry: Entry): void {
  ({
    canonicalJson, ActionBits, Bounds, CallFlags, EVENTS, Facts, Op, Outcome, Signal, Verdict, core, CoreTrapped, decodeBase64, CallFailure, RegistrationError, WardenError,
    deepFrozenCopy, approverFor, sealFirstListing, ensureGrants, recordGrant, toWireResult, disposedOutcome, failedOutcome,
    genInvocationId, snapshotOf, dropBrowserRegistration, isVisible, unknownToolOutcome, getModelContext, isMcpB, emitHookEvent, loadedValidator, loadingValidator, loadValidator, hasJudge, patternsSettled, validatorMisses, unlzmaAsync,
    decode, encode, encodeJson, Tag, Writer, TrapGuard,
  } = entry);
}
