//! The built-in testee's second encode: the request packed one call at a time with
//! [`pmix_codec::Packer`], like successive `PMIx_Data_pack` calls, and each BYTE_OBJECT call
//! from borrowed slices ([`pmix_codec::Packer::pack_byte_objects`], the way a C caller hands
//! over an array of `pmix_byte_object_t`).
//!
//! Both are public encode paths of pmix-codec, documented to give the bytes a whole encode
//! gives (a failure at the same call, with the same status). Without this check a vectors
//! run never reaches the slice-based BYTE_OBJECT packer (issue 23: sample V's mutant of it
//! survived the replay).

use pmix_codec::{Codec, Error, Item};

/// Pack `items` call by call and compare with `whole`, what [`Codec::encode`] gave for
/// them. `Err` says how they differ.
pub fn check(codec: &Codec, items: &[Item], whole: &Result<Vec<u8>, Error>) -> Result<(), String> {
    let mut buf = Vec::new();
    let mut packer = codec.packer(&mut buf);
    let mut failed = None;
    for item in items {
        let r = match item.byte_object_payloads() {
            Some(slices) => packer.pack_byte_objects(&slices),
            None => packer.pack(item),
        };
        if let Err(e) = r {
            failed = Some(e);
            break;
        }
    }
    drop(packer);
    match (whole, failed) {
        (Ok(bytes), None) if *bytes == buf => Ok(()),
        (Ok(bytes), None) => Err(format!(
            "packing call by call gives other bytes than the whole encode: {} bytes where it \
             gives {}, first difference at byte {}",
            buf.len(),
            bytes.len(),
            crate::fieldwalk::first_difference(&buf, bytes)
        )),
        (Ok(_), Some(e)) => Err(format!(
            "packing call by call fails where the whole encode succeeds: {e}"
        )),
        (Err(e), None) => Err(format!(
            "packing call by call succeeds where the whole encode fails: {e}"
        )),
        (Err(w), Some(e)) if (w.status, w.item) == (e.status, e.item) => Ok(()),
        (Err(w), Some(e)) => Err(format!(
            "packing call by call fails otherwise than the whole encode: {e}, where it fails \
             with {w}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Component, DataType, Value};

    #[test]
    fn call_by_call_agrees_and_a_difference_is_reported() {
        let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
        let items = [
            Item::one(Value::proc("ns", 3)),
            Item::new(
                DataType::BYTE_OBJECT,
                vec![
                    Value::ByteObject(vec![1, 2].into()),
                    Value::ByteObject(vec![3].into()),
                ],
            ),
        ];
        let whole = codec.encode(&items);
        assert_eq!(check(&codec, &items, &whole), Ok(()));
        // The whole encode's bytes, one byte short: the check says where they part.
        let mut short = whole.clone().unwrap();
        short.pop();
        let e = check(&codec, &items, &Ok(short)).unwrap_err();
        assert!(e.contains("other bytes than the whole encode"), "{e}");
        // A BYTE_OBJECT item holding a value of another type goes through `pack` and fails
        // there as the whole encode does.
        let mixed = [Item::new(
            DataType::BYTE_OBJECT,
            vec![Value::ByteObject(vec![1].into()), Value::Uint8(7)],
        )];
        let whole = codec.encode(&mixed);
        assert!(whole.is_err());
        assert_eq!(check(&codec, &mixed, &whole), Ok(()));
        let e = check(&codec, &mixed, &Ok(vec![])).unwrap_err();
        assert!(e.contains("fails where the whole encode succeeds"), "{e}");
    }
}
