// What the pipeline chunk (`pipeline.ts`) uses of the page's entry, handed over when the chunk
// loads: `pipeline-loader.ts` calls `bindEntry` before any of the chunk's code runs. The chunk's
// modules import these names from here, not from the modules that define them. A lazily loaded
// chunk that imported the entry's modules would make esbuild move them into a third chunk that
// the entry imports at once: one more request on every page view, and bytes lost to compressing
// two files (the shaping and validator chunks import nothing of the package for the same
// reason). The bindings are live, so the chunk's modules read the entry's own objects: one
// `WardenError` class, one core.
import type { Entry } from './pipeline-contract.js';

export let canonicalJson: Entry['canonicalJson'];
export let ActionBits: Entry['ActionBits'];
export let CallFlags: Entry['CallFlags'];
export let EVENTS: Entry['EVENTS'];
export let Facts: Entry['Facts'];
export let Op: Entry['Op'];
export let Outcome: Entry['Outcome'];
export let Signal: Entry['Signal'];
export let Verdict: Entry['Verdict'];
export let core: Entry['core'];
export let CoreTrapped: Entry['CoreTrapped'];
export let decodeBase64: Entry['decodeBase64'];
export let CallFailure: Entry['CallFailure'];
export let RegistrationError: Entry['RegistrationError'];
export let WardenError: Entry['WardenError'];
export let deepFrozenCopy: Entry['deepFrozenCopy'];
export let approverFor: Entry['approverFor'];
export let sealFirstListing: Entry['sealFirstListing'];
export let taintSet: Entry['taintSet'];
export let ensureGrants: Entry['ensureGrants'];
export let recordGrant: Entry['recordGrant'];
export let inflateRawAsync: Entry['inflateRawAsync'];
export let toWireResult: Entry['toWireResult'];
export let disposedOutcome: Entry['disposedOutcome'];
export let failedOutcome: Entry['failedOutcome'];
export let genInvocationId: Entry['genInvocationId'];
export let snapshotOf: Entry['snapshotOf'];
export let dropBrowserRegistration: Entry['dropBrowserRegistration'];
export let isVisible: Entry['isVisible'];
export let unknownToolOutcome: Entry['unknownToolOutcome'];
export let getModelContext: Entry['getModelContext'];
export let isMcpB: Entry['isMcpB'];
export let emitHookEvent: Entry['emitHookEvent'];
export let loadedValidator: Entry['loadedValidator'];
export let loadValidator: Entry['loadValidator'];
export let isPlainObject: Entry['isPlainObject'];
export let decode: Entry['decode'];
export let encode: Entry['encode'];
export let encodeJson: Entry['encodeJson'];
export let Tag: Entry['Tag'];
export let Writer: Entry['Writer'];

/** Binds every name above to the entry's own; called once, before the chunk's code runs. */
export function bindEntry(entry: Entry): void {
  ({
    canonicalJson, ActionBits, CallFlags, EVENTS, Facts, Op, Outcome, Signal, Verdict, core, CoreTrapped, decodeBase64, CallFailure, RegistrationError, WardenError,
    deepFrozenCopy, approverFor, sealFirstListing, taintSet, ensureGrants, recordGrant, inflateRawAsync, toWireResult, disposedOutcome, failedOutcome,
    genInvocationId, snapshotOf, dropBrowserRegistration, isVisible, unknownToolOutcome, getModelContext, isMcpB, emitHookEvent, loadedValidator, loadValidator,
    isPlainObject, decode, encode, encodeJson, Tag, Writer,
  } = entry);
}
