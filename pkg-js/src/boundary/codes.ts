// Generated from the Rust definitions by `tests/wire_codes.rs` (`UPDATE_CODES=1 cargo test --test
// wire_codes`); a test fails when this file and the Rust side differ. Do not edit by hand.

/** What the TS layer reports after performing a step (`call::StepReport`). */
export const StepReport = {
  Start: 0,
  Returned: 1,
  Raised: 2,
  TimedOut: 3,
  Aborted: 4,
  ToolReturned: 5,
  ToolThrew: 6,
  Valid: 7,
  Invalid: 8,
  InvalidSchema: 9,
  PredicateTrue: 10,
  PredicateFalse: 11,
  PredicateFailed: 12,
  Limited: 13,
} as const;

/** What the core asks for next (`call::Op`), bits 0–3 of an action. */
export const Op = {
  CallHook: 1,
  RunTool: 2,
  FinishOk: 3,
  FinishError: 4,
  ValidateInput: 5,
  EvaluatePolicy: 6,
  Predicate: 7,
  Approve: 8,
  ValidateOutput: 9,
  Limits: 10,
} as const;

/** The call's abort signal as reported with each step (`call::Signal`). */
export const Signal = {
  Live: 0,
  Aborted: 1,
  TimedOut: 2,
} as const;

/** How the last hook step was judged (`call::Verdict`), bits 6–8 of an action. */
export const Verdict = {
  None: 0,
  Cont: 1,
  Rewrite: 2,
  Deny: 3,
  Halt: 4,
  Recover: 5,
  Failed: 6,
} as const;

/** The other parts of a packed action (`call::Action::encode`). */
export const ActionBits = {
  OpMask: 15,
  Accepted: 16,
  FailedNow: 32,
  VerdictShift: 6,
  Decided: 512,
  HandleShift: 10,
  MaxHandle: 4194303,
  EndedQuietly: 1,
  LimitsFirst: 1,
} as const;

/** Bounds the core sets on what the TS layer accepts (`hooks::MAX_TIMER_MS`: the longest delay a timer holds). */
export const Bounds = {
  MaxTimerMs: 2147483647,
} as const;

/** What the TS layer says about a call when it starts (`engine::CallFlags`). */
export const CallFlags = {
  JsonInput: 1,
  StandardInput: 2,
  OutputSchema: 4,
  Approver: 8,
  Observed: 16,
  Capture: 32,
  Explain: 64,
  Limits: 128,
} as const;

/** The facts of a returned value (`returns::bits` and its enums). */
export const Facts = {
  KindUndefined: 0,
  KindNull: 1,
  KindPrimitive: 2,
  KindArray: 3,
  KindObject: 4,
  InputDefined: 8,
  InputOwn: 16,
  OutputDefined: 32,
  OutputOwn: 64,
  ResultIn: 128,
  ResultOwn: 256,
  AllowIn: 512,
  ActionShift: 10,
  ActionOwn: 8192,
  MessageShift: 14,
  MessageOwn: 65536,
  CodeShift: 17,
  CodeOwn: 524288,
  OtherOwn: 1048576,
  AllowShift: 21,
  DenyShift: 23,
  HaltShift: 25,
  AllowOwn: 134217728,
  DenyOwn: 268435456,
  HaltOwn: 536870912,
  ArgsDefined: 1073741824,
  ArgsOwn: 2147483648,
  ActionDeny: 1,
  ActionHalt: 2,
  ActionRecover: 3,
  ActionAllow: 4,
  ActionUnknown: 5,
  ActionNotText: 6,
  FieldText: 1,
  FieldOther: 2,
  AllowOnce: 1,
  AllowAlways: 2,
  AllowOther: 3,
  HaltTrue: 1,
  HaltOther: 2,
} as const;

/** What a governed call is about (`hooks::Subject`), as `Configure.DefineSubject` takes it. */
export const Subject = {
  Tool: 0,
  Resource: 1,
  Prompt: 2,
} as const;

/** The configuration steps of the `configure` export (`wire::Request`). */
export const Configure = {
  DefineHookSet: 1,
  AddGlobal: 2,
  DefineSubject: 3,
  DefineStandaloneTool: 4,
  DefineScope: 5,
  PlanError: 6,
  SetPolicy: 7,
  SetApprovedFingerprints: 8,
  SetToolFilter: 9,
  RecordGrant: 10,
  LoadGrants: 11,
  ListGrants: 12,
  RevokeGrants: 13,
  StoredGrants: 14,
  CheckPattern: 15,
  Suspend: 16,
} as const;

/** The steps of the `control` export (`wire::Control`). */
export const Control = {
  EngineDrop: 1,
  DropHookSet: 2,
  DropTool: 3,
  DropScope: 4,
  SetHookReturns: 5,
  SealBaseline: 6,
  RecordBaseline: 7,
  ClearGrants: 8,
  IsVisible: 9,
  SetUnsafePatterns: 10,
  SetRebaseline: 11,
} as const;

/** What the `read` export answers (`wire::Read`). */
export const Read = {
  CallError: 1,
  CallDecision: 2,
  AskFacts: 3,
  EndListing: 4,
  CurrentHookId: 5,
  LastHookId: 6,
  ListingHookId: 7,
} as const;

/** Hook events by their number in the core (`hooks::Event`). */
export const EVENTS = ['before', 'after', 'error', 'denied', 'toolsListed', 'resourceRead', 'promptGet'] as const;
