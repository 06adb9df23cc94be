//! Helpers for `arg` predicates: RFC 6901 pointers, and finding what JSON cannot say.
//!
//! Both walk values without recursion: arguments come from an agent and may nest deeply, and a
//! stack overflow in wasm would kill the page's whole instance.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::strs::cat;
use crate::value::Value;

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
        let Some(rest) = text.strip_prefix("/") else {
            return Err(cat![
                "\"",
                text,
                "\" is not a JSON pointer: it must start with '/' (did you mean \"/",
                text,
                "\"?)"
            ]);
        };
        let mut tokens = Vec::new();
        for token in crate::strs::split_bytes(rest, b'/') {
            tokens.push(unescape(token, text)?);
        }
        Ok(Pointer { tokens })
    }

    /// The value the pointer refers to in `root`, or `None` when it does not resolve.
    pub(crate) fn resolve<'v>(&self, root: &'v Value) -> Option<&'v Value> {
        let mut value = root;
        for token in &self.tokens {
            value = match value {
                Value::Object(map) => map.get(token)?,
                Value::Array(items) => items.get(array_index(token)?)?,
                _ => return None,
            };
        }
        Some(value)
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
                return Err(cat![
                    "\"",
                    whole,
                    "\" is not a JSON pointer: '~' must be followed by 0 or 1"
                ]);
            }
        }
    }
    Ok(out)
}

/// An array index as RFC 6901 spells it: `0`, or digits without a leading zero. `-` (the
/// element after the last) never resolves.
fn array_index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with("0")) {
        return None;
    }
    crate::strs::parse_digits(token)
}

/// The first value inside `value` (itself included) that JSON cannot say: a function, a
/// `RegExp` or an unsupported JS value. Such a value can never equal an argument, so comparing
/// with it is a configuration mistake. Returns how a message names it.
pub(crate) fn foreign(value: &Value) -> Option<String> {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                for (_, item) in map.iter() {
                    pending.push(item);
                }
            }
            Value::Array(items) => {
                for item in items {
                    pending.push(item);
                }
            }
            Value::Regex { .. } => return Some("a RegExp (use `matches`)".to_owned()),
            Value::Function(_) | Value::Unsupported(_) => return Some(value.type_name().to_owned()),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    None
}
