// Console diagnostics of fail-closed events, for the developer (`configureWebMCP({ debug })`, on
// in development builds by default): a hook that threw, ran past its deadline, returned outside
// its contract or was removed while a call waited for it; an approver that failed; a function
// predicate that failed; a result that does not match its `outputSchema`; what shaping removed;
// a registration the browser refused or that failed under `useWebMCP`. Each is written once per
// client and cause, with what happened, which hook or rule (id, event, tool), and how to fix it.
//
// A chunk of its own, imported only when a diagnostic is due and `debug` is on, so a production
// page downloads none of it. What the sentences say about a decision (why the call failed
// closed, which rule then decided, what the agent read) is the core's own text, passed in; this
// file adds where it happened and the fix. What a hook, the approver or a predicate threw is not
// written: it may quote the agent's arguments or the page's secrets, and consoles are collected
// (error trackers keep console lines). Error hooks get it as `ctx.error`, for a page that wants
// to log it (docs/behaviour.md, "Diagnostics").
import type { Warden } from './client.js';

/** A hook's failure: `failed` is the core's answer, whether it failed the call (or listing). */
export interface HookNote {
  kind: 'hook';
  event: string;
  hookId: string;
  /** What was called: a tool's name, a resource's, a prompt's; a listing's tools, joined. */
  tool: string;
  cause: 'raise' | 'timeout' | 'bad_return' | 'removed';
  failed: boolean;
  /** The core's sentence for the call's failure, when the hook failed it. */
  message?: string;
  /** The deadline it ran past (cause `timeout`), in ms. */
  timeoutMs?: number;
}

/** The approver's failure (`ask_failed`). */
export interface ApproverNote {
  kind: 'approver';
  tool: string;
  cause: string;
  /** The core's sentence the agent read. */
  message: string;
  /** The decision that asked, in the core's words. */
  explanation?: string;
  timeoutMs?: number;
}

/** A function predicate that threw, timed out or answered a non-boolean. */
export interface PredicateNote {
  kind: 'predicate';
  tool: string;
  how: 'raise' | 'timeout' | 'not_boolean';
  /** The function's name, when it has one. */
  name?: string | undefined;
  /** The decision policy then made, in the core's words (it names the rule a failure made apply). */
  explanation?: string;
  timeoutMs?: number;
}

/** A result that failed its own `outputSchema` (or an `outputSchema` that is not JSON Schema). */
export interface OutputNote {
  kind: 'output';
  tool: string;
  reason: string;
  /** The core's sentence. */
  message: string;
}

/** What shaping removed from a result before a model read it. */
export interface ShapeNote {
  kind: 'shape';
  tool: string;
  flags: readonly string[];
  truncated: boolean;
  maxBytes: number;
}

/** A registration that failed: refused by the browser, or a `register()` under `useWebMCP` that rejected. */
export interface RegistrationNote {
  kind: 'registration';
  tool: string;
  code: string;
  message: string;
  /** Where it failed: the browser's runtime, or a component's `useWebMCP`. */
  via: 'browser' | 'useWebMCP';
}

/** One fail-closed event. */
export type Note = HookNote | ApproverNote | PredicateNote | OutputNote | ShapeNote | RegistrationNote;

/** What each event's hooks may return (the hook returns table, docs/behaviour.md). */
const SHAPES: Record<string, string> = {
  before: "nothing, { input }, { action: 'deny', message?, code? } or { action: 'halt', result }",
  after: 'nothing or { output }',
  error: "nothing or { action: 'recover', result }",
  denied: 'nothing',
  toolsListed: 'nothing or a subset of the tools it was given (same names, each once)',
  resourceRead: "nothing or { action: 'deny', message?, code? }",
  promptGet: "nothing, { args } or { action: 'deny', message?, code? }",
  approver: "{ allow: 'once' }, { allow: 'always' }, { deny: reason } or { deny: reason, halt: true }",
};

/** What a shaping flag says was removed. */
const REMOVED: Record<string, string> = {
  bidi: 'bidirectional controls (text that reads differently than it looks)',
  zero_width: 'zero-width characters',
  tag_chars: 'Unicode tag characters (invisible text)',
  variation_selectors: 'variation selectors',
  controls: 'control characters',
  other_invisible: 'invisible format characters',
  media_dropped: 'media a model should not read',
  unsupported_content: 'content blocks MCP does not define',
  oversized: 'parts too large to measure',
};

const written = new WeakMap<Warden, Set<string>>();

/** Writes each note not written before for its client and cause. */
export function report(w: Warden, notes: readonly Note[]): void {
  let seen = written.get(w);
  if (seen === undefined) written.set(w, (seen = new Set()));
  for (const note of notes) {
    for (const [key, text] of lines(note)) {
      if (seen.has(key)) continue;
      seen.add(key);
      console.warn(`webmcp-warden: ${text}`);
    }
  }
}

/** A note's lines: its dedupe key and its sentence. */
function lines(note: Note): [string, string][] {
  switch (note.kind) {
    case 'hook':
      return [[`hook\0${note.event}\0${note.hookId}\0${note.cause}`, hookLine(note)]];
    case 'approver': {
      const asked = note.explanation === undefined ? '' : ` The ask: ${note.explanation}`;
      const what = failure(note.cause, note.timeoutMs);
      const fix = note.cause === 'bad_return' ? `It may return ${SHAPES.approver}.` : note.cause === 'timeout' ? 'Fix: answer within askTimeout, or raise it with configureWebMCP({ askTimeout }).' : 'Fix: make the approver answer instead of throwing (what it threw is never written: catch it there to log it).';
      return [[`approver\0${note.cause}`, `the approver (onAsk) ${what} for tool "${note.tool}", so the ask was denied (ask_failed): the agent read "Denied: ${note.message}".${asked} ${fix}`]];
    }
    case 'predicate': {
      const which = note.name === undefined ? 'a function predicate of the policy' : `the policy's function predicate "${note.name}"`;
      const what = note.how === 'not_boolean' ? 'answered something other than true or false' : failure(note.how, note.timeoutMs);
      const decided = note.explanation === undefined ? '' : ` Policy then decided: ${note.explanation}`;
      const fix = note.how === 'timeout' ? 'answer within hookTimeout' : note.how === 'raise' ? 'catch what it does not mean to throw (what it threw is never written: catch it there to log it)' : 'answer exactly true or false';
      return [[`predicate\0${note.name ?? ''}\0${note.how}\0${note.tool}`, `${which} ${what} for tool "${note.tool}", so it counted as failed: its rule applies in deny and ask, and not in allow.${decided} Fix: make it ${fix}.`]];
    }
    case 'output':
      return [[`output\0${note.tool}\0${note.reason}`, `the result of tool "${note.tool}" failed its outputSchema, so the call failed (${note.reason}): ${note.message}. Fix: return structuredContent that matches the tool's outputSchema, or correct the schema.`]];
    case 'shape': {
      const out: [string, string][] = [];
      for (const flag of note.flags) {
        out.push([`shape\0${note.tool}\0${flag}`, `shaping removed ${REMOVED[flag] ?? flag} from the result of tool "${note.tool}" before a model read it (provenance flag "${flag}"). Fix: return plain visible text; the removal is on purpose (docs: Shaping).`]);
      }
      if (note.truncated) {
        out.push([`shape\0${note.tool}\0truncated`, `the result of tool "${note.tool}" passed maxResultBytesForLlm (${note.maxBytes} bytes), so shaping cut it. Fix: return less, or raise the cap with configureWebMCP({ maxResultBytesForLlm }).`]);
      }
      return out;
    }
    case 'registration': {
      const where = note.via === 'browser' ? "the browser's WebMCP runtime refused it" : 'useWebMCP could not register it';
      return [[`registration\0${note.tool}\0${note.code}`, `tool "${note.tool}" is not registered: ${where} (${note.code}): ${note.message}. Fix: the tool's status is 'error' and its error says why; check its name, description and schemas against the runtime's rules.`]];
    }
  }
}

/** What a failure was, in words. */
function failure(cause: string, timeoutMs: number | undefined): string {
  if (cause === 'raise') return 'threw';
  if (cause === 'timeout') return `ran past its deadline${timeoutMs === undefined ? '' : ` (${timeoutMs} ms)`}`;
  if (cause === 'removed') return 'was removed while the call waited for it';
  return 'returned a value outside its contract';
}

function hookLine(note: HookNote): string {
  const who = `${note.event} hook "${note.hookId}"`;
  const consequence = !note.failed
    ? 'the hook was skipped'
    : note.event === 'after'
      ? 'the result was withheld'
      : note.event === 'toolsListed'
        ? 'the listing failed'
        : 'the call failed closed';
  const said = note.failed && note.message !== undefined ? ` (the agent read "Error: ${note.message}")` : '';
  const head = `${who} (${note.event === 'toolsListed' ? 'tools' : 'tool'} "${note.tool}") ${failure(note.cause, note.timeoutMs)}, so ${consequence}${said}.`;
  switch (note.cause) {
    case 'bad_return':
      return `${head} It may return ${SHAPES[note.event] ?? 'nothing'}. See the hook returns section of the webmcp-warden docs.`;
    case 'timeout':
      return `${head} Fix: make it answer within its deadline, or give it a longer one ({ run, timeout } or configureWebMCP({ hookTimeout })).`;
    case 'removed':
      return `${head} Fix: change hooks between calls, or keep the set that holds this hook while its calls run.`;
    default:
      return `${head} Fix: catch what the hook does not mean to fail the call with. What it threw is never written (it may quote arguments); an error hook gets it as ctx.error, to log it yourself.`;
  }
}
