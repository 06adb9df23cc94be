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
import type { ClientState } from '../client/client.js';

/**
 * One fail-closed event, as the pipeline hands it over: tuples, so that their fields cost no
 * bytes in the pipeline chunk (a page downloads it at its first call; this chunk only in debug).
 *
 * - `hook`: event, hook id, what was called (a tool's name; a listing's tools, joined), the
 *   step's outcome (the core's `StepReport`: 2 raised, 3 timed out, else a bad return), the core's
 *   sentence when the hook failed the call (`''` for a listing, which has none; `undefined`
 *   when the call went on without it), its deadline in ms;
 * - `approver`: the tool, the core's cause and sentence, the decision that asked (its
 *   explanation), `askTimeout`;
 * - `predicate`: the tool, how it ended (perform.ts's `Ended`: 1 raised, 2 timed out, else not a
 *   boolean), the function's name, `hookTimeout`, and the decision policy then made;
 * - `output`: the tool and the core's sentence;
 * - `shape`: the tool, the flags, whether it was cut, the cap;
 * - `registration`: the tool, the error's code and message, where it failed.
 */
export type Note =
  | [kind: 'hook', event: string, hookId: string, tool: string, outcome: number, said: string | undefined, timeoutMs: number]
  | [kind: 'approver', tool: string, cause: string, message: string, explanation: string | undefined, timeoutMs: number]
  | [kind: 'predicate', tool: string, ended: number, name: string | undefined, timeoutMs: number, explanation?: string]
  | [kind: 'output', tool: string, message: string]
  | [kind: 'shape', tool: string, flags: readonly string[], truncated: boolean, maxBytes: number]
  | [kind: 'registration', tool: string, code: string, message: string, via: 'browser' | 'useWebMCP'];

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

/** Writes each note not written before for its client and cause (the client keeps their keys: `notesWritten`). */
export function writeNotes(w: ClientState, notes: readonly Note[]): void {
  const seen = (w.notesWritten ??= new Set());
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
  switch (note[0]) {
    case 'hook': {
      const [, event, hookId, tool, outcome, said, timeoutMs] = note;
      const cause = outcome === 2 ? 'raise' : outcome === 3 ? 'timeout' : 'bad_return';
      return [[`hook\0${event}\0${hookId}\0${cause}`, hookLine(event, hookId, tool, cause, said, timeoutMs)]];
    }
    case 'approver': {
      const [, tool, cause, message, explanation, timeoutMs] = note;
      const asked = explanation === undefined ? '' : ` The ask: ${explanation}`;
      const fix = cause === 'bad_return' ? `It may return ${SHAPES.approver}.` : cause === 'timeout' ? 'Fix: answer within askTimeout, or raise it with configureWebMCP({ askTimeout }).' : 'Fix: make the approver answer instead of throwing (what it threw is never written: catch it there to log it).';
      return [[`approver\0${cause}`, `the approver (onAsk) ${failure(cause, timeoutMs)} for tool "${tool}", so the ask was denied (ask_failed): the agent read "Denied: ${message}".${asked} ${fix}`]];
    }
    case 'predicate': {
      const [, tool, ended, name, timeoutMs, explanation] = note;
      const how = ended === 1 ? 'raise' : ended === 2 ? 'timeout' : 'not_boolean';
      const which = name === undefined ? 'a function predicate of the policy' : `the policy's function predicate "${name}"`;
      const what = how === 'not_boolean' ? 'answered something other than true or false' : failure(how, timeoutMs);
      const decided = explanation === undefined ? '' : ` Policy then decided: ${explanation}`;
      const fix = how === 'timeout' ? 'answer within hookTimeout' : how === 'raise' ? 'catch what it does not mean to throw (what it threw is never written: catch it there to log it)' : 'answer exactly true or false';
      return [[`predicate\0${name ?? ''}\0${how}\0${tool}`, `${which} ${what} for tool "${tool}", so it counted as failed: its rule applies in deny and ask, and not in allow.${decided} Fix: make it ${fix}.`]];
    }
    case 'output': {
      const [, tool, message] = note;
      return [[`output\0${tool}`, `the result of tool "${tool}" failed its outputSchema, so the call failed (invalid_structured_content): ${message}. Fix: return structuredContent that matches the tool's outputSchema, or correct the schema.`]];
    }
    case 'shape': {
      const [, tool, flags, truncated, maxBytes] = note;
      const out: [string, string][] = [];
      for (const flag of flags) {
        out.push([`shape\0${tool}\0${flag}`, `shaping removed ${REMOVED[flag] ?? flag} from the result of tool "${tool}" before a model read it (provenance flag "${flag}"). Fix: return plain visible text; the removal is on purpose (docs: Shaping).`]);
      }
      if (truncated) {
        out.push([`shape\0${tool}\0truncated`, `the result of tool "${tool}" passed maxResultBytesForLlm (${maxBytes} bytes), so shaping cut it. Fix: return less, or raise the cap with configureWebMCP({ maxResultBytesForLlm }).`]);
      }
      return out;
    }
    case 'registration': {
      const [, tool, code, message, via] = note;
      const where = via === 'browser' ? "the browser's WebMCP runtime refused it" : 'useWebMCP could not register it';
      return [[`registration\0${tool}\0${code}`, `tool "${tool}" is not registered: ${where} (${code}): ${message}. Fix: the tool's status is 'error' and its error says why; check its name, description and schemas against the runtime's rules.`]];
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

function hookLine(event: string, hookId: string, tool: string, cause: string, said: string | undefined, timeoutMs: number): string {
  const who = `${event} hook "${hookId}"`;
  const consequence = said === undefined
    ? 'the hook was skipped'
    : event === 'after'
      ? 'the result was withheld'
      : event === 'toolsListed'
        ? 'the listing failed'
        : 'the call failed closed';
  const agent = said ? ` (the agent read "Error: ${said}")` : '';
  const head = `${who} (${event === 'toolsListed' ? 'tools' : 'tool'} "${tool}") ${failure(cause, timeoutMs)}, so ${consequence}${agent}.`;
  switch (cause) {
    case 'bad_return':
      return `${head} It may return ${SHAPES[event] ?? 'nothing'}. See the hook returns section of the webmcp-warden docs.`;
    case 'timeout':
      return `${head} Fix: make it answer within its deadline, or give it a longer one ({ run, timeout } or configureWebMCP({ hookTimeout })).`;
    case 'removed':
      return `${head} Fix: change hooks between calls, or keep the set that holds this hook while its calls run.`;
    default:
      return `${head} Fix: catch what the hook does not mean to fail the call with. What it threw is never written (it may quote arguments); an error hook gets it as ctx.error, to log it yourself.`;
  }
}
