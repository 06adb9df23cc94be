// A listing: what an agent is shown of the page's tools after the `toolsListed` hooks. The core
// plans the hooks (which ones, in which order, given which tools) and judges what each returned;
// `runHooks` calls them with their deadlines and keeps the (possibly annotated) tool objects.
// `listTools()` and the browser registrations (`registration.ts`) both list this way; a client
// holding no `toolsListed` hook lists its tools as they are.
import { ActionBits, EVENTS, Op, StepReport, Verdict } from '../boundary/codes.js';
import { core, CoreTrapped } from '../boundary/core.js';
import { decode, encode } from '../boundary/wire.js';
import type { EndListingAnswer } from '../boundary/answers.js';
import type { ClientState } from '../client/client.js';
import { genInvocationId } from '../client/outcomes.js';
import { emitHookEvent } from '../client/telemetry.js';
import { loadedShaping, loadShaper, shaperLoaded } from '../shape/shape-loader.js';
import type { RegisteredTool } from '../types/internal.js';
import type { ListingOptions, ToolContract } from '../types/types.js';
import { WardenError } from '../util/errors.js';
import { Ended, NEVER_ABORTED, perform } from '../util/perform.js';
import { diagnose } from './diagnostics-loader.js';
import type { Note } from './diagnostics.js';
import { readReturn } from './facts.js';

/** Whether client `w` holds a `toolsListed` hook (of any set: global, scoped or a tool's). */
function hasListingHooks(w: ClientState): boolean {
  for (const hook of w.hooks.values()) if (EVENTS[hook.event] === 'toolsListed') return true;
  return false;
}


/**
 * The contracts an agent sees of `tools`, after the `toolsListed` hooks; with `shape: 'llm'`
 * (default) titles and descriptions lose hidden and direction-changing characters (a tool
 * definition is the classic place to hide instructions). Rejects with a `WardenError` whose
 * code is `hook_failed` when a hook fails (never an empty list).
 */
export async function listContracts(w: ClientState, tools: RegisteredTool[], options: ListingOptions = {}): Promise<ToolContract[]> {
  let listed = tools.map((tool) => ({ ...tool.contract }));
  if (tools.length > 0 && hasListingHooks(w)) listed = await runHooks(w, tools, listed, options);
  if ((options.shape ?? 'llm') !== 'llm') return listed;
  if (!shaperLoaded()) {
    try {
      await loadShaper();
    } catch (err) {
      throw new WardenError('internal_error', 'webmcp-warden: the shaping module did not load, so tool definitions cannot be shaped for a model', { cause: err });
    }
  }
  const { stripText } = loadedShaping();
  return listed.map((contract) => stripContract(contract, stripText));
}

/** A contract whose title and description lost their hidden characters. */
function stripContract(contract: ToolContract, stripText: (text: string) => [string, number]): ToolContract {
  const shaped = { ...contract, description: stripText(contract.description)[0] };
  if (typeof contract.title === 'string') shaped.title = stripText(contract.title)[0];
  return shaped;
}

/**
 * `process.env.NODE_ENV`, which bundlers replace: the guard of the diagnostics' code (diagnostics-loader.ts)
 * is false where it says `'production'`; a page without `process` (a browser) relies on `debug`.
 */
declare const process: { env: { NODE_ENV?: string } };

/**
 * Runs the `toolsListed` hooks of a listing of `tools` (whose contracts are `contracts`): the
 * contracts they keep, possibly annotated. Rejects with a `WardenError('hook_failed')` when one
 * fails.
 */
export async function runHooks(w: ClientState, tools: RegisteredTool[], contracts: ToolContract[], options: ListingOptions): Promise<ToolContract[]> {
  const engine = w.engine();
  const instance = w.coreInstance;
  const listing = core.beginListing(engine, new Uint32Array(tools.map((t) => t.coreTool)), new Uint32Array(tools.map((t) => t.scope)));
  if (listing < 0) throw new WardenError('too_many_listings', 'too many listings are in progress');
  const ctx = { invocationId: genInvocationId(), metadata: {} as Record<string, unknown>, principal: options.principal, assigns: options.assigns ?? {}, signal: options.signal ?? NEVER_ABORTED };
  const observed = w.telemetry.active();
  const notes: Note[] = [];
  let ended = false;
  try {
    let action = core.listingStep(engine, listing, StepReport.Start, 0, 0, new Uint8Array());
    let kept: Map<string, ToolContract> | undefined;
    for (;;) {
      if (action & ActionBits.Accepted && kept !== undefined) {
        contracts = contracts.map((contract) => {
          const annotated = kept?.get(contract.name);
          return annotated ? { ...annotated, name: contract.name } : contract;
        });
      }
      kept = undefined;
      const op = action & ActionBits.OpMask;
      if (op === Op.FinishOk || op === Op.FinishError) {
        ended = true;
        const answer = decode(core.endListing(engine, listing)) as EndListingAnswer;
        if ((typeof process === 'undefined' || process.env.NODE_ENV !== 'production') && notes.length > 0) await diagnose(w, notes);
        if (!answer.ok) throw new WardenError('hook_failed', answer.error?.message ?? 'a toolsListed hook failed');
        return (answer.listed ?? []).map((index) => contracts[index] as ToolContract);
      }
      if (op !== Op.CallHook) throw new Error(`the core answered an unknown listing op ${op}`);
      const hook = w.hooks.get(action >>> ActionBits.HandleShift);
      if (hook === undefined) throw new Error('the core named a hook this client does not hold');
      const given = [...core.listingGiven(engine, listing)].map((index) => ({ ...(contracts[index] as ToolContract) }));
      const hookId = observed ? (core.listingHookId(engine, listing) ?? '') : '';
      const started = observed ? performance.now() : 0;
      const performed = perform(hook.run, [given, ctx], hook.timeout ?? w.settings.hookTimeout, ctx.signal);
      const [how, value] = Array.isArray(performed) ? performed : await performed;
      const duration = observed ? performance.now() - started : 0;
      let outcome: number = how === Ended.Raise ? StepReport.Raised : how === Ended.Timeout ? StepReport.TimedOut : how === Ended.Aborted ? StepReport.Aborted : StepReport.Returned;
      let facts = 0;
      let payload: Uint8Array = new Uint8Array();
      if (outcome === StepReport.Returned) {
        try {
          facts = readReturn(value).facts;
          if (Array.isArray(value)) {
            // Each returned tool is read once: a snapshot of its own keys, and its name.
            const items = Array.from(value as unknown[], (item) => (item !== null && typeof item === 'object' ? { ...(item as object) } : item));
            kept = new Map();
            const names = items.map((item) => {
              const name = item !== null && typeof item === 'object' ? (item as { name?: unknown }).name : undefined;
              if (typeof name === 'string') kept?.set(name, item as ToolContract);
              return name;
            });
            payload = encode({ names: names.map((name) => (name === undefined ? null : name)) });
          }
        } catch {
          outcome = StepReport.Raised;
          facts = 0;
        }
      }
      if (instance !== w.coreInstance) throw new CoreTrapped('the core was restarted during this listing');
      const hookIdNow = outcome === StepReport.Returned || ((typeof process === 'undefined' || process.env.NODE_ENV !== 'production') && w.settings.debug) ? core.listingHookId(engine, listing) : undefined;
      action = core.listingStep(engine, listing, outcome, facts, duration, payload);
      if (((action >>> ActionBits.VerdictShift) & 7) === Verdict.Failed && (typeof process === 'undefined' || process.env.NODE_ENV !== 'production') && w.settings.debug) {
        notes.push(['hook', 'toolsListed', hookIdNow ?? '?', tools.map((t) => t.contract.name).join(','), outcome, '', hook.timeout ?? w.settings.hookTimeout]);
      }
      if (observed) emitHookEvent(w.telemetry, { tool: tools.map((t) => t.contract.name).join(','), serverId: w.settings.serverId, invocationId: ctx.invocationId, hookId, event: 'toolsListed', durationMs: duration }, outcome, action);
    }
  } finally {
    if (!ended && instance === w.coreInstance) core.endListing(engine, listing);
  }
}
