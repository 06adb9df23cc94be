//! What the core answers over the wire, described once: each structured answer the boundary
//! sends back (a call's end, a refusal, a grant, a shaped result, …) as a descriptor naming its
//! fields and their types, under the name of the export that gives it.
//!
//! The TS layer's `pkg-js/src/boundary/answers.ts` is written from this table by `tests/wire_codes.rs`
//! (`UPDATE_CODES=1 cargo test --test wire_codes`), which fails when the file differs; the TS
//! types of the answers are derived from it there. `pkg-js/test/boundary-answers.test.mjs` drives
//! the real core and checks every answer strictly against these descriptors (an unknown, missing
//! or mistyped field fails, and every shape and optional field must have been seen), so an answer
//! that changes here without its code, or in its code without here, fails a test.
//!
//! The literals come from the core's own names where it has them ([`Effect`], [`List`]); nothing
//! here is compiled into a wasm module (no boundary code uses it).

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use crate::policy::{Effect, List};

/// What one value of an answer is.
#[derive(Debug, Clone, PartialEq)]
pub enum Desc {
    /// A string.
    Str,
    /// A finite number.
    Num,
    /// `true` or `false`.
    Bool,
    /// `null`.
    Null,
    /// Anything (a value the caller gave, passed through).
    Unknown,
    /// One of these literals.
    OneOf(Vec<Lit>),
    /// An array of these.
    ArrayOf(Box<Desc>),
    /// An array of exactly these, in order.
    Tuple(Vec<Desc>),
    /// One of these shapes.
    AnyOf(Vec<Desc>),
    /// An object with exactly these fields.
    Object(Vec<Part>),
    /// A shared piece of [`pieces`], by name.
    Piece(&'static str),
}

/// A literal of [`Desc::OneOf`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lit {
    /// A string literal.
    Str(&'static str),
    /// `true` or `false`.
    Bool(bool),
}

/// Part of an object: one field, or every field of a shared field list.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A field; `optional`: it may be absent.
    Field {
        /// The key.
        key: &'static str,
        /// Its value.
        desc: Desc,
        /// Whether the field may be absent.
        optional: bool,
    },
    /// The fields of a shared [`Shared::Fields`] piece, by name.
    Spread(&'static str),
}

/// What a named piece is.
#[derive(Debug, Clone, PartialEq)]
pub enum Shared {
    /// A descriptor.
    Desc(Desc),
    /// A list of fields objects spread into themselves.
    Fields(Vec<Part>),
}

/// A named descriptor: a shared piece, or the answer of an export.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    /// Its name in `answers.ts`.
    pub name: &'static str,
    /// What it is, for its doc comment.
    pub doc: &'static str,
    /// The descriptor.
    pub shared: Shared,
}

/// A required field.
pub fn field(key: &'static str, desc: Desc) -> Part {
    Part::Field { key, desc, optional: false }
}

/// A field that may be absent.
pub fn optional(key: &'static str, desc: Desc) -> Part {
    Part::Field { key, desc, optional: true }
}

/// One of these strings.
pub fn one_of(names: &[&'static str]) -> Desc {
    Desc::OneOf(names.iter().map(|name| Lit::Str(name)).collect())
}

/// An array of `item`.
pub fn array_of(item: Desc) -> Desc {
    Desc::ArrayOf(Box::new(item))
}

/// `true` or `false` exactly.
fn literal(value: bool) -> Desc {
    Desc::OneOf(vec![Lit::Bool(value)])
}

/// `desc`, or `null`.
fn or_null(desc: Desc) -> Desc {
    Desc::AnyOf(vec![desc, Desc::Null])
}

/// A `configure` step's answer: `{ ok: true, ...fields }` or the shared refusal.
fn configured(fields: Vec<Part>) -> Desc {
    let mut ok = vec![field("ok", literal(true))];
    ok.extend(fields);
    Desc::AnyOf(vec![Desc::Object(ok), Desc::Piece("Refused")])
}

fn named(name: &'static str, doc: &'static str, desc: Desc) -> Named {
    Named { name, doc, shared: Shared::Desc(desc) }
}

/// How a hook fails (`removed`: its set was dropped while the call was in flight).
const CAUSES: [&str; 4] = ["raise", "timeout", "bad_return", "removed"];

/// The pieces several answers share, each written once in `answers.ts` (before the answers, in
/// this order: each may use the ones before it). `Refused` is exported with a type: it is how
/// every `configure` step refuses.
pub fn pieces() -> Vec<Named> {
    let effects: Vec<&'static str> = Effect::ALL.iter().map(|e| e.name()).collect();
    let lists: Vec<&'static str> = List::ALL.iter().chain([List::Limits].iter()).map(|l| l.name()).collect();
    let hook_outcomes: Vec<&'static str> = ["cont", "rewrite", "deny", "halt", "recover"].into_iter().chain(CAUSES).collect();
    vec![
        named(
            "CONFIG_ERROR",
            "`ConfigError::to_value`.",
            Desc::Object(vec![field("code", Desc::Str), field("message", Desc::Str), optional("path", Desc::Str)]),
        ),
        named(
            "Refused",
            "How every `configure` step refuses (`engines::answer`).",
            Desc::Object(vec![field("ok", literal(false)), field("error", Desc::Piece("CONFIG_ERROR"))]),
        ),
        named(
            "RULE",
            "`RuleRef::to_value`: which rule, its id and label when it has them.",
            Desc::Object(vec![field("list", one_of(&lists)), field("index", Desc::Num), optional("id", Desc::Str), optional("label", Desc::Str)]),
        ),
        Named {
            name: "DECISION_FIELDS",
            doc: "`Decision::to_value`, also the top of an explanation.",
            shared: Shared::Fields(vec![
                field("effect", one_of(&effects)),
                field("reason", Desc::Str),
                optional("rule", Desc::Piece("RULE")),
                field("explanation", Desc::Str),
                optional("pin", Desc::Object(vec![field("previous", Desc::Str), field("current", Desc::Str), field("changed", array_of(Desc::Str))])),
                optional(
                    "limit",
                    Desc::Object(vec![
                        field("kind", one_of(&["calls", "budget", "concurrency", "cost_failed", "keys"])),
                        field("per", one_of(&["principal", "tool", "page"])),
                        field("used", Desc::Num),
                        field("max", Desc::Num),
                    ]),
                ),
            ]),
        },
        named("DECISION", "A decision (`Decision::to_value`).", Desc::Object(vec![Part::Spread("DECISION_FIELDS")])),
        named(
            "DIAGNOSTICS",
            "Validation diagnostics as the TS layer sent them.",
            array_of(Desc::Object(vec![field("path", Desc::Str), field("keyword", Desc::Str), field("message", Desc::Str)])),
        ),
        Named {
            name: "CALL_ERROR_FIELDS",
            doc: "`CallError::to_value`.",
            shared: Shared::Fields(vec![
                field("kind", one_of(&["hook", "validation", "denied", "tool", "aborted"])),
                field("reason", Desc::Str),
                field("message", Desc::Str),
                optional("hookId", Desc::Str),
                optional("cause", one_of(&CAUSES)),
                optional("code", Desc::Str),
                optional("diagnostics", Desc::Piece("DIAGNOSTICS")),
            ]),
        },
        named(
            "GRANT",
            "`Grant::to_value`.",
            Desc::Object(vec![
                field("principal", or_null(Desc::Str)),
                field("server", Desc::Str),
                field("tool", Desc::Str),
                field("fingerprint", Desc::Str),
                field("expiresAt", Desc::Num),
                field("grantedAt", Desc::Num),
                field("scope", one_of(&["tool", "arguments"])),
                optional("argsDigest", Desc::Str),
                field("session", Desc::Bool),
            ]),
        ),
        named(
            "RECORD_STEP",
            "One step of a call's decision record (`Call::note*`). A validation step's paths and messages (which name the caller's keys, or quote values) are left out unless payloads are captured; a schema that is not valid JSON Schema keeps its message.",
            Desc::AnyOf(vec![
                Desc::Object(vec![
                    field("step", one_of(&["hook"])),
                    field("event", Desc::Str),
                    field("hookId", Desc::Str),
                    field("outcome", one_of(&hook_outcomes)),
                    field("durationMs", Desc::Num),
                    optional("skipped", literal(true)),
                ]),
                Desc::Object(vec![
                    field("step", one_of(&["validation"])),
                    field("target", one_of(&["input", "output"])),
                    field("ok", Desc::Bool),
                    optional("diagnostics", array_of(Desc::Object(vec![optional("path", Desc::Str), field("keyword", Desc::Str), optional("message", Desc::Str)]))),
                ]),
                Desc::Object(vec![field("step", one_of(&["policy"])), field("decision", Desc::Piece("DECISION"))]),
                Desc::Object(vec![
                    field("step", one_of(&["approval"])),
                    field("outcome", Desc::Str),
                    field("durationMs", Desc::Num),
                    optional("scope", one_of(&["arguments"])),
                ]),
                Desc::Object(vec![field("step", one_of(&["tool", "read", "get"])), field("outcome", one_of(&["returned", "threw", "aborted"])), field("durationMs", Desc::Num)]),
                Desc::Object(vec![field("step", one_of(&["aborted"]))]),
            ]),
        ),
    ]
}

/// The answers, by the name `answers.ts` exports each under (its descriptor and the type derived
/// from it), in the order they are written: calls, listings, configuration steps, shaping.
///
/// For an engine, call or listing the TS layer does not hold, `read` and `end` answer `null`;
/// these are what they answer about one it holds.
pub fn answers() -> Vec<Named> {
    let record = || optional("record", array_of(Desc::Piece("RECORD_STEP")));
    vec![
        // ---- calls
        named("CallErrorAnswer", "`core.callError`: a call's failure so far, `null` while it has none.", Desc::AnyOf(vec![Desc::Null, Desc::Object(vec![Part::Spread("CALL_ERROR_FIELDS")])])),
        named("CallDecisionAnswer", "`core.callDecision`: a call's policy decision, `null` before there is one.", Desc::AnyOf(vec![Desc::Null, Desc::Piece("DECISION")])),
        named(
            "AskFactsAnswer",
            "`core.askFacts`: what the approver and predicates are shown of a call.",
            Desc::Object(vec![field("serverId", Desc::Str), field("name", Desc::Str), field("fingerprint", Desc::Str)]),
        ),
        named(
            "EndAnswer",
            "`core.end` of a call (`Call::outcome`): success, or the failure with the text the agent reads. `decision` when policy decided; `record` when someone listens to telemetry. (A call that succeeded with nothing recorded ends without crossing.)",
            Desc::AnyOf(vec![
                Desc::Object(vec![field("ok", literal(true)), optional("decision", Desc::Piece("DECISION")), record()]),
                Desc::Object(vec![
                    field("ok", literal(false)),
                    field("error", Desc::Object(vec![Part::Spread("CALL_ERROR_FIELDS"), optional("decision", Desc::Piece("DECISION"))])),
                    field("text", Desc::Str),
                    optional("decision", Desc::Piece("DECISION")),
                    record(),
                ]),
            ]),
        ),
        named(
            "EndExplainAnswer",
            "`core.end` of a dry run (`Call::explanation`): `explain()`'s answer but its `select` step.",
            Desc::Object(vec![
                Part::Spread("DECISION_FIELDS"),
                field(
                    "steps",
                    array_of(Desc::AnyOf(vec![
                        Desc::Object(vec![
                            field("step", one_of(&["hooks"])),
                            field("before", array_of(Desc::Str)),
                            field("after", array_of(Desc::Str)),
                            field("error", array_of(Desc::Str)),
                            field("denied", array_of(Desc::Str)),
                            field("note", Desc::Str),
                        ]),
                        Desc::Object(vec![
                            field("step", one_of(&["validation"])),
                            field("ok", Desc::Bool),
                            optional("skipped", Desc::Str),
                            optional("diagnostics", Desc::Piece("DIAGNOSTICS")),
                        ]),
                        Desc::Object(vec![
                            field("step", one_of(&["policy"])),
                            field("decision", Desc::Piece("DECISION")),
                            optional("functionPredicatesNotCalled", Desc::Num),
                        ]),
                        Desc::Object(vec![field("step", one_of(&["approval"])), field("wouldAsk", Desc::Bool), field("approver", Desc::Bool)]),
                    ])),
                ),
                optional("fingerprint", Desc::Str),
            ]),
        ),
        named(
            "ExplainUnknownAnswer",
            "`core.explainUnknown`: the explanation of a tool no agent can see.",
            Desc::Object(vec![
                field("effect", one_of(&[Effect::Deny.name()])),
                field("reason", one_of(&["unknown_tool"])),
                field("explanation", Desc::Str),
                field("steps", Desc::Tuple(vec![Desc::Object(vec![field("step", one_of(&["select"])), field("tool", Desc::Str), field("found", literal(false))])])),
            ]),
        ),
        named("HookIdAnswer", "`core.currentHookId`, `core.lastHookId`, `core.listingHookId` (through `read`).", or_null(Desc::Str)),
        // ---- listings
        named(
            "EndListingAnswer",
            "`core.endListing` (`Listing::outcome`): the indexes of the tools listed, or the hook that failed.",
            Desc::AnyOf(vec![
                Desc::Object(vec![field("ok", literal(true)), field("listed", array_of(Desc::Num))]),
                Desc::Object(vec![
                    field("ok", literal(false)),
                    field(
                        "error",
                        Desc::Object(vec![field("hookId", Desc::Str), field("cause", one_of(&["raise", "timeout", "aborted", "bad_return", "removed"])), field("message", Desc::Str)]),
                    ),
                ]),
            ]),
        ),
        // ---- configuration steps (`configure`)
        named(
            "ConfigureAnswer",
            "The steps that answer only `ok`: `defineStandaloneTool`, `defineScope`, `setPolicy`, `setApprovedFingerprints`, `setToolFilter`.",
            configured(vec![]),
        ),
        named("PlanErrorAnswer", "`core.planError`: why a tool's hooks cannot be planned (`ok` when they now can).", configured(vec![])),
        named(
            "DefineHookSetAnswer",
            "`core.defineHookSet`: each hook's `[handle, event, timeout | null]`.",
            configured(vec![field("hooks", array_of(Desc::Tuple(vec![Desc::Num, Desc::Num, or_null(Desc::Num)])))]),
        ),
        named("AddGlobalAnswer", "`core.addGlobal`: the sets it replaced.", configured(vec![field("replaced", array_of(Desc::Num))])),
        named("DefineSubjectAnswer", "`core.defineTool` and `core.defineSubject`: the definition's fingerprint.", configured(vec![field("fingerprint", Desc::Str)])),
        named("RecordGrantAnswer", "`core.recordGrant`: the grant an `{ allow: 'always' | 'session' }` made.", configured(vec![field("grant", Desc::Piece("GRANT"))])),
        named("LoadGrantsAnswer", "`core.loadGrants`: how many stored grants it read.", configured(vec![field("read", Desc::Num)])),
        named(
            "ListGrantsAnswer",
            "`core.listGrants`: the live grants, and how many expired ones it dropped.",
            configured(vec![field("grants", array_of(Desc::Piece("GRANT"))), field("pruned", Desc::Num)]),
        ),
        named("RevokeGrantsAnswer", "`core.revokeGrants`: how many it removed.", configured(vec![field("removed", Desc::Num)])),
        named("StoredGrantsAnswer", "`core.storedGrants`: every grant, as the store keeps them.", configured(vec![field("grants", array_of(Desc::Piece("GRANT")))])),
        named(
            "CheckPatternAnswer",
            "`core.checkPattern`: whether a pattern the core compiled before its judgement loaded may run (`unsafe_pattern` when not).",
            configured(vec![]),
        ),
        named(
            "LintPolicyAnswer",
            "The lint module's `lintPolicy`: `lintPolicy()`'s diagnostics.",
            configured(vec![field("diagnostics", array_of(Desc::Object(vec![field("code", Desc::Str), field("message", Desc::Str), field("path", Desc::Str)])))]),
        ),
        named(
            "ResolveUriAnswer",
            "`core.resolveUri`: a read's canonical URI, the resource serving it (an index into those given, `null` for none) and its template's variables.",
            configured(vec![field("uri", Desc::Str), field("index", or_null(Desc::Num)), field("params", Desc::Unknown)]),
        ),
        named("UriTemplateAnswer", "`core.uriTemplate`: an instance of a resource's URI template, each variable `x`.", configured(vec![field("sample", Desc::Str)])),
        // ---- shaping
        named(
            "ShapeResultAnswer",
            "`core.shapeResult`: the shaped result (blocks keep only their defined fields) and its provenance.",
            Desc::Object(vec![
                field(
                    "content",
                    array_of(Desc::AnyOf(vec![
                        Desc::Object(vec![field("type", one_of(&["text"])), field("text", Desc::Str)]),
                        Desc::Object(vec![field("type", one_of(&["image", "audio"])), field("data", Desc::Str), field("mimeType", Desc::Str)]),
                        Desc::Object(vec![
                            field("type", one_of(&["resource"])),
                            field("resource", Desc::Object(vec![field("uri", Desc::Str), optional("mimeType", Desc::Str), field("text", Desc::Str)])),
                        ]),
                        Desc::Object(vec![
                            field("type", one_of(&["resource"])),
                            field("resource", Desc::Object(vec![field("uri", Desc::Str), field("mimeType", Desc::Str), field("blob", Desc::Str)])),
                        ]),
                    ])),
                ),
                optional("structuredContent", Desc::Unknown),
                optional("isError", Desc::Bool),
                field("provenance", Desc::Object(vec![field("serverId", Desc::Str), field("truncated", Desc::Bool), field("flags", array_of(Desc::Str))])),
            ]),
        ),
    ]
}
