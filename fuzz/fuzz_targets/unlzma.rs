//! `warden_unlzma::decode` (the decoder of the validator module, unlzma/) against lzma-rs, a
//! maintained implementation, on arbitrary streams. The first byte is the properties byte (bytes
//! past the format's are refused, which is checked too); the rest is the stream.
//!
//! Never a panic. Whatever our decoder wrote before it stopped (the end marker, a full buffer, a
//! corrupt symbol), lzma-rs, told to stop after that many bytes, writes too. A stream our decoder
//! read past the end of is left out: what it wrote after the end is garbage it disowns.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzma_rs::decompress::raw::{LzmaDecoder, LzmaParams, LzmaProperties};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use warden_unlzma::{decode_prefix, Error};

/// Room for what a few KB of fuzz input can expand to.
const OUTPUT: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let input: Vec<AtomicU8> = data.iter().map(|&byte| AtomicU8::new(byte)).collect();
    let output: Vec<AtomicU8> = (0..OUTPUT).map(|_| AtomicU8::new(0)).collect();
    let (written, answer) = decode_prefix(&input, &output);
    let Some((&props, stream)) = data.split_first() else { return };
    let (lc, lp, pb) = (u32::from(props) % 9, (u32::from(props) / 9) % 5, u32::from(props) / 45);
    if props >= 225 || lc + lp > 4 {
        assert_eq!(answer, Err(Error::Properties));
        return;
    }
    if let Ok(end) = answer {
        assert_eq!(end, written);
    }
    if answer == Err(Error::Truncated) || written == 0 {
        return;
    }
    let mine: Vec<u8> = output.iter().take(written).map(|byte| byte.load(Relaxed)).collect();
    let params = LzmaParams::new(LzmaProperties { lc, lp, pb }, 1 << 26, Some(written as u64));
    let mut theirs = Vec::new();
    let ok = LzmaDecoder::new(params, None).and_then(|mut decoder| decoder.decompress(&mut &stream[..], &mut theirs)).is_ok();
    assert!(ok, "lzma-rs failed where we wrote {written} bytes ({answer:?})");
    assert_eq!(mine, theirs, "the decoders disagree");
});
