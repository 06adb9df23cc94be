//! A raw-DEFLATE (RFC 1951) decoder, small enough to ship as a wasm module of its own.
//!
//! webmcp-warden's core module ships inside the npm package, deflated and base64-encoded, and is
//! compiled synchronously on a page's first `webmcp()` (pkg-js/src/core.ts). Inflating those
//! ~75 KB in JavaScript that has not run yet took 18–37 ms of the page's main thread (fflate,
//! measured in Chromium; 1.5 ms once the same code was hot). This decoder is compiled wasm from
//! its first byte: the page instantiates it synchronously, writes the deflated core into its
//! memory, and reads the core back a few milliseconds later (docs/behaviour.md, Sizes).
//!
//! Why not a crate: the maintained decoders are built for speed on large streams and for
//! streaming, and the smallest, miniz_oxide's inflate alone, is 22.6 KB of wasm
//! (bench/RESULTS.md); this one is 4 KB (2.9 KB of gzip as the base64 a page downloads, against
//! 2.0 KB for fflate's minified JS), because it does one thing: a whole stream into one buffer,
//! short codes by table lookup, long ones walked bit by bit as RFC 1951 §3.2.2 defines them. It
//! is checked against miniz_oxide on every kind of block (tests/differential.rs, and a fuzz
//! target in fuzz/) and never panics on bad input.
//!
//! Buffers are slices of `AtomicU8`. In the page the input and output live in `static`
//! buffers (src/wasm.rs) that the host writes and reads through the module's memory; atomics
//! are how safe Rust shares a static with a writer it cannot see, and on wasm32 without threads
//! a relaxed atomic load or store is a plain `i32.load8_u` / `i32.store8`.

#![cfg_attr(target_arch = "wasm32", no_std)]

use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

#[cfg(target_arch = "wasm32")]
mod wasm;

/// Why a stream did not decode. The wasm export answers these as negative numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Error {
    /// The input ended inside a block.
    Truncated = -1,
    /// A block header named the reserved block type 3.
    BlockType = -2,
    /// A stored block's length and its one's complement disagree.
    StoredLength = -3,
    /// A dynamic block's code lengths are malformed (over-subscribed, or a repeat with nothing
    /// before it or past the end).
    CodeLengths = -4,
    /// A bit sequence matches no code, or a code stands for a symbol DEFLATE does not use.
    Symbol = -5,
    /// A distance reaches back before the start of the output.
    Distance = -6,
    /// The output buffer is full before the stream ends.
    OutputFull = -7,
    /// The input is larger than the module's input buffer (wasm only).
    InputTooLarge = -8,
}

/// Decodes the raw DEFLATE stream in `input` into `output`; answers the number of bytes written.
/// Bytes after the final block are ignored.
pub fn inflate(input: &[AtomicU8], output: &[AtomicU8]) -> Result<usize, Error> {
    let mut bits = Bits { input, next: 0, buffer: 0, count: 0 };
    let mut out = Output { bytes: output, len: 0 };
    // Built in place for each block: a `Code` is ~2.6 KB, and moving codes around by value
    // made a third of the module memory copies.
    let mut literals = Code::EMPTY;
    let mut distances = Code::EMPTY;
    loop {
        let last = bits.take(1)?;
        match bits.take(2)? {
            0 => stored(&mut bits, &mut out)?,
            1 => {
                fixed_codes(&mut literals, &mut distances)?;
                codes(&mut bits, &mut out, &literals, &distances)?;
            }
            2 => {
                dynamic_codes(&mut bits, &mut literals, &mut distances)?;
                codes(&mut bits, &mut out, &literals, &distances)?;
            }
            _ => return Err(Error::BlockType),
        }
        if last == 1 {
            return Ok(out.len);
        }
    }
}

/// The input, read least significant bit first (RFC 1951 §3.1.1).
#[derive(Clone, Copy)]
struct Bits<'a> {
    input: &'a [AtomicU8],
    /// The next byte to load into `buffer`.
    next: usize,
    /// Loaded bits not yet taken, the next one lowest.
    buffer: u32,
    /// How many bits `buffer` holds: at most 15 + 7.
    count: u32,
}

impl Bits<'_> {
    /// Loads whole bytes until `buffer` holds at least `n` bits or the input ends.
    #[inline(always)]
    fn fill(&mut self, n: u32) {
        while self.count < n {
            let Some(byte) = self.input.get(self.next) else { return };
            self.buffer |= u32::from(byte.load(Relaxed)) << self.count;
            self.next += 1;
            self.count += 8;
        }
    }

    /// Drops the `n` bits at the bottom of `buffer`, which must hold them.
    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buffer >>= n;
        self.count -= n;
    }

    /// The next `n` bits (at most 16) as a number, the first bit lowest.
    fn take(&mut self, n: u32) -> Result<u32, Error> {
        self.fill(n);
        if self.count < n {
            return Err(Error::Truncated);
        }
        let value = self.buffer & ((1 << n) - 1);
        self.consume(n);
        Ok(value)
    }

    /// Skips to the next byte boundary: drops the bits left of the byte last loaded (whole
    /// bytes in `buffer` stay, to be taken first).
    fn align(&mut self) {
        self.consume(self.count % 8);
    }
}

/// The output and how much of it is written.
#[derive(Clone, Copy)]
struct Output<'a> {
    bytes: &'a [AtomicU8],
    len: usize,
}

impl Output<'_> {
    #[inline(always)]
    fn push(&mut self, byte: u8) -> Result<(), Error> {
        self.bytes.get(self.len).ok_or(Error::OutputFull)?.store(byte, Relaxed);
        self.len += 1;
        Ok(())
    }

    /// Copies `length` bytes from `distance` bytes back. The ranges overlap when the distance
    /// is shorter than the length (a run): the copy goes byte by byte, front to back, so it
    /// reads what it has just written, as DEFLATE means. Both ranges are checked once, before
    /// the loop (shared slices of atomics may overlap).
    fn repeat(&mut self, distance: usize, length: usize) -> Result<(), Error> {
        let end = self.len + length;
        let to = self.bytes.get(self.len..end).ok_or(Error::OutputFull)?;
        let start = self.len.checked_sub(distance).ok_or(Error::Distance)?;
        let from = self.bytes.get(start..start + length).ok_or(Error::Distance)?;
        for (from, to) in from.iter().zip(to) {
            to.store(from.load(Relaxed), Relaxed);
        }
        self.len = end;
        Ok(())
    }
}

/// A stored block (RFC 1951 §3.2.4): a length, its complement, and that many bytes as they are.
fn stored(bits: &mut Bits, out: &mut Output) -> Result<(), Error> {
    bits.align();
    let length = bits.take(16)?;
    if length != !bits.take(16)? & 0xffff {
        return Err(Error::StoredLength);
    }
    for _ in 0..length {
        out.push(bits.take(8)? as u8)?;
    }
    Ok(())
}

/// The most symbols a code has: 288 literal/length codes.
const MAX_SYMBOLS: usize = 288;
/// Code lengths run from 1 to 15 bits.
const MAX_BITS: usize = 15;

/// Codes of up to this many bits are decoded with one lookup (most literals and distances are).
const FAST_BITS: u32 = 10;

/// A canonical Huffman code (RFC 1951 §3.2.2): counts per length and the symbols in code order,
/// which is all decoding needs, plus a lookup table for the short codes.
struct Code {
    /// How many codes have each length; `counts[0]` is unused.
    counts: [u16; MAX_BITS + 1],
    /// The symbols, ordered by code length, then by symbol.
    symbols: [u16; MAX_SYMBOLS],
    /// For each pattern of the next `FAST_BITS` bits: `symbol | length << 9` of the code it
    /// starts with, or 0 when that code is longer.
    fast: [u16; 1 << FAST_BITS],
}

impl Code {
    const EMPTY: Code = Code { counts: [0; MAX_BITS + 1], symbols: [0; MAX_SYMBOLS], fast: [0; 1 << FAST_BITS] };

    /// Makes this the code whose symbol `i` has length `lengths[i]` (0: the symbol is not used).
    fn build(&mut self, lengths: &[u8]) -> Result<(), Error> {
        let code = self;
        code.counts = [0; MAX_BITS + 1];
        for &length in lengths {
            *code.counts.get_mut(usize::from(length)).ok_or(Error::CodeLengths)? += 1;
        }
        // Unused symbols have no code. With this zero, the loop below can start at length 0.
        code.counts[0] = 0;
        // `left`: how many codes of this length are still free. An over-subscribed set is not a
        // prefix code; an incomplete one is allowed (a block with a single distance code has one).
        let mut left: i32 = 1;
        let mut offsets = [0u16; MAX_BITS + 1];
        let mut start = 0u16;
        for (&count, offset) in code.counts.iter().zip(offsets.iter_mut()) {
            left -= i32::from(count);
            if left < 0 {
                return Err(Error::CodeLengths);
            }
            left <<= 1;
            *offset = start;
            start += count;
        }
        // The first code of each length (RFC 1951 §3.2.2, step 2).
        let mut next_code = [0u32; MAX_BITS + 1];
        let mut value = 0u32;
        let [_, next_rest @ ..] = &mut next_code;
        for (&count, next) in code.counts.iter().zip(next_rest) {
            value = (value + u32::from(count)) << 1;
            *next = value;
        }
        code.fast = [0; 1 << FAST_BITS];
        for (symbol, &length) in lengths.iter().enumerate() {
            if length == 0 {
                continue;
            }
            let offset = offsets.get_mut(usize::from(length)).ok_or(Error::CodeLengths)?;
            *code.symbols.get_mut(usize::from(*offset)).ok_or(Error::CodeLengths)? = symbol as u16;
            *offset += 1;
            let next = next_code.get_mut(usize::from(length)).ok_or(Error::CodeLengths)?;
            let value = *next;
            *next += 1;
            let length = u32::from(length);
            if length <= FAST_BITS {
                // Bits arrive lowest first and codes are written highest bit first: the table is
                // indexed by the code reversed, under every pattern of the bits that follow it.
                let reversed = value.reverse_bits() >> (32 - length);
                let entry = symbol as u16 | (length as u16) << 9;
                for slot in code.fast.iter_mut().skip(reversed as usize).step_by(1 << length) {
                    *slot = entry;
                }
            }
        }
        Ok(())
    }

    /// Reads one code: a short one with one lookup, inlined where it is called (the lookup is
    /// where inflating spends its time, and a call costs more than it in baseline-compiled wasm:
    /// a page runs this module once, before the engine optimizes it); a longer one, or one at the
    /// very end of the input, in [`Code::decode_slowly`].
    #[inline(always)]
    fn decode(&self, bits: &mut Bits) -> Result<usize, Error> {
        bits.fill(MAX_BITS as u32);
        if let Some(&entry) = self.fast.get((bits.buffer & ((1 << FAST_BITS) - 1)) as usize) {
            let length = u32::from(entry >> 9);
            if length != 0 && length <= bits.count {
                bits.consume(length);
                return Ok(usize::from(entry & 0x1ff));
            }
        }
        let (symbol, length) = self.decode_slowly(bits.buffer, bits.count)?;
        bits.consume(length);
        Ok(symbol)
    }

    /// Reads one code bit by bit from `buffer`, which holds `count` bits: answers the symbol and
    /// the code's length. The codes of each length are consecutive numbers, and a length's codes
    /// start where the shorter ones end, shifted left by one. (By value, not `&mut Bits`, so the
    /// caller's bit reader can live in registers.)
    #[inline(never)]
    fn decode_slowly(&self, mut buffer: u32, count: u32) -> Result<(usize, u32), Error> {
        // `code` is the bits read so far; `first` the first code of this length; `index` where
        // this length's symbols start.
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        let [_, counts @ ..] = &self.counts;
        for (length, &count_of_length) in (1..).zip(counts) {
            code |= (buffer & 1) as i32;
            buffer >>= 1;
            let count_of_length = i32::from(count_of_length);
            if code - first < count_of_length {
                if length > count {
                    return Err(Error::Truncated);
                }
                let symbol = self.symbols.get((index + code - first) as usize).ok_or(Error::Symbol)?;
                return Ok((usize::from(*symbol), length));
            }
            index += count_of_length;
            first = (first + count_of_length) << 1;
            code <<= 1;
        }
        // Past the buffered bits, a walk reads zeros; running out of input is the likelier cause.
        if count < MAX_BITS as u32 {
            return Err(Error::Truncated);
        }
        Err(Error::Symbol)
    }
}

/// The fixed codes of block type 1 (RFC 1951 §3.2.6).
fn fixed_codes(literals: &mut Code, distances: &mut Code) -> Result<(), Error> {
    let mut lengths = [8u8; MAX_SYMBOLS];
    for (symbol, length) in lengths.iter_mut().enumerate() {
        *length = match symbol {
            0..=143 => 8,
            144..=255 => 9,
            256..=279 => 7,
            _ => 8,
        };
    }
    literals.build(&lengths)?;
    distances.build(&[5; 30])
}

/// The order in which a dynamic block lists the code-length code's lengths.
const CODE_LENGTH_ORDER: [u8; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/// The codes a dynamic block (type 2) describes in its header (RFC 1951 §3.2.7).
fn dynamic_codes(bits: &mut Bits, literals: &mut Code, distances: &mut Code) -> Result<(), Error> {
    let literal_count = bits.take(5)? as usize + 257;
    let distance_count = bits.take(5)? as usize + 1;
    let length_count = bits.take(4)? as usize + 4;

    let mut code_length_lengths = [0u8; 19];
    for &symbol in CODE_LENGTH_ORDER.iter().take(length_count) {
        *code_length_lengths.get_mut(usize::from(symbol)).ok_or(Error::CodeLengths)? = bits.take(3)? as u8;
    }
    // The code-length code is built where the literal code goes next: one table less in memory.
    literals.build(&code_length_lengths)?;
    let code_lengths = &*literals;

    // 288 + 32: the most both counts can say, though only 286 and 30 are used.
    let mut lengths = [0u8; MAX_SYMBOLS + 32];
    let total = literal_count + distance_count;
    let mut filled = 0;
    while filled < total {
        let (value, times) = match code_lengths.decode(bits)? {
            symbol @ 0..=15 => (symbol as u8, 1),
            16 => {
                let previous = filled.checked_sub(1).and_then(|i| lengths.get(i)).ok_or(Error::CodeLengths)?;
                (*previous, 3 + bits.take(2)? as usize)
            }
            17 => (0, 3 + bits.take(3)? as usize),
            _ => (0, 11 + bits.take(7)? as usize),
        };
        if filled + times > total {
            return Err(Error::CodeLengths);
        }
        for length in lengths.iter_mut().skip(filled).take(times) {
            *length = value;
        }
        filled += times;
    }
    let (literal_lengths, distance_lengths) = lengths.split_at_checked(literal_count).ok_or(Error::CodeLengths)?;
    literals.build(literal_lengths)?;
    distances.build(distance_lengths.get(..distance_count).ok_or(Error::CodeLengths)?)
}

/// Length symbols 257..=285: the shortest length each stands for, and how many extra bits follow.
const LENGTH_BASE: [u16; 29] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
/// Distance symbols 0..=29: the shortest distance each stands for, and how many extra bits follow.
const DISTANCE_BASE: [u16; 30] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DISTANCE_EXTRA: [u8; 30] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

/// A compressed block's data: literals and (length, distance) pairs until the end-of-block symbol.
fn codes(bits: &mut Bits, out: &mut Output, literals: &Code, distances: &Code) -> Result<(), Error> {
    // On copies, written back at the end: the reader and the output's length then stay in
    // registers through the loop (nothing takes their address), where the originals' fields
    // would be loaded and stored around every byte.
    let (mut local_bits, mut local_out) = (*bits, *out);
    let result = block_data(&mut local_bits, &mut local_out, literals, distances);
    (*bits, *out) = (local_bits, local_out);
    result
}

/// The loop of [`codes`].
#[inline(always)]
fn block_data(bits: &mut Bits, out: &mut Output, literals: &Code, distances: &Code) -> Result<(), Error> {
    loop {
        let symbol = literals.decode(bits)?;
        if symbol < 256 {
            out.push(symbol as u8)?;
            continue;
        }
        if symbol == 256 {
            return Ok(());
        }
        let length = extended(bits, symbol - 257, &LENGTH_BASE, &LENGTH_EXTRA)?;
        let distance_symbol = distances.decode(bits)?;
        let distance = extended(bits, distance_symbol, &DISTANCE_BASE, &DISTANCE_EXTRA)?;
        out.repeat(distance, length)?;
    }
}

/// The length or distance that `symbol` (an index into `base`) and its extra bits stand for.
#[inline(always)]
fn extended(bits: &mut Bits, symbol: usize, base: &[u16], extra: &[u8]) -> Result<usize, Error> {
    let (Some(&base), Some(&extra)) = (base.get(symbol), extra.get(symbol)) else {
        return Err(Error::Symbol);
    };
    // `take`, written out: a call here would hand the block loop's bit reader to another
    // function, and with it out of registers.
    let extra = u32::from(extra);
    bits.fill(extra);
    if bits.count < extra {
        return Err(Error::Truncated);
    }
    let value = bits.buffer & ((1 << extra) - 1);
    bits.consume(extra);
    Ok(usize::from(base) + value as usize)
}
