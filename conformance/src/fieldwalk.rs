//! Encode mismatches that name the field: the walk of the expected bytes, with the first
//! field where the testee's bytes differ marked and its path (e.g.
//! `INFO[3].value.PROC.rank`).
//!
//! The walk is the codec's own decoder narrated ([`pmix_codec::observe`]): the expected
//! bytes are decoded with the vector's types under the vector's codec, and each field the
//! decoder reports becomes one line. No second reading of the wire format is involved, so
//! the field named is the one the reference decoder sees at that byte.

use pmix_codec::observe::{Field, Meaning, Observer, TagRole};
use pmix_codec::{Codec, DataType, Item};
use serde::Serialize;

/// One field of the expected bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WalkField {
    /// Offset of its first byte.
    pub offset: usize,
    /// How many bytes it takes.
    pub len: usize,
    /// Its path, with what the field is when the path alone does not say (`length`,
    /// `int tag`, ...).
    pub path: String,
    /// Its value as the decoder read it.
    pub value: String,
}

/// Where an encode mismatch is, field by field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EncodeDiff {
    /// The first differing byte.
    pub offset: usize,
    /// The field of the expected bytes that holds it.
    pub field: WalkField,
    /// The lines of the walk around it (the marked field with `>>`).
    pub walk: Vec<String>,
}

impl EncodeDiff {
    /// Text lines shown under the failure (console, JUnit).
    pub fn lines(&self) -> String {
        format!(
            "first differing field: {} (bytes {}..{} of the expected)\nwalk of the expected bytes:\n{}",
            self.field.path,
            self.field.offset,
            self.field.offset + self.field.len,
            self.walk.join("\n")
        )
    }
}

/// Fields shown before and after the marked one.
const BEFORE: usize = 10;
const AFTER: usize = 3;

#[derive(Default)]
struct Walk(Vec<WalkField>);

impl Observer for Walk {
    fn field(&mut self, f: &Field<'_>) {
        if f.len == 0 {
            return;
        }
        let (suffix, value) = match f.meaning {
            Meaning::Int { value, .. } => ("", value.to_string()),
            Meaning::Tag { ty, role, .. } => (
                match role {
                    TagRole::IntTag => " int tag",
                    TagRole::Described => " desc tag",
                    TagRole::CountTag => " count tag",
                    TagRole::CallType => " type tag",
                    TagRole::Type => "",
                },
                ty.name().map(str::to_string).unwrap_or(ty.0.to_string()),
            ),
            Meaning::StringLength { len, .. } => (" length", len.to_string()),
            Meaning::Text { text } => ("", format!("{:?}", String::from_utf8_lossy(text))),
            Meaning::Bytes => ("", format!("{} bytes", f.len)),
            _ => ("", String::new()),
        };
        self.0.push(WalkField {
            offset: f.offset,
            len: f.len,
            path: format!("{}{suffix}", f.path),
            value,
        });
    }
}

/// Explain why `actual` is not `expected` (the bytes of `types` under `codec`): the first
/// differing byte, the expected field that holds it, and the walk around it. `None` when the
/// bytes are equal or the expected bytes do not decode (then the byte offset is all there
/// is to say).
pub fn explain(
    codec: &Codec,
    types: &[DataType],
    expected: &[u8],
    actual: &[u8],
) -> Option<EncodeDiff> {
    if expected == actual {
        return None;
    }
    let at = first_difference(expected, actual);
    let note = match (expected.get(at), actual.get(at)) {
        (Some(e), Some(a)) => {
            format!("   <- first difference, byte {at}: expected {e:02x}, got {a:02x}")
        }
        (Some(_), None) => format!("   <- the actual bytes end at byte {at}"),
        (None, _) => format!("   <- the actual bytes go on past byte {at}"),
    };
    let (field, walk) = marked_walk(codec, types, expected, at, &note)?;
    Some(EncodeDiff {
        offset: at,
        field,
        walk,
    })
}

/// The first byte where `a` and `b` differ (the shorter one's length when one is a prefix).
pub(crate) fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// The walk of `bytes` (decoded as `types` under `codec`) around byte `at`, the field that
/// holds it marked `>>` with `note`: the field holding the byte, else (past the fields the
/// decoder reported) the last one before it.
fn marked_walk(
    codec: &Codec,
    types: &[DataType],
    bytes: &[u8],
    at: usize,
    note: &str,
) -> Option<(WalkField, Vec<String>)> {
    let mut walk = Walk::default();
    // Bytes the decoder refuses still have a walk up to that point.
    let _ = codec.decode_observed(bytes, Some(types), &mut walk);
    let fields = walk.0;
    let k = fields
        .iter()
        .position(|f| f.offset <= at && at < f.offset + f.len)
        .or_else(|| fields.iter().rposition(|f| f.offset <= at))?;
    let first = k.saturating_sub(BEFORE);
    let last = (k + AFTER + 1).min(fields.len());
    let mut lines = Vec::new();
    if first > 0 {
        lines.push(format!("   ... {first} field(s) before"));
    }
    for (i, f) in fields.iter().enumerate().take(last).skip(first) {
        let hex: String = bytes[f.offset..f.offset + f.len]
            .iter()
            .take(12)
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ");
        let hex = if f.len > 12 {
            format!("{hex} ...")
        } else {
            hex
        };
        let (mark, note) = if i == k { (">>", note) } else { ("  ", "") };
        lines.push(format!(
            "{mark}{:>5}  {hex:<38}  {} = {}{note}",
            f.offset, f.path, f.value
        ));
    }
    if last < fields.len() {
        lines.push(format!("   ... {} field(s) after", fields.len() - last));
    }
    Some((fields[k].clone(), lines))
}

/// Where a decode answer parts from the expectation, on the bytes decoded: the byte, the
/// field of the input that holds it, and the codec's walk of the input with it marked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DecodeDiff {
    /// The byte of the input where the answer and the expectation part.
    pub offset: usize,
    /// The field of the input that holds it, as the codec reads it.
    pub field: WalkField,
    /// What happens there (the answer reads other values, refuses, or the reference
    /// refuses).
    pub what: String,
    /// The lines of the walk around it (the marked field with `>>`).
    pub walk: Vec<String>,
    /// `input` when the walk is of the vector's input bytes; `expectation` when the
    /// expected values re-encode to other bytes (a lossy vector) and those are walked.
    pub basis: String,
}

impl DecodeDiff {
    /// Text lines shown under the failure (console, JUnit).
    pub fn lines(&self) -> String {
        let of = if self.basis == "input" {
            "the input"
        } else {
            "the expectation re-encoded"
        };
        format!(
            "{} at byte {} of {of}, in {} (bytes {}..{})\nwalk of {of}:\n{}",
            self.what,
            self.offset,
            self.field.path,
            self.field.offset,
            self.field.offset + self.field.len,
            self.walk.join("\n")
        )
    }
}

/// The bytes the walk is over: the input when the expectation re-encodes to it, else the
/// expectation re-encoded (`None` when it does not encode).
fn basis(codec: &Codec, input: &[u8], want: &[Item]) -> Option<(Vec<u8>, &'static str)> {
    let exp = codec.encode(want).ok()?;
    Some(if exp == input {
        (exp, "input")
    } else {
        (exp, "expectation")
    })
}

/// A decode answer `got` that is not the expectation `want` (of `input`, read as `types`):
/// both are re-encoded by `codec`, and the first byte where they part is marked on the
/// walk. `None` when either does not encode or they encode alike.
pub fn explain_decode_values(
    codec: &Codec,
    types: &[DataType],
    input: &[u8],
    want: &[Item],
    got: &[Item],
) -> Option<DecodeDiff> {
    let (bytes, basis) = basis(codec, input, want)?;
    let act = codec.encode(got).ok()?;
    if act == bytes {
        return None;
    }
    let at = first_difference(&bytes, &act);
    let note = match (bytes.get(at), act.get(at)) {
        (Some(e), Some(a)) => format!(
            "   <- the answer parts here: byte {at} is {e:02x}, the answer re-encoded has {a:02x}"
        ),
        (Some(_), None) => format!("   <- the answer ends here (byte {at})"),
        (None, _) => format!("   <- the answer goes on past byte {at}"),
    };
    let (field, walk) = marked_walk(codec, types, &bytes, at, &note)?;
    Some(DecodeDiff {
        offset: at,
        what: "the answer reads other values".into(),
        field,
        walk,
        basis: basis.into(),
    })
}

/// A decode the testee refused at call `call` although the expectation `want` reads on:
/// the walk of the input with the first field of that call marked.
pub fn explain_decode_refusal(
    codec: &Codec,
    types: &[DataType],
    input: &[u8],
    want: &[Item],
    call: usize,
) -> Option<DecodeDiff> {
    let (bytes, basis) = basis(codec, input, want)?;
    let at = codec.encode(want.get(..call)?).ok()?.len();
    let note = format!("   <- the testee refuses call {call}, which starts here (byte {at})");
    let (field, walk) = marked_walk(codec, types, &bytes, at, &note)?;
    Some(DecodeDiff {
        offset: at,
        what: format!("the answer refuses call {call}"),
        field,
        walk,
        basis: basis.into(),
    })
}

/// Bytes the vector says must be refused: where the codec (the reference) refuses them,
/// marked on its walk of the input. `None` when the codec reads them.
pub fn explain_reference_refusal(
    codec: &Codec,
    types: &[DataType],
    input: &[u8],
) -> Option<DecodeDiff> {
    let e = codec.decode(input, types).err()?;
    let name = e
        .status
        .name()
        .map(|n| format!("PMIX_{n}"))
        .unwrap_or_else(|| e.status.0.to_string());
    let note = format!("   <- the reference refuses here: {name} ({})", e.reason);
    let (field, walk) = marked_walk(codec, types, input, e.offset, &note)?;
    Some(DecodeDiff {
        offset: e.offset,
        what: format!("the reference refuses call {} ({name})", e.item),
        field,
        walk,
        basis: "input".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Component, Info, Item, Value};

    #[test]
    fn the_first_differing_field_is_named_with_its_path() {
        let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
        let items = [Item::new(
            DataType::INFO,
            (0..4)
                .map(|i| Value::Info(Box::new(Info::new(&format!("k{i}"), Value::proc("ns", 7)))))
                .collect(),
        )];
        let expected = codec.encode(&items).unwrap();
        let mut actual = expected.clone();
        let last = actual.len() - 1;
        actual[last] = 9; // the last rank
        let d = explain(&codec, &[DataType::INFO], &expected, &actual).unwrap();
        assert_eq!(d.offset, last);
        assert_eq!(d.field.path, "INFO[3].value.PROC.rank");
        assert_eq!(d.field.value, "7");
        let marked: Vec<&String> = d.walk.iter().filter(|l| l.starts_with(">>")).collect();
        assert_eq!(marked.len(), 1);
        assert!(
            marked[0].contains("INFO[3].value.PROC.rank = 7"),
            "{marked:?}"
        );
        assert!(marked[0].contains("expected 07, got 09"), "{marked:?}");
        // Shorter actual bytes: the field where they end.
        let d = explain(&codec, &[DataType::INFO], &expected, &expected[..last]).unwrap();
        assert_eq!(d.field.path, "INFO[3].value.PROC.rank");
        assert!(explain(&codec, &[DataType::INFO], &expected, &expected).is_none());
    }

    #[test]
    fn a_refused_call_is_marked_where_it_starts() {
        let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
        let want = [Item::one(Value::Uint8(7)), Item::one(Value::proc("ns", 3))];
        let wire = codec.encode(&want).unwrap();
        let types = [DataType::UINT8, DataType::PROC];
        let d = explain_decode_refusal(&codec, &types, &wire, &want, 1).unwrap();
        // call 0 is `02 07`: call 1 starts at byte 2 with its count
        assert_eq!(d.offset, 2);
        assert_eq!(d.field.offset, 2);
        assert_eq!(d.basis, "input");
        assert!(
            d.lines()
                .contains("the answer refuses call 1 at byte 2 of the input"),
            "{}",
            d.lines()
        );
        // values read otherwise: the rank's byte
        let got = [Item::one(Value::Uint8(7)), Item::one(Value::proc("ns", 4))];
        let d = explain_decode_values(&codec, &types, &wire, &want, &got).unwrap();
        assert_eq!(d.offset, wire.len() - 1);
        assert_eq!(d.field.path, "PROC[0].rank");
        // the reference's own refusal of a cut input
        let d = explain_reference_refusal(&codec, &types, &wire[..4]).unwrap();
        assert!(d.what.contains("refuses call 1"), "{}", d.what);
        assert!(d.walk.iter().any(|l| l.starts_with(">>")));
    }
}
