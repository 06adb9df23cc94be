//! `warden_inflate::inflate` (the decoder of the embedded core, inflate/) against miniz_oxide, a
//! maintained implementation. The first byte picks what the rest is:
//!
//! - even: a raw stream, arbitrary bytes. Never a panic; a stream both decoders accept gives the
//!   same bytes from both. (They may disagree on *whether* a malformed stream decodes: an
//!   incomplete Huffman code, for one, is accepted here and refused by zlib-like decoders.)
//! - odd: data, which miniz_oxide compresses at level `first byte / 2 % 11` (0: stored blocks);
//!   ours must inflate it back to exactly the data.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// Room for what a few KB of fuzz input can expand to, within miniz_oxide's limit below.
const OUTPUT: usize = 1 << 18;

/// Our decoder's answer for `stream`, as bytes.
fn ours(stream: &[u8]) -> Result<Vec<u8>, warden_inflate::Error> {
    let input: Vec<AtomicU8> = stream.iter().map(|&byte| AtomicU8::new(byte)).collect();
    let output: Vec<AtomicU8> = (0..OUTPUT).map(|_| AtomicU8::new(0)).collect();
    let written = warden_inflate::inflate(&input, &output)?;
    Ok(output.iter().take(written).map(|byte| byte.load(Relaxed)).collect())
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 2 == 1 {
        let stream = miniz_oxide::deflate::compress_to_vec(rest, mode / 2 % 11);
        assert_eq!(ours(&stream).as_deref(), Ok(rest), "a miniz_oxide stream does not round-trip");
        return;
    }
    let Ok(decoded) = ours(rest) else { return };
    if let Ok(reference) = miniz_oxide::inflate::decompress_to_vec_with_limit(rest, OUTPUT) {
        assert_eq!(decoded, reference, "the decoders disagree on a stream both accept");
    }
});
