//! A raw-LZMA decoder, small enough to ship as a wasm module of its own.
//!
//! Every wasm module of webmcp-warden ships LZMA-compressed inside a JS module: the core in the
//! entry, the validator, shaping, the pattern judgement and the linear engine in chunks a page
//! downloads when it first needs them (pkg-js/build.mjs). LZMA packs each smaller than the best
//! deflate (Zopfli; bench/RESULTS.md), and no platform API decodes it, so the entry carries this
//! decoder, compiled wasm of a few KB, and hands it to the chunks.
//!
//! The format is LZMA1 as the LZMA SDK's specification (`LzmaSpec.cpp`, Igor Pavlov, public
//! domain) defines it, in the layout `xz --format=raw --lzma1=…` writes, behind one byte of our
//! own: the properties byte `lc + 9 × (lp + 5 × pb)` of the `.lzma` header. The stream ends with
//! its end marker. The whole output is the dictionary: a distance may reach back to the first byte
//! written, and no further.
//!
//! Why not a crate: the maintained decoders stream through a window and an allocator, for any
//! input size; this one does one thing, a whole stream into one buffer, in slices ([`start`],
//! then [`resume`] with a budget of output bytes) so that the page can run its other tasks in
//! between. It is checked against
//! lzma-rs on random streams (literals with and without a match byte, matches, the four repeated
//! distances, short reps, corruption) and on real `xz` output, which ends with the end marker
//! (tests/differential.rs, and a fuzz target in fuzz/), and never panics on bad input.
//!
//! Buffers are slices of `AtomicU8`: in the page they are `static`
//! buffers (src/wasm.rs) that the host writes and reads through the module's memory, and on
//! wasm32 without threads a relaxed atomic access is a plain load or store.

#![cfg_attr(target_arch = "wasm32", no_std)]
// The range decoder's arithmetic is the LZMA specification's, on values whose bounds the format
// fixes: checked against lzma-rs and fuzzed (tests/, fuzz/) with overflow checks on, rather than
// written checked. Every lookup is still checked (`indexing_slicing`).
#![allow(clippy::arithmetic_side_effects)]

use core::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};

#[cfg(target_arch = "wasm32")]
mod wasm;

/// Why a stream did not decode. The wasm export answers these as negative numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Error {
    /// The input ended before the end marker.
    Truncated = -1,
    /// The properties byte is not one this decoder takes (`lc + lp` must be at most 4).
    Properties = -2,
    /// The range coder's state is impossible: the stream is corrupt.
    Corrupt = -3,
    /// A distance reaches back before the start of the output.
    Distance = -4,
    /// The output buffer is full before the stream ends.
    OutputFull = -5,
    /// The input is larger than the module's input buffer (wasm only).
    InputTooLarge = -6,
}

/// Probabilities are 11-bit fractions; a fresh one is one half.
const HALF: u16 = 1 << 10;
/// `kNumMoveBits`: how fast a probability adapts.
const MOVE_BITS: u32 = 5;
/// The range coder reads a byte whenever its range falls below this.
const TOP: u32 = 1 << 24;

// Where each model lives in the one array of probabilities (the specification's arrays, in its
// order). States: 12; position states: up to 16 (`pb` ≤ 4).
const IS_MATCH: usize = 0;
const IS_REP: usize = IS_MATCH + 12 * 16;
const IS_REP_G0: usize = IS_REP + 12;
const IS_REP_G1: usize = IS_REP_G0 + 12;
const IS_REP_G2: usize = IS_REP_G1 + 12;
const IS_REP0_LONG: usize = IS_REP_G2 + 12;
/// Four 6-bit trees (`kNumLenToPosStates` × 64).
const POS_SLOT: usize = IS_REP0_LONG + 12 * 16;
/// `1 + kNumFullDistances - kEndPosModelIndex` = 115.
const POS_SPECIAL: usize = POS_SLOT + 4 * 64;
/// A 4-bit tree for the low bits of long distances.
const ALIGN: usize = POS_SPECIAL + 115;
/// A length decoder: choice, choice 2, 16 low and 16 mid 3-bit trees, one high 8-bit tree.
const LEN_SIZE: usize = 2 + 16 * 8 + 16 * 8 + 256;
const MATCH_LEN: usize = ALIGN + 16;
const REP_LEN: usize = MATCH_LEN + LEN_SIZE;
/// 0x300 probabilities per literal coder, `1 << (lc + lp)` coders.
const LITERALS: usize = REP_LEN + LEN_SIZE;
/// Room for `lc + lp` up to 4 (LZMA2's limit; xz never writes more), rounded up to a power of
/// two: an index is masked into the array, so the hot path has no bounds check to fail.
pub const PROBABILITIES: usize = (LITERALS + (0x300 << 4)).next_power_of_two();

/// The model: one probability per context, kept by the caller between two calls of [`resume`].
pub type Probabilities = [AtomicU16; PROBABILITIES];

/// Decodes the stream in `input` (a properties byte, then raw LZMA1 data ending with the end
/// marker) into `output`; answers the number of bytes written. Bytes after the end are ignored.
pub fn decode(input: &[AtomicU8], output: &[AtomicU8]) -> Result<usize, Error> {
    decode_prefix(input, output).1
}

/// As [`decode`], and how many bytes were written before it stopped, error or not (the tests
/// compare that prefix with another decoder's output on streams that do not end well).
pub fn decode_prefix(input: &[AtomicU8], output: &[AtomicU8]) -> (usize, Result<usize, Error>) {
    let probs: Probabilities = [const { AtomicU16::new(0) }; PROBABILITIES];
    let mut progress = match start(input, &probs) {
        Ok(progress) => progress,
        Err(error) => return (0, Err(error)),
    };
    loop {
        if let Some(answer) = resume(&mut progress, input, output, &probs, usize::MAX) {
            return (progress.len, answer);
        }
    }
}

/// Where a decode stands between two calls of [`resume`]: the range coder, the state machine,
/// the four last distances and the output's length. The page's module keeps it in statics
/// between its exports (src/wasm.rs), so that the host can let other tasks run in between.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// The next input byte the range coder reads (past the end: the stream was cut short).
    pub next: usize,
    /// The range coder's range.
    pub range: u32,
    /// The range coder's code.
    pub code: u32,
    /// The state machine's state (0–11).
    pub state: usize,
    /// The four last match distances, minus one.
    pub reps: [u32; 4],
    /// How many bytes have been written.
    pub len: usize,
    /// The properties byte (`lc + 9 × (lp + 5 × pb)`), checked.
    pub props: u32,
}

/// Starts decoding `input`: checks its properties byte, sets every probability of `probs` to one
/// half, and reads the range coder's first five bytes.
pub fn start(input: &[AtomicU8], probs: &Probabilities) -> Result<Progress, Error> {
    let props = u32::from(input.first().ok_or(Error::Truncated)?.load(Relaxed));
    if props >= 9 * 5 * 5 || props % 9 + (props / 9) % 5 > 4 {
        return Err(Error::Properties);
    }
    for prob in probs {
        prob.store(HALF, Relaxed);
    }
    // The range coder starts on a zero byte, then the first four bytes of its code.
    let byte = |at: usize| input.get(at).map(|byte| u32::from(byte.load(Relaxed))).ok_or(Error::Truncated);
    let first = byte(1)?;
    let mut code = 0u32;
    for at in 2..6 {
        code = (code << 8) | byte(at)?;
    }
    if first != 0 || code == u32::MAX {
        return Err(Error::Corrupt);
    }
    Ok(Progress { next: 6, range: u32::MAX, code, state: 0, reps: [0; 4], len: 0, props })
}

/// Goes on decoding until the end marker, an error, or until `budget` more bytes were written;
/// answers `None` in the last case (call again), else the number of bytes written or why the
/// stream did not decode.
pub fn resume(progress: &mut Progress, input: &[AtomicU8], output: &[AtomicU8], probs: &Probabilities, budget: usize) -> Option<Result<usize, Error>> {
    let answer = run(progress, input, output, probs, budget);
    // Past the end of the input the decoder reads zeros; whatever it then made of them, the
    // stream was cut short.
    if progress.next > input.len() {
        return Some(Err(Error::Truncated));
    }
    answer
}

/// The decoding loop, until the end marker, an error, or `budget` more bytes written (`None`).
///
/// Written for V8's baseline compiler (Liftoff), which is what a page runs this once in: the range
/// coder's state is in locals, not behind a pointer, and a bit is decoded by a macro where it is
/// needed, so the hot path is register arithmetic (bench/RESULTS.md has the measurements).
fn run(progress: &mut Progress, input: &[AtomicU8], output: &[AtomicU8], probs: &Probabilities, budget: usize) -> Option<Result<usize, Error>> {
    let Progress { mut next, mut range, mut code, mut state, mut reps, len, props } = *progress;
    let (lc, lp, pb) = (props % 9, (props / 9) % 5, props / 45);
    let mut out = Output { bytes: output, len };
    let pause_at = len.saturating_add(budget);
    let pos_mask = (1usize << pb) - 1;
    let lit_mask = (1usize << lp) - 1;

    // The range coder takes a byte whenever its range falls below `TOP`. Past the end of the
    // input it reads zeros (`resume` then answers `Truncated`).
    macro_rules! normalize {
        () => {
            if range < TOP {
                range <<= 8;
                code = (code << 8) | u32::from(input.get(next).map_or(0, |b| b.load(Relaxed)));
                next += 1;
            }
        };
    }
    // One bit with the probability at `$at`, which adapts to it. Every index the decoder makes is
    // inside the array; the mask only lets the compiler drop the bounds check.
    macro_rules! bit {
        ($at:expr) => {{
            let slot = probs.get(($at) & (PROBABILITIES - 1));
            let prob = slot.map_or(HALF, |p| p.load(Relaxed));
            let bound = (range >> 11) * u32::from(prob);
            let (bit, updated) = if code < bound {
                range = bound;
                (0usize, prob + (((1 << 11) - prob) >> MOVE_BITS))
            } else {
                code -= bound;
                range -= bound;
                (1usize, prob - (prob >> MOVE_BITS))
            };
            if let Some(p) = slot {
                p.store(updated, Relaxed);
            }
            normalize!();
            bit
        }};
    }
    // A `$bits`-bit number from the tree at `$tree`, most significant bit first.
    macro_rules! tree {
        ($tree:expr, $bits:expr) => {{
            let tree = $tree;
            let mut m = 1usize;
            for _ in 0..$bits {
                m = (m << 1) | bit!(tree + m);
            }
            (m - (1 << $bits)) as u32
        }};
    }
    // A `$bits`-bit number from the tree at `$tree`, least significant bit first.
    macro_rules! reverse_tree {
        ($tree:expr, $bits:expr) => {{
            let tree = $tree;
            let mut m = 1usize;
            let mut value = 0u32;
            for i in 0..$bits {
                let b = bit!(tree + m);
                m = (m << 1) | b;
                value |= (b as u32) << i;
            }
            value
        }};
    }
    // A match length minus 2, from the length decoder at `$coder`.
    macro_rules! length {
        ($coder:expr, $pos_state:expr) => {{
            let coder = $coder;
            if bit!(coder) == 0 {
                tree!(coder + 2 + $pos_state * 8, 3)
            } else if bit!(coder + 1) == 0 {
                8 + tree!(coder + 2 + 128 + $pos_state * 8, 3)
            } else {
                16 + tree!(coder + 2 + 256, 8)
            }
        }};
    }

    let answer = loop {
        if out.len >= pause_at {
            break None;
        }
        let pos_state = out.len & pos_mask;
        if bit!(IS_MATCH + (state << 4) + pos_state) == 0 {
            // A literal: coded with the previous byte's high bits as context, and, right after a
            // match, with the byte at the last distance steering the first bits.
            let prev = u32::from(out.back(1).unwrap_or(0));
            let coder = LITERALS + 0x300 * (((out.len & lit_mask) << lc) + (prev >> (8 - lc)) as usize);
            let mut symbol: usize = 1;
            if state >= 7 {
                let Some(matched) = out.back(reps[0] as usize + 1) else { break Some(Err(Error::Distance)) };
                let mut matched = u32::from(matched);
                while symbol < 0x100 {
                    let match_bit = ((matched >> 7) & 1) as usize;
                    matched <<= 1;
                    let b = bit!(coder + ((1 + match_bit) << 8) + symbol);
                    symbol = (symbol << 1) | b;
                    if match_bit != b {
                        break;
                    }
                }
            }
            while symbol < 0x100 {
                symbol = (symbol << 1) | bit!(coder + symbol);
            }
            if let Err(error) = out.push((symbol - 0x100) as u8) {
                break Some(Err(error));
            }
            state = if state < 4 {
                0
            } else if state < 10 {
                state - 3
            } else {
                state - 6
            };
            continue;
        }
        let len;
        if bit!(IS_REP + state) == 1 {
            if out.len == 0 {
                break Some(Err(Error::Distance));
            }
            if bit!(IS_REP_G0 + state) == 0 {
                if bit!(IS_REP0_LONG + (state << 4) + pos_state) == 0 {
                    // A "short rep": one byte from the last distance.
                    state = if state < 7 { 9 } else { 11 };
                    let Some(byte) = out.back(reps[0] as usize + 1) else { break Some(Err(Error::Distance)) };
                    if let Err(error) = out.push(byte) {
                        break Some(Err(error));
                    }
                    continue;
                }
            } else {
                let distance;
                if bit!(IS_REP_G1 + state) == 0 {
                    distance = reps[1];
                } else {
                    if bit!(IS_REP_G2 + state) == 0 {
                        distance = reps[2];
                    } else {
                        distance = reps[3];
                        reps[3] = reps[2];
                    }
                    reps[2] = reps[1];
                }
                reps[1] = reps[0];
                reps[0] = distance;
            }
            len = length!(REP_LEN, pos_state);
            state = if state < 7 { 8 } else { 11 };
        } else {
            reps[3] = reps[2];
            reps[2] = reps[1];
            reps[1] = reps[0];
            len = length!(MATCH_LEN, pos_state);
            state = if state < 7 { 7 } else { 10 };
            // The distance minus 1 (`u32::MAX` is the end marker).
            let slot = tree!(POS_SLOT + (len.min(3) as usize) * 64, 6);
            reps[0] = if slot < 4 {
                slot
            } else {
                let direct_bits = (slot >> 1) - 1;
                let base = (2 | (slot & 1)) << direct_bits;
                if slot < 14 {
                    // `base - slot` is at least 0 for these slots (slot 4: base 4).
                    base + reverse_tree!(POS_SPECIAL + (base - slot) as usize, direct_bits)
                } else {
                    // The middle bits with probability one half, then four modelled ones.
                    let mut high = 0u32;
                    for _ in 0..direct_bits - 4 {
                        range >>= 1;
                        code = code.wrapping_sub(range);
                        let mask = 0u32.wrapping_sub(code >> 31);
                        code = code.wrapping_add(range & mask);
                        normalize!();
                        high = (high << 1).wrapping_add(mask.wrapping_add(1));
                    }
                    base.wrapping_add(high << 4).wrapping_add(reverse_tree!(ALIGN, 4))
                }
            };
            if reps[0] == u32::MAX {
                // The end marker: the range coder must have come out even.
                break Some(if code == 0 { Ok(out.len) } else { Err(Error::Corrupt) });
            }
        }
        if let Err(error) = out.copy(reps[0] as usize + 1, len as usize + 2) {
            break Some(Err(error));
        }
    };
    *progress = Progress { next, range, code, state, reps, len: out.len, props };
    answer
}

/// The output: the bytes written so far are the dictionary.
struct Output<'a> {
    bytes: &'a [AtomicU8],
    len: usize,
}

impl Output<'_> {
    fn push(&mut self, byte: u8) -> Result<(), Error> {
        self.bytes.get(self.len).ok_or(Error::OutputFull)?.store(byte, Relaxed);
        self.len += 1;
        Ok(())
    }

    /// The byte `distance` bytes back (1: the last one written).
    fn back(&self, distance: usize) -> Option<u8> {
        let at = self.len.checked_sub(distance)?;
        self.bytes.get(at).map(|byte| byte.load(Relaxed))
    }

    /// Copies `len` bytes from `distance` back; the copy may overlap what it writes.
    fn copy(&mut self, distance: usize, len: usize) -> Result<(), Error> {
        let from = self.len.checked_sub(distance).ok_or(Error::Distance)?;
        let end = self.len.checked_add(len).ok_or(Error::OutputFull)?;
        if end > self.bytes.len() {
            return Err(Error::OutputFull);
        }
        for at in 0..len {
            let byte = self.bytes.get(from + at).ok_or(Error::Distance)?.load(Relaxed);
            self.bytes.get(self.len + at).ok_or(Error::OutputFull)?.store(byte, Relaxed);
        }
        self.len = end;
        Ok(())
    }
}
