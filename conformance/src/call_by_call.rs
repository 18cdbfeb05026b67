//! The built-in testee's fourth decode: the request unpacked one call at a time with
//! [`pmix_codec::Unpacker`], like successive `PMIx_Data_unpack` calls, and each BYTE_OBJECT
//! call without copying ([`pmix_codec::Unpacker::unpack_byte_objects`], payloads borrowed
//! from the input).
//!
//! Both are public decode paths of pmix-codec, documented to give what a whole decode gives
//! (errors included, at the same call); after each call the unpacker's offset and the bytes
//! it has left must add up to the input. Without this check a vectors run never reaches the
//! borrowing BYTE_OBJECT reader (issue 23: a mutant of it survived the replay).

use crate::reuse::{agree, Decoded};
use pmix_codec::{DataType, Item, Value};

/// Unpack the request call by call, and compare with what [`pmix_codec::Codec::decode`] gave
/// for it. `Err` says how they differ.
pub fn check(d: Decoded<'_>) -> Result<(), String> {
    let mut unpacker = d.codec.unpacker(d.bytes);
    let mut items = Vec::with_capacity(d.types.len());
    let mut failed = None;
    let mut blobs = Vec::new();
    for &ty in d.types {
        let r = if ty == DataType::BYTE_OBJECT {
            unpacker
                .unpack_byte_objects(usize::MAX, &mut blobs)
                .map(|()| {
                    let values = blobs.iter().map(|b| Value::ByteObject(b.to_vec().into()));
                    Item::new(ty, values.collect())
                })
        } else {
            unpacker.unpack(ty, usize::MAX)
        };
        match r {
            Ok(item) => {
                positions_agree(
                    items.len(),
                    ty,
                    unpacker.offset(),
                    unpacker.remaining(),
                    d.bytes.len(),
                )?;
                items.push(item)
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    let what = "the call-by-call unpack (Unpacker, BYTE_OBJECT borrowed)";
    match &failed {
        Some(e) => agree(what, d.fresh, Err(e)),
        None => agree(what, d.fresh, Ok(&items)),
    }
}

/// The unpacker's two positions (the next unread byte `at`, the bytes `left`) must add up to
/// the input's length `len` after each call: the walk of a failing case prints the first.
fn positions_agree(
    call: usize,
    ty: DataType,
    at: usize,
    left: usize,
    len: usize,
) -> Result<(), String> {
    if at.checked_add(left) == Some(len) {
        return Ok(());
    }
    Err(format!(
        "after the call {call} ({ty}) of {len} bytes, the unpacker says it is at byte {at} with \
         {left} bytes left"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Codec, Component};

    #[test]
    fn call_by_call_agrees_with_the_whole_decode_and_a_difference_is_reported() {
        let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
        let items = [
            Item::one(Value::proc("ns", 3)),
            Item::new(
                DataType::BYTE_OBJECT,
                vec![
                    Value::ByteObject(vec![1, 2].into()),
                    Value::ByteObject(vec![].into()),
                ],
            ),
            Item::one(Value::string("x")),
        ];
        let bytes = codec.encode(&items).unwrap();
        let types = [DataType::PROC, DataType::BYTE_OBJECT, DataType::STRING];
        let fresh = codec.decode(&bytes, &types);
        let d = |bytes, fresh| Decoded {
            codec: &codec,
            bytes,
            types: &types,
            fresh,
        };
        assert_eq!(check(d(&bytes, &fresh)), Ok(()));
        let short = &bytes[..bytes.len() - 1];
        let refused = codec.decode(short, &types);
        assert_eq!(refused.as_ref().map_err(|e| e.item).unwrap_err(), 2);
        assert_eq!(check(d(short, &refused)), Ok(()));
        let e = check(d(short, &fresh)).unwrap_err();
        assert!(e.contains("refused what decode read"), "{e}");
    }

    #[test]
    fn positions_that_do_not_add_up_to_the_input_are_reported() {
        assert_eq!(positions_agree(0, DataType::UINT8, 3, 7, 10), Ok(()));
        assert_eq!(positions_agree(1, DataType::UINT8, 0, 0, 0), Ok(()));
        // An offset stuck at 0 (a mutant of `Reader::offset` survived the replay without this).
        let e = positions_agree(2, DataType::STRING, 0, 7, 10).unwrap_err();
        assert!(
            e.contains("after the call 2 (") && e.contains("at byte 0 with 7 bytes left"),
            "{e}"
        );
        assert!(positions_agree(0, DataType::UINT8, 4, 7, 10).is_err());
        assert!(positions_agree(0, DataType::UINT8, usize::MAX, 1, 0).is_err());
    }
}
