// webmcp-warden/limits: the policy's `limits` (docs/behaviour.md, "Limits"), compiled, counted and
// decided by a Rust module of their own (`src/policy/limits.rs`, built from the crate
// `wasm/limits/`). A page that uses limits imports this entry and wraps its
// policy in `withLimits()`; one that does not downloads nothing of them (the core a page
// downloads at import carries none of it).
//
// This file runs the module: it compiles it synchronously on first use (as the core is, so
// `configureWebMCP` refuses a bad limit at once), gives each client an id there, asks the cost
// functions a check needs (the page's functions: called here, under `hookTimeout`, with the
// call's frozen arguments), and hands the core what the module decided. A trapped instance is
// replaced and every client's limits compiled again (their counts start afresh).
import * as glue from '../wasm/warden_limits.js';
import { WASM_LZMA_BASE64 } from '../wasm/warden_limits_bytes.js';
import { StepReport } from './boundary/codes.js';
import { decodeBase64 } from './boundary/embedded-bytes.js';
import { configurationError } from './util/errors.js';
import { unlzma } from './boundary/unlzma.js';
import { limitsHook, type LimitsChecked, type LimitsClient, type LimitsModule } from './client/limits-hook.js';
import { decode } from './boundary/wire.js';
import type { Policy, PolicyCall } from './types/policy-types.js';
import type { ConfigureAnswer, Refused } from './boundary/answers.js';
import { isTrap, TrapGuard } from './boundary/trap-guard.js';

export type { LimitCost, PolicyLimit } from './types/policy-types.js';

let compiled: WebAssembly.Module | undefined;
let memory: WebAssembly.Memory | undefined;
/** Each client's id in the module, and the limits it was sent (to send again to a new instance). */
const ids = new WeakMap<LimitsClient, number>();
const sent = new Map<number, Uint8Array>();
let nextId = 0;
/**
 * What the live instance answered for each client's tools (by server, then name): the number it
 * knows the tool by, doubled, plus 1 when a limit selects it (`limitsTool`).
 */
let tools = new Map<number, Map<string, Map<string, number>>>();
/** The principal each client's last check gave the live instance (which keeps it): a check of the same one does not send it again. */
let principals = new Map<number, string | undefined>();
/**
 * By client id, the token of a call that ended (0: none) whose calls in flight the client's next
 * check ends before it counts: a call's end crosses nothing, and every reader of the counts is a
 * check. A second call ending meanwhile ends its own at once.
 */
let ended: number[] = [];
/**
 * How many instances were made. A call's token carries the one that counted it: a fresh instance
 * numbers its tokens afresh, so a token of the one before must never release a place in it.
 */
let generation = 0;
/** Tokens are `generation * TOKEN_SPAN + the instance's own token` (the module's are `u32`). */
const TOKEN_SPAN = 2 ** 32;

/** The token a call holds for the instance's answer `answer` (0: it holds no place). */
const tokenOf = (answer: number): number => (answer === 0 ? 0 : generation * TOKEN_SPAN + answer);

/** The instance: made (and every client's limits compiled again) on first crossing, and again after a trap. */
const instance = new TrapGuard(() => {
  compiled ??= new WebAssembly.Module(unlzma(decodeBase64(WASM_LZMA_BASE64)) as BufferSource);
  memory = glue.initSync({ module: compiled }).memory;
  tools = new Map();
  principals = new Map();
  ended = [];
  generation += 1;
  last = undefined;
  for (const [id, limits] of sent) glue.limitsSet(id, limits);
});

/** Runs one crossing on the live instance (made if none is); a trap marks it dead and throws. */
const guard = <T>(crossing: () => T): T => instance.run(crossing);

function idOf(w: LimitsClient): number {
  let id = ids.get(w);
  if (id === undefined) ids.set(w, (id = nextId++));
  return id;
}

/** The last answer `toolOf` gave (a call asks twice: when it begins, and at its limits step). */
let last: { id: number; server: string; tool: string; number: number } | undefined;

/** `limitsTool`'s answer for client `id`'s tool `tool` on `server`, asked once per limits set. */
function toolOf(id: number, server: string, tool: string): number {
  // A fresh instance first when the last one trapped (the tools' numbers are its own).
  instance.open();
  if (last !== undefined && last.id === id && last.tool === tool && last.server === server) return last.number;
  let servers = tools.get(id);
  if (servers === undefined) tools.set(id, (servers = new Map()));
  let known = servers.get(server);
  if (known === undefined) servers.set(server, (known = new Map()));
  let number = known.get(tool);
  if (number === undefined) known.set(tool, (number = guard(() => glue.limitsTool(id, server, tool))));
  last = { id, server, tool, number };
  return number;
}

/** What a cost function answered: a number, or `NaN` for a throw, a rejection, a timeout or anything else. */
async function costOf(w: LimitsClient, handle: number, call: PolicyCall): Promise<number> {
  const cost = w.predicates.table[handle] as unknown as ((input: unknown, call: PolicyCall) => unknown) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(reject, w.settings.hookTimeout)));
    const answer = await Promise.race([Promise.resolve().then(() => cost?.(call.arguments, call)), timeout]);
    return typeof answer === 'number' ? answer : NaN;
  } catch {
    return NaN;
  } finally {
    clearTimeout(timer);
  }
}

/** One `limitsCheck` crossing for client `id`'s tool `number`; `costs` as it takes them. */
function checkOnce(w: LimitsClient, id: number, number: number, principal: string | undefined, count: boolean, costs: Float64Array | undefined): number {
  // The instance keeps the last principal it was given: only a new one crosses.
  const same = principals.has(id) && principals.get(id) === principal;
  const release = ended[id] ?? 0;
  if (release !== 0) ended[id] = 0;
  try {
    const answer = glue.limitsCheck(id, number, same ? undefined : principal, same, w.settings.clock(), count, costs, release);
    principals.set(id, principal);
    return answer;
  } catch (err) {
    // Refused before it ran (not a trap): the ended call's places are still to end.
    if (release !== 0 && !isTrap(err)) ended[id] = release;
    // The call fails closed (as data); after a trap the next check makes a fresh instance.
    principals.delete(id);
    throw instance.failed(err);
  }
}

/**
 * What a check that did not pass at once comes to: the decision of the limit it would pass, or
 * the cost functions it needs asked (in turn; `costs` holds their answers) and a check again.
 */
function settle(w: LimitsClient, id: number, server: string, tool: string, principal: string | undefined, signal: AbortSignal | undefined, call: (() => PolicyCall) | undefined, answer: number, costs: number[]): LimitsChecked | Promise<LimitsChecked> {
  for (;;) {
    if (answer >= 0) return tokenOf(answer);
    if (answer === -1) return [StepReport.Invalid, decode(guard(() => glue.limitsHit(id)))];
    const handle = -2 - answer;
    // A dry run calls no cost function: it counts as failed (fail closed).
    if (call === undefined) costs.push(handle, NaN);
    else
      return costOf(w, handle, call()).then((cost): LimitsChecked | Promise<LimitsChecked> => {
        if (signal?.aborted) return [StepReport.Aborted, undefined];
        costs.push(handle, cost);
        // The tool's number again: the instance may have been replaced while the function ran.
        const again = checkOnce(w, id, Math.floor(toolOf(id, server, tool) / 2), principal, true, new Float64Array(costs));
        return settle(w, id, server, tool, principal, signal, call, again, costs);
      });
    answer = checkOnce(w, id, Math.floor(toolOf(id, server, tool) / 2), principal, false, new Float64Array(costs));
  }
}

const limitsModule: LimitsModule = {
  set(w, limits) {
    const id = idOf(w);
    if (limits === undefined) {
      sent.delete(id);
      tools.delete(id);
      principals.delete(id);
      ended[id] = 0;
      last = undefined;
      if (instance.live) guard(() => glue.limitsDrop(id));
      return;
    }
    const answer = decode(guard(() => glue.limitsSet(id, limits))) as ConfigureAnswer | Refused;
    if (!answer.ok) throw configurationError(answer.error);
    sent.set(id, limits);
    // Which limits select each tool is found again (the numbers stay).
    tools.delete(id);
    last = undefined;
  },
  selects(w, server, tool) {
    return (toolOf(idOf(w), server, tool) & 1) === 1;
  },
  check(w, server, tool, principal, signal, call) {
    const id = idOf(w);
    // The tool crosses by the number the module gave it, not by name: every call comes here.
    const number = Math.floor(toolOf(id, server, tool) / 2);
    const answer = checkOnce(w, id, number, principal, call !== undefined, undefined);
    // Within every limit: the common case, answered without more.
    return answer >= 0 ? tokenOf(answer) : settle(w, id, server, tool, principal, signal, call, answer, []);
  },
  release(w, token) {
    // Nothing to release in an instance made since the call was counted (a trap started the
    // counts afresh, and its tokens mean other calls).
    if (!instance.live || Math.floor(token / TOKEN_SPAN) !== generation) return;
    const id = idOf(w);
    const own = token % TOKEN_SPAN;
    if ((ended[id] ?? 0) === 0) ended[id] = own;
    else guard(() => glue.limitsRelease(id, own));
  },
};

/**
 * The size of the limits module's linear memory in bytes (0 before it is compiled). Wasm memory
 * only grows, so the soak benchmark reads it to show that counts do not pile up.
 */
export function limitsMemoryBytes(): number {
  return memory === undefined ? 0 : memory.buffer.byteLength;
}

/**
 * Answers `policy` unchanged, and makes its `limits` count: the limits module is in use from now
 * on (for every client). Wrap the policy you give `configureWebMCP` (or a client's `configure`)
 * in it; a policy with `limits` configured before is refused with `limits_unavailable`.
 *
 * @example
 * configureWebMCP({ policy: withLimits({ default: 'allow', limits: [{ match: 'send_*', per: 'principal', max: 10, window: 60_000 }] }) });
 */
export function withLimits<P extends Policy>(policy: P): P {
  limitsHook.module ??= limitsModule;
  return policy;
}
