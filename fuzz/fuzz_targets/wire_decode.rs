//! Arbitrary bytes into `wire::decode`: never a panic, and whatever decodes re-encodes to bytes
//! that decode to an equal value and re-encode to the same bytes (a fixed point).
//!
//! The first encoding need not equal the input: a count may be written with extra LEB128
//! bytes, an object may repeat a key (the last one wins), and a non-finite number (9 bytes)
//! decodes as the unsupported value it names (`-Infinity`: up to 11 bytes again), all of which
//! the decoder accepts and the encoder never writes. So the encoding is at most a quarter longer
//! than its input, never more.
#![no_main]

use libfuzzer_sys::fuzz_target;
use webmcp_warden::wire;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = wire::decode(data) else { return };
    let bytes = wire::encode(&value);
    assert!(bytes.len() <= data.len().saturating_add(data.len() / 4), "the encoding of a decoded value grew past a quarter more than its input");
    let again = wire::decode(&bytes).unwrap_or_else(|err| panic!("an encoded value does not decode: {err:?}"));
    assert_eq!(again, value, "decode(encode(v)) != v");
    assert_eq!(wire::encode(&again), bytes, "encoding is not a fixed point");
    let mut appended = vec![0xAA];
    wire::encode_into(&mut appended, &value);
    assert_eq!(appended.get(1..), Some(bytes.as_slice()), "encode_into appends what encode writes");
});
