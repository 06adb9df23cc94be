// The core's answers (described once in src/answers.ts, checked against the real core by
// test/boundary-answers.test.mjs) fit the public types they become: a field the core adds,
// renames or retypes there that the public type does not say fails here. `Equal` where the two
// must be the same type; `Fits` (assignable) where the public type is wider (it also describes
// what the TS layer adds, such as `explain()`'s `select` step or a failure's `not_found` kind).
import type {
  AnswerOf,
  AskFactsAnswer,
  CallDecisionAnswer,
  CallErrorAnswer,
  DefineHookSetAnswer,
  EndAnswer,
  EndExplainAnswer,
  EndListingAnswer,
  ExplainUnknownAnswer,
  ListGrantsAnswer,
  LintPolicyAnswer,
  RecordGrantAnswer,
  Refused,
  ShapeResultAnswer,
  StoredGrantsAnswer,
} from '../dist/types/boundary/answers.js';
import type { CallError, CallToolResult, Decision, DecisionStep, Explanation, Grant, PolicyCall, PolicyDiagnostic, ShapedResult } from 'webmcp-warden';
import { expect, type Equal } from './assert.js';

/** `true` when every `A` is a `B`. */
type Fits<A, B> = [A] extends [B] ? true : false;
type Ok<A> = Exclude<A, Refused>;
type Failed<A> = Extract<A, { ok: false }>;

// The descriptor language derives the types it says.
expect<Equal<AnswerOf<{ readonly object: { a: 'string'; b: { readonly optional: { readonly arrayOf: 'number' } } } }>, { a: string; b?: number[] }>>();
expect<Equal<AnswerOf<{ readonly anyOf: readonly ['null', { readonly oneOf: readonly ['x', true] }] }>, null | 'x' | true>>();
expect<Equal<AnswerOf<{ readonly tuple: readonly ['number', 'boolean'] }>, [number, boolean]>>();
expect<Equal<Refused, { ok: false; error: { code: string; message: string; path?: string } }>>();

// Calls.
expect<Equal<NonNullable<CallDecisionAnswer>, Decision>>();
expect<Fits<NonNullable<CallErrorAnswer>, CallError>>();
expect<Fits<AskFactsAnswer, Pick<PolicyCall, 'serverId' | 'name' | 'fingerprint'>>>();
expect<Fits<Failed<EndAnswer>['error'], CallError>>();
expect<Equal<NonNullable<Failed<EndAnswer>['error']['decision']>, Decision>>();
expect<Fits<NonNullable<EndAnswer['record']>, DecisionStep[]>>();
expect<Equal<NonNullable<Extract<EndAnswer, { ok: true }>['decision']>, Decision>>();
expect<Equal<NonNullable<Failed<EndAnswer>['decision']>, Decision>>();

// Dry runs.
expect<Fits<EndExplainAnswer, Explanation>>();
expect<Fits<ExplainUnknownAnswer, Explanation>>();

// Configuration, grants and lint.
expect<Equal<Ok<DefineHookSetAnswer>['hooks'], [number, number, number | null][]>>();
expect<Equal<Ok<ListGrantsAnswer>['grants'][number], Grant>>();
expect<Equal<Ok<StoredGrantsAnswer>['grants'][number], Grant>>();
expect<Equal<Ok<RecordGrantAnswer>['grant'], Grant>>();
expect<Equal<Ok<LintPolicyAnswer>['diagnostics'][number], PolicyDiagnostic>>();

// Listings and shaping.
expect<Equal<Extract<EndListingAnswer, { ok: true }>['listed'], number[]>>();
expect<Fits<ShapeResultAnswer, CallToolResult>>();
expect<Fits<ShapeResultAnswer, ShapedResult['result']>>();
