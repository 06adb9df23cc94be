//! What a hook's or the approver's return value means: the TS layer reports the facts of the
//! value (its kind, which keys it has, the types of their values), the core judges them.
//!
//! Two contracts for hooks (`docs/behaviour.md`, "Hook returns"):
//!
//! - **lenient** (default, simple-webmcp's meaning): a hook's value is incidental unless it
//!   holds a key the event acts on, so `(ctx) => log.push(x)` (a number) or
//!   `(ctx) => fetch(…)` (a Response) has no effect. Still a bad return, failing closed:
//!   anything that tries to allow, an action the event does not know, a known action with
//!   malformed fields, `input` from a hook other than before, `output` from a hook other than
//!   after.
//! - **strict** (`hookReturns: 'strict'`, ConduitMCP's): exactly the shapes of the returns
//!   table, nothing more; `undefined` and `null` are nothing.
//!
//! The approver's answer is always strict: an approval is never implied.

use crate::hooks::Event;
use crate::value::{Map, Value};

/// The facts of a returned value, packed as the TS layer sends them (`pkg-js/src/pipeline/facts.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReturnFacts(pub u32);

/// What kind of value came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `undefined`.
    Undefined = 0,
    /// `null`.
    Null = 1,
    /// A string, number, boolean, BigInt or symbol.
    Primitive = 2,
    /// An array.
    Array = 3,
    /// Any other object (a function too).
    Object = 4,
}

/// The value of a key that holds a string or something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Absent or `undefined`.
    Absent = 0,
    /// A string.
    Text = 1,
    /// Anything else.
    Other = 2,
}

/// The `action` key of a hook's return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Absent or `undefined`.
    Absent = 0,
    /// `'deny'`.
    Deny = 1,
    /// `'halt'`.
    Halt = 2,
    /// `'recover'`.
    Recover = 3,
    /// `'allow'`: never permitted.
    Allow = 4,
    /// Another string.
    Unknown = 5,
    /// Not a string.
    NotText = 6,
}

/// The `allow` key of the approver's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allow {
    /// Absent or `undefined`.
    Absent = 0,
    /// `'once'`.
    Once = 1,
    /// `'always'`.
    Always = 2,
    /// Anything else.
    Other = 3,
}

/// The `halt` key of the approver's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// Absent or `undefined`.
    Absent = 0,
    /// `true`.
    True = 1,
    /// Anything else.
    Other = 2,
}

/// Bit positions of [`ReturnFacts`]. The TS layer writes the same layout; a test pins both.
pub mod bits {
    /// Bits 0–2: [`super::Kind`].
    pub const KIND: u32 = 0;
    /// `value.input !== undefined`.
    pub const INPUT_DEFINED: u32 = 1 << 3;
    /// `input` is an own key (even if `undefined`).
    pub const INPUT_OWN: u32 = 1 << 4;
    /// `value.output !== undefined`.
    pub const OUTPUT_DEFINED: u32 = 1 << 5;
    /// `output` is an own key.
    pub const OUTPUT_OWN: u32 = 1 << 6;
    /// `'result' in value`.
    pub const RESULT_IN: u32 = 1 << 7;
    /// `result` is an own key.
    pub const RESULT_OWN: u32 = 1 << 8;
    /// `'allow' in value`.
    pub const ALLOW_IN: u32 = 1 << 9;
    /// Bits 10–12: [`super::Action`].
    pub const ACTION: u32 = 10;
    /// `action` is an own key.
    pub const ACTION_OWN: u32 = 1 << 13;
    /// Bits 14–15: `message` as a [`super::Field`].
    pub const MESSAGE: u32 = 14;
    /// `message` is an own key.
    pub const MESSAGE_OWN: u32 = 1 << 16;
    /// Bits 17–18: `code` as a [`super::Field`].
    pub const CODE: u32 = 17;
    /// `code` is an own key.
    pub const CODE_OWN: u32 = 1 << 19;
    /// An own key outside the ones the reader knows (hooks: input, output, result, args,
    /// allow, action, message, code; the approver: allow, deny, halt).
    pub const OTHER_OWN: u32 = 1 << 20;
    /// Bits 21–22: the approver's `allow` as a [`super::Allow`].
    pub const ALLOW: u32 = 21;
    /// Bits 23–24: the approver's `deny` as a [`super::Field`].
    pub const DENY: u32 = 23;
    /// Bits 25–26: the approver's `halt` as a [`super::Halt`].
    pub const HALT: u32 = 25;
    /// `allow` is an own key.
    pub const ALLOW_OWN: u32 = 1 << 27;
    /// `deny` is an own key.
    pub const DENY_OWN: u32 = 1 << 28;
    /// `halt` is an own key.
    pub const HALT_OWN: u32 = 1 << 29;
    /// `value.args !== undefined` (a `promptGet` hook's rewrite).
    pub const ARGS_DEFINED: u32 = 1 << 30;
    /// `args` is an own key.
    pub const ARGS_OWN: u32 = 1 << 31;
}

impl ReturnFacts {
    fn has(self, bit: u32) -> bool {
        self.0 & bit != 0
    }

    fn field(self, shift: u32) -> u32 {
        (self.0 >> shift) & 3
    }

    /// The kind of value.
    pub fn kind(self) -> Kind {
        match self.0 & 7 {
            0 => Kind::Undefined,
            1 => Kind::Null,
            2 => Kind::Primitive,
            3 => Kind::Array,
            _ => Kind::Object,
        }
    }

    /// The `action` key.
    pub fn action(self) -> Action {
        match (self.0 >> bits::ACTION) & 7 {
            0 => Action::Absent,
            1 => Action::Deny,
            2 => Action::Halt,
            3 => Action::Recover,
            4 => Action::Allow,
            5 => Action::Unknown,
            _ => Action::NotText,
        }
    }

    fn text_field(self, shift: u32) -> Field {
        match self.field(shift) {
            0 => Field::Absent,
            1 => Field::Text,
            _ => Field::Other,
        }
    }

    /// The `message` key.
    pub fn message(self) -> Field {
        self.text_field(bits::MESSAGE)
    }

    /// The `code` key.
    pub fn code(self) -> Field {
        self.text_field(bits::CODE)
    }

    /// The approver's `allow`.
    pub fn allow(self) -> Allow {
        match self.field(bits::ALLOW) {
            0 => Allow::Absent,
            1 => Allow::Once,
            2 => Allow::Always,
            _ => Allow::Other,
        }
    }

    /// The approver's `deny`.
    pub fn deny(self) -> Field {
        self.text_field(bits::DENY)
    }

    /// The approver's `halt`.
    pub fn halt(self) -> Halt {
        match self.field(bits::HALT) {
            0 => Halt::Absent,
            1 => Halt::True,
            _ => Halt::Other,
        }
    }

    /// The facts of a value given as data (tests, fuzzing, and the reference for the TS reader):
    /// own keys only, since data has no prototype chain.
    pub fn of(value: &Value) -> ReturnFacts {
        let kind = match value {
            Value::Unsupported(kind) if kind == "undefined" => Kind::Undefined,
            Value::Null => Kind::Null,
            Value::Array(_) => Kind::Array,
            Value::Object(_) | Value::Function(_) | Value::Regex { .. } => Kind::Object,
            _ => Kind::Primitive,
        };
        let mut out = kind as u32;
        let Value::Object(map) = value else { return ReturnFacts(out) };
        let defined = |key: &str| map.get(key).is_some_and(|v| !matches!(v, Value::Unsupported(k) if k == "undefined"));
        let text = |key: &str| match map.get(key) {
            None => Field::Absent as u32,
            Some(Value::Unsupported(k)) if k == "undefined" => Field::Absent as u32,
            Some(Value::String(_)) => Field::Text as u32,
            Some(_) => Field::Other as u32,
        };
        let own = |key: &str, bit: u32| if map.contains_key(key) { bit } else { 0 };
        if defined("input") {
            out |= bits::INPUT_DEFINED;
        }
        if defined("output") {
            out |= bits::OUTPUT_DEFINED;
        }
        if defined("args") {
            out |= bits::ARGS_DEFINED;
        }
        out |= own("args", bits::ARGS_OWN);
        out |= own("input", bits::INPUT_OWN) | own("output", bits::OUTPUT_OWN) | own("result", bits::RESULT_OWN | bits::RESULT_IN);
        out |= own("allow", bits::ALLOW_IN | bits::ALLOW_OWN) | own("action", bits::ACTION_OWN);
        out |= own("message", bits::MESSAGE_OWN) | own("code", bits::CODE_OWN) | own("deny", bits::DENY_OWN) | own("halt", bits::HALT_OWN);
        let action = match map.get("action") {
            None => Action::Absent,
            Some(Value::Unsupported(k)) if k == "undefined" => Action::Absent,
            Some(Value::String(text)) => match text.as_str() {
                "deny" => Action::Deny,
                "halt" => Action::Halt,
                "recover" => Action::Recover,
                "allow" => Action::Allow,
                _ => Action::Unknown,
            },
            Some(_) => Action::NotText,
        };
        out |= (action as u32) << bits::ACTION;
        out |= text("message") << bits::MESSAGE | text("code") << bits::CODE | text("deny") << bits::DENY;
        let allow = match map.get("allow") {
            None => Allow::Absent,
            Some(Value::String(text)) if text == "once" => Allow::Once,
            Some(Value::String(text)) if text == "always" => Allow::Always,
            Some(Value::Unsupported(k)) if k == "undefined" => Allow::Absent,
            Some(_) => Allow::Other,
        };
        out |= (allow as u32) << bits::ALLOW;
        let halt = match map.get("halt") {
            None => Halt::Absent,
            Some(Value::Bool(true)) => Halt::True,
            Some(Value::Unsupported(k)) if k == "undefined" => Halt::Absent,
            Some(_) => Halt::Other,
        };
        out |= (halt as u32) << bits::HALT;
        let known = ["input", "output", "result", "args", "allow", "action", "message", "code", "deny", "halt"];
        if map.unknown_key(&known).is_some() {
            out |= bits::OTHER_OWN;
        }
        ReturnFacts(out)
    }

    /// The facts and payload of an approver's answer given as data (tests, fuzzing, and the
    /// reference for the TS reader): [`ReturnFacts::of`], except that an own `scope` key is
    /// no unknown key but goes to the payload, with `allow`, `deny` and `code` as given.
    pub fn of_answer(value: &Value) -> (ReturnFacts, Value) {
        let Value::Object(map) = value else { return (ReturnFacts::of(value), Value::Null) };
        let mut rest = map.clone();
        let scope = rest.remove("scope");
        let mut payload = Map::new();
        for key in ["allow", "deny", "code"] {
            if let Some(given) = map.get(key) {
                payload.insert(key, given.clone());
            }
        }
        payload.insert_some("scope", scope);
        (ReturnFacts::of(&Value::Object(rest)), Value::Object(payload))
    }
}

/// What a hook's return means for its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// No effect.
    Nothing,
    /// `{ input }` (before), `{ output }` (after) or `{ args }` (promptGet): the value takes effect.
    Rewrite,
    /// `{ action: 'deny', message?, code? }` (before, resourceRead, promptGet).
    Deny,
    /// `{ action: 'halt', result }` (before).
    Halt,
    /// `{ action: 'recover', result }` (error).
    Recover,
    /// Outside the contract: the hook failed (cause `bad_return`).
    Bad,
}

/// Which contract hook returns follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Contract {
    /// simple-webmcp's: judge what a hook means, not what it happens to return.
    #[default]
    Lenient,
    /// ConduitMCP's: exactly the returns table.
    Strict,
}

/// Judges a hook's return for `event` (not `toolsListed`, whose list is judged by the listing).
pub fn judge_hook(event: Event, contract: Contract, facts: ReturnFacts) -> Judged {
    match contract {
        Contract::Lenient => judge_lenient(event, facts),
        Contract::Strict => judge_strict(event, facts),
    }
}

fn judge_lenient(event: Event, facts: ReturnFacts) -> Judged {
    if facts.kind() != Kind::Object {
        return Judged::Nothing;
    }
    // No hook can allow: policy alone allows.
    if facts.has(bits::ALLOW_IN) || facts.action() == Action::Allow {
        return Judged::Bad;
    }
    // A key of another event is a mistake worth failing for: the hook meant an effect it
    // cannot have here.
    if facts.has(bits::INPUT_DEFINED) && event != Event::Before {
        return Judged::Bad;
    }
    if facts.has(bits::OUTPUT_DEFINED) && event != Event::After {
        return Judged::Bad;
    }
    if facts.has(bits::ARGS_DEFINED) && event != Event::PromptGet {
        return Judged::Bad;
    }
    let fields_ok = facts.message() != Field::Other && facts.code() != Field::Other;
    match (event, facts.action()) {
        (_, Action::Absent) => {}
        (Event::Before | Event::ResourceRead | Event::PromptGet, Action::Deny) => return if fields_ok { Judged::Deny } else { Judged::Bad },
        (Event::Before, Action::Halt) => return if facts.has(bits::RESULT_IN) { Judged::Halt } else { Judged::Bad },
        (Event::Error, Action::Recover) => return if facts.has(bits::RESULT_IN) { Judged::Recover } else { Judged::Bad },
        _ => return Judged::Bad,
    }
    match event {
        Event::Before if facts.has(bits::INPUT_DEFINED) => Judged::Rewrite,
        Event::After if facts.has(bits::OUTPUT_DEFINED) => Judged::Rewrite,
        Event::PromptGet if facts.has(bits::ARGS_DEFINED) => Judged::Rewrite,
        _ => Judged::Nothing,
    }
}

fn judge_strict(event: Event, facts: ReturnFacts) -> Judged {
    match facts.kind() {
        Kind::Undefined | Kind::Null => return Judged::Nothing,
        Kind::Primitive | Kind::Array => return Judged::Bad,
        Kind::Object => {}
    }
    if facts.has(bits::ALLOW_IN) || facts.action() == Action::Allow {
        return Judged::Bad;
    }
    let own = facts.0
        & (bits::INPUT_OWN | bits::OUTPUT_OWN | bits::ARGS_OWN | bits::RESULT_OWN | bits::ACTION_OWN | bits::MESSAGE_OWN | bits::CODE_OWN | bits::OTHER_OWN);
    let only = |keys: u32| own == keys;
    let shape = if only(bits::INPUT_OWN) || only(bits::OUTPUT_OWN) || only(bits::ARGS_OWN) {
        Judged::Rewrite
    } else if facts.action() == Action::Deny && own & !(bits::ACTION_OWN | bits::MESSAGE_OWN | bits::CODE_OWN) == 0 {
        if facts.message() != Field::Other && facts.code() != Field::Other {
            Judged::Deny
        } else {
            Judged::Bad
        }
    } else if only(bits::ACTION_OWN | bits::RESULT_OWN) && facts.action() == Action::Halt {
        Judged::Halt
    } else if only(bits::ACTION_OWN | bits::RESULT_OWN) && facts.action() == Action::Recover {
        Judged::Recover
    } else {
        Judged::Bad
    };
    let allowed = match shape {
        Judged::Rewrite if only(bits::INPUT_OWN) => event == Event::Before,
        Judged::Rewrite if only(bits::ARGS_OWN) => event == Event::PromptGet,
        Judged::Rewrite => event == Event::After,
        Judged::Deny => matches!(event, Event::Before | Event::ResourceRead | Event::PromptGet),
        Judged::Halt => event == Event::Before,
        Judged::Recover => event == Event::Error,
        Judged::Nothing | Judged::Bad => false,
    };
    if allowed {
        shape
    } else {
        Judged::Bad
    }
}

/// What the approver answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// `{ allow: 'once' }`.
    Once,
    /// `{ allow: 'always', scope? }`: records a grant.
    Always,
    /// `{ allow: 'session', scope? }`: records a grant that lasts as long as the client and is
    /// never written to the store.
    Session,
    /// `{ deny: reason, code? }`.
    Deny,
    /// `{ deny: reason, code?, halt: true }`.
    DenyHalt,
    /// Anything else: a deny with `reason: 'ask_failed'`, cause `bad_return`.
    Bad,
}

/// Judges the approver's answer: exactly one of the shapes, own keys only. `payload` holds what
/// the TS layer read of `allow`, `deny`, `code` and `scope` (this one only when the answer has
/// it as an own key, which then is no unknown key in `facts`). Answers the approval and whether
/// a grant it records is for these exact arguments (`scope: 'arguments'`; `'tool'`, the default,
/// covers every argument).
pub fn judge_approval(facts: ReturnFacts, payload: &Value) -> (Approval, bool) {
    if facts.kind() != Kind::Object {
        return (Approval::Bad, false);
    }
    let own = facts.0
        & (bits::ALLOW_OWN | bits::DENY_OWN | bits::HALT_OWN | bits::OTHER_OWN | bits::INPUT_OWN | bits::OUTPUT_OWN | bits::ARGS_OWN | bits::RESULT_OWN | bits::ACTION_OWN | bits::MESSAGE_OWN | bits::CODE_OWN);
    let given = |key: &str| payload.get(key).filter(|value| !matches!(value, Value::Unsupported(kind) if kind == "undefined"));
    let scope = given("scope");
    // `None`: a scope that is neither 'tool' nor 'arguments'.
    let arguments = match scope.map(Value::as_str) {
        None | Some(Some("tool")) => Some(false),
        Some(Some("arguments")) => Some(true),
        Some(_) => None,
    };
    let code = if facts.code() == Field::Text { bits::CODE_OWN } else { 0 };
    let approval = match (facts.allow(), facts.deny(), facts.halt()) {
        (Allow::Once, Field::Absent, Halt::Absent) if own == bits::ALLOW_OWN && scope.is_none() => Approval::Once,
        (Allow::Always, Field::Absent, Halt::Absent) if own == bits::ALLOW_OWN => Approval::Always,
        (Allow::Other, Field::Absent, Halt::Absent) if own == bits::ALLOW_OWN && given("allow").and_then(Value::as_str) == Some("session") => Approval::Session,
        (Allow::Absent, Field::Text, Halt::Absent) if own == bits::DENY_OWN | code && scope.is_none() => Approval::Deny,
        (Allow::Absent, Field::Text, Halt::True) if own == bits::DENY_OWN | bits::HALT_OWN | code && scope.is_none() => Approval::DenyHalt,
        _ => Approval::Bad,
    };
    match (approval, arguments) {
        (Approval::Always | Approval::Session, None) => (Approval::Bad, false),
        (approval, arguments) => (approval, arguments.unwrap_or(false)),
    }
}

/// Whether a `toolsListed` hook's answer is a subset of what it was given: the same names,
/// each at most once. Anything else is a bad return.
pub fn is_listed_subset(given: &[&str], returned: &[Value]) -> bool {
    returned.iter().enumerate().all(|(index, item)| {
        item.as_str().is_some_and(|name| given.contains(&name) && !returned.iter().take(index).any(|earlier| earlier.as_str() == Some(name)))
    })
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::object;

    fn undefined() -> Value {
        Value::Unsupported("undefined".into())
    }

    fn lenient(event: Event, value: Value) -> Judged {
        judge_hook(event, Contract::Lenient, ReturnFacts::of(&value))
    }

    fn strict(event: Event, value: Value) -> Judged {
        judge_hook(event, Contract::Strict, ReturnFacts::of(&value))
    }

    #[test]
    fn incidental_values_have_no_effect_by_default() {
        for value in [undefined(), Value::Null, Value::Number(3.0), Value::from("x"), Value::Array(vec![]), object! {}, object! { "captured" => true }, object! { "input" => undefined() }] {
            assert_eq!(lenient(Event::Before, value.clone()), Judged::Nothing, "{value:?}");
        }
        assert_eq!(lenient(Event::After, object! { "output" => undefined() }), Judged::Nothing);
    }

    #[test]
    fn lenient_still_fails_closed() {
        assert_eq!(lenient(Event::Before, object! { "allow" => true }), Judged::Bad);
        assert_eq!(lenient(Event::Before, object! { "action" => "allow" }), Judged::Bad);
        assert_eq!(lenient(Event::Before, object! { "action" => "recover", "result" => 1.0 }), Judged::Bad);
        assert_eq!(lenient(Event::After, object! { "action" => "halt", "result" => 1.0 }), Judged::Bad);
        assert_eq!(lenient(Event::Before, object! { "action" => "deny", "message" => 5.0 }), Judged::Bad);
        assert_eq!(lenient(Event::Before, object! { "action" => "halt" }), Judged::Bad);
        assert_eq!(lenient(Event::After, object! { "input" => 1.0 }), Judged::Bad);
        assert_eq!(lenient(Event::Before, object! { "output" => 1.0 }), Judged::Bad);
        assert_eq!(lenient(Event::Denied, object! { "output" => 1.0 }), Judged::Bad);
    }

    #[test]
    fn lenient_effects() {
        assert_eq!(lenient(Event::Before, object! { "input" => 1.0 }), Judged::Rewrite);
        assert_eq!(lenient(Event::Before, object! { "input" => 1.0, "note" => "x" }), Judged::Rewrite);
        assert_eq!(lenient(Event::Before, object! { "action" => "deny" }), Judged::Deny);
        assert_eq!(lenient(Event::Before, object! { "action" => "halt", "result" => Value::Null }), Judged::Halt);
        assert_eq!(lenient(Event::Error, object! { "action" => "recover", "result" => 1.0 }), Judged::Recover);
        assert_eq!(lenient(Event::After, object! { "output" => 2.0 }), Judged::Rewrite);
    }

    #[test]
    fn strict_is_the_returns_table() {
        assert_eq!(strict(Event::Before, object! {}), Judged::Bad);
        assert_eq!(strict(Event::Before, Value::Number(1.0)), Judged::Bad);
        assert_eq!(strict(Event::Before, Value::Null), Judged::Nothing);
        assert_eq!(strict(Event::Before, object! { "input" => 1.0, "note" => "x" }), Judged::Bad);
        assert_eq!(strict(Event::Before, object! { "input" => undefined() }), Judged::Rewrite);
        assert_eq!(strict(Event::After, object! { "input" => 1.0 }), Judged::Bad);
        assert_eq!(strict(Event::Before, object! { "action" => "deny", "message" => "m", "code" => "c" }), Judged::Deny);
        assert_eq!(strict(Event::Error, object! { "action" => "recover", "result" => 1.0 }), Judged::Recover);
    }

    #[test]
    fn approvals_are_exact() {
        let judge = |v: Value| {
            let (facts, payload) = ReturnFacts::of_answer(&v);
            judge_approval(facts, &payload).0
        };
        assert_eq!(judge(object! { "allow" => "once" }), Approval::Once);
        assert_eq!(judge(object! { "allow" => "always" }), Approval::Always);
        assert_eq!(judge(object! { "deny" => "no" }), Approval::Deny);
        assert_eq!(judge(object! { "deny" => "no", "halt" => true }), Approval::DenyHalt);
        assert_eq!(judge(object! { "allow" => "once", "note" => 1.0 }), Approval::Bad);
        assert_eq!(judge(object! { "allow" => true }), Approval::Bad);
        assert_eq!(judge(object! { "deny" => 1.0 }), Approval::Bad);
        assert_eq!(judge(Value::from("once")), Approval::Bad);
        assert_eq!(judge(object! {}), Approval::Bad);
        assert_eq!(judge(object! { "allow" => "session" }), Approval::Session);
        assert_eq!(judge(object! { "allow" => "always", "scope" => "arguments" }), Approval::Always);
        assert_eq!(judge(object! { "allow" => "session", "scope" => "tool" }), Approval::Session);
        assert_eq!(judge(object! { "allow" => "always", "scope" => "args" }), Approval::Bad);
        assert_eq!(judge(object! { "allow" => "once", "scope" => "arguments" }), Approval::Bad);
        assert_eq!(judge(object! { "allow" => "forever" }), Approval::Bad);
        assert_eq!(judge(object! { "deny" => "no", "code" => "locked" }), Approval::Deny);
        assert_eq!(judge(object! { "deny" => "no", "code" => 1.0 }), Approval::Bad);
        assert_eq!(judge(object! { "deny" => "no", "scope" => "tool" }), Approval::Bad);
        let arguments = |v: Value| {
            let (facts, payload) = ReturnFacts::of_answer(&v);
            judge_approval(facts, &payload).1
        };
        assert!(arguments(object! { "allow" => "always", "scope" => "arguments" }));
        assert!(!arguments(object! { "allow" => "always" }));
        // A hook's reader sees `scope` as an unknown key: the approver's facts without the payload.
        assert_eq!(judge_approval(ReturnFacts::of(&object! { "allow" => "always", "scope" => "arguments" }), &Value::Null).0, Approval::Bad);
    }

    #[test]
    fn listed_subsets() {
        let given = ["a", "b"];
        assert!(is_listed_subset(&given, &[Value::from("b")]));
        assert!(!is_listed_subset(&given, &[Value::from("c")]));
        assert!(!is_listed_subset(&given, &[Value::from("a"), Value::from("a")]));
        assert!(!is_listed_subset(&given, &[Value::Null]));
    }

    #[test]
    fn resource_and_prompt_gates() {
        for (event, contract) in [(Event::ResourceRead, Contract::Lenient), (Event::PromptGet, Contract::Lenient), (Event::ResourceRead, Contract::Strict), (Event::PromptGet, Contract::Strict)] {
            let judge = |v: Value| judge_hook(event, contract, ReturnFacts::of(&v));
            assert_eq!(judge(undefined()), Judged::Nothing);
            assert_eq!(judge(object! { "action" => "deny", "message" => "no" }), Judged::Deny);
            assert_eq!(judge(object! { "action" => "halt", "result" => 1.0 }), Judged::Bad, "no halt");
            assert_eq!(judge(object! { "input" => 1.0 }), Judged::Bad, "input is a before-hook's");
            assert_eq!(judge(object! { "allow" => true }), Judged::Bad, "no hook can allow");
        }
        assert_eq!(judge_hook(Event::PromptGet, Contract::Lenient, ReturnFacts::of(&object! { "args" => object! { "x" => "y" } })), Judged::Rewrite);
        assert_eq!(judge_hook(Event::PromptGet, Contract::Strict, ReturnFacts::of(&object! { "args" => object! {} })), Judged::Rewrite);
        assert_eq!(judge_hook(Event::PromptGet, Contract::Lenient, ReturnFacts::of(&object! { "args" => undefined() })), Judged::Nothing);
        assert_eq!(judge_hook(Event::PromptGet, Contract::Strict, ReturnFacts::of(&object! { "args" => 1.0, "note" => 1.0 })), Judged::Bad);
        assert_eq!(judge_hook(Event::ResourceRead, Contract::Lenient, ReturnFacts::of(&object! { "args" => 1.0 })), Judged::Bad, "args is promptGet's");
        assert_eq!(judge_hook(Event::Before, Contract::Lenient, ReturnFacts::of(&object! { "args" => 1.0 })), Judged::Bad);
        assert_eq!(judge_hook(Event::ResourceRead, Contract::Lenient, ReturnFacts::of(&Value::Number(3.0))), Judged::Nothing);
        assert_eq!(judge_hook(Event::ResourceRead, Contract::Strict, ReturnFacts::of(&Value::Number(3.0))), Judged::Bad);
        assert_eq!(judge_approval(ReturnFacts::of(&object! { "allow" => "once", "args" => 1.0 }), &Value::Null).0, Approval::Bad);
    }
}
