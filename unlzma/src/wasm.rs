//! The module's exports: the host writes a stream into `input()`, calls `start`, then `resume`
//! until it answers something else than [`PENDING`], and reads the answer from `output()`. Between
//! two calls the host lets the page's other tasks run: a validator takes the decoder ~10 ms, in
//! slices of a budget the host picks. The buffers and `input()` / `output()` are shared with
//! `inflate/` (`warden_decoder_exports`); the model's probabilities and where the decode stands
//! are statics too, as the module keeps them from one call to the next.

use crate::{resume as resume_stream, start as start_stream, Error, Probabilities, Progress, PROBABILITIES};
use core::sync::atomic::{AtomicU16, AtomicU32, Ordering::Relaxed};

warden_decoder_exports::decoder_buffers! {
    // The compressed validator is ~80 KB.
    input: 512 * 1024,
    // The validator is ~260 KB.
    output: 1024 * 1024,
}

/// `resume`'s answer when it stopped at its budget: call it again.
pub const PENDING: isize = -100;

static PROBS: Probabilities = [const { AtomicU16::new(0) }; PROBABILITIES];

/// The stream's length, then [`Progress`], field by field.
static SAVED: [AtomicU32; 12] = [const { AtomicU32::new(0) }; 12];

fn save(length: usize, p: &Progress) {
    let [r0, r1, r2, r3] = p.reps;
    let words = [length as u32, p.next as u32, p.range, p.code, p.state as u32, r0, r1, r2, r3, p.len as u32, p.props, 0];
    for (slot, word) in SAVED.iter().zip(words) {
        slot.store(word, Relaxed);
    }
}

fn load() -> (usize, Progress) {
    let word = |at: usize| SAVED.get(at).map_or(0, |slot| slot.load(Relaxed));
    let progress = Progress {
        next: word(1) as usize,
        range: word(2),
        code: word(3),
        state: word(4) as usize,
        reps: [word(5), word(6), word(7), word(8)],
        len: word(9) as usize,
        props: word(10),
    };
    (word(0) as usize, progress)
}

/// Starts decoding the first `length` bytes of `input()`: `0`, or an [`Error`] as a negative
/// number.
#[allow(unsafe_code)] // `no_mangle` is what exports a function from the module; nothing unsafe runs.
#[no_mangle]
pub extern "C" fn start(length: usize) -> isize {
    let Some(input) = INPUT.get(..length) else { return Error::InputTooLarge as isize };
    match start_stream(input, &PROBS) {
        Ok(progress) => {
            save(length, &progress);
            0
        }
        Err(error) => error as isize,
    }
}

/// Goes on decoding for at most `budget` more output bytes: [`PENDING`], the number of bytes
/// written once the stream ended, or an [`Error`] as a negative number.
#[allow(unsafe_code)] // as above
#[no_mangle]
pub extern "C" fn resume(budget: usize) -> isize {
    let (length, mut progress) = load();
    let Some(input) = INPUT.get(..length) else { return Error::InputTooLarge as isize };
    let answer = resume_stream(&mut progress, input, &OUTPUT, &PROBS, budget);
    save(length, &progress);
    match answer {
        None => PENDING,
        // At most the output buffer's size, which fits.
        Some(Ok(written)) => written as isize,
        Some(Err(error)) => error as isize,
    }
}
