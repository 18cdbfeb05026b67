//! The built-in testee's third decode: the same request narrated to an observer, the way the
//! runner's explanations and `pmix-wire walk` read bytes ([`pmix_codec::Codec::decode_observed`]).
//!
//! The narration is what a failing case shows (the walk, the field where the answers part),
//! so a vectors run judges it too: on every decode request the narrated decode must give the
//! plain decode's result, and its fields must account for the bytes it read, field after
//! field: each starts where the one before ended, from the first byte, and each call's
//! last field ends where the call does. Each field's path must be its own (two
//! fields of one walk never share a path), so the path names the field a failure points at.
//! Without this check a vectors run never builds a walk, and nothing would see a narration
//! that reports wrong lengths or loses its names (issue 23: two such mutants survived).

use crate::reuse::{agree, Decoded};
use pmix_codec::observe::{Field, Meaning, Observer, Path, Seg, TagRole};
use std::collections::HashSet;

/// Decode the request narrated, and check the narration against what
/// [`pmix_codec::Codec::decode`] gave for it and against itself. `Err` says how it fails.
pub fn check(d: Decoded<'_>) -> Result<(), String> {
    let mut heard = Heard::default();
    let narrated = d.codec.decode_observed(d.bytes, Some(d.types), &mut heard);
    agree(
        "the narrated decode",
        d.fresh,
        narrated.as_ref().map(Vec::as_slice),
    )?;
    match heard.problem {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// What a field is, beside its path: a byte object's length and its bytes share a path, and
/// so do v12's two described tags of one integer (its own type's, then its width's).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Int,
    Tag(TagRoleKey, u16),
    StringLength,
    Text,
    Bytes,
    Other,
}

/// [`TagRole`] as a key (it is not `Hash`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct TagRoleKey(u8);

impl Kind {
    fn of(m: &Meaning<'_>) -> Kind {
        match m {
            Meaning::Int { .. } => Kind::Int,
            Meaning::Tag { role, ty, .. } => Kind::Tag(
                TagRoleKey(match role {
                    TagRole::CountTag => 0,
                    TagRole::CallType => 1,
                    TagRole::Described => 2,
                    TagRole::IntTag => 3,
                    TagRole::Type => 4,
                }),
                ty.0,
            ),
            Meaning::StringLength { .. } => Kind::StringLength,
            Meaning::Text { .. } => Kind::Text,
            Meaning::Bytes => Kind::Bytes,
            _ => Kind::Other,
        }
    }
}

/// The observer: where the fields so far end, the (path, kind) of each field of the current
/// call, and the first thing wrong.
#[derive(Default)]
struct Heard {
    end: usize,
    seen: HashSet<(Vec<Seg>, Kind)>,
    problem: Option<String>,
}

impl Observer for Heard {
    fn open(&mut self, _offset: usize, path: Path<'_>) {
        // A call opens at the root: its fields' paths start over.
        if path.0.len() == 1 {
            self.seen.clear();
        }
    }
    fn close(&mut self, offset: usize, path: Path<'_>) {
        // A call ends where its last field ends.
        if path.0.len() == 1 && offset != self.end && self.problem.is_none() {
            self.problem = Some(format!(
                "the narration's fields of the call {path} end at byte {}, the call at byte \
                 {offset}",
                self.end
            ));
        }
    }
    fn field(&mut self, f: &Field<'_>) {
        if f.len == 0 || self.problem.is_some() {
            return;
        }
        if f.offset != self.end {
            self.problem = Some(format!(
                "the narration's field {} starts at byte {}, where the field before it ended \
                 at byte {}",
                f.path, f.offset, self.end
            ));
        } else if !self.seen.insert((f.path.0.to_vec(), Kind::of(&f.meaning))) {
            self.problem = Some(format!(
                "the narration names two fields of one call {}: the second at byte {}",
                f.path, f.offset
            ));
        }
        self.end = f.offset + f.len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::observe::Enc;
    use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Value};

    fn int(offset: usize, len: usize, path: &[Seg]) -> (usize, usize, Vec<Seg>) {
        (offset, len, path.to_vec())
    }

    /// What [`Heard`] makes of these fields, in this order, inside one call.
    fn hear(fields: &[(usize, usize, Vec<Seg>)], call_ends: usize) -> Option<String> {
        let mut h = Heard::default();
        let call = [Seg::Type(DataType::UINT32)];
        h.open(0, Path(&call));
        for (offset, len, path) in fields {
            let meaning = Meaning::Int {
                value: 0,
                enc: Enc::Be32,
            };
            h.field(&Field {
                offset: *offset,
                len: *len,
                path: Path(path),
                meaning,
            });
        }
        h.close(call_ends, Path(&call));
        h.problem
    }

    #[test]
    fn a_real_decode_narrates_cleanly() {
        let codec = Codec::new(Component::V41, BufferKind::FullyDescribed);
        let items = [
            Item::new(
                DataType::PROC,
                vec![Value::proc("ns", 3), Value::proc("mt", 4)],
            ),
            Item::one(Value::string("x")),
        ];
        let bytes = codec.encode(&items).unwrap();
        let types = [DataType::PROC, DataType::STRING];
        let fresh = codec.decode(&bytes, &types);
        let d = |fresh| Decoded {
            codec: &codec,
            bytes: &bytes,
            types: &types,
            fresh,
        };
        assert_eq!(check(d(&fresh)), Ok(()));
        let wrong = Ok(vec![Item::one(Value::string("y"))]);
        let e = check(d(&wrong)).unwrap_err();
        assert!(
            e.contains("the narrated decode disagrees with decode"),
            "{e}"
        );
    }

    #[test]
    fn gaps_overlaps_short_calls_and_shared_paths_are_reported() {
        let t = Seg::Type(DataType::UINT32);
        let (a, b) = ([t, Seg::Index(0)], [t, Seg::Index(1)]);
        assert_eq!(hear(&[int(0, 4, &a), int(4, 4, &b)], 8), None);
        let gap = hear(&[int(0, 4, &a), int(5, 4, &b)], 9).unwrap();
        assert!(gap.contains("starts at byte 5, where the field before it ended at byte 4"));
        let overlap = hear(&[int(0, 4, &a), int(3, 4, &b)], 7).unwrap();
        assert!(overlap.contains("starts at byte 3"), "{overlap}");
        let short = hear(&[int(0, 4, &a)], 8).unwrap();
        assert!(
            short.contains("end at byte 4, the call at byte 8"),
            "{short}"
        );
        let shared = hear(&[int(0, 4, &a), int(4, 4, &a)], 8).unwrap();
        assert!(
            shared.contains("two fields of one call UINT32[0]"),
            "{shared}"
        );
    }
}
