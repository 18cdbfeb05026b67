//! The built-in testee's fifth decode: the request decoded `as_written`
//! ([`pmix_codec::DecodeOptions::as_written`], the bytes as OpenPMIx's packer wrote them,
//! where its own unpacker reads something else) and packed again, which must give the input
//! back. The `as_written` mode exists to prove such round trips (and for tools that show
//! what a peer sent); without this check a vectors run never asks for it (issue 23: mutants
//! of it survived the replay).

use crate::fieldwalk::first_difference;
use crate::reuse::Decoded;

/// Decode `d.bytes` as written and pack the result again. `Err` says how the bytes differ.
/// Only inputs whose ordinary decode succeeded are checked, and only when the as-written
/// decode succeeds too: a refusal is the ordinary decode's business.
pub fn check(d: Decoded<'_>) -> Result<(), String> {
    if d.fresh.is_err() {
        return Ok(());
    }
    let mut codec = *d.codec;
    codec.options.as_written = true;
    let Ok(items) = codec.decode(d.bytes, d.types) else {
        return Ok(());
    };
    match codec.encode(&items) {
        Ok(again) if again == d.bytes => Ok(()),
        Ok(again) => Err(format!(
            "the as-written decode packs back to other bytes: {} bytes, first difference at \
             byte {}",
            again.len(),
            first_difference(&again, d.bytes)
        )),
        Err(e) => Err(format!("the as-written decode does not pack back: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Value};

    /// Decode `bytes` as the testee does, then [`check`] it.
    fn run(codec: &Codec, bytes: &[u8]) -> Result<(), String> {
        let types = [DataType::BOOL];
        let fresh = codec.decode(bytes, &types);
        check(Decoded {
            codec,
            bytes,
            types: &types,
            fresh: &fresh,
        })
    }

    #[test]
    fn an_input_that_does_not_pack_back_is_reported() {
        let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
        let bytes = codec.encode(&[Item::one(Value::Bool(true))]).unwrap();
        assert_eq!(run(&codec, &bytes), Ok(()));
        // A BOOL byte of 2 reads as true, which packs as 1: not the input.
        let mut two = bytes.clone();
        *two.last_mut().unwrap() = 2;
        assert!(codec.decode(&two, &[DataType::BOOL]).is_ok());
        let e = run(&codec, &two).unwrap_err();
        assert!(e.contains("packs back to other bytes"), "{e}");
        // An input the ordinary decode refuses is not checked here.
        assert_eq!(run(&codec, &bytes[..bytes.len() - 1]), Ok(()));
    }
}
