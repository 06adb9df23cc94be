//! The module's exports (`warden_decoder_exports`, shared with `unlzma/`): the host writes a
//! deflated stream into `input()`, calls `inflate`, and reads the answer from `output()`.

warden_decoder_exports::decoder_exports! {
    decode: crate::inflate,
    export: inflate,
    too_large: crate::Error::InputTooLarge,
    // The deflated core is ~65 KB.
    input: 512 * 1024,
    // The core is ~170 KB.
    output: 1024 * 1024,
}
