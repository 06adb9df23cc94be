//! The module's exports (`warden_decoder_exports`, shared with `inflate/`): the host writes a
//! stream into `input()`, calls `decode`, and reads the answer from `output()`. The model's
//! probabilities live on the stack (32 KB of the module's 1 MB).

warden_decoder_exports::decoder_exports! {
    decode: crate::decode,
    export: decode,
    too_large: crate::Error::InputTooLarge,
    // The compressed validator is ~80 KB.
    input: 512 * 1024,
    // The validator is ~260 KB.
    output: 1024 * 1024,
}
