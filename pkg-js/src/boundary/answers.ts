// Generated from the Rust definitions (`src/answers.rs`) by `tests/wire_codes.rs` (`UPDATE_CODES=1
// cargo test --test wire_codes`); a test fails when this file and the Rust side differ. Do not edit
// by hand: change `src/answers.rs` with the code that builds the answer.
//
// What the core answers, described once. Each answer the core sends back over the wire
// (`wire.ts`'s `decode`) has a descriptor here, a plain object naming its fields, and a type
// derived from it (`AnswerOf`), both under the name of the core export that gives it. The TS
// layer imports the types only (`import type`), so no descriptor reaches a page's bundle;
// `test/boundary-answers.test.mjs` drives the real core and checks every answer against its
// descriptor (an unknown, missing or mistyped field fails), and `test-types/answers.ts` checks
// that each derived type fits the public type it becomes (`CallError`, `Decision`, …).
//
// A leaf: imports nothing, so every module may import its types without a cycle.

/** What one value of an answer is. */
export type Desc =
  | 'string'
  | 'number'
  | 'boolean'
  | 'null'
  | 'unknown'
  /** One of these literals. */
  | { readonly oneOf: readonly (string | boolean)[] }
  | { readonly arrayOf: Desc }
  | { readonly tuple: readonly Desc[] }
  /** One of these shapes. */
  | { readonly anyOf: readonly Desc[] }
  /** An object with exactly these fields (`{ optional: d }`: may be absent). */
  | { readonly object: Fields };

/** The fields of an object descriptor. */
export type Fields = { readonly [key: string]: Desc | { readonly optional: Desc } };

/** The type a descriptor describes. */
export type AnswerOf<D> = D extends 'string'
  ? string
  : D extends 'number'
    ? number
    : D extends 'boolean'
      ? boolean
      : D extends 'null'
        ? null
        : D extends 'unknown'
          ? unknown
          : D extends { readonly oneOf: readonly (infer L)[] }
            ? L
            : D extends { readonly arrayOf: infer I }
              ? AnswerOf<I>[]
              : D extends { readonly tuple: infer T }
                ? { -readonly [K in keyof T]: AnswerOf<T[K]> }
                : D extends { readonly anyOf: readonly (infer U)[] }
                  ? U extends unknown
                    ? AnswerOf<U>
                    : never
                  : D extends { readonly object: infer F }
                    ? ObjectOf<F>
                    : never;

type OptionalKeys<F> = { [K in keyof F]: F[K] extends { readonly optional: unknown } ? K : never }[keyof F];
type ObjectOf<F> = Flat<
  { -readonly [K in Exclude<keyof F, OptionalKeys<F>>]: AnswerOf<F[K]> } & {
    -readonly [K in OptionalKeys<F>]?: F[K] extends { readonly optional: infer O } ? AnswerOf<O> : never;
  }
>;
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The ok branch of an answer that may be a refusal. */
export type Accepted<A> = Exclude<A, Refused>;

// ---- pieces several answers share ------------------------------------------------------------

/** `ConfigError::to_value`. */
const CONFIG_ERROR = { object: { code: 'string', message: 'string', path: { optional: 'string' } } } as const satisfies Desc;

/** How every `configure` step refuses (`engines::answer`). */
export const Refused = { object: { ok: { oneOf: [false] }, error: CONFIG_ERROR } } as const satisfies Desc;
export type Refused = AnswerOf<typeof Refused>;

/** `RuleRef::to_value`: which rule, its id and label when it has them. */
const RULE = {
  object: {
    list: { oneOf: ['deny', 'ask', 'allow', 'limits'] },
    index: 'number',
    id: { optional: 'string' },
    label: { optional: 'string' },
  },
} as const satisfies Desc;

/** `Decision::to_value`, also the top of an explanation. */
const DECISION_FIELDS = {
  effect: { oneOf: ['allow', 'ask', 'deny'] },
  reason: 'string',
  rule: { optional: RULE },
  explanation: 'string',
  pin: { optional: { object: { previous: 'string', current: 'string', changed: { arrayOf: 'string' } } } },
  limit: {
    optional: {
      object: {
        kind: { oneOf: ['calls', 'budget', 'concurrency', 'cost_failed', 'keys'] },
        per: { oneOf: ['principal', 'tool', 'page'] },
        used: 'number',
        max: 'number',
      },
    },
  },
} as const satisfies Fields;

/** A decision (`Decision::to_value`). */
const DECISION = { object: DECISION_FIELDS } as const satisfies Desc;

/** Validation diagnostics as the TS layer sent them. */
const DIAGNOSTICS = { arrayOf: { object: { path: 'string', keyword: 'string', message: 'string' } } } as const satisfies Desc;

/** `CallError::to_value`. */
const CALL_ERROR_FIELDS = {
  kind: { oneOf: ['hook', 'validation', 'denied', 'tool', 'aborted'] },
  reason: 'string',
  message: 'string',
  hookId: { optional: 'string' },
  cause: { optional: { oneOf: ['raise', 'timeout', 'bad_return', 'removed'] } },
  code: { optional: 'string' },
  diagnostics: { optional: DIAGNOSTICS },
} as const satisfies Fields;

/** `Grant::to_value`. */
const GRANT = {
  object: {
    principal: { anyOf: ['string', 'null'] },
    server: 'string',
    tool: 'string',
    fingerprint: 'string',
    expiresAt: 'number',
    grantedAt: 'number',
    scope: { oneOf: ['tool', 'arguments'] },
    argsDigest: { optional: 'string' },
    session: 'boolean',
  },
} as const satisfies Desc;

/**
 * One step of a call's decision record (`Call::note*`). A validation step's paths and messages
 * (which name the caller's keys, or quote values) are left out unless payloads are captured; a
 * schema that is not valid JSON Schema keeps its message.
 */
const RECORD_STEP = {
  anyOf: [
    {
      object: {
        step: { oneOf: ['hook'] },
        event: 'string',
        hookId: 'string',
        outcome: { oneOf: ['cont', 'rewrite', 'deny', 'halt', 'recover', 'raise', 'timeout', 'bad_return', 'removed'] },
        durationMs: 'number',
        skipped: { optional: { oneOf: [true] } },
      },
    },
    {
      object: {
        step: { oneOf: ['validation'] },
        target: { oneOf: ['input', 'output'] },
        ok: 'boolean',
        diagnostics: {
          optional: { arrayOf: { object: { path: { optional: 'string' }, keyword: 'string', message: { optional: 'string' } } } },
        },
      },
    },
    { object: { step: { oneOf: ['policy'] }, decision: DECISION } },
    {
      object: {
        step: { oneOf: ['approval'] },
        outcome: 'string',
        durationMs: 'number',
        scope: { optional: { oneOf: ['arguments'] } },
      },
    },
    {
      object: {
        step: { oneOf: ['tool', 'read', 'get'] },
        outcome: { oneOf: ['returned', 'threw', 'aborted'] },
        durationMs: 'number',
      },
    },
    { object: { step: { oneOf: ['aborted'] } } },
  ],
} as const satisfies Desc;

// ---- the answers, by the core export that gives each ---------------------------------------------
//
// For an engine, call or listing the TS layer does not hold, `read` and `end` answer `null` (the test
// checks that too); the answers below are what they say about one it holds.

/** `core.callError`: a call's failure so far, `null` while it has none. */
export const CallErrorAnswer = { anyOf: ['null', { object: CALL_ERROR_FIELDS }] } as const satisfies Desc;
export type CallErrorAnswer = AnswerOf<typeof CallErrorAnswer>;

/** `core.callDecision`: a call's policy decision, `null` before there is one. */
export const CallDecisionAnswer = { anyOf: ['null', DECISION] } as const satisfies Desc;
export type CallDecisionAnswer = AnswerOf<typeof CallDecisionAnswer>;

/** `core.askFacts`: what the approver and predicates are shown of a call. */
export const AskFactsAnswer = {
  object: { serverId: 'string', name: 'string', fingerprint: 'string' },
} as const satisfies Desc;
export type AskFactsAnswer = AnswerOf<typeof AskFactsAnswer>;

/**
 * `core.end` of a call (`Call::outcome`): success, or the failure with the text the agent reads.
 * `decision` when policy decided; `record` when someone listens to telemetry. (A call that
 * succeeded with nothing recorded ends without crossing.)
 */
export const EndAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, decision: { optional: DECISION }, record: { optional: { arrayOf: RECORD_STEP } } } },
    {
      object: {
        ok: { oneOf: [false] },
        error: { object: { ...CALL_ERROR_FIELDS, decision: { optional: DECISION } } },
        text: 'string',
        decision: { optional: DECISION },
        record: { optional: { arrayOf: RECORD_STEP } },
      },
    },
  ],
} as const satisfies Desc;
export type EndAnswer = AnswerOf<typeof EndAnswer>;

/** `core.end` of a dry run (`Call::explanation`): `explain()`'s answer but its `select` step. */
export const EndExplainAnswer = {
  object: {
    ...DECISION_FIELDS,
    steps: {
      arrayOf: {
        anyOf: [
          {
            object: {
              step: { oneOf: ['hooks'] },
              before: { arrayOf: 'string' },
              after: { arrayOf: 'string' },
              error: { arrayOf: 'string' },
              denied: { arrayOf: 'string' },
              note: 'string',
            },
          },
          {
            object: {
              step: { oneOf: ['validation'] },
              ok: 'boolean',
              skipped: { optional: 'string' },
              diagnostics: { optional: DIAGNOSTICS },
            },
          },
          { object: { step: { oneOf: ['policy'] }, decision: DECISION, functionPredicatesNotCalled: { optional: 'number' } } },
          { object: { step: { oneOf: ['approval'] }, wouldAsk: 'boolean', approver: 'boolean' } },
        ],
      },
    },
    fingerprint: { optional: 'string' },
  },
} as const satisfies Desc;
export type EndExplainAnswer = AnswerOf<typeof EndExplainAnswer>;

/** `core.explainUnknown`: the explanation of a tool no agent can see. */
export const ExplainUnknownAnswer = {
  object: {
    effect: { oneOf: ['deny'] },
    reason: { oneOf: ['unknown_tool'] },
    explanation: 'string',
    steps: { tuple: [{ object: { step: { oneOf: ['select'] }, tool: 'string', found: { oneOf: [false] } } }] },
  },
} as const satisfies Desc;
export type ExplainUnknownAnswer = AnswerOf<typeof ExplainUnknownAnswer>;

/** `core.currentHookId`, `core.lastHookId`, `core.listingHookId` (through `read`). */
export const HookIdAnswer = { anyOf: ['string', 'null'] } as const satisfies Desc;
export type HookIdAnswer = AnswerOf<typeof HookIdAnswer>;

/**
 * `core.endListing` (`Listing::outcome`): the indexes of the tools listed, or the hook that failed.
 */
export const EndListingAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, listed: { arrayOf: 'number' } } },
    {
      object: {
        ok: { oneOf: [false] },
        error: {
          object: {
            hookId: 'string',
            cause: { oneOf: ['raise', 'timeout', 'aborted', 'bad_return', 'removed'] },
            message: 'string',
          },
        },
      },
    },
  ],
} as const satisfies Desc;
export type EndListingAnswer = AnswerOf<typeof EndListingAnswer>;

/**
 * The steps that answer only `ok`: `defineStandaloneTool`, `defineScope`, `setPolicy`,
 * `setApprovedFingerprints`, `setToolFilter`.
 */
export const ConfigureAnswer = { anyOf: [{ object: { ok: { oneOf: [true] } } }, Refused] } as const satisfies Desc;
export type ConfigureAnswer = AnswerOf<typeof ConfigureAnswer>;

/** `core.planError`: why a tool's hooks cannot be planned (`ok` when they now can). */
export const PlanErrorAnswer = { anyOf: [{ object: { ok: { oneOf: [true] } } }, Refused] } as const satisfies Desc;
export type PlanErrorAnswer = AnswerOf<typeof PlanErrorAnswer>;

/** `core.defineHookSet`: each hook's `[handle, event, timeout | null]`. */
export const DefineHookSetAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, hooks: { arrayOf: { tuple: ['number', 'number', { anyOf: ['number', 'null'] }] } } } },
    Refused,
  ],
} as const satisfies Desc;
export type DefineHookSetAnswer = AnswerOf<typeof DefineHookSetAnswer>;

/** `core.addGlobal`: the sets it replaced. */
export const AddGlobalAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, replaced: { arrayOf: 'number' } } },
    Refused,
  ],
} as const satisfies Desc;
export type AddGlobalAnswer = AnswerOf<typeof AddGlobalAnswer>;

/** `core.defineTool` and `core.defineSubject`: the definition's fingerprint. */
export const DefineSubjectAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, fingerprint: 'string' } },
    Refused,
  ],
} as const satisfies Desc;
export type DefineSubjectAnswer = AnswerOf<typeof DefineSubjectAnswer>;

/** `core.recordGrant`: the grant an `{ allow: 'always' | 'session' }` made. */
export const RecordGrantAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, grant: GRANT } },
    Refused,
  ],
} as const satisfies Desc;
export type RecordGrantAnswer = AnswerOf<typeof RecordGrantAnswer>;

/** `core.loadGrants`: how many stored grants it read. */
export const LoadGrantsAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, read: 'number' } },
    Refused,
  ],
} as const satisfies Desc;
export type LoadGrantsAnswer = AnswerOf<typeof LoadGrantsAnswer>;

/** `core.listGrants`: the live grants, and how many expired ones it dropped. */
export const ListGrantsAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, grants: { arrayOf: GRANT }, pruned: 'number' } },
    Refused,
  ],
} as const satisfies Desc;
export type ListGrantsAnswer = AnswerOf<typeof ListGrantsAnswer>;

/** `core.revokeGrants`: how many it removed. */
export const RevokeGrantsAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, removed: 'number' } },
    Refused,
  ],
} as const satisfies Desc;
export type RevokeGrantsAnswer = AnswerOf<typeof RevokeGrantsAnswer>;

/** `core.storedGrants`: every grant, as the store keeps them. */
export const StoredGrantsAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, grants: { arrayOf: GRANT } } },
    Refused,
  ],
} as const satisfies Desc;
export type StoredGrantsAnswer = AnswerOf<typeof StoredGrantsAnswer>;

/**
 * `core.checkPattern`: whether a pattern the core compiled before its judgement loaded may run
 * (`unsafe_pattern` when not).
 */
export const CheckPatternAnswer = { anyOf: [{ object: { ok: { oneOf: [true] } } }, Refused] } as const satisfies Desc;
export type CheckPatternAnswer = AnswerOf<typeof CheckPatternAnswer>;

/** The lint module's `lintPolicy`: `lintPolicy()`'s diagnostics. */
export const LintPolicyAnswer = {
  anyOf: [
    {
      object: {
        ok: { oneOf: [true] },
        diagnostics: { arrayOf: { object: { code: 'string', message: 'string', path: 'string' } } },
      },
    },
    Refused,
  ],
} as const satisfies Desc;
export type LintPolicyAnswer = AnswerOf<typeof LintPolicyAnswer>;

/**
 * `core.resolveUri`: a read's canonical URI, the resource serving it (an index into those given,
 * `null` for none) and its template's variables.
 */
export const ResolveUriAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, uri: 'string', index: { anyOf: ['number', 'null'] }, params: 'unknown' } },
    Refused,
  ],
} as const satisfies Desc;
export type ResolveUriAnswer = AnswerOf<typeof ResolveUriAnswer>;

/** `core.uriTemplate`: an instance of a resource's URI template, each variable `x`. */
export const UriTemplateAnswer = {
  anyOf: [
    { object: { ok: { oneOf: [true] }, sample: 'string' } },
    Refused,
  ],
} as const satisfies Desc;
export type UriTemplateAnswer = AnswerOf<typeof UriTemplateAnswer>;

/**
 * `core.shapeResult`: the shaped result (blocks keep only their defined fields) and its provenance.
 */
export const ShapeResultAnswer = {
  object: {
    content: {
      arrayOf: {
        anyOf: [
          { object: { type: { oneOf: ['text'] }, text: 'string' } },
          { object: { type: { oneOf: ['image', 'audio'] }, data: 'string', mimeType: 'string' } },
          {
            object: {
              type: { oneOf: ['resource'] },
              resource: { object: { uri: 'string', mimeType: { optional: 'string' }, text: 'string' } },
            },
          },
          {
            object: {
              type: { oneOf: ['resource'] },
              resource: { object: { uri: 'string', mimeType: 'string', blob: 'string' } },
            },
          },
        ],
      },
    },
    structuredContent: { optional: 'unknown' },
    isError: { optional: 'boolean' },
    provenance: { object: { serverId: 'string', truncated: 'boolean', flags: { arrayOf: 'string' } } },
  },
} as const satisfies Desc;
export type ShapeResultAnswer = AnswerOf<typeof ShapeResultAnswer>;
