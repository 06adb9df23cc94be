//! The module's exports: the host writes a stream into `input()`, calls `start`, then `resume`
//! until it answers something else than [`PENDING`], and reads the answer from `output()`. Between
//! two calls the host lets the page's other tasks run (the asynchronous loads decode in slices of
//! a budget the host picks; the core's first use decodes in one go). No imports, no allocator:
//! the buffers are statics of `AtomicU8`, zeroed (`.bss`, so they cost the download nothing; on
//! wasm32 without threads a relaxed atomic access is a plain load or store), and each decode
//! has an instance of its own, thrown away after it. The model's probabilities and where the
//! decode stands are statics too, as the module keeps them from one call to the next. A panic
//! cannot happen (the decoder checks every lookup); were one to, the module traps and the host
//! reports it, as it does any other failure to decode.

use crate::{resume as resume_stream, start as start_stream, Error, Probabilities, Progress, PROBABILITIES};
use core::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};

/// The largest compressed module the host can write: the largest module the page decodes
/// (the validator build that judges its own patterns) with room to grow.
const INPUT_BYTES: usize = 512 * 1024;
/// The largest module the decoder can write, with room to grow as [`INPUT_BYTES`].
const OUTPUT_BYTES: usize = 1024 * 1024;

static INPUT: [AtomicU8; INPUT_BYTES] = [const { AtomicU8::new(0) }; INPUT_BYTES];
static OUTPUT: [AtomicU8; OUTPUT_BYTES] = [const { AtomicU8::new(0) }; OUTPUT_BYTES];

/// Where the host writes the stream: the input buffer, in the module's memory.
#[allow(unsafe_code)] // `no_mangle` is what exports a function from the module; nothing unsafe runs.
#[no_mangle]
pub extern "C" fn input() -> *const AtomicU8 {
    INPUT.as_ptr()
}

/// Where the host reads the answer after decoding.
#[allow(unsafe_code)] // as above
#[no_mangle]
pub extern "C" fn output() -> *const AtomicU8 {
    OUTPUT.as_ptr()
}

/// A panic traps the module (see the module's documentation).
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
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
