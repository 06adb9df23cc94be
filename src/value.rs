//! Values as the core reads them: JSON, plus the few JS things configuration may hold.
//!
//! Everything the TS layer hands the core (hook-set descriptions, tool definitions, policies,
//! call facts, results to shape) arrives as a [`Value`], decoded by [`crate::wire`] from one
//! binary buffer. Numbers are `f64` because JS numbers are; text is UTF-8 (lone UTF-16
//! surrogates became U+FFFD on the way in). Three variants are not JSON and have no encoding
//! inside JSON, so no user data can forge them: a JS function the TS layer keeps
//! ([`Value::Function`]), a JS `RegExp` ([`Value::Regex`]), and a value JSON cannot say
//! ([`Value::Unsupported`], described for messages).
//!
//! The core has its own value type instead of `serde_json::Value` because bytes are a feature:
//! a JSON parser, a serializer and float formatting are most of a small wasm module, and the
//! page's own engine already parses and writes JSON.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// One value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A finite number.
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, keys in the order JS gave them.
    Object(Map),
    /// A JS function kept by the TS layer under this handle.
    Function(u32),
    /// A JS `RegExp`: its source and flags.
    Regex {
        /// `RegExp.prototype.source`.
        source: String,
        /// `RegExp.prototype.flags`.
        flags: String,
    },
    /// A JS value JSON cannot say, described for messages (`undefined`, `a BigInt`, `NaN`,
    /// `a cyclic object`, …).
    Unsupported(String),
}

/// The members of an object, in order. Keys are unique (JS objects cannot repeat a key).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Map {
    entries: Vec<(String, Value)>,
}

impl Map {
    /// An empty object.
    pub fn new() -> Map {
        Map::default()
    }

    // The methods below are loops over the entries, not iterator adapters: every closure
    // handed to `find`, `map` or `any` is a generic instance of its own in the wasm module.

    /// Where `key` is among the entries.
    fn position(&self, key: &str) -> Option<usize> {
        let mut at = 0usize;
        for (k, _) in &self.entries {
            if k == key {
                return Some(at);
            }
            at = at.saturating_add(1);
        }
        None
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.get(self.position(key)?).map(|(_, v)| v)
    }

    /// Whether `key` is a member.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key`, replacing an earlier value in place.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        self.insert_owned(key.into(), value);
    }

    /// [`Map::insert`] for an owned key: one copy of the code for every type of key.
    fn insert_owned(&mut self, key: String, value: Value) {
        match self.position(&key).and_then(|at| self.entries.get_mut(at)) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// Sets `key` when `value` is `Some`; leaves the object as it is otherwise.
    pub fn insert_some(&mut self, key: impl Into<String>, value: Option<impl Into<Value>>) {
        if let Some(value) = value {
            self.insert_owned(key.into(), value.into());
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let index = self.position(key)?;
        Some(self.entries.remove(index).1)
    }

    /// The members, in order, as `(key, value)` pairs.
    pub fn iter(&self) -> core::slice::Iter<'_, (String, Value)> {
        self.entries.iter()
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The first key that is not one of `known`, in order.
    pub fn unknown_key(&self, known: &[&str]) -> Option<&str> {
        for (key, _) in &self.entries {
            if !known.contains(&key.as_str()) {
                return Some(key);
            }
        }
        None
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        let mut map = Map::new();
        for (key, value) in iter {
            map.insert(key, value);
        }
        map
    }
}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = alloc::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// The largest integer a JS number holds exactly (2^53 − 1).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Whether `n` is a whole number: finite, without a fraction (what `n.fract() == 0.0` says, but
/// `f64::fract` is std's, which the `no_std` core module does not link; core has no `trunc`).
pub fn is_whole(n: f64) -> bool {
    // From 2^52 up every double is whole; below it the cast keeps a whole number exactly and
    // drops a fraction (NaN casts to 0, which differs from it).
    if n.abs() >= 4_503_599_627_370_496.0 {
        return n.is_finite();
    }
    // INVARIANT: |n| < 2^52, within i64, and an i64 below 2^52 is exactly a double.
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    let back = n as i64 as f64;
    back == n
}

impl Value {
    /// The member `key` of an object; `None` for anything else.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(map) => map.get(key),
            _ => None,
        }
    }

    /// The text of a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// The number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(number) => Some(*number),
            _ => None,
        }
    }

    /// The number, when it is a whole number from 0 to 2^53 − 1.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            // INVARIANT: checked to be whole and in 0..=2^53-1, so the cast is exact.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Value::Number(n) if is_whole(*n) && *n >= 0.0 && *n <= MAX_SAFE_INTEGER => Some(*n as u64),
            _ => None,
        }
    }

    /// The boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(flag) => Some(*flag),
            _ => None,
        }
    }

    /// The items of an array.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members of an object.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// How the value's type reads in a message: `a string`, `an array`, `null`, … For an
    /// [`Value::Unsupported`] value, its description.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
            Value::Function(_) => "a function",
            Value::Regex { .. } => "a RegExp",
            Value::Unsupported(kind) => kind,
        }
    }

    /// Equality as JSON values: numbers by value (`1` equals `1.0`), objects regardless of key
    /// order. Functions, RegExps and unsupported values equal nothing, not even themselves.
    ///
    /// Walks both values with an explicit stack, so arguments nested deeply by an agent cannot
    /// exhaust the wasm stack.
    pub fn json_eq(&self, other: &Value) -> bool {
        let mut pending: Vec<(&Value, &Value)> = vec![(self, other)];
        while let Some((a, b)) = pending.pop() {
            match (a, b) {
                (Value::Null, Value::Null) => {}
                (Value::Bool(x), Value::Bool(y)) if x == y => {}
                // Exact comparison is JSON number equality: both sides are f64 already.
                #[allow(clippy::float_cmp)]
                (Value::Number(x), Value::Number(y)) if x == y => {}
                (Value::String(x), Value::String(y)) if x == y => {}
                (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                    // A loop rather than `extend(zip)`, an instance of its own.
                    for pair in x.iter().zip(y) {
                        pending.push(pair);
                    }
                }
                (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
                    for (key, value) in x.iter() {
                        match y.get(key) {
                            Some(theirs) => pending.push((value, theirs)),
                            None => return false,
                        }
                    }
                }
                _ => return false,
            }
        }
        true
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Value {
        Value::String(text.to_owned())
    }
}

impl From<String> for Value {
    fn from(text: String) -> Value {
        Value::String(text)
    }
}

impl From<bool> for Value {
    fn from(flag: bool) -> Value {
        Value::Bool(flag)
    }
}

impl From<f64> for Value {
    fn from(number: f64) -> Value {
        Value::Number(number)
    }
}

impl From<u32> for Value {
    fn from(number: u32) -> Value {
        Value::Number(f64::from(number))
    }
}

impl From<usize> for Value {
    fn from(number: usize) -> Value {
        // Counts and indexes in the core stay far below 2^53.
        #[allow(clippy::cast_precision_loss)]
        Value::Number(number as f64)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(option: Option<T>) -> Value {
        option.map_or(Value::Null, Into::into)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(items: Vec<T>) -> Value {
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            values.push(item.into());
        }
        Value::Array(values)
    }
}

/// Builds a [`Value::Object`] from `key => value` pairs (optional members: [`Map::insert_some`]).
///
/// ```
/// use webmcp_warden::{object, value::Value};
/// let v = object! { "ok" => true, "id" => "x" };
/// assert_eq!(v.get("id").and_then(Value::as_str), Some("x"));
/// ```
#[macro_export]
macro_rules! object {
    ($($key:expr => $value:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut map = $crate::value::Map::new();
        $( map.insert($key, $crate::value::Value::from($value)); )*
        $crate::value::Value::Object(map)
    }};
}

impl From<Map> for Value {
    fn from(map: Map) -> Value {
        Value::Object(map)
    }
}

/// A whole number's decimal text (`-5`, `20`); `None` for a fraction or beyond ±2^53, which
/// the core does not spell out (float formatting would cost more bytes than it is worth in a
/// message that already names the value's place).
pub fn integer_text(number: f64) -> Option<String> {
    if !is_whole(number) || number.abs() > MAX_SAFE_INTEGER {
        return None;
    }
    // INVARIANT: whole and within ±2^53, so the cast is exact.
    #[allow(clippy::cast_possible_truncation)]
    let whole = number as i64;
    Some(crate::strs::signed_decimal(whole))
}

#[cfg(test)]
mod tests {
    use super::is_whole;

    #[test]
    fn is_whole_says_what_fract_says() {
        let mut values = std::vec![0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1e-300, 2.5e15, 4_503_599_627_370_495.5, 4_503_599_627_370_496.0, 9_007_199_254_740_993.0, 1e21, -1e300, f64::MAX, f64::MIN, f64::MIN_POSITIVE, f64::EPSILON];
        values.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, (i64::MAX as f64), (i64::MIN as f64)]);
        for bits in [1u64, 0x3FF0_0000_0000_0001, 0x4330_0000_0000_0001, 0x432F_FFFF_FFFF_FFFF, 0xC32F_FFFF_FFFF_FFFF] {
            values.push(f64::from_bits(bits));
        }
        for n in values {
            assert_eq!(is_whole(n), n.fract() == 0.0, "{n}");
        }
    }
}
