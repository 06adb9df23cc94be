//! The decoder against a maintained encoder: whatever miniz_oxide compresses, at every level and
//! with every strategy (stored, fixed and dynamic blocks, RLE, Huffman only), must inflate back
//! to exactly the input; and no input at all, however malformed, may panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use miniz_oxide::deflate::core::{compress_to_output, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus};
use proptest::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use warden_inflate::{inflate, Error};

/// miniz_oxide's strategies (zlib's numbering): default, filtered, Huffman only, RLE, fixed.
const STRATEGIES: [i32; 5] = [0, 1, 2, 3, 4];

/// `data` as raw deflate at `level` (0: stored blocks only) with `strategy`.
fn deflate(data: &[u8], level: i32, strategy: i32) -> Vec<u8> {
    let mut compressor = CompressorOxide::new(create_comp_flags_from_zip_params(level, 0, strategy));
    let mut out = Vec::new();
    let (status, _) = compress_to_output(&mut compressor, data, TDEFLFlush::Finish, |chunk| {
        out.extend_from_slice(chunk);
        true
    });
    assert_eq!(status, TDEFLStatus::Done);
    out
}

/// Inflates `stream` into a buffer of `capacity` bytes.
fn inflate_into(stream: &[u8], capacity: usize) -> Result<Vec<u8>, Error> {
    let input: Vec<AtomicU8> = stream.iter().map(|&byte| AtomicU8::new(byte)).collect();
    let output: Vec<AtomicU8> = (0..capacity).map(|_| AtomicU8::new(0)).collect();
    let written = inflate(&input, &output)?;
    Ok(output[..written].iter().map(|byte| byte.load(Relaxed)).collect())
}

/// Inflates `stream` with room for `expected` and checks that exactly `expected` comes back.
fn assert_round_trip(stream: &[u8], expected: &[u8]) {
    assert_eq!(inflate_into(stream, expected.len()).as_deref(), Ok(expected));
}

/// Text with repeats near and far (distances past 32 KB's window included) and bytes of every value.
fn sample(len: usize) -> Vec<u8> {
    let words: [&[u8]; 5] = [b"warden ", b"policy ", b"hook ", b"\x00\xff\x7f", b"tool_call "];
    let mut data = Vec::with_capacity(len);
    let mut state = 0x2545_f491_u32;
    while data.len() < len {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        if state % 7 == 0 {
            data.push((state >> 8) as u8);
        } else {
            data.extend_from_slice(words[(state % 5) as usize]);
        }
    }
    data.truncate(len);
    data
}

#[test]
fn every_level_and_strategy_round_trips() {
    for len in [0, 1, 2, 100, 5_000, 70_000, 200_000] {
        let data = sample(len);
        for level in 0..=10 {
            for strategy in STRATEGIES {
                assert_round_trip(&deflate(&data, level, strategy), &data);
            }
        }
    }
}

#[test]
fn long_runs_and_overlapping_copies_round_trip() {
    let mut data = vec![b'a'; 100_000];
    data.extend(std::iter::repeat_n(b"ab".as_slice(), 40_000).flatten());
    data.extend((0..=255u8).cycle().take(70_000));
    for level in [1, 6, 9, 10] {
        for strategy in STRATEGIES {
            assert_round_trip(&deflate(&data, level, strategy), &data);
        }
    }
}

/// A fixed-code block written by another encoder (the `inflate` crate's documentation example).
#[test]
fn a_known_fixed_code_stream_says_hello() {
    assert_round_trip(&[243, 72, 205, 201, 201, 215, 81, 40, 207, 47, 202, 73, 1, 0], b"Hello, world");
}

#[test]
fn every_strict_prefix_is_truncated() {
    let data = sample(3_000);
    for level in [0, 1, 9] {
        let stream = deflate(&data, level, 0);
        for end in 0..stream.len() {
            assert_eq!(inflate_into(&stream[..end], data.len()), Err(Error::Truncated), "level {level}, first {end} bytes");
        }
    }
}

#[test]
fn a_full_output_buffer_is_an_error_not_a_panic() {
    let data = sample(10_000);
    for level in [0, 1, 9] {
        let stream = deflate(&data, level, 0);
        assert_eq!(inflate_into(&stream, data.len() - 1), Err(Error::OutputFull));
    }
}

#[test]
fn bytes_after_the_final_block_are_ignored() {
    let data = sample(1_000);
    let mut stream = deflate(&data, 6, 0);
    stream.extend_from_slice(b"trailing");
    assert_round_trip(&stream, &data);
}

/// Writes bits least significant first, as DEFLATE reads them; Huffman codes go most
/// significant bit first (RFC 1951 §3.1.1).
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    used: u32,
}

impl BitWriter {
    fn bits(mut self, value: u32, count: u32) -> Self {
        for i in 0..count {
            if self.used % 8 == 0 {
                self.bytes.push(0);
            }
            let bit = ((value >> i) & 1) as u8;
            *self.bytes.last_mut().unwrap() |= bit << (self.used % 8);
            self.used += 1;
        }
        self
    }

    fn code(self, code: u32, length: u32) -> Self {
        let reversed = (0..length).fold(0, |acc, i| (acc << 1) | ((code >> i) & 1));
        self.bits(reversed, length)
    }
}

#[test]
fn malformed_streams_say_why() {
    // Block type 3 is reserved.
    assert_eq!(inflate_into(&BitWriter::default().bits(1, 1).bits(3, 2).bytes, 10), Err(Error::BlockType));
    // A stored block whose length's complement is wrong.
    let stored = BitWriter::default().bits(1, 1).bits(0, 2).bits(5, 5).bits(3, 16).bits(3, 16).bytes;
    assert_eq!(inflate_into(&stored, 10), Err(Error::StoredLength));
    // A fixed block that starts with a copy: length symbol 257 (7-bit code 0000001), distance
    // symbol 0 (5-bit code 00000), with nothing written yet to copy from.
    let copy_first = BitWriter::default().bits(1, 1).bits(1, 2).code(1, 7).code(0, 5).bytes;
    assert_eq!(inflate_into(&copy_first, 10), Err(Error::Distance));
    // Fixed-code literal/length symbols 286 and 287 exist as codes but mean nothing.
    let bad_length = BitWriter::default().bits(1, 1).bits(1, 2).code(0b1100_0110, 8).bytes;
    assert_eq!(inflate_into(&bad_length, 10), Err(Error::Symbol));
    // A dynamic block whose code-length code is over-subscribed: 19 codes of 1 bit.
    let mut header = BitWriter::default().bits(1, 1).bits(2, 2).bits(0, 5).bits(0, 5).bits(15, 4);
    for _ in 0..19 {
        header = header.bits(1, 3);
    }
    assert_eq!(inflate_into(&header.bytes, 10), Err(Error::CodeLengths));
    // A dynamic block whose first code length is "repeat the previous one".
    let mut header = BitWriter::default().bits(1, 1).bits(2, 2).bits(0, 5).bits(0, 5).bits(0, 4);
    // Four code-length code lengths, in the order 16, 17, 18, 0: symbols 16 and 0 of 1 bit each,
    // so (codes of a length go in symbol order) 0 is code 0 and 16 is code 1.
    header = header.bits(1, 3).bits(0, 3).bits(0, 3).bits(1, 3);
    assert_eq!(inflate_into(&header.code(1, 1).bytes, 10), Err(Error::CodeLengths));
}

proptest! {
    #[test]
    fn what_miniz_oxide_compresses_comes_back(data in proptest::collection::vec(0u8..8, 0..3_000), level in 0i32..=10, strategy in 0usize..5) {
        // A small alphabet, so that the encoder finds matches of every length.
        let stream = deflate(&data, level, STRATEGIES[strategy]);
        prop_assert_eq!(inflate_into(&stream, data.len()), Ok(data));
    }

    #[test]
    fn any_bytes_are_an_answer_not_a_panic(stream in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = inflate_into(&stream, 4_096);
    }

    #[test]
    fn a_flipped_bit_never_panics(flip in any::<proptest::sample::Index>(), bit in 0u8..8) {
        let data = sample(2_000);
        let mut stream = deflate(&data, 9, 0);
        let at = flip.index(stream.len());
        stream[at] ^= 1 << bit;
        let _ = inflate_into(&stream, data.len() * 2);
    }
}
