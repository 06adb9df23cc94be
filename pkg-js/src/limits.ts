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
import { WASM_FILE, WASM_LZMA_BASE64 } from '../wasm/warden_limits_bytes.js';
import { StepReport } from './boundary/codes.js';
import { configurationError } from './util/errors.js';
import { wasmBytes } from './boundary/wasm-bytes.js';
import { limitsHook, type LimitsChecked, type LimitsClient, type LimitsModule } from './client/limits-hook.js';
import { decode } from './boundary/wire.js';
import type { Policy, PolicyCall } from './types/policy-types.js';
import type { ConfigureAnswer, Refused } from './boundary/answers.js';
import { isTrap, TrapGuard } from './boundary/trap-guard.js';

export type { LimitCost, PolicyLimit } from './types/policy-types.js';

let compiled: WebAssembly.Module | undefined;
let memory: WebAssembly.Memory | undefined;
/** The next client id in the module (ids are never reused). */
let nextId = 0;
/**
 * Counts the module's per-client states ever made (one per client and instance): a call's token
 * carries the one that counted it, so that a token from before a trap, or from before the
 * client's limits were removed and set again, never releases a place in a state made since.
 */
let epochs = 0;
/** Tokens are `epoch * TOKEN_SPAN + the state's own token` (the module's are `u32`). */
const TOKEN_SPAN = 2 ** 32;
/** A principal no check has sent yet (the module's state holds none it can match). */
const UNSENT = Symbol('unsent');

/** What this entry keeps of one client, on the client (`LimitsClient.limitsSlot`). */
interface Slot {
  /** The client's id in the module. */
  readonly id: number;
  /** The limits it was given (wire-encoded), sent again to a fresh instance. */
  limits: Uint8Array;
  /** Its state in the live instance (see `epochs`); 0: it has none there yet. */
  epoch: number;
  /** What the instance answered for its tools (by server, then name): `limitsTool`'s number. */
  tools: Map<string, Map<string, number>>;
  /** The last tool asked (a call asks twice: when it begins, and at its limits step). */
  server: string;
  tool: string;
  number: number;
  /** The principal its last check gave the instance (which keeps it): the same one is not sent again. */
  principal: string | undefined | typeof UNSENT;
  /**
   * The token of a call that ended (0: none) whose calls in flight the client's next check ends
   * before it counts: a call's end crosses nothing, and every reader of the counts is a check. A
   * second call ending meanwhile ends its own at once.
   */
  ended: number;
}

/** The instance: made on first crossing, and again after a trap (each client's state then made afresh by `live`). */
const instance = new TrapGuard(() => {
  compiled ??= new WebAssembly.Module(wasmBytes(WASM_FILE, WASM_LZMA_BASE64) as BufferSource);
  memory = glue.initSync({ module: compiled }).memory;
  instanceEpoch = epochs + 1;
});
/** The first epoch of the live instance: a slot with an older one has no state in it. */
let instanceEpoch = 0;

/** Runs one crossing on the live instance (made if none is); a trap marks it dead and throws. */
const guard = <T>(crossing: () => T): T => instance.run(crossing);

/**
 * Client `w`'s slot with a state in the live instance (made, and a fresh instance first, when
 * missing: the counts of a trapped instance start afresh).
 */
function live(w: LimitsClient): Slot | undefined {
  const slot = w.limitsSlot as Slot | undefined;
  instance.open();
  if (slot !== undefined && slot.epoch < instanceEpoch) {
    const answer = decode(guard(() => glue.limitsSet(slot.id, slot.limits))) as ConfigureAnswer | Refused;
    if (!answer.ok) throw configurationError(answer.error);
    slot.epoch = ++epochs;
    slot.tools = new Map();
    slot.tool = '';
    slot.principal = UNSENT;
    slot.ended = 0;
  }
  return slot;
}

/** `limitsTool`'s answer for tool `tool` on `server` (asked once per limits set). */
function toolOf(slot: Slot, server: string, tool: string): number {
  if (slot.tool === tool && slot.server === server && tool !== '') return slot.number;
  let known = slot.tools.get(server);
  if (known === undefined) slot.tools.set(server, (known = new Map()));
  let number = known.get(tool);
  if (number === undefined) known.set(tool, (number = guard(() => glue.limitsTool(slot.id, server, tool))));
  slot.server = server;
  slot.tool = tool;
  slot.number = number;
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

/** One `limitsCheck` crossing for the slot's tool `number`; `costs` as it takes them. */
function checkOnce(w: LimitsClient, slot: Slot, number: number, principal: string | undefined, count: boolean, costs: Float64Array | undefined, now = w.settings.clock()): number {
  // The instance keeps the last principal it was given: only a new one crosses.
  const same = slot.principal === principal;
  const release = slot.ended;
  slot.ended = 0;
  try {
    const answer = glue.limitsCheck(slot.id, number, same ? undefined : principal, same, now, count, costs, release);
    slot.principal = principal;
    return answer;
  } catch (err) {
    // Refused before it ran (not a trap): the ended call's places are still to end.
    if (!isTrap(err)) slot.ended = release;
    // The call fails closed (as data); after a trap the next check makes a fresh instance.
    slot.principal = UNSENT;
    throw instance.failed(err);
  }
}

/** The token a call holds for the instance's answer `answer` (0: it holds no place). */
const tokenOf = (slot: Slot, answer: number): number => (answer === 0 ? 0 : slot.epoch * TOKEN_SPAN + answer);

/**
 * What a check that did not pass at once comes to: the decision of the limit it would pass, or
 * the cost functions it needs asked (in turn; `costs` holds their answers) and a check again.
 */
function settle(w: LimitsClient, server: string, tool: string, principal: string | undefined, signal: AbortSignal | undefined, call: (() => PolicyCall) | undefined, answer: number, costs: number[]): LimitsChecked | Promise<LimitsChecked> {
  for (;;) {
    // The slot again: the instance may have been replaced while a cost function ran.
    const slot = live(w);
    if (slot === undefined) return 0;
    if (answer >= 0) return tokenOf(slot, answer);
    if (answer === -1) return [StepReport.Invalid, decode(guard(() => glue.limitsHit(slot.id)))];
    const handle = -2 - answer;
    // A dry run calls no cost function: it counts as failed (fail closed).
    if (call === undefined) costs.push(handle, NaN);
    else
      return costOf(w, handle, call()).then((cost): LimitsChecked | Promise<LimitsChecked> => {
        if (signal?.aborted) return [StepReport.Aborted, undefined];
        costs.push(handle, cost);
        const fresh = live(w);
        if (fresh === undefined) return 0;
        const again = checkOnce(w, fresh, Math.floor(toolOf(fresh, server, tool) / 2), principal, true, new Float64Array(costs));
        return settle(w, server, tool, principal, signal, call, again, costs);
      });
    answer = checkOnce(w, slot, Math.floor(toolOf(slot, server, tool) / 2), principal, false, new Float64Array(costs));
  }
}

const limitsModule: LimitsModule = {
  set(w, limits) {
    const slot = w.limitsSlot as Slot | undefined;
    if (limits === undefined) {
      w.limitsSlot = undefined;
      if (slot !== undefined && slot.epoch >= instanceEpoch && instance.live) guard(() => glue.limitsDrop(slot.id));
      return;
    }
    const id = slot?.id ?? nextId++;
    instance.open();
    const answer = decode(guard(() => glue.limitsSet(id, limits))) as ConfigureAnswer | Refused;
    if (!answer.ok) throw configurationError(answer.error);
    if (slot === undefined || slot.epoch < instanceEpoch) {
      // A state made afresh in the module (a new client, or one whose state a trap took).
      w.limitsSlot = { id, limits, epoch: ++epochs, tools: new Map(), server: '', tool: '', number: 0, principal: UNSENT, ended: 0 } satisfies Slot;
    } else {
      // The same state, its counts kept; which limits select each tool is found again (the numbers stay).
      slot.limits = limits;
      slot.tools = new Map();
      slot.tool = '';
    }
  },
  selects(w, server, tool) {
    const slot = live(w);
    return slot !== undefined && (toolOf(slot, server, tool) & 1) === 1;
  },
  check(w, server, tool, principal, signal, call, now) {
    const slot = live(w);
    // Limits removed while the call was in flight: it is within them.
    if (slot === undefined) return 0;
    // The tool crosses by the number the module gave it, not by name: every call comes here.
    const answer = checkOnce(w, slot, Math.floor(toolOf(slot, server, tool) / 2), principal, call !== undefined, undefined, now);
    // Within every limit: the common case, answered without more.
    return answer >= 0 ? tokenOf(slot, answer) : settle(w, server, tool, principal, signal, call, answer, []);
  },
  release(w, token) {
    const slot = w.limitsSlot as Slot | undefined;
    // Nothing to release in a state made since the call was counted (a trap, or limits removed
    // and set again, started the counts afresh, and its tokens mean other calls).
    if (slot === undefined || !instance.live || slot.epoch < instanceEpoch || Math.floor(token / TOKEN_SPAN) !== slot.epoch) return;
    const own = token % TOKEN_SPAN;
    if (slot.ended === 0) slot.ended = own;
    else guard(() => glue.limitsRelease(slot.id, own));
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
