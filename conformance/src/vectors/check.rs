//! One vector against a testee: the requests, and the verdict with its explanation (where
//! the bytes or values part, the codec's walk of the input, the quirk it names).

use super::*;

pub(super) struct Verdict {
    pub(super) outcome: Outcome,
    pub(super) signature: Option<String>,
    pub(super) diff: Option<String>,
    /// Where it failed, when there is more to say than the signature (the field's path).
    pub(super) detail: Option<String>,
    /// The failure in detail ([`crate::explain`]).
    pub(super) explanation: Option<Explanation>,
    /// A pass that only a lenient `--status` mode allowed: what was accepted.
    pub(super) lenient: Option<String>,
}

impl Verdict {
    fn pass() -> Self {
        Verdict {
            outcome: Outcome::Pass,
            signature: None,
            diff: None,
            detail: None,
            explanation: None,
            lenient: None,
        }
    }
    fn fail(
        sig: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Self {
        Verdict {
            outcome: Outcome::Fail {
                expected: expected.into(),
                actual: actual.into(),
            },
            signature: Some(sig.into()),
            diff: None,
            detail: None,
            explanation: None,
            lenient: None,
        }
    }
    fn error(sig: impl Into<String>, message: impl Into<String>) -> Self {
        Verdict {
            outcome: Outcome::Error {
                message: message.into(),
            },
            signature: Some(sig.into()),
            diff: None,
            detail: None,
            explanation: None,
            lenient: None,
        }
    }
    pub(super) fn unsupported(reason: impl Into<String>) -> Self {
        Verdict {
            outcome: Outcome::Unsupported {
                reason: reason.into(),
            },
            signature: None,
            diff: None,
            detail: None,
            explanation: None,
            lenient: None,
        }
    }
    pub(super) fn from_testee_error(phase: &str, e: &TesteeError) -> Self {
        Verdict::error(e.signature(), format!("{phase}: {e}"))
    }
    /// Attach an explanation; its text goes under the failure (console, JUnit).
    fn explained(mut self, x: Explanation) -> Self {
        let lines = x.lines();
        self.diff = Some(match self.diff.take() {
            Some(d) => format!("{d}\n{lines}"),
            None => lines,
        });
        self.explanation = Some(x);
        self
    }
}

/// Where two byte strings first differ, rendered for the console.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HexDiff {
    /// Index of the first differing byte (or the shorter length).
    pub offset: usize,
    /// The expected bytes (a window around `offset` when long).
    pub expected: String,
    /// The actual bytes, over the same window.
    pub actual: String,
    /// A line with `^^` under the first differing byte of `actual`, and what differs.
    pub marker: String,
}

/// Bytes shown around the first difference of long buffers.
const WINDOW: usize = 40;

/// Compare two buffers; `None` when equal.
pub fn hex_diff(expected: &[u8], actual: &[u8]) -> Option<HexDiff> {
    if expected == actual {
        return None;
    }
    let d = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let longest = expected.len().max(actual.len());
    let start = if longest <= WINDOW {
        0
    } else {
        d.saturating_sub(12)
    };
    let end = start + WINDOW;
    let render = |b: &[u8]| {
        let mut s = String::new();
        if start > 0 {
            s.push_str("...");
        }
        s.push_str(&vf::hex(&b[start.min(b.len())..end.min(b.len())]));
        if b.len() > end {
            s.push_str("...");
        }
        if b.is_empty() {
            s.push_str("(empty)");
        }
        s
    };
    let col = if start > 0 { 3 } else { 0 } + 2 * (d - start);
    let what = match (expected.get(d), actual.get(d)) {
        (Some(e), Some(a)) => {
            format!("first difference at byte {d}: expected {e:02x}, got {a:02x}")
        }
        (Some(_), None) => format!("actual ends at byte {d}, expected goes on"),
        (None, Some(_)) => format!("actual goes on past byte {d}, where expected ends"),
        (None, None) => format!("differ at byte {d}"),
    };
    let lens = if expected.len() != actual.len() {
        format!(" (expected {} bytes, got {})", expected.len(), actual.len())
    } else {
        format!(" ({} bytes)", expected.len())
    };
    Some(HexDiff {
        offset: d,
        expected: render(expected),
        actual: render(actual),
        marker: format!("{}^^ {what}{lens}", " ".repeat(col)),
    })
}

fn clip(s: String, max: usize) -> String {
    if s.chars().count() <= max {
        s
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}…")
    }
}

fn items_text(items: &[Item]) -> String {
    clip(json::items_to_json(items).to_string(), 300)
}

fn same(a: &Item, b: &Item) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// A decode mismatch: the first differing call, the expected/actual lines, and the first
/// differing field when the JSON model shows one.
struct Mismatch {
    call: usize,
    expected: String,
    actual: String,
    field: Option<FieldDiff>,
}

/// Compare decoded items with the expectation (`None` when equal). The lines name the first differing field
/// (`[0].values[3].value.value.rank = 4`), not two whole calls.
fn first_mismatch(want: &[Item], got: &[Item]) -> Option<Mismatch> {
    let first = want
        .iter()
        .zip(got)
        .position(|(w, g)| !same(w, g))
        .or((want.len() != got.len()).then(|| want.len().min(got.len())));
    let call = first?;
    let field = explain::first_difference(&json::items_to_json(want), &json::items_to_json(got));
    let (expected, actual) = match (&field, want.get(call), got.get(call)) {
        (Some(f), _, _) => f.sides(),
        // Equal in the JSON model but not in value (e.g. a NaN's payload): whole calls.
        (None, Some(w), Some(g)) => (
            format!("call {call}: {}", items_text(std::slice::from_ref(w))),
            format!("call {call}: {}", items_text(std::slice::from_ref(g))),
        ),
        (None, _, _) => (
            format!("{} items", want.len()),
            format!("{} items: {}", got.len(), items_text(got)),
        ),
    };
    Some(Mismatch {
        call,
        expected,
        actual,
        field,
    })
}

/// An invalid vector's input and expected refusal, for its failure's explanation (decode:
/// with the reference codec's walk of the input, its refusal marked).
fn invalid_input(
    set: &VectorSet,
    v: &Vector,
    items: &[Item],
    phase: Phase,
    actual: Option<Refusal>,
    mode: StatusMode,
) -> Option<Explanation> {
    let e = v.error.as_ref()?;
    let walk = match (phase, unhex(&v.wire)) {
        (Phase::Decode, Some(wire)) => {
            let codec = Codec::new(set.component, set.kind).with_release(set.release);
            let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
            fieldwalk::explain_reference_refusal(&codec, &types, &wire)
        }
        _ => None,
    };
    Some(Explanation::InvalidInput(InvalidInput {
        phase: match phase {
            Phase::Encode => "encode".into(),
            Phase::Decode => "decode".into(),
        },
        hex: (phase == Phase::Decode).then(|| v.wire.clone()),
        items: (phase == Phase::Encode).then(|| v.items.clone()),
        expected: Refusal::new(e.status, e.item),
        actual,
        reason: v.comment.clone(),
        quirk: pmix_codec::quirks::Quirk::named_in(&v.comment).map(|q| q.id.to_string()),
        walk,
        status_mode: mode,
    }))
}

/// A failure of a vector whose comment names a quirk says so, with the quirk's one-line
/// summary from the quirk table (the entry in full: `pmix-wire quirks ID`, QUIRKS.md).
pub(super) fn name_the_quirk(mut verdict: Verdict, v: &Vector) -> Verdict {
    if !matches!(verdict.outcome, Outcome::Fail { .. }) {
        return verdict;
    }
    if let Some(q) = pmix_codec::quirks::Quirk::named_in(&v.comment) {
        let line = format!(
            "quirk {}: {} (the whole entry: `pmix-wire quirks {}`)",
            q.id,
            q.summary(),
            q.id
        );
        verdict.diff = Some(match verdict.diff.take() {
            Some(d) => format!("{d}\n{line}"),
            None => line,
        });
    }
    verdict
}

/// The flag of a vector whose values the library packs into `wire` but whose bytes its own
/// unpacker refuses (a decode-phase invalid vector whose `items` keep the packed values).
const SELF_UNPACK_FAILS: &str = "SelfUnpackFails";

/// Whether an invalid vector's `wire` also judges a testee's packer: a decode-phase vector
/// flagged `SelfUnpackFails` (the library packs the values into `wire`, its unpacker
/// refuses them), except where the library's packer read memory past the values (quirk
/// D4), bytes no encoder can give.
pub(super) fn packed_bytes_judged(set: &VectorSet, v: &Vector, items: &[Item]) -> bool {
    v.error.as_ref().is_some_and(|e| e.phase == Phase::Decode)
        && v.flags.iter().any(|f| f == SELF_UNPACK_FAILS)
        && !pmix_codec::quirks::packer_reads_past_values(set.component.family(), items)
}

/// The failure of an encode that gave `got` where the vector's `wire` is expected, with
/// the field where they part (`None` when they are the same bytes).
fn other_bytes(set: &VectorSet, items: &[Item], wire: &[u8], got: &[u8]) -> Option<Verdict> {
    let d = hex_diff(wire, got)?;
    let signature = format!("encode-bytes@{}", d.offset);
    let mut verdict = Verdict::fail(&signature, d.expected, d.actual);
    verdict.diff = Some(d.marker);
    let codec = Codec::new(set.component, set.kind).with_release(set.release);
    let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
    if let Some(f) = fieldwalk::explain(&codec, &types, wire, got) {
        verdict.detail = Some(format!("{signature} in {}", f.field.path));
        verdict = verdict.explained(Explanation::EncodeField(f));
    }
    Some(verdict)
}

/// A testee's answer to an encode request, once it is known to be a well-formed one.
enum Packed {
    /// The bytes it packed.
    Bytes(Vec<u8>),
    /// It refused to pack, with this status at this call.
    Refused { status: i32, item: usize },
    /// It does not support what the request needs.
    Unsupported(String),
}

/// `reply` to an encode request as [`Packed`]; a transport error, a runtime error or a
/// malformed answer (no wire, or wire that is not lowercase hex) is the case's verdict
/// (boxed: a verdict is large, and this is the rare path).
fn packed(
    reply: std::result::Result<Reply, TesteeError>,
) -> std::result::Result<Packed, Box<Verdict>> {
    match reply {
        Err(te) => Err(Box::new(Verdict::from_testee_error("encode", &te))),
        Ok(Reply::Ok { wire: Some(w), .. }) => match unhex(&w) {
            Some(got) => Ok(Packed::Bytes(got)),
            None => Err(Box::new(Verdict::error(
                "bad-reply",
                format!(
                    "encode: the testee's wire is not lowercase hex: {}",
                    clip(w, 100)
                ),
            ))),
        },
        Ok(Reply::Ok { wire: None, .. }) => Err(Box::new(Verdict::error(
            "bad-reply",
            "encode: the testee's answer has no wire",
        ))),
        Ok(Reply::Error { status, item, .. }) => Ok(Packed::Refused { status, item }),
        Ok(Reply::Unsupported { reason }) => Ok(Packed::Unsupported(reason)),
        Ok(Reply::RuntimeError { message }) => Err(Box::new(Verdict::error(
            "runtime-error",
            format!("encode: testee error: {message}"),
        ))),
    }
}

/// The packer's side of a `SelfUnpackFails` vector ([`packed_bytes_judged`]): a testee
/// that packs its values must give the library's bytes, `wire`; one that refuses to pack
/// them (what the library cannot read back), or lacks the type, is not judged on it.
/// `None`: go on to the decode.
fn self_unpack_fails_bytes(
    set: &VectorSet,
    items: &[Item],
    wire: &[u8],
    reply: std::result::Result<Reply, TesteeError>,
) -> Option<Verdict> {
    match packed(reply) {
        Err(verdict) => Some(*verdict),
        Ok(Packed::Bytes(got)) => other_bytes(set, items, wire, &got),
        Ok(Packed::Refused { .. } | Packed::Unsupported(_)) => None,
    }
}

/// Run one case against `testee` (which supports its component, kind and release).
pub(super) fn run_vector(
    set: &VectorSet,
    v: &Vector,
    testee: &mut dyn Testee,
    mode: StatusMode,
) -> Verdict {
    let component = set.component.name().to_string();
    let buffer = set.kind.name().to_string();
    let release = set.release.name().to_string();
    let items = match json::items_from_json(&v.items) {
        Ok(i) => i,
        Err(e) => return Verdict::error("bad-vector", format!("the vector's items: {e}")),
    };
    let Some(wire) = unhex(&v.wire) else {
        return Verdict::error("bad-vector", "the vector's wire is not lowercase hex");
    };
    let types: Vec<J> = item_types(&v.items).into_iter().cloned().collect();
    let encode = |t: &mut dyn Testee| {
        t.call(&Request::Encode {
            component: component.clone(),
            buffer: buffer.clone(),
            release: release.clone(),
            items: v.items.clone(),
        })
    };
    let decode = |t: &mut dyn Testee| {
        t.call(&Request::Decode {
            component: component.clone(),
            buffer: buffer.clone(),
            release: release.clone(),
            wire: v.wire.clone(),
            types: types.clone(),
        })
    };
    match (v.result, &v.error) {
        (vf::Outcome::Invalid, None) => {
            Verdict::error("bad-vector", "an invalid vector without an error")
        }
        (vf::Outcome::Invalid, Some(e)) => {
            if packed_bytes_judged(set, v, &items) {
                if let Some(verdict) = self_unpack_fails_bytes(set, &items, &wire, encode(testee)) {
                    return verdict;
                }
            }
            let (phase, reply) = match e.phase {
                Phase::Encode => ("encode", encode(testee)),
                Phase::Decode => ("decode", decode(testee)),
            };
            let expected = status_text(e.status, e.item);
            let explain = |actual| invalid_input(set, v, &items, e.phase, actual, mode);
            match reply {
                Err(te) => Verdict::from_testee_error(phase, &te),
                Ok(Reply::Error { status, item, .. }) => {
                    match mode.judge(e.status, e.item, status, item) {
                        Some(Accepted::Exact) => Verdict::pass(),
                        Some(Accepted::Lenient) => {
                            let mut p = Verdict::pass();
                            p.lenient = Some(format!(
                                "{} accepted for {} (--status {mode})",
                                status_text(status, item),
                                status_text(e.status, e.item)
                            ));
                            p
                        }
                        None => {
                            let f = Verdict::fail(
                                format!("status:{status}@{item}"),
                                format!("{phase} fails with {expected}"),
                                format!("{phase} fails with {}", status_text(status, item)),
                            );
                            match explain(Some(Refusal::new(status, item))) {
                                Some(x) => f.explained(x),
                                None => f,
                            }
                        }
                    }
                }
                Ok(Reply::Ok { wire, items }) => {
                    let got = match (phase, wire, items) {
                        ("encode", Some(w), _) => format!("bytes {}", clip(w, 200)),
                        (_, _, Some(i)) => format!("items {}", clip(i.to_string(), 300)),
                        _ => "success".into(),
                    };
                    let f = Verdict::fail(
                        "no-error",
                        format!("{phase} fails with {expected}"),
                        format!("{phase} succeeds: {got}"),
                    );
                    match explain(None) {
                        Some(x) => f.explained(x),
                        None => f,
                    }
                }
                Ok(Reply::Unsupported { reason }) => Verdict::unsupported(reason),
                Ok(Reply::RuntimeError { message }) => {
                    Verdict::error("runtime-error", format!("{phase}: testee error: {message}"))
                }
            }
        }
        (vf::Outcome::Valid | vf::Outcome::Acceptable, _) => {
            match packed(encode(testee)) {
                Err(verdict) => return *verdict,
                Ok(Packed::Bytes(got)) => {
                    if let Some(verdict) = other_bytes(set, &items, &wire, &got) {
                        return verdict;
                    }
                }
                Ok(Packed::Refused { status, item }) => {
                    return Verdict::fail(
                        format!("encode-error:{status}@{item}"),
                        format!("encode succeeds: {}", clip(v.wire.clone(), 200)),
                        format!("encode fails with {}", status_text(status, item)),
                    )
                }
                Ok(Packed::Unsupported(reason)) => return Verdict::unsupported(reason),
            }
            let want = match &v.decoded {
                Some(d) => match json::items_from_json(d) {
                    Ok(i) => i,
                    Err(e) => {
                        return Verdict::error("bad-vector", format!("the vector's decoded: {e}"))
                    }
                },
                None => items,
            };
            let codec = Codec::new(set.component, set.kind).with_release(set.release);
            let call_types: Vec<DataType> = want.iter().map(|i| i.ty).collect();
            match decode(testee) {
                Err(te) => Verdict::from_testee_error("decode", &te),
                Ok(Reply::Ok { items: Some(j), .. }) => match json::items_from_json(&j) {
                    Err(e) => Verdict::fail(
                        "decode-unreadable",
                        format!("decode gives {}", items_text(&want)),
                        format!(
                            "decode gives items the JSON model cannot read ({e}): {}",
                            clip(j.to_string(), 200)
                        ),
                    ),
                    Ok(got) => match first_mismatch(&want, &got) {
                        None => Verdict::pass(),
                        Some(m) => {
                            let mut f = Verdict::fail(
                                format!("decode-values@{}", m.call),
                                m.expected,
                                m.actual,
                            );
                            let bytes = fieldwalk::explain_decode_values(
                                &codec,
                                &call_types,
                                &wire,
                                &want,
                                &got,
                            );
                            if let Some(b) = &bytes {
                                f.detail = Some(format!(
                                    "decode-values@{} from byte {} in {}",
                                    m.call, b.offset, b.field.path
                                ));
                            }
                            match m.field {
                                Some(mut d) => {
                                    d.bytes = bytes;
                                    f.explained(Explanation::DecodeField(d))
                                }
                                None => f,
                            }
                        }
                    },
                },
                Ok(Reply::Ok { items: None, .. }) => {
                    Verdict::error("bad-reply", "decode: the testee's answer has no items")
                }
                Ok(Reply::Error { status, item, .. }) => {
                    let f = Verdict::fail(
                        format!("decode-error:{status}@{item}"),
                        format!("decode succeeds: {}", items_text(&want)),
                        format!("decode fails with {}", status_text(status, item)),
                    );
                    match fieldwalk::explain_decode_refusal(&codec, &call_types, &wire, &want, item)
                    {
                        Some(d) => f.explained(Explanation::DecodeRefusal(d)),
                        None => f,
                    }
                }
                Ok(Reply::Unsupported { reason }) => Verdict::unsupported(reason),
                Ok(Reply::RuntimeError { message }) => {
                    Verdict::error("runtime-error", format!("decode: testee error: {message}"))
                }
            }
        }
    }
}
