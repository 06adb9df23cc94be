//! What the TS layer sends to shape a result: one [`Value`] (decoded from the wire by the
//! boundary), read here so that the boundary stays "decode, call, encode".
//!
//! ```text
//! {
//!   result:          the prepared result (see `pkg-js/src/shape/shaping.ts`)
//!   serverId:        string                      default "page"
//!   maxBytes:        whole number ≥ 0            default 102400; past usize, usize::MAX
//!   omitted?:        [block, field, bytes, …]    field: 0 text, 1 data, 2 uri, 3 name
//!   surplusBlocks?:  whole number                blocks past MAX_BLOCKS not sent
//!   structuredOverLimit?: true                   structuredContent not sent, over its limit
//!   numbers?:        [number, length, …]         length of String(number), for numbers
//!                                                the core cannot format
//! }
//! ```
//!
//! Anything missing or of the wrong type takes its default: the request comes from this
//! package's own TS layer, and a default never makes a result less shaped.

use alloc::borrow::ToOwned;
use alloc::vec::Vec;

use super::{Field, Hints, NumberLengths, Omitted, ShapeOptions, DEFAULT_MAX_BYTES, DEFAULT_SERVER_ID};
use crate::value::Value;

/// A decoded request: the result and how to shape it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The result to shape.
    pub result: Value,
    /// The server id and the cap.
    pub options: ShapeOptions,
    /// What the TS layer did not send.
    pub hints: Hints,
}

impl Default for Request {
    /// `null` (an invalid result) with the default options and no hints.
    fn default() -> Request {
        Request { result: Value::Null, options: ShapeOptions::default(), hints: Hints::default() }
    }
}

impl Request {
    /// Reads a request; never fails (see the module docs).
    #[must_use]
    pub fn from_value(value: Value) -> Request {
        let Value::Object(mut map) = value else { return Request::default() };
        let result = map.remove("result").unwrap_or(Value::Null);
        let server_id = map.get("serverId").and_then(Value::as_str).unwrap_or(DEFAULT_SERVER_ID).to_owned();
        let max_bytes = map
            .get("maxBytes")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_MAX_BYTES, |n| usize::try_from(n).unwrap_or(usize::MAX));
        let mut numbers = Vec::new();
        if let Some(flat) = map.get("numbers").and_then(Value::as_array) {
            for pair in flat.chunks_exact(2) {
                if let [Value::Number(n), len] = pair {
                    if let Some(len) = count(len) {
                        numbers.push((n.to_bits(), len));
                    }
                }
            }
        }
        let mut omitted = Vec::new();
        if let Some(flat) = map.get("omitted").and_then(Value::as_array) {
            for triple in flat.chunks_exact(3) {
                if let [block, field, bytes] = triple {
                    if let (Some(block), Some(field), Some(bytes)) = (count(block), field_of(field), count(bytes)) {
                        omitted.push(Omitted { block, field, bytes });
                    }
                }
            }
        }
        Request {
            result,
            options: ShapeOptions { server_id, max_bytes },
            hints: Hints {
                omitted,
                surplus_blocks: map.get("surplusBlocks").and_then(count).unwrap_or(0),
                structured_over_limit: map.get("structuredOverLimit").and_then(Value::as_bool).unwrap_or(false),
                numbers: NumberLengths::from_bits(numbers),
            },
        }
    }
}

/// A whole number as a `usize`, saturating.
fn count(value: &Value) -> Option<usize> {
    value.as_u64().map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

fn field_of(value: &Value) -> Option<Field> {
    Some(match value.as_u64()? {
        0 => Field::Text,
        1 => Field::Data,
        2 => Field::Uri,
        3 => Field::Name,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::object;

    #[test]
    fn reads_every_member() {
        let request = Request::from_value(object! {
            "result" => object! { "content" => Value::Array(vec![]) },
            "serverId" => "shop",
            "maxBytes" => 7u32,
            "omitted" => Value::Array(vec![2u32.into(), 0u32.into(), 10u32.into(), 1u32.into(), 9u32.into(), 1u32.into()]),
            "surplusBlocks" => 3u32,
            "structuredOverLimit" => true,
            "numbers" => Value::Array(vec![0.5.into(), 3u32.into(), "x".into(), 1u32.into()]),
        });
        assert_eq!(request.options, ShapeOptions { server_id: "shop".into(), max_bytes: 7 });
        assert_eq!(request.hints.omitted, vec![Omitted { block: 2, field: Field::Text, bytes: 10 }]);
        assert_eq!(request.hints.surplus_blocks, 3);
        assert!(request.hints.structured_over_limit);
        assert_eq!(request.hints.numbers.text_len(0.5), 3);
        assert_eq!(request.hints.numbers.len(), 1);
        assert!(request.result.get("content").is_some());
    }

    #[test]
    fn anything_else_takes_the_defaults() {
        assert_eq!(Request::from_value(Value::Null), Request::default());
        let request = Request::from_value(object! { "maxBytes" => -1.0, "serverId" => 3u32, "numbers" => "no" });
        assert_eq!(request.options, ShapeOptions::default());
        assert_eq!(request.result, Value::Null);
        // A cap past 2^32 saturates instead of wrapping.
        let huge = Request::from_value(object! { "maxBytes" => 2f64.powi(40) });
        assert!(huge.options.max_bytes >= usize::try_from(u32::MAX).unwrap_or(usize::MAX));
    }
}
