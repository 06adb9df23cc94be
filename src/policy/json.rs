//! JSON helpers for `arg` predicates: RFC 6901 pointers and structural equality.
//!
//! Both walk values without recursion: arguments come from an agent and may nest deeply, and a
//! stack overflow in wasm would kill the page's whole instance.

use serde_json::{Number, Value};

/// A parsed RFC 6901 JSON pointer, such as `/items/0/id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pointer {
    /// The reference tokens, already unescaped (`~1` → `/`, `~0` → `~`).
    tokens: Vec<String>,
}

impl Pointer {
    /// Parses a pointer. `""` is the whole document; anything else starts with `/`.
    ///
    /// # Errors
    /// A sentence saying what is wrong, for the caller's [`ConfigError`](crate::error::ConfigError).
    pub(crate) fn parse(text: &str) -> Result<Pointer, String> {
        if text.is_empty() {
            return Ok(Pointer { tokens: Vec::new() });
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(format!(
                "\"{text}\" is not a JSON pointer: it must start with '/' (did you mean \"/{text}\"?)"
            ));
        };
        rest.split('/')
            .map(|token| unescape(token, text))
            .collect::<Result<_, _>>()
            .map(|tokens| Pointer { tokens })
    }

    /// The value the pointer refers to in `root`, or `None` when it does not resolve.
    pub(crate) fn resolve<'v>(&self, root: &'v Value) -> Option<&'v Value> {
        self.tokens
            .iter()
            .try_fold(root, |value, token| match value {
                Value::Object(map) => map.get(token),
                Value::Array(items) => array_index(token).and_then(|index| items.get(index)),
                _ => None,
            })
    }
}

/// Unescapes one reference token: `~0` is `~`, `~1` is `/`, and any other `~` is an error
/// (RFC 6901 §3), because guessing what it meant could point a deny rule at the wrong member.
fn unescape(token: &str, whole: &str) -> Result<String, String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('0') => out.push('~'),
            Some('1') => out.push('/'),
            _ => {
                return Err(format!(
                    "\"{whole}\" is not a JSON pointer: '~' must be followed by 0 or 1"
                ));
            }
        }
    }
    Ok(out)
}

/// An array index as RFC 6901 spells it: `0`, or digits without a leading zero. `-` (the
/// element after the last) never resolves.
fn array_index(token: &str) -> Option<usize> {
    let digits_only = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit());
    let leading_zero = token.len() > 1 && token.starts_with('0');
    if digits_only && !leading_zero {
        token.parse().ok()
    } else {
        None
    }
}

/// Structural equality of two JSON values as JavaScript code would expect it: object member
/// order does not matter, and numbers compare by value (`1` equals `1.0`).
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    let mut pending = vec![(a, b)];
    while let Some(pair) = pending.pop() {
        match pair {
            (Value::Null, Value::Null) => {}
            (Value::Bool(x), Value::Bool(y)) if x == y => {}
            (Value::String(x), Value::String(y)) if x == y => {}
            (Value::Number(x), Value::Number(y)) if number_equal(x, y) => {}
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                pending.extend(x.iter().zip(y))
            }
            (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
                for (key, value) in x {
                    match y.get(key) {
                        Some(other) => pending.push((value, other)),
                        None => return false,
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// Numbers are equal when they denote the same value; integers compare exactly, so two large
/// ids that round to the same `f64` are still told apart.
fn number_equal(a: &Number, b: &Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The first value inside `value` (itself included) that the TS layer marked as something JSON
/// cannot carry (`$invalid`), a function (`$fn`) or a `RegExp` (`$regex`): such a value can never
/// equal an argument, so comparing with it is a configuration mistake. Returns what it is.
pub(crate) fn foreign(value: &Value) -> Option<String> {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                if let Some(kind) = map.get("$invalid") {
                    return Some(invalid_kind(kind));
                }
                if map.contains_key("$fn") {
                    return Some("a function".to_owned());
                }
                if map.contains_key("$regex") {
                    return Some("a RegExp (use `matches`)".to_owned());
                }
                pending.extend(map.values());
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    None
}

/// How messages name what an `{"$invalid": "<type>"}` marker stood for: `"symbol"` becomes
/// `a symbol`, `"undefined"` stays as it is.
pub(crate) fn invalid_kind(kind: &Value) -> String {
    match kind.as_str() {
        None | Some("") => "a value JSON cannot carry".to_owned(),
        Some(kind @ ("undefined" | "null")) => kind.to_owned(),
        Some(kind) if kind.starts_with("a ") || kind.starts_with("an ") => kind.to_owned(),
        Some(kind) if kind.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {kind}"),
        Some(kind) => format!("a {kind}"),
    }
}
