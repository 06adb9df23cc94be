//! The module's exports: the host writes a stream into `input()`, calls `decode`, and reads the
//! answer from `output()`. No imports, no allocator: the buffers are statics, zeroed (`.bss`, so
//! they cost the download nothing), the model's probabilities live on the stack (32 KB of the
//! module's 1 MB), and the module is thrown away after one use.

use crate::{decode as decode_stream, Error};
use core::sync::atomic::AtomicU8;

/// The largest stream the module takes: the compressed validator is ~80 KB.
const INPUT_CAPACITY: usize = 512 * 1024;
/// The largest output: the validator is ~260 KB.
const OUTPUT_CAPACITY: usize = 1024 * 1024;

static INPUT: [AtomicU8; INPUT_CAPACITY] = [const { AtomicU8::new(0) }; INPUT_CAPACITY];
static OUTPUT: [AtomicU8; OUTPUT_CAPACITY] = [const { AtomicU8::new(0) }; OUTPUT_CAPACITY];

/// Where the host writes the stream: `INPUT_CAPACITY` bytes of the module's memory.
#[allow(unsafe_code)] // `no_mangle` is what exports a function from the module; nothing unsafe runs.
#[no_mangle]
pub extern "C" fn input() -> *const AtomicU8 {
    INPUT.as_ptr()
}

/// Where the host reads the answer after `decode`.
#[allow(unsafe_code)] // as above
#[no_mangle]
pub extern "C" fn output() -> *const AtomicU8 {
    OUTPUT.as_ptr()
}

/// Decodes the first `length` bytes of `input()` into `output()`: answers the number of bytes
/// written, or an [`Error`] as a negative number.
#[allow(unsafe_code)] // as above
#[no_mangle]
pub extern "C" fn decode(length: usize) -> isize {
    let answer = match INPUT.get(..length) {
        Some(input) => decode_stream(input, &OUTPUT),
        None => Err(Error::InputTooLarge),
    };
    match answer {
        // At most OUTPUT_CAPACITY, which fits.
        Ok(written) => written as isize,
        Err(error) => error as isize,
    }
}

/// A panic cannot happen (every lookup is checked); were one to, the module traps and the host
/// reports it, as it does any other failure to decode.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}
