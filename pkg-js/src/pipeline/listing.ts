// A listing: what an agent is shown of the page's tools after the `toolsListed` hooks. The core
// plans the hooks (which ones, in which order, given which tools) and judges what each returned;
// `listing-hooks.ts` calls them with their deadlines and keeps the (possibly annotated) tool
// objects. `listTools()` and the browser registrations (`registration.ts`) both list this way.
//
// A client holding no `toolsListed` hook lists its tools as they are, so the hooks' runner is a
// chunk of its own, loaded by the first listing of a client that has one: a page without such
// hooks never carries it (docs/behaviour.md, "Sizes"). It imports nothing of the package; what it
// uses of this chunk is handed to it (`ListingDeps`).
import { ActionBits, core, CoreTrapped, decode, emitHookEvent, encode, EVENTS, genInvocationId, Op, Outcome, Verdict, WardenError } from './from-entry.js';
import type { Warden } from '../client/client.js';
import { readReturn } from './facts.js';
import type { RegisteredTool } from '../types/internal.js';
import { Ended, NEVER_ABORTED, perform } from '../util/perform.js';
import { loadedShaping, loadShaper, shaperLoaded } from '../shape/shaper.js';
import type { ListingOptions, ToolContract } from '../types/types.js';
import { diagnose } from './diagnose.js';

/**
 * What the hooks' runner (`listing-hooks.ts`) uses of the pipeline chunk; made when it runs (the
 * entry's bindings are set once the chunk loaded, after this module's code ran).
 */
const depsNow = () => ({ ActionBits, core, CoreTrapped, decode, emitHookEvent, encode, genInvocationId, Op, Outcome, Verdict, WardenError, readReturn, Ended, NEVER_ABORTED, perform, diagnose });
/** What `listing-hooks.ts` is handed. */
export type ListingDeps = ReturnType<typeof depsNow>;

/** Whether client `w` holds a `toolsListed` hook (of any set: global, scoped or a tool's). */
function hasListingHooks(w: Warden): boolean {
  for (const hook of w.hooks.values()) if (EVENTS[hook.event] === 'toolsListed') return true;
  return false;
}


/**
 * The contracts an agent sees of `tools`, after the `toolsListed` hooks; with `shape: 'llm'`
 * (default) titles and descriptions lose hidden and direction-changing characters (a tool
 * definition is the classic place to hide instructions). Rejects with a `WardenError` whose
 * code is `hook_failed` when a hook fails (never an empty list).
 */
export async function listContracts(w: Warden, tools: RegisteredTool[], options: ListingOptions = {}): Promise<ToolContract[]> {
  let listed = tools.map((tool) => ({ ...tool.contract }));
  if (tools.length > 0 && hasListingHooks(w)) listed = await (await import('./listing-hooks.js')).runHooks(depsNow(), w, tools, listed, options);
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
