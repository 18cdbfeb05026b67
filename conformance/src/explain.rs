//! Failures that explain themselves (issue 16, item 3): where a decode result first differs
//! from the expectation (the path of the field, both values there), and what an invalid
//! vector's input and expected refusal were.
//!
//! A [`Explanation`] is kept per failing case in the report ([`crate::report::Report`]'s
//! `explanations`, in `--json`) and rendered as text lines under the failure on the console
//! and in JUnit ([`Explanation::lines`]).

use crate::status_mode::{status_name, StatusClass, StatusMode};
use pmix_codec::Status;
use serde::Serialize;
use serde_json::Value as J;

/// Why a case failed, in more detail than its expected/actual lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Explanation {
    /// Decode gave other values: the first field (in document order) where they differ.
    DecodeField(FieldDiff),
    /// An invalid vector was not refused as expected.
    InvalidInput(InvalidInput),
    /// Encode gave other bytes: the expected field holding the first differing byte, and
    /// the walk of the expected bytes around it ([`crate::fieldwalk`]).
    EncodeField(crate::fieldwalk::EncodeDiff),
    /// A valid vector's decode was refused: the call refused, marked on the walk of the
    /// input ([`crate::fieldwalk::explain_decode_refusal`]).
    DecodeRefusal(crate::fieldwalk::DecodeDiff),
}

/// The first differing field of two JSON values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldDiff {
    /// Where, from the root: `[0].values[3].value.value.rank` (array indices in brackets,
    /// object keys after dots, keys that are not identifiers as `["a key"]`).
    pub path: String,
    /// The expected value there (`null` with `expected_absent` when it has none).
    pub expected: J,
    /// The actual value there.
    pub actual: J,
    /// The expected side has nothing at `path` (an extra element or key).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub expected_absent: bool,
    /// The actual side has nothing at `path` (a missing element or key).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub actual_absent: bool,
    /// Where in the input bytes the answer parts from the expectation, with the codec's
    /// walk of the input ([`crate::fieldwalk::explain_decode_values`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<crate::fieldwalk::DecodeDiff>,
}

/// An invalid vector's input and the refusal it expects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InvalidInput {
    /// `encode` (the input is `items`) or `decode` (the input is `hex`).
    pub phase: String,
    /// Decode: the input bytes, lowercase hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// Encode: the items the packer was asked to pack.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<J>,
    /// The expected refusal.
    pub expected: Refusal,
    /// What the implementation did: a refusal, or `None` when it succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Refusal>,
    /// Why the input is refused: the vector's comment (e.g. `truncated INFO: 5 of 9 bytes`).
    pub reason: String,
    /// The quirk that decides the expected status, if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quirk: Option<String>,
    /// Decode: where the reference codec refuses the input, marked on its walk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walk: Option<crate::fieldwalk::DecodeDiff>,
    /// The `--status` mode the refusal was judged in.
    pub status_mode: StatusMode,
}

/// A refusal: a PMIx status at a pack/unpack call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// The numeric `pmix_status_t`.
    pub status: i32,
    /// Its name (`PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its class (`crate::status_mode::StatusClass`).
    pub class: StatusClass,
    /// The 0-based call that returned it.
    pub call: usize,
}

impl Refusal {
    /// `status` at call `call`.
    pub fn new(status: i32, call: usize) -> Refusal {
        Refusal {
            status,
            name: Status(status).name().map(|n| format!("PMIX_{n}")),
            class: StatusClass::of(Status(status)),
            call,
        }
    }

    fn text(&self) -> String {
        format!(
            "{} at call {} (class {})",
            status_name(self.status),
            self.call,
            self.class
        )
    }
}

/// Longest value shown on one console line (JSON and `--junit` show it whole).
const SHOWN: usize = 160;
/// Most input bytes shown on the console.
const SHOWN_BYTES: usize = 256;

fn shown(v: &J, absent: bool) -> String {
    if absent {
        return "(absent)".into();
    }
    let s = v.to_string();
    if s.chars().count() <= SHOWN {
        s
    } else {
        format!("{}…", s.chars().take(SHOWN).collect::<String>())
    }
}

impl FieldDiff {
    /// `<path> = <expected>` and `<path> = <actual>`, for the expected/actual lines.
    pub fn sides(&self) -> (String, String) {
        (
            format!(
                "{} = {}",
                self.path,
                shown(&self.expected, self.expected_absent)
            ),
            format!(
                "{} = {}",
                self.path,
                shown(&self.actual, self.actual_absent)
            ),
        )
    }
}

impl Explanation {
    /// Text lines shown under the failure (console, JUnit).
    pub fn lines(&self) -> String {
        match self {
            Explanation::EncodeField(e) => e.lines(),
            Explanation::DecodeRefusal(d) => d.lines(),
            Explanation::DecodeField(d) => {
                let field = format!(
                    "first differing field: {} (everything before it in the decoded items is equal)",
                    d.path
                );
                match &d.bytes {
                    Some(b) => format!("{field}\n{}", b.lines()),
                    None => field,
                }
            }
            Explanation::InvalidInput(x) => {
                let input = match (&x.hex, &x.items) {
                    (Some(h), _) => {
                        let n = h.len() / 2;
                        if n > SHOWN_BYTES {
                            format!(
                                "input: {}… ({n} bytes; all of them in --json)",
                                &h[..2 * SHOWN_BYTES]
                            )
                        } else {
                            format!(
                                "input: {} ({n} bytes)",
                                if h.is_empty() { "(empty)" } else { h }
                            )
                        }
                    }
                    (None, Some(i)) => format!("input: items {}", shown(i, false)),
                    (None, None) => "input: (none)".into(),
                };
                let quirk = x
                    .quirk
                    .as_deref()
                    .map(|q| format!("; quirk {q}"))
                    .unwrap_or_default();
                let actual = match &x.actual {
                    Some(a) => a.text(),
                    None => "success".into(),
                };
                let walk = x
                    .walk
                    .as_ref()
                    .map(|w| format!("\n{}", w.lines()))
                    .unwrap_or_default();
                format!(
                    "{input}\nexpected refusal: {}: {}{quirk}\nactual: {actual} (judged with --status {}){walk}",
                    x.expected.text(),
                    x.reason,
                    x.status_mode
                )
            }
        }
    }
}

/// The first field where `actual` differs from `expected`, depth first in document order;
/// `None` when they are equal. Object keys are visited in the expected side's order, then
/// keys only the actual side has.
pub fn first_difference(expected: &J, actual: &J) -> Option<FieldDiff> {
    let mut path = String::new();
    walk(expected, actual, &mut path)
}

fn walk(e: &J, a: &J, path: &mut String) -> Option<FieldDiff> {
    let here = |path: &str, e: &J, a: &J| FieldDiff {
        path: if path.is_empty() {
            "$".into()
        } else {
            path.into()
        },
        expected: e.clone(),
        actual: a.clone(),
        expected_absent: false,
        actual_absent: false,
        bytes: None,
    };
    match (e, a) {
        (J::Array(x), J::Array(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(d) = walk(p, q, path) {
                    return Some(d);
                }
                path.truncate(len);
            }
            if x.len() != y.len() {
                let i = x.len().min(y.len());
                let mut d = here(&format!("{path}[{i}]"), &J::Null, &J::Null);
                match (x.get(i), y.get(i)) {
                    (Some(p), _) => {
                        d.expected = p.clone();
                        d.actual_absent = true;
                    }
                    (_, Some(q)) => {
                        d.actual = q.clone();
                        d.expected_absent = true;
                    }
                    _ => {}
                }
                return Some(d);
            }
            None
        }
        (J::Object(x), J::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                let len = path.len();
                push_key(path, k);
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = walk(p, q, path) {
                            return Some(d);
                        }
                    }
                    (Some(p), None) => {
                        let mut d = here(path, p, &J::Null);
                        d.actual_absent = true;
                        return Some(d);
                    }
                    (None, Some(q)) => {
                        let mut d = here(path, &J::Null, q);
                        d.expected_absent = true;
                        return Some(d);
                    }
                    (None, None) => {}
                }
                path.truncate(len);
            }
            None
        }
        _ if e == a => None,
        _ => Some(here(path, e, a)),
    }
}

fn push_key(path: &mut String, k: &str) {
    let ident = !k.is_empty()
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !k.starts_with(|c: char| c.is_ascii_digit());
    if ident {
        path.push('.');
        path.push_str(k);
    } else {
        path.push_str(&format!("[{}]", J::String(k.to_string())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_path_names_the_first_differing_field() {
        let e = json!([{"type": "INFO", "values": [
            {"key": "a", "flags": 0, "value": {"type": "PROC", "value": {"nspace": "ns", "rank": 4}}},
            {"key": "b", "flags": 0, "value": {"type": "UINT8", "value": 1}},
        ]}]);
        let mut a = e.clone();
        a[0]["values"][0]["value"]["value"]["rank"] = json!(5);
        a[0]["values"][1]["value"]["value"] = json!(2);
        let d = first_difference(&e, &a).unwrap();
        assert_eq!(d.path, "[0].values[0].value.value.rank");
        assert_eq!((d.expected.clone(), d.actual.clone()), (json!(4), json!(5)));
        assert_eq!(
            d.sides(),
            (
                "[0].values[0].value.value.rank = 4".into(),
                "[0].values[0].value.value.rank = 5".into()
            )
        );
        assert!(first_difference(&e, &e).is_none());
    }

    #[test]
    fn missing_and_extra_elements_and_keys_are_absent_sides() {
        let d = first_difference(&json!([1, 2, 3]), &json!([1, 2])).unwrap();
        assert_eq!(d.path, "[2]");
        assert!(d.actual_absent && !d.expected_absent);
        assert_eq!(d.sides().1, "[2] = (absent)");
        let d = first_difference(&json!([1]), &json!([1, 7])).unwrap();
        assert_eq!((d.path.as_str(), d.expected_absent), ("[1]", true));
        let d = first_difference(&json!({"a": 1}), &json!({"a": 1, "b c": 2})).unwrap();
        assert_eq!(d.path, "[\"b c\"]");
        let d = first_difference(&json!({"x": {"y": 1}}), &json!({"x": {}})).unwrap();
        assert_eq!(d.path, ".x.y");
        // Different kinds of value at the root.
        let d = first_difference(&json!(null), &json!("")).unwrap();
        assert_eq!(d.path, "$");
    }

    #[test]
    fn invalid_input_lines_show_the_bytes_status_name_and_reason() {
        let x = Explanation::InvalidInput(InvalidInput {
            phase: "decode".into(),
            hex: Some("0224706d".into()),
            items: None,
            expected: Refusal::new(-50, 0),
            actual: Some(Refusal::new(-16, 0)),
            reason: "truncated INFO: 4 of 23 bytes".into(),
            quirk: None,
            walk: None,
            status_mode: StatusMode::Class,
        });
        let l = x.lines();
        assert!(l.contains("input: 0224706d (4 bytes)"), "{l}");
        assert!(
            l.contains("PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50) at call 0 (class unreadable): truncated INFO: 4 of 23 bytes"),
            "{l}"
        );
        assert!(l.contains("actual: PMIX_ERR_UNKNOWN_DATA_TYPE (-16) at call 0 (class unsupported) (judged with --status class)"), "{l}");
        let j = serde_json::to_value(&x).unwrap();
        assert_eq!(j["kind"], "invalid_input");
        assert_eq!(
            j["expected"]["name"],
            "PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER"
        );
        assert_eq!(j["status_mode"], "class");
    }
}
