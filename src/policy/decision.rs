//! The decision as data: effect, reason, deciding rule, explanation, and the helpers that
//! settle an ask without an approver or with a live grant. [`Decision::to_value`] is the shape
//! the JS API shows.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::strs::{cat, decimal_usize};
use crate::value::{Map, Value};

/// What policy says about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// The call goes on to the tool.
    Allow,
    /// A person (the `onAsk` approver) or a live grant must settle it.
    Ask,
    /// The call fails with `kind: 'denied'`.
    Deny,
}

impl Effect {
    /// Every effect.
    pub const ALL: [Effect; 3] = [Effect::Allow, Effect::Ask, Effect::Deny];

    /// The effect's name in the JS API.
    pub fn name(self) -> &'static str {
        match self {
            Effect::Allow => "allow",
            Effect::Ask => "ask",
            Effect::Deny => "deny",
        }
    }
}

/// Why the decision is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// A rule of `deny`, `ask` or `allow` decided.
    Rule,
    /// No rule matched; the policy's `default` decided.
    Default,
    /// No rule matched, the default asks, and there is no approver: denied.
    NoRule,
    /// The tool's definition changed since it was approved; the policy's `pin` decided.
    FingerprintChanged,
    /// The tool was first seen after the baseline; the policy's `allowNewTools` decided.
    NewTool,
    /// An ask was settled by a live grant.
    Grant,
    /// A rule, the pin or a new tool asked, and there is no approver: denied.
    NoApprover,
    /// A limit of the policy's `limits` denied or asked (`decision.limit` says which bound).
    Limit,
}

impl Reason {
    /// The reason's name in the JS API.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Rule => "rule",
            Reason::Default => "default",
            Reason::NoRule => "no_rule",
            Reason::FingerprintChanged => "fingerprint_changed",
            Reason::NewTool => "new_tool",
            Reason::Grant => "grant",
            Reason::NoApprover => "no_approver",
            Reason::Limit => "limit",
        }
    }
}

/// One of the policy's three rule lists, in precedence order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum List {
    /// `deny`: checked first.
    Deny,
    /// `ask`: checked after `deny` and the pin.
    Ask,
    /// `allow`: checked after `ask`.
    Allow,
    /// `limits`: not a rule list; a limit that decided is named `{ list: 'limits', index }`.
    Limits,
}

impl List {
    /// The rule lists in the order they are checked.
    pub const ALL: [List; 3] = [List::Deny, List::Ask, List::Allow];

    /// The list's key in the policy object.
    pub fn name(self) -> &'static str {
        match self {
            List::Deny => "deny",
            List::Ask => "ask",
            List::Allow => "allow",
            List::Limits => "limits",
        }
    }

    /// The effect a matching rule of this list has (a limit's is its `onExceeded`).
    pub fn effect(self) -> Effect {
        match self {
            List::Deny | List::Limits => Effect::Deny,
            List::Ask => Effect::Ask,
            List::Allow => Effect::Allow,
        }
    }
}

/// Which rule decided: `{ list, index, id?, label? }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRef {
    /// The list the rule is in.
    pub list: List,
    /// Its index in that list as given.
    pub index: usize,
    /// The `id` the user gave it, if any.
    pub id: Option<String>,
    /// The `label` the user gave it, if any: what an approval UI shows a person.
    pub label: Option<String>,
}

impl RuleRef {
    /// A reference to rule `index` of `list` with an id and nothing else (tests, dry runs).
    pub fn new(list: List, index: usize, id: Option<String>) -> RuleRef {
        RuleRef { list, index, id, label: None }
    }

    /// `{ list, index, id?, label? }`, as the JS API shows it.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("list", self.list.name().into());
        map.insert("index", self.index.into());
        map.insert_some("id", self.id.as_deref());
        map.insert_some("label", self.label.as_deref());
        Value::Object(map)
    }

    /// The rule's path in the policy, such as `allow[1]`.
    pub fn path(&self) -> String {
        cat![self.list.name(), "[", decimal_usize(self.index), "]"]
    }

    /// How explanations name the rule: `deny[0]`, or `deny[0] ("no-deletes")` when it has an id.
    pub fn label(&self) -> String {
        match &self.id {
            Some(id) => cat![self.path(), " (\"", id, "\")"],
            None => self.path(),
        }
    }
}

/// What changed in a pinned tool's definition: `decision.pin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The approved fingerprint.
    pub previous: String,
    /// The fingerprint of the definition now.
    pub current: String,
    /// The definition fields that differ, such as `["description"]`.
    pub changed: Vec<String>,
}

impl Pin {
    /// `{ previous, current, changed }`.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("previous", self.previous.as_str().into());
        map.insert("current", self.current.as_str().into());
        map.insert("changed", Value::from(self.changed.clone()));
        Value::Object(map)
    }
}

/// A policy decision, as the JS API shows it ([`Decision::to_value`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// `allow`, `ask` or `deny`.
    pub effect: Effect,
    /// Why.
    pub reason: Reason,
    /// The deciding rule, when a rule decided (kept when an ask is settled).
    pub rule: Option<RuleRef>,
    /// One sentence a person or the model can read, naming what decided.
    pub explanation: String,
    /// What changed, when the pin decided.
    pub pin: Option<Pin>,
    /// The deciding rule's `reason` text. Not in the JS shape: there `reason` is the code, and
    /// the text already appears in `explanation` and in [`Decision::denial_text`].
    pub rule_reason: Option<String>,
    /// What a limit found passed, when a limit decided: `decision.limit`, `{ kind, per, used,
    /// max }`.
    pub limit: Option<Value>,
}

/// Why a rule applied although part of it could not be decided (deny and ask fail closed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailedClosed {
    /// A JS function predicate threw, timed out or answered a non-boolean.
    Function,
    /// A `matches` pattern could not test its string (too long, over the call's pattern
    /// budget, or the engine failed).
    Pattern,
    /// An argument was of a type its predicate cannot judge (`min` on a string, `matches` on an
    /// array).
    Type,
}

impl Decision {
    /// `{ effect, reason, rule?, explanation, pin? }`, as the JS API shows it.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("effect", self.effect.name().into());
        map.insert("reason", self.reason.name().into());
        map.insert_some("rule", self.rule.as_ref().map(RuleRef::to_value));
        map.insert("explanation", self.explanation.as_str().into());
        map.insert_some("pin", self.pin.as_ref().map(Pin::to_value));
        map.insert_some("limit", self.limit.clone());
        Value::Object(map)
    }

    /// The decision of a limit a call would pass, from the limits module's answer
    /// (`Hit::to_value`: `{ ask, index, id?, explanation, limit }`): its `onExceeded` decides,
    /// reason `limit`, the rule `{ list: 'limits', index, id? }`. `None` for anything else.
    pub fn by_limit(limit: &Value) -> Option<Decision> {
        let index = usize::try_from(limit.get("index")?.as_u64()?).ok()?;
        let rule = RuleRef { list: List::Limits, index, id: limit.get("id").and_then(Value::as_str).map(ToOwned::to_owned), label: None };
        Some(Decision {
            effect: if limit.get("ask")?.as_bool()? { Effect::Ask } else { Effect::Deny },
            reason: Reason::Limit,
            explanation: limit.get("explanation")?.as_str()?.to_owned(),
            rule: Some(rule),
            pin: None,
            rule_reason: None,
            limit: limit.get("limit").cloned(),
        })
    }

    /// A rule decided. `closed` says part of it could not be decided and was counted as
    /// holding (deny and ask fail closed), which a person reading the log needs to know.
    pub(crate) fn by_rule(
        rule: RuleRef,
        rule_reason: Option<String>,
        closed: Option<FailedClosed>,
    ) -> Decision {
        let verb = match rule.list {
            List::Deny | List::Limits => "Denied",
            List::Ask => "Asked",
            List::Allow => "Allowed",
        };
        let mut explanation = cat![verb, " by ", rule.label()];
        match closed {
            Some(FailedClosed::Function) => {
                explanation.push_str(", failing closed because a function predicate failed");
            }
            Some(FailedClosed::Pattern) => {
                explanation.push_str(", failing closed because a pattern could not test the argument");
            }
            Some(FailedClosed::Type) => {
                explanation.push_str(", failing closed because an argument was not of the type its predicate judges");
            }
            None => {}
        }
        match &rule_reason {
            Some(text) => {
                explanation.push_str(": ");
                explanation.push_str(text);
                end_sentence(&mut explanation);
            }
            None => explanation.push('.'),
        }
        Decision {
            effect: rule.list.effect(),
            reason: Reason::Rule,
            rule: Some(rule),
            explanation,
            pin: None,
            rule_reason,
            limit: None,
        }
    }

    /// No rule matched; the default decides.
    pub(crate) fn by_default(effect: Effect) -> Decision {
        Decision {
            effect,
            reason: Reason::Default,
            rule: None,
            explanation: cat!["No rule matched; the default is ", effect.name(), "."],
            pin: None,
            rule_reason: None,
            limit: None,
        }
    }

    /// The tool's definition changed since it was approved; the pin decides.
    pub(crate) fn by_pin(effect: Effect, tool: &str, pin: Pin) -> Decision {
        let fields = if pin.changed.is_empty() {
            String::new()
        } else {
            cat![" (", crate::strs::join(&pin.changed, ", "), ")"]
        };
        Decision {
            effect,
            reason: Reason::FingerprintChanged,
            rule: None,
            explanation: cat![
                "The definition of \"",
                tool,
                "\" changed",
                fields,
                " since it was approved; pin is ",
                effect.name(),
                "."
            ],
            pin: Some(pin),
            rule_reason: None,
            limit: None,
        }
    }

    /// The tool was first seen after the baseline; `allowNewTools` decides.
    pub(crate) fn new_tool(effect: Effect, tool: &str) -> Decision {
        Decision {
            effect,
            reason: Reason::NewTool,
            rule: None,
            explanation: cat![
                "\"",
                tool,
                "\" is a new tool (first seen after the baseline); allowNewTools is ",
                effect.name(),
                "."
            ],
            pin: None,
            rule_reason: None,
            limit: None,
        }
    }

    /// The text the agent reads when the call is denied: `Denied: <rule's reason or
    /// explanation>`. A deny rule's own `reason` is preferred because its author wrote it for
    /// this reader; every other denial (pin, new tool, no approver, default) uses the
    /// explanation, which says what happened.
    pub fn denial_text(&self) -> String {
        match (&self.rule_reason, self.reason, self.effect) {
            (Some(text), Reason::Rule, Effect::Deny) => cat!["Denied: ", text],
            _ => cat!["Denied: ", self.explanation],
        }
    }

    /// What asked, for the sentences of the settling helpers.
    fn asker(&self) -> String {
        match (&self.rule, self.reason) {
            (Some(rule), _) => rule.label(),
            (None, Reason::FingerprintChanged) => "the pin on the changed definition".to_owned(),
            (None, Reason::NewTool) => "allowNewTools".to_owned(),
            (None, _) => "the default".to_owned(),
        }
    }
}

/// Settles an ask when there is no approver: a deny with reason `no_rule` when the ask
/// came from the default, `no_approver` otherwise. The rule and pin are kept, so the denial
/// still says what asked. Any other decision is returned unchanged.
pub fn settle_without_approver(decision: &Decision) -> Decision {
    if decision.effect != Effect::Ask {
        return decision.clone();
    }
    let reason = match decision.reason {
        Reason::Default => Reason::NoRule,
        Reason::Limit => Reason::Limit,
        _ => Reason::NoApprover,
    };
    // Byte-wise (no UTF-8 byte but `.` itself is 0x2E): `trim_end_matches` links core's reverse
    // UTF-8 decoding.
    let mut explanation = decision.explanation.clone();
    while explanation.as_bytes().last() == Some(&b'.') {
        explanation.pop();
    }
    explanation.push_str("; there is no approver, so the call is denied.");
    Decision {
        effect: Effect::Deny,
        reason,
        explanation,
        ..decision.clone()
    }
}

/// Settles an ask with a live grant: effect `allow`, reason `grant`, keeping the rule
/// that asked so the log still shows it. `scope` is the grant's: `(for these exact arguments,
/// for the session)`. Any other decision is returned unchanged, and so is a limit's ask: a grant
/// never lets a call past a limit.
pub fn settle_with_grant(decision: &Decision, scope: (bool, bool)) -> Decision {
    if decision.effect != Effect::Ask || decision.reason == Reason::Limit {
        return decision.clone();
    }
    let (arguments, session) = scope;
    Decision {
        effect: Effect::Allow,
        reason: Reason::Grant,
        explanation: cat![
            "Allowed by a live grant",
            if arguments { " for these exact arguments" } else { "" },
            if session { " for this session" } else { "" },
            ", which settles the ask from ",
            decision.asker(),
            "."
        ],
        ..decision.clone()
    }
}

/// Ends a sentence taken from user text with a period unless it already ends with punctuation.
fn end_sentence(text: &mut String) {
    // The last byte, not the last `char`: a UTF-8 text ends in one of these ASCII bytes exactly
    // when its last character is that one (`ends_with([..])` links reverse UTF-8 decoding).
    if !matches!(text.as_bytes().last(), Some(b'.' | b'!' | b'?')) {
        text.push('.');
    }
}
