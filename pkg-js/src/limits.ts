// webmcp-warden/limits: the policy's `limits` (docs/behaviour.md, "Limits"), compiled, counted and
// decided by a Rust module of their own (`src/policy/limits.rs`, `src/wasm/limits.rs`, built
// with `--features limits-module`). A page that uses limits imports this entry and wraps its
// policy in `withLimits()`; one that does not downloads nothing of them (the core a page
// downloads at import carries none of it).
//
// This file runs the module: it compiles it synchronously on first use (as the core is, so
// `configureWebMCP` refuses a bad limit at once), gives each client an id there, asks the cost
// functions a check needs (the page's functions: called here, under `hookTimeout`, with the
// call's frozen arguments), and hands the core what the module decided. A trapped instance is
// replaced and every client's limits compiled again (their counts start afresh).
import * as glue from '../wasm/warden_limits.js';
import { WASM_DEFLATED_BASE64 } from '../wasm/warden_limits_bytes.js';
import { Outcome } from './codes.js';
import { decodeBase64 } from './embedded-bytes.js';
import { configurationError } from './errors.js';
import { inflateRaw } from './inflate.js';
import { limitsHook, type LimitsChecked, type LimitsClient, type LimitsEngine } from './limits-hook.js';
import { decode } from './wire.js';
import type { Policy, PolicyCall } from './policy-types.js';
import type { ConfigureAnswer, Refused } from './answers.js';

export type { LimitCost, PolicyLimit } from './policy-types.js';

let compiled: WebAssembly.Module | undefined;
let live = false;
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

/** Runs one crossing on the live instance (made, and every client's limits compiled again, if none is). */
function guard<T>(crossing: () => T): T {
  if (!live) {
    compiled ??= new WebAssembly.Module(inflateRaw(decodeBase64(WASM_DEFLATED_BASE64)) as BufferSource);
    memory = glue.initSync({ module: compiled }).memory;
    live = true;
    tools = new Map();
    for (const [id, limits] of sent) glue.limitsSet(id, limits);
  }
  try {
    return crossing();
  } catch (err) {
    trapped(err);
    throw err;
  }
}

/** Marks the instance dead when `err` is a trap: the next crossing makes a fresh one. */
function trapped(err: unknown): void {
  if (err instanceof WebAssembly.RuntimeError || (err instanceof Error && /unreachable/i.test(err.message))) live = false;
}

function idOf(w: LimitsClient): number {
  let id = ids.get(w);
  if (id === undefined) ids.set(w, (id = nextId++));
  return id;
}

/** `limitsTool`'s answer for client `id`'s tool `tool` on `server`, asked once per limits set. */
function toolOf(id: number, server: string, tool: string): number {
  // A fresh instance first when the last one trapped (the tools' numbers are its own).
  if (!live) guard(() => undefined);
  let servers = tools.get(id);
  if (servers === undefined) tools.set(id, (servers = new Map()));
  let known = servers.get(server);
  if (known === undefined) servers.set(server, (known = new Map()));
  let number = known.get(tool);
  if (number === undefined) known.set(tool, (number = guard(() => glue.limitsTool(id, server, tool))));
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

const engine: LimitsEngine = {
  set(w, limits) {
    const id = idOf(w);
    if (limits === undefined) {
      sent.delete(id);
      tools.delete(id);
      if (live) guard(() => glue.limitsDrop(id));
      return;
    }
    const answer = decode(guard(() => glue.limitsSet(id, limits))) as ConfigureAnswer | Refused;
    if (!answer.ok) throw configurationError(answer.error);
    sent.set(id, limits);
    // Which limits select each tool is found again (the numbers stay).
    tools.delete(id);
  },
  selects(w, server, tool) {
    return (toolOf(idOf(w), server, tool) & 1) === 1;
  },
  check(w, server, tool, principal, signal, call) {
    const id = idOf(w);
    // The tool crosses by the number the module gave it, not by name: every call comes here.
    const number = Math.floor(toolOf(id, server, tool) / 2);
    const count = call !== undefined;
    const costs: number[] = [];
    const step = (): number => {
      try {
        return glue.limitsCheck(id, number, principal, w.settings.clock(), count, costs.length === 0 ? undefined : new Float64Array(costs));
      } catch (err) {
        // The call fails closed (as data); after a trap the next check makes a fresh instance.
        trapped(err);
        throw err;
      }
    };
    const settle = (answer: number): LimitsChecked | Promise<LimitsChecked> => {
      for (;;) {
        if (answer >= 0) return [Outcome.Valid, undefined, answer];
        if (answer === -1) return [Outcome.Invalid, decode(guard(() => glue.limitsHit(id))), 0];
        const handle = -2 - answer;
        // A dry run calls no cost function: it counts as failed (fail closed).
        if (call === undefined) costs.push(handle, NaN);
        else
          return costOf(w, handle, call()).then((cost): LimitsChecked | Promise<LimitsChecked> => {
            if (signal?.aborted) return [Outcome.Aborted, undefined, 0];
            costs.push(handle, cost);
            return settle(step());
          });
        answer = step();
      }
    };
    const answer = step();
    // Within every limit: the common case, answered without more.
    return answer >= 0 ? [Outcome.Valid, undefined, answer] : settle(answer);
  },
  release(w, token) {
    guard(() => glue.limitsRelease(idOf(w), token));
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
  limitsHook.engine ??= engine;
  return policy;
}
