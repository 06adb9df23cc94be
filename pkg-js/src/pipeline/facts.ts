// Reading the facts of what a hook or the approver returned: its kind, which keys it holds and
// the types of their values, packed as the core expects (`src/returns.rs`). Nothing is judged
// here: the core decides what the facts mean for the event. Reading is part of performing the
// step: a getter, proxy trap or `then` getter that throws makes the step a raise.
import { Facts } from '../boundary/codes.js';

function textField(value: unknown): number {
  if (value === undefined) return 0;
  return typeof value === 'string' ? Facts.FieldText : Facts.FieldOther;
}

/** What a returned value holds: its facts, and each value the core may accept, read once. */
export interface Returned {
  /** The packed facts. */
  facts: number;
  /** `value.input`. */
  input?: unknown;
  /** `value.output`. */
  output?: unknown;
  /** `value.result`. */
  result?: unknown;
  /** `value.args` (a `promptGet` hook's rewrite). */
  args?: unknown;
  /** `value.message`, when a string. */
  message?: string;
  /** `value.code`, when a string. */
  code?: string;
  /** `value.deny`, when a string (the approver's reason). */
  deny?: string;
  /** `value.allow`, when a string (the approver's answer). */
  allow?: string;
  /** Whether `scope` is an own key (read for the approver only; a hook's is an unknown key). */
  scopeOwn?: true;
  /** `value.scope`: a string, or `null` for any other value but `undefined`. */
  scope?: string | null;
}

// What a return with no keys to read comes to: one frozen object each, since most hooks return
// `undefined` and a call should not allocate for that. Made at first use, the page's for every call.
let UNDEFINED_RETURN: Returned | undefined;
let NULL_RETURN: Returned | undefined;
let PRIMITIVE_RETURN: Returned | undefined;
let ARRAY_RETURN: Returned | undefined;

/**
 * Reads what a hook or the approver returned (throws when reading it throws; the caller reports
 * a raise). Each key is read once, so a getter cannot answer one thing to the facts and another
 * to the value that takes effect. Own keys come from `Object.keys`; `'allow' in value` and
 * `'result' in value` see the prototype chain too, as simple-webmcp's checks did. `answer`: the
 * approver's answer, whose `scope` key is read (for a hook it is an unknown key).
 */
export function readReturn(value: unknown, answer = false): Returned {
  if (value === undefined) return (UNDEFINED_RETURN ??= Object.freeze({ facts: Facts.KindUndefined }));
  if (value === null) return (NULL_RETURN ??= Object.freeze({ facts: Facts.KindNull }));
  const type = typeof value;
  if (type !== 'object' && type !== 'function') return (PRIMITIVE_RETURN ??= Object.freeze({ facts: Facts.KindPrimitive }));
  if (Array.isArray(value)) return (ARRAY_RETURN ??= Object.freeze({ facts: Facts.KindArray }));
  const v = value as Record<string, unknown>;
  const out: Returned = { facts: 0 };
  let facts: number = Facts.KindObject;
  for (const key of Object.keys(v)) {
    switch (key) {
      case 'input':
        facts |= Facts.InputOwn;
        break;
      case 'output':
        facts |= Facts.OutputOwn;
        break;
      case 'args':
        facts |= Facts.ArgsOwn;
        break;
      case 'result':
        facts |= Facts.ResultOwn;
        break;
      case 'action':
        facts |= Facts.ActionOwn;
        break;
      case 'message':
        facts |= Facts.MessageOwn;
        break;
      case 'code':
        facts |= Facts.CodeOwn;
        break;
      case 'allow':
        facts |= Facts.AllowOwn;
        break;
      case 'deny':
        facts |= Facts.DenyOwn;
        break;
      case 'halt':
        facts |= Facts.HaltOwn;
        break;
      case 'scope':
        if (answer) {
          const scope = v.scope;
          out.scopeOwn = true;
          if (scope !== undefined) out.scope = typeof scope === 'string' ? scope : null;
          break;
        }
        facts |= Facts.OtherOwn;
        break;
      default:
        // Every key a hook or the approver may return has its case above.
        facts |= Facts.OtherOwn;
    }
  }
  const input = v.input;
  const output = v.output;
  if (input !== undefined) facts |= Facts.InputDefined;
  if (output !== undefined) facts |= Facts.OutputDefined;
  out.input = input;
  out.output = output;
  const args = v.args;
  if (args !== undefined) facts |= Facts.ArgsDefined;
  out.args = args;
  if ('result' in v) {
    facts |= Facts.ResultIn;
    out.result = v.result;
  }
  const allow = v.allow;
  if ('allow' in v) facts |= Facts.AllowIn;
  const action = v.action;
  if (action !== undefined) {
    const code =
      typeof action !== 'string'
        ? Facts.ActionNotText
        : action === 'deny'
          ? Facts.ActionDeny
          : action === 'halt'
            ? Facts.ActionHalt
            : action === 'recover'
              ? Facts.ActionRecover
              : action === 'allow'
                ? Facts.ActionAllow
                : Facts.ActionUnknown;
    facts |= code << Facts.ActionShift;
  }
  const message = v.message;
  const code = v.code;
  const deny = v.deny;
  facts |= textField(message) << Facts.MessageShift;
  facts |= textField(code) << Facts.CodeShift;
  facts |= textField(deny) << Facts.DenyShift;
  if (typeof message === 'string') out.message = message;
  if (typeof code === 'string') out.code = code;
  if (typeof deny === 'string') out.deny = deny;
  if (allow !== undefined) facts |= (allow === 'once' ? Facts.AllowOnce : allow === 'always' ? Facts.AllowAlways : Facts.AllowOther) << Facts.AllowShift;
  if (answer && typeof allow === 'string') out.allow = allow;
  const halt = v.halt;
  if (halt !== undefined) facts |= (halt === true ? Facts.HaltTrue : Facts.HaltOther) << Facts.HaltShift;
  out.facts = facts >>> 0;
  return out;
}
