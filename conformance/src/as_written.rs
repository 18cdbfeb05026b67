//! The built-in testee's fifth decode: the request decoded `as_written`
//! ([`pmix_codec::DecodeOptions::as_written`], the bytes as OpenPMIx's packer wrote them,
//! where its own unpacker reads something else) and packed again, which must give the input
//! back. The `as_written` mode exists to prove such round trips (and for tools that show
//! what a peer sent); without this check a vectors run never asks for it (issue 23: mutants
//! of it survived the replay).

use crate::fieldwalk::first_difference;
use crate::reuse::Decoded;
use pmix_codec::{BufferKind, Codec, Component, DataType};

/// Decode `d.bytes` as written and pack the result again. `Err` says how the bytes differ.
/// Checked whenever the as-written decode succeeds, also where the ordinary decode refuses
/// the bytes: that is the mode's purpose (a packer's bytes its own unpacker cannot read,
/// such as 4.2's PROC_STATS, quirk U10). A refusal is the ordinary decode's business. Not
/// checked: values whose packer reads memory past them (quirk D4), bytes no encoder gives.
/// `packed_here`: the bytes are what this codec packed for the request just before, so the
/// as-written decode must read them (a refusal is an error too).
pub fn check(d: Decoded<'_>, packed_here: bool) -> Result<(), String> {
    let mut codec = *d.codec;
    codec.options.as_written = true;
    let items = match codec.decode(d.bytes, d.types) {
        Ok(items) => items,
        Err(e) if packed_here && !packer_loses_values(&codec, d.types) => {
            return Err(format!(
                "the as-written decode refuses bytes this codec packed: {e}"
            ))
        }
        Err(_) => return Ok(()),
    };
    if pmix_codec::quirks::packer_reads_past_values(codec.component.family(), &items) {
        return Ok(());
    }
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

/// Whether `codec`'s packer leaves out what a reader needs for calls of `types`, so that
/// no decode, as written or not, can read its bytes: v12 writes no values of POINTER,
/// INFO_DIRECTIVES and PROC_STATE (quirk P1), and its 1.x type numbers tag a described PROC
/// and POINTER as other types (quirk L1).
fn packer_loses_values(codec: &Codec, types: &[DataType]) -> bool {
    let described = codec.kind == BufferKind::FullyDescribed;
    codec.component == Component::V12
        && types.iter().any(|t| match *t {
            DataType::POINTER | DataType::INFO_DIRECTIVES | DataType::PROC_STATE => true,
            DataType::PROC => described,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{Item, Release, Value};

    /// Decode `bytes` as the testee does, then [`check`] it.
    fn run(codec: &Codec, bytes: &[u8]) -> Result<(), String> {
        run_as(codec, bytes, &[DataType::BOOL], false)
    }

    /// [`check`] `bytes` as `types`, saying whether the codec packed them just before.
    fn run_as(
        codec: &Codec,
        bytes: &[u8],
        types: &[DataType],
        packed_here: bool,
    ) -> Result<(), String> {
        let fresh = codec.decode(bytes, types);
        check(
            Decoded {
                codec,
                bytes,
                types,
                fresh: &fresh,
            },
            packed_here,
        )
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
        // An input neither decode reads is not checked here.
        assert_eq!(run(&codec, &bytes[..bytes.len() - 1]), Ok(()));
    }

    #[test]
    fn bytes_it_packed_must_read_back_as_written() {
        // 4.2's unpacker reads a peak_vsize its packer never wrote (quirk U10): the
        // ordinary decode refuses the packer's bytes, the as-written one reads them back.
        let codec =
            Codec::new(Component::V41, BufferKind::NonDescribed).with_release(Release::OpenPmix4_2);
        let stats = Item::one(Value::ProcStats(Box::default()));
        let bytes = codec.encode(std::slice::from_ref(&stats)).unwrap();
        let types = [DataType::PROC_STATS];
        assert!(codec.decode(&bytes, &types).is_err());
        assert_eq!(run_as(&codec, &bytes, &types, true), Ok(()));
        // Bytes it did not pack may be refused; bytes it packed may not.
        let short = &bytes[..bytes.len() - 1];
        assert_eq!(run_as(&codec, short, &types, false), Ok(()));
        let e = run_as(&codec, short, &types, true).unwrap_err();
        assert!(e.contains("refuses bytes this codec packed"), "{e}");
        // v12 writes no POINTER values (quirk P1): nothing can read them back.
        let v12 = Codec::new(Component::V12, BufferKind::NonDescribed);
        let bytes = v12.encode(&[Item::one(Value::Pointer)]).unwrap();
        assert_eq!(run_as(&v12, &bytes, &[DataType::POINTER], true), Ok(()));
    }
}
