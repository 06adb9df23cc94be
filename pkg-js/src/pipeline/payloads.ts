// Payloads in telemetry (`capturePayloads`, and an OpenTelemetry instrumentation that captures),
// a chunk of its own that `call.ts` loads only when a call records them:
// the arguments a tool received and the result the caller received, as JSON text, after the
// page's `redact(value, where)`, and never longer than a cap. A payload is an agent's data at
// whatever size the agent chose: a refused 10 MB argument once became a 10 MB span attribute.
// Every walk here stops at its limit, so recording costs what the cap allows, not what the
// agent sent.
import type { PayloadWhere, Redactor } from '../types/internal.js';

/** The longest payload recorded, in characters of JSON text; a longer one is replaced by a notice. */
export const PAYLOAD_CAP = 16_384;

/** The most JSON text a redactor is handed a copy of (the default `maxArgumentBytes`); more is a notice. */
export const REDACT_LIMIT = 1_048_576;

export type { PayloadWhere, Redactor };

/** A payload as recorded: its JSON text, or a notice saying why it was left out. */
export type Recorded = { json: string } | { notice: string };

/** What a payload is made from: JSON text already written (the arguments the call judged), or a value. */
export type PayloadSource = { json: string } | { value: unknown } | { notice: string };

/** `value` as JSON text of at most `limit` characters; `over` when longer, `none` when JSON cannot say it. */
export function boundedJson(value: unknown, limit: number): string | 'over' | 'none' {
  let left = limit;
  let over = false;
  let text: string | undefined;
  try {
    text = JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
      // A lower bound of what this member adds; the walk stops once it passes the limit, so a
      // huge array or string is refused without being written (JSON.stringify lists an
      // object's keys before the first is read, as `toJson` notes).
      left -= key.length + (typeof item === 'string' ? item.length : 1);
      if (left < 0) {
        over = true;
        throw STOP;
      }
      return item;
    });
  } catch {
    return over ? 'over' : 'none';
  }
  if (text === undefined) return 'none';
  return text.length > limit ? 'over' : text;
}

const STOP = new Error('over the payload limit');

/** The notice a payload left out is recorded as. */
const omitted = (why: string): Recorded => ({ notice: `[payload omitted by webmcp-warden: ${why}]` });
const notices = {
  over: (limit: number) => omitted(`its JSON is longer than ${limit} characters`),
  none: omitted('it has no JSON form'),
  redactor: omitted('redact threw or did not answer synchronously'),
};

/** `source` as JSON text of at most `limit` characters, or the notice saying why not. */
export function recordedText(source: PayloadSource, limit: number): Recorded {
  if ('notice' in source) return source;
  const text = 'json' in source ? (source.json.length > limit ? 'over' : source.json) : boundedJson(source.value, limit);
  return text === 'over' ? notices.over(limit) : text === 'none' ? notices.none : { json: text };
}

/**
 * What to record of one payload: through `redact` when the page gave one (handed a copy made
 * from at most {@link REDACT_LIMIT} characters of JSON), then capped at {@link PAYLOAD_CAP};
 * `undefined` when the redactor answered `undefined` (record nothing).
 */
export function recordPayload(source: PayloadSource, where: PayloadWhere, redact: Redactor | undefined): Recorded | undefined {
  if (redact === undefined) return recordedText(source, PAYLOAD_CAP);
  const whole = recordedText(source, REDACT_LIMIT);
  if ('notice' in whole) return whole;
  let redacted: unknown;
  try {
    redacted = redact(JSON.parse(whole.json), where);
    if (redacted !== null && (typeof redacted === 'object' || typeof redacted === 'function') && typeof (redacted as { then?: unknown }).then === 'function') return notices.redactor;
  } catch {
    // What the redactor threw may quote the payload: not recorded, not logged.
    return notices.redactor;
  }
  if (redacted === undefined) return undefined;
  return recordedText({ value: redacted }, PAYLOAD_CAP);
}

/**
 * The arguments as a payload: the JSON the call judged when there is one, else the value's JSON
 * written now (`atTool`, as the tool starts, so a tool that changes its input does not change
 * the record; bounded: a value over {@link REDACT_LIMIT} is a notice), else the value.
 */
export function argumentsSource(judged: string | undefined, input: unknown, atTool: boolean): PayloadSource {
  if (judged !== undefined) return { json: judged };
  return atTool ? recordedText({ value: input }, REDACT_LIMIT) : { value: input };
}

/**
 * Records a finished call's payloads: into `event` (`arguments`, `result`, as JSON data or a
 * notice string) when the client captures them, through its `redact`; and offered to `trace`
 * (an instrumentation reads them with its own `redact`, if it captures).
 */
export function recordCall(
  event: Record<string, unknown>,
  args: PayloadSource,
  result: unknown,
  capture: boolean,
  redact: Redactor | undefined,
  trace: { payloads?(read: (where: PayloadWhere, redact?: Redactor) => Recorded | undefined): void } | undefined,
): void {
  const read = (where: PayloadWhere, redactor?: Redactor) => recordPayload(where === 'arguments' ? args : { value: result }, where, redactor);
  if (capture) {
    for (const where of ['arguments', 'result'] as const) {
      const recorded = read(where, redact);
      if (recorded !== undefined) event[where] = 'json' in recorded ? JSON.parse(recorded.json) : recorded.notice;
    }
  }
  trace?.payloads?.(read);
}
