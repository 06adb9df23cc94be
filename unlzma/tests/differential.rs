//! The decoder against real `xz` output and against a maintained decoder (lzma-rs):
//! - streams `xz --format=raw --lzma1=…` wrote (tests/fixtures/, every literal-context and
//!   position setting the format allows, fast and best presets) decode to exactly their input;
//! - on random streams, which reach every path of the decoder (literals with and without a match
//!   byte, matches, the four repeated distances, short reps, corruption), both decoders write the
//!   same bytes for as long as both go on;
//! - no input at all, however malformed, panics.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::arithmetic_side_effects)]

use lzma_rs::decompress::raw::{LzmaDecoder, LzmaParams, LzmaProperties};
use proptest::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::atomic::AtomicU16;
use warden_unlzma::{decode, decode_prefix, resume, start, Error, Probabilities, PROBABILITIES};

fn atomics(bytes: &[u8]) -> Vec<AtomicU8> {
    bytes.iter().map(|&byte| AtomicU8::new(byte)).collect()
}

/// Decodes `stream` into a buffer of `capacity` bytes: how far it got, and its answer.
fn ours(stream: &[u8], capacity: usize) -> (Vec<u8>, Result<usize, Error>) {
    let output = atomics(&vec![0; capacity]);
    let (written, answer) = decode_prefix(&atomics(stream), &output);
    (output[..written].iter().map(|byte| byte.load(Relaxed)).collect(), answer)
}

/// lzma-rs on the same stream (the properties byte, then raw LZMA1), stopping after `limit` bytes:
/// what it wrote, and whether it succeeded.
fn reference(stream: &[u8], limit: usize) -> (Vec<u8>, bool) {
    let props = u32::from(stream[0]);
    let properties = LzmaProperties { lc: props % 9, lp: (props / 9) % 5, pb: props / 45 };
    let params = LzmaParams::new(properties, 1 << 26, Some(limit as u64));
    let mut out = Vec::new();
    let ok = LzmaDecoder::new(params, None).and_then(|mut decoder| decoder.decompress(&mut &stream[1..], &mut out)).is_ok();
    (out, ok)
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

const FIXTURES: [&str; 6] = [
    "sample.lc0lp0pb0.0.lzma",
    "sample.lc3lp0pb0.9e.lzma",
    "sample.lc3lp0pb2.6.lzma",
    "sample.lc1lp3pb4.6.lzma",
    "sample.lc0lp4pb1.9e.lzma",
    "sample.lc4lp0pb0.1.lzma",
];

#[test]
fn xz_output_decodes_to_its_input() {
    let sample = fixture("sample.bin");
    for name in FIXTURES {
        let (out, answer) = ours(&fixture(name), sample.len());
        assert_eq!(answer, Ok(sample.len()), "{name}");
        assert_eq!(out, sample, "{name}");
        // lzma-rs agrees (the fixtures are what they claim to be).
        assert_eq!(reference(&fixture(name), sample.len()).0, sample, "{name}");
    }
}

#[test]
fn bytes_after_the_end_marker_are_ignored() {
    let sample = fixture("sample.bin");
    let mut stream = fixture(FIXTURES[1]);
    stream.extend_from_slice(b"trailing bytes");
    assert_eq!(ours(&stream, sample.len()).0, sample);
}

#[test]
fn every_strict_prefix_is_truncated() {
    let sample = fixture("sample.bin");
    let stream = fixture(FIXTURES[1]);
    for cut in (1..stream.len()).step_by(97).chain(stream.len() - 8..stream.len()) {
        // What the decoder wrote after the input ran out is garbage, which the answer disowns.
        assert_eq!(ours(&stream[..cut], sample.len()).1, Err(Error::Truncated), "a prefix of {cut} bytes");
    }
}

#[test]
fn a_full_output_buffer_is_an_error() {
    let sample = fixture("sample.bin");
    let (out, answer) = ours(&fixture(FIXTURES[1]), sample.len() - 1);
    assert_eq!(answer, Err(Error::OutputFull));
    assert_eq!(out, sample[..out.len()]);
}

#[test]
fn properties_beyond_the_format_or_this_decoder_are_refused() {
    // lc + lp > 4, and bytes past 9 * 5 * 5.
    for props in [5u8, 9 * 2 + 3, 225, 255] {
        let mut stream = fixture(FIXTURES[1]);
        stream[0] = props;
        assert_eq!(ours(&stream, 100_000).1, Err(Error::Properties), "props {props}");
    }
    assert_eq!(ours(&[], 10).1, Err(Error::Truncated));
    // The range coder's first byte must be zero.
    assert_eq!(ours(&[3, 1, 0, 0, 0, 0, 0, 0], 10).1, Err(Error::Corrupt));
}

#[test]
fn a_distance_before_the_output_is_refused() {
    // A match as the very first symbol has nothing to copy: some random stream does that.
    let mut refused = false;
    for seed in 0..2000u32 {
        let mut stream = vec![3, 0];
        stream.extend((0..64).map(|i| (seed.wrapping_mul(2_654_435_761).rotate_left(i % 32) >> 3) as u8));
        if ours(&stream, 4096).1 == Err(Error::Distance) {
            refused = true;
            break;
        }
    }
    assert!(refused);
}

/// Decodes `stream` in slices of `budget` output bytes, as the page does between its tasks.
fn in_slices(stream: &[u8], capacity: usize, budget: usize) -> (Vec<u8>, Result<usize, Error>, usize) {
    let input = atomics(stream);
    let output = atomics(&vec![0; capacity]);
    let probs: Probabilities = [const { AtomicU16::new(0) }; PROBABILITIES];
    let mut progress = match start(&input, &probs) {
        Ok(progress) => progress,
        Err(error) => return (Vec::new(), Err(error), 0),
    };
    let mut slices = 0;
    let answer = loop {
        slices += 1;
        if let Some(answer) = resume(&mut progress, &input, &output, &probs, budget) {
            break answer;
        }
        assert!(progress.len <= capacity);
    };
    (output[..progress.len].iter().map(|byte| byte.load(Relaxed)).collect(), answer, slices)
}

#[test]
fn decoding_in_slices_gives_the_same_bytes() {
    let sample = fixture("sample.bin");
    for name in FIXTURES {
        for budget in [1, 7, 4096, 32_768] {
            let (out, answer, slices) = in_slices(&fixture(name), sample.len(), budget);
            assert_eq!(answer, Ok(sample.len()), "{name}, budget {budget}");
            assert_eq!(out, sample, "{name}, budget {budget}");
            // A slice stops once it has written its budget, so a match may carry it past.
            assert!(slices >= sample.len() / (budget + 273), "{name}: {slices} slices for budget {budget}");
        }
    }
}

#[test]
fn decode_is_decode_prefix_without_the_count() {
    let sample = fixture("sample.bin");
    let output = atomics(&vec![0; sample.len()]);
    assert_eq!(decode(&atomics(&fixture(FIXTURES[2])), &output), Ok(sample.len()));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// Random streams decode to the same bytes as lzma-rs writes: whatever we wrote before we
    /// stopped (at the end marker, a full buffer, or a corrupt symbol), lzma-rs, told to stop after
    /// that many bytes, writes too. (lzma-rs writes nothing when it fails, so it is asked for
    /// exactly our prefix; a stream our decoder read past the end of is left out, as what it
    /// wrote after the end is garbage it disowns.)
    #[test]
    fn random_streams_agree_with_lzma_rs(lc in 0u8..=4, lp in 0u8..=4, pb in 0u8..=4, body in proptest::collection::vec(any::<u8>(), 5..600), limit in 1usize..3000) {
        let lp = lp.min(4 - lc);
        let mut stream = vec![lc + 9 * (lp + 5 * pb), 0];
        stream.extend_from_slice(&body);
        let (mine, answer) = ours(&stream, limit);
        if let Ok(written) = answer {
            prop_assert_eq!(written, mine.len());
        }
        prop_assume!(answer != Err(Error::Truncated) && !mine.is_empty());
        let (theirs, their_ok) = reference(&stream, mine.len());
        prop_assert!(their_ok, "lzma-rs failed where we wrote {} bytes ({:?})", mine.len(), answer);
        prop_assert_eq!(mine, theirs);
    }

    /// Slices change nothing: random streams give the same bytes and the same answer whatever
    /// the budget.
    #[test]
    fn random_streams_decode_alike_in_slices(props in 0u8..=255, body in proptest::collection::vec(any::<u8>(), 5..400), budget in 1usize..64) {
        let mut stream = vec![props, 0];
        stream.extend_from_slice(&body);
        let (whole, answer) = ours(&stream, 2000);
        let (sliced, sliced_answer, _) = in_slices(&stream, 2000, budget);
        prop_assert_eq!(sliced_answer, answer);
        if answer == Err(Error::Truncated) {
            // What either wrote after the input ran out is disowned; sliced decoding notices
            // sooner, at the end of a slice.
            prop_assert!(whole.starts_with(&sliced));
        } else {
            prop_assert_eq!(sliced, whole);
        }
    }

    /// Whatever the bytes, the decoder answers; it never panics.
    #[test]
    fn any_bytes_decode_or_fail_cleanly(stream in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = ours(&stream, 2000);
    }
}
