//! The built-in testee decodes twice: as a fresh decode ([`Codec::decode`], whose result it
//! answers with) and as a receive loop that reuses its memory would ([`Codec::decode_into`]
//! into values left over from earlier requests), and requires both to agree.
//!
//! A vendor's testee that keeps one buffer of values and decodes message after message into
//! it is a real implementation of the wire format; so is pmix-codec's `decode_into`, which
//! overwrites the strings, byte objects, PROCs and INFOs already in place instead of
//! allocating new ones. A fresh decode never reaches that code, so without this second decode
//! a vectors run could not judge it (issue 23: two mutants of it survived the replay).
//!
//! [`ReusePool`] keeps, per data type, the values the last request of that type decoded to;
//! the next call of the same type starts from them, so every decode vector is read over the
//! values of an earlier vector: longer, shorter and equally long runs, values of other
//! shapes (a VALUE's payload of another type) and of other components.

use pmix_codec::json;
use pmix_codec::{Codec, DataType, Error, Item, Value};
use std::collections::HashMap;

/// The values left over from earlier decodes, one run per data type (memory bounded by one
/// decoded call per type).
#[derive(Debug, Default)]
pub struct ReusePool {
    by_type: HashMap<DataType, Vec<Value>>,
}

impl ReusePool {
    /// Decode `bytes` as `types` with [`Codec::decode_into`] into the values left over from
    /// earlier decodes (each call starts from the last values of its type), and compare the
    /// result with `fresh`, what [`Codec::decode`] gave for the same request: the same items,
    /// or a refusal with the same status at the same call. `Err` says how they differ.
    /// Whatever `decode_into` left behind becomes the pool for the next request.
    pub fn check(
        &mut self,
        codec: &Codec,
        bytes: &[u8],
        types: &[DataType],
        fresh: &Result<Vec<Item>, Error>,
    ) -> Result<(), String> {
        let mut out: Vec<Item> = types
            .iter()
            .map(|t| Item::new(*t, self.by_type.remove(t).unwrap_or_default()))
            .collect();
        let reused: Vec<usize> = out.iter().map(|i| i.values.len()).collect();
        let into = codec.decode_into(bytes, types, &mut out);
        let verdict = compare(fresh, &into, &out, &reused);
        for item in out {
            self.by_type.insert(item.ty, item.values);
        }
        verdict
    }
}

/// `decode`'s result against `decode_into`'s (`into`, leaving `out`); `reused` is how many
/// values each call started from.
fn compare(
    fresh: &Result<Vec<Item>, Error>,
    into: &Result<(), Error>,
    out: &[Item],
    reused: &[usize],
) -> Result<(), String> {
    let over = format!("decode_into over {reused:?} earlier values per call");
    agree(&over, fresh, into.as_ref().map(|()| out))
}

/// One decode request as the built-in testee's cross-checks see it ([`crate::narration`],
/// [`crate::call_by_call`]): the codec, the input, the unpack types, and what
/// [`Codec::decode`] gave for them.
#[derive(Clone, Copy, Debug)]
pub struct Decoded<'a> {
    /// The codec of the request.
    pub codec: &'a Codec,
    /// The input bytes.
    pub bytes: &'a [u8],
    /// The unpack calls' types.
    pub types: &'a [DataType],
    /// What [`Codec::decode`] gave.
    pub fresh: &'a Result<Vec<Item>, Error>,
}

/// `decode`'s result (`fresh`) against another decode's of the same request (`other`, named
/// `what` in the message): the same items, or a refusal with the same status at the same call.
pub(crate) fn agree(
    what: &str,
    fresh: &Result<Vec<Item>, Error>,
    other: Result<&[Item], &Error>,
) -> Result<(), String> {
    match (fresh, other) {
        (Ok(items), Ok(out)) if same_items(items, out) => Ok(()),
        (Ok(items), Ok(out)) => Err(format!(
            "{what} disagrees with decode: decode gave {}, {what} {}",
            json::items_to_json(items),
            json::items_to_json(out)
        )),
        (Ok(_), Err(e)) => Err(format!(
            "{what} refused what decode read: status {} at call {} ({})",
            e.status.0, e.item, e.reason
        )),
        (Err(e), Ok(out)) => Err(format!(
            "{what} read what decode refused (status {} at call {}): {}",
            e.status.0,
            e.item,
            json::items_to_json(out)
        )),
        (Err(f), Err(i)) if f.status == i.status && f.item == i.item => Ok(()),
        (Err(f), Err(i)) => Err(format!(
            "{what} refused differently from decode: status {} at call {} ({}), decode {} at \
             call {} ({})",
            i.status.0, i.item, i.reason, f.status.0, f.item, f.reason
        )),
    }
}

/// The same items: equal values, or (floats: NaN is not equal to itself) the same JSON.
fn same_items(a: &[Item], b: &[Item]) -> bool {
    a == b || json::items_to_json(a) == json::items_to_json(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Component};

    fn codec() -> Codec {
        Codec::new(Component::V41, BufferKind::NonDescribed)
    }

    fn bytes_of(v: Vec<Value>, ty: DataType) -> Vec<u8> {
        codec().encode(&[Item::new(ty, v)]).expect("encodes")
    }

    #[test]
    fn each_request_starts_from_the_last_values_of_its_type() {
        let mut pool = ReusePool::default();
        let c = codec();
        let ty = DataType::BYTE_OBJECT;
        let obj = |b: &[u8]| Value::ByteObject(b.to_vec().into());
        for run in [
            vec![obj(b"abc"), obj(b"de")],
            vec![obj(b"xy"), obj(b""), obj(b"longer one")],
            vec![obj(b"q")],
        ] {
            let wire = bytes_of(run.clone(), ty);
            let fresh = c.decode(&wire, &[ty]);
            assert_eq!(pool.check(&c, &wire, &[ty], &fresh), Ok(()));
            assert_eq!(pool.by_type[&ty], run, "the pool keeps the last values");
        }
    }

    #[test]
    fn a_disagreement_is_reported() {
        let mut pool = ReusePool::default();
        let c = codec();
        let ty = DataType::STRING;
        let wire = bytes_of(vec![Value::string("one")], ty);
        let wrong: Result<Vec<Item>, Error> = Ok(vec![Item::new(ty, vec![Value::string("two")])]);
        let e = pool.check(&c, &wire, &[ty], &wrong).unwrap_err();
        assert!(e.contains("disagrees with decode"), "{e}");
        let refused = c.decode(&wire[..3], &[ty]);
        assert!(refused.is_err());
        let e = pool.check(&c, &wire, &[ty], &refused).unwrap_err();
        assert!(e.contains("read what decode refused"), "{e}");
        assert_eq!(pool.check(&c, &wire[..3], &[ty], &refused), Ok(()));
    }
}
