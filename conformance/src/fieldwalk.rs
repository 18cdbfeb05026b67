//! Encode mismatches that name the field: the walk of the expected bytes, with the first
//! field where the testee's bytes differ marked and its path (e.g.
//! `INFO[3].value.PROC.rank`).
//!
//! The walk is the codec's own decoder narrated ([`pmix_codec::observe`]): the expected
//! bytes are decoded with the vector's types under the vector's codec, and each field the
//! decoder reports becomes one line. No second reading of the wire format is involved, so
//! the field named is the one the reference decoder sees at that byte.

use pmix_codec::observe::{Field, Meaning, Observer, TagRole};
use pmix_codec::{Codec, DataType};
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
    let at = expected
        .iter()
        .zip(actual)
        .position(|(e, a)| e != a)
        .unwrap_or(expected.len().min(actual.len()));
    if expected == actual {
        return None;
    }
    let mut walk = Walk::default();
    // A vector whose expected bytes the decoder refuses still has a walk up to that point.
    let _ = codec.decode_observed(expected, Some(types), &mut walk);
    let fields = walk.0;
    // The field holding the byte, or (actual goes on past the expected end) the last one.
    let k = fields
        .iter()
        .position(|f| f.offset <= at && at < f.offset + f.len)
        .or_else(|| {
            (at >= expected.len())
                .then(|| fields.len().checked_sub(1))
                .flatten()
        })?;
    let first = k.saturating_sub(BEFORE);
    let last = (k + AFTER + 1).min(fields.len());
    let mut lines = Vec::new();
    if first > 0 {
        lines.push(format!("   ... {first} field(s) before"));
    }
    for (i, f) in fields.iter().enumerate().take(last).skip(first) {
        let hex: String = expected[f.offset..f.offset + f.len]
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
        let mark = if i == k { ">>" } else { "  " };
        let note = if i == k {
            match (expected.get(at), actual.get(at)) {
                (Some(e), Some(a)) => {
                    format!("   <- first difference, byte {at}: expected {e:02x}, got {a:02x}")
                }
                (Some(_), None) => format!("   <- the actual bytes end at byte {at}"),
                (None, _) => format!("   <- the actual bytes go on past byte {at}"),
            }
        } else {
            String::new()
        };
        lines.push(format!(
            "{mark}{:>5}  {hex:<38}  {} = {}{note}",
            f.offset, f.path, f.value
        ));
    }
    if last < fields.len() {
        lines.push(format!("   ... {} field(s) after", fields.len() - last));
    }
    Some(EncodeDiff {
        offset: at,
        field: fields[k].clone(),
        walk: lines,
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
}
