//! The exports a decoder module of webmcp-warden gives the page, written once for both
//! (`inflate/`, which inflates the embedded core, and `unlzma/`, which decodes the validator).
//!
//! The host writes a stream into `input()`, calls the decode export (or exports), and reads the
//! answer from `output()`. No imports, no allocator: the buffers are statics of `AtomicU8`, zeroed (`.bss`, so
//! they cost the download nothing; on wasm32 without threads a relaxed atomic access is a plain
//! load or store), and the module is thrown away after one use. A panic cannot happen (the
//! decoders check every lookup); were one to, the module traps and the host reports it, as it
//! does any other failure to decode.
#![no_std]

/// Defines the module's input and output buffers (`INPUT`, `OUTPUT`, of `input` and `output`
/// bytes), the `input()` and `output()` exports that tell the host where they are, and the panic
/// handler. The decode exports are the decoder's own ([`decoder_exports!`] adds a one-call one).
#[macro_export]
macro_rules! decoder_buffers {
    (input: $input:expr, output: $output:expr $(,)?) => {
        static INPUT: [::core::sync::atomic::AtomicU8; $input] = [const { ::core::sync::atomic::AtomicU8::new(0) }; $input];
        static OUTPUT: [::core::sync::atomic::AtomicU8; $output] = [const { ::core::sync::atomic::AtomicU8::new(0) }; $output];

        /// Where the host writes the stream: the input buffer, in the module's memory.
        #[allow(unsafe_code)] // `no_mangle` is what exports a function from the module; nothing unsafe runs.
        #[no_mangle]
        pub extern "C" fn input() -> *const ::core::sync::atomic::AtomicU8 {
            INPUT.as_ptr()
        }

        /// Where the host reads the answer after decoding.
        #[allow(unsafe_code)] // as above
        #[no_mangle]
        pub extern "C" fn output() -> *const ::core::sync::atomic::AtomicU8 {
            OUTPUT.as_ptr()
        }

        /// A panic traps the module (see the crate's documentation).
        #[panic_handler]
        fn panic(_: &::core::panic::PanicInfo) -> ! {
            ::core::arch::wasm32::unreachable()
        }
    };
}

/// [`decoder_buffers!`] and one export that decodes a whole stream in one call:
///
/// - `decode`: the decoder, `fn(&[AtomicU8], &[AtomicU8]) -> Result<usize, E>` where `E` is a
///   `#[repr(i32)]` enum of negative codes;
/// - `export`: the name of the decode export;
/// - `too_large`: the `E` answered for a length past the input buffer;
/// - `input` / `output`: the buffers' sizes in bytes.
#[macro_export]
macro_rules! decoder_exports {
    (decode: $decode:path, export: $export:ident, too_large: $too_large:expr, input: $input:expr, output: $output:expr $(,)?) => {
        $crate::decoder_buffers! { input: $input, output: $output }

        /// Decodes the first `length` bytes of `input()` into `output()`: answers the number of
        /// bytes written, or the decoder's error as a negative number.
        #[allow(unsafe_code)] // `no_mangle` is what exports a function from the module; nothing unsafe runs.
        #[no_mangle]
        pub extern "C" fn $export(length: usize) -> isize {
            let answer = match INPUT.get(..length) {
                Some(input) => $decode(input, &OUTPUT),
                None => Err($too_large),
            };
            match answer {
                // At most the output buffer's size, which fits.
                Ok(written) => written as isize,
                Err(error) => error as isize,
            }
        }
    };
}
