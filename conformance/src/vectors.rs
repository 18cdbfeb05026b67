//! The wire-vector suite: replay golden vector files (`vectors/`, format in
//! `vectors/README.md`) against a [`Testee`] and report every vector as a case.
//!
//! A case id is `<component>[@<release>].<buffer>.<types>.<result>.<vector id>`, e.g.
//! `v61.non-described.ALLOC_INHERIT.valid.3`: the component, `@<release>` only when the file's
//! release profile is not the first one that ships the component (so OpenPMIx master's v41
//! file gives `v41@master....` while 4.2.2's gives `v41....`), the buffer kind, the types of the
//! pack calls (`PROC+APP`; more than three: `INFO+4more`; none: `empty`), the vector's result
//! and its id in the file. Ids in vector files are stable, so case ids are too.
//!
//! What a case checks (the same as `vectors/README.md`, "What to check"):
//! * `valid` / `acceptable`: `encode(items)` gives exactly `wire`, then `decode(wire, types)`
//!   gives `decoded` (if present) or `items`;
//! * `invalid`, phase `encode`: `encode(items)` fails at call `error.item` with `error.status`;
//! * `invalid`, phase `decode`: `decode(wire, types)` fails at call `error.item` with
//!   `error.status`.
//!
//! A failing case carries a *signature*, a short stable token saying how it failed
//! (`encode-bytes@12`, `decode-values@0`, `encode-error:-16@0`, `status:-20@0`, `no-error`,
//! `crash`, `timeout`, `garbage`, `runtime-error`, ...); expected-failure lists
//! ([`crate::xfail`]) match on it.

use crate::explain::{self, Explanation, FieldDiff, InvalidInput, Refusal};
use crate::fieldwalk;
pub use crate::limits::Limits;
use crate::report::{CaseResult, CaseRun, Origin, Outcome, Report};
use crate::status_mode::{Accepted, StatusMode};
use crate::testee::{unhex, Capabilities, Reply, Request, Testee, TesteeError};
use crate::xfail::ExpectedFailures;
use pmix_codec::json;
use pmix_codec::vectors::{self as vf, Phase, Vector, VectorFile};
use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Release, Status};
use serde_json::Value as J;
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The corpus shipped with this repository (`vectors/` at the workspace root).
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors")
}

/// One loaded vector file.
#[derive(Clone, Debug)]
pub struct VectorSet {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its name in reports (the path relative to the corpus, without `.json`).
    pub label: String,
    /// The parsed file.
    pub file: VectorFile,
    /// Its component.
    pub component: Component,
    /// Its buffer kind.
    pub kind: BufferKind,
    /// Its release profile.
    pub release: Release,
    /// The case-id prefix: `<component>[@<release>].<buffer>`.
    pub prefix: String,
}

impl VectorSet {
    /// Parse `text` (read from `path`) as a vector file named `label` in reports.
    pub fn parse(path: &Path, label: &str, text: &str) -> Result<VectorSet, String> {
        let file = VectorFile::from_json(text).map_err(|e| format!("{}: {e}", path.display()))?;
        let component: Component = file.component.parse()?;
        let kind: BufferKind = file.buffer.parse()?;
        let release: Release = file.release.parse()?;
        // A conversation file (`vectors/README.md`, "Conversation vectors") holds the
        // messages of one live conversation: its cases are named after the file, so they
        // never collide with the golden vectors of the same component.
        let is_conversation = serde_json::from_str::<J>(text)
            .map(|j| j["kind"] == "conversation")
            .unwrap_or(false);
        let prefix = if is_conversation {
            // e.g. `v41@conversation-prrte-5_0_0rc1.non-described`: still two dot-parts
            let dir = path
                .parent()
                .and_then(|p| p.file_name())
                .map(|d| d.to_string_lossy().replace('.', "_"))
                .unwrap_or_default();
            format!("{component}@conversation-{dir}.{kind}")
        } else {
            id_prefix(component, kind, release)
        };
        Ok(VectorSet {
            path: path.to_path_buf(),
            label: label.to_string(),
            prefix,
            file,
            component,
            kind,
            release,
        })
    }

    /// Read one file.
    pub fn load(path: &Path) -> Result<VectorSet, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let label = match (path.parent().and_then(|p| p.file_name()), path.file_stem()) {
            (Some(d), Some(f)) => format!("{}/{}", d.to_string_lossy(), f.to_string_lossy()),
            (None, Some(f)) => f.to_string_lossy().into_owned(),
            _ => path.display().to_string(),
        };
        Self::parse(path, &label, &text)
    }
}

/// `<component>[@<release>].<buffer>`: the release is named only when it is not the first
/// release profile that ships the component.
pub fn id_prefix(component: Component, kind: BufferKind, release: Release) -> String {
    let first = Release::ALL
        .iter()
        .copied()
        .find(|r| r.components().contains(&component));
    if first == Some(release) {
        format!("{component}.{kind}")
    } else {
        // No dot inside an id segment: `5.0` is written `5_0`.
        format!("{component}@{}.{kind}", release.name().replace('.', "_"))
    }
}

/// Every `*.json` file under `dir` (recursively, sorted by path; not `live/`, whose
/// observations are not vector files).
pub fn load_dir(dir: &Path) -> Result<Vec<VectorSet>, String> {
    load_dir_keeping(dir, None)
}

/// [`load_dir`], keeping of each file only the vectors whose case id contains `filter` (if
/// any), file by file: a filtered run holds what it replays, not the whole corpus.
pub fn load_dir_keeping(dir: &Path, filter: Option<&str>) -> Result<Vec<VectorSet>, String> {
    load_dir_on(dir, filter, 1)
}

/// [`load_dir_keeping`], parsing the files on up to `threads` threads: the same sets in the
/// same order (each thread holds one file's text at a time; 1 spawns no thread).
pub fn load_dir_on(
    dir: &Path,
    filter: Option<&str>,
    threads: usize,
) -> Result<Vec<VectorSet>, String> {
    let paths = pmix_codec::vectors::vector_paths(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    if paths.is_empty() {
        return Err(format!("no vector files (*.json) under {}", dir.display()));
    }
    let sets = crate::parallel::map_in_order(&paths, threads, |p| {
        let text =
            std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        let rel = p.strip_prefix(dir).unwrap_or(p).with_extension("");
        let label = rel.to_string_lossy().replace('\\', "/");
        VectorSet::parse(p, &label, &text).map(|set| keeping(set, filter))
    })
    .into_iter()
    .collect::<Result<Vec<_>, _>>()?;
    check_unique(&sets)?;
    Ok(sets)
}

/// Load the given files (refusing two files with the same case-id prefix).
pub fn load_files(paths: &[PathBuf]) -> Result<Vec<VectorSet>, String> {
    load_files_keeping(paths, None)
}

/// [`load_files`], keeping only the vectors whose case id contains `filter` (if any).
pub fn load_files_keeping(
    paths: &[PathBuf],
    filter: Option<&str>,
) -> Result<Vec<VectorSet>, String> {
    let sets = paths
        .iter()
        .map(|p| VectorSet::load(p).map(|set| keeping(set, filter)))
        .collect::<Result<Vec<_>, _>>()?;
    check_unique(&sets)?;
    Ok(sets)
}

/// `set` with only the vectors whose case id contains `filter` (all of them without one).
fn keeping(mut set: VectorSet, filter: Option<&str>) -> VectorSet {
    if let Some(f) = filter {
        let tests = std::mem::take(&mut set.file.tests);
        set.file.tests = tests
            .into_iter()
            .filter(|v| case_id(&set, v).contains(f))
            .collect();
        set.file.tests.shrink_to_fit();
    }
    set
}

fn check_unique(sets: &[VectorSet]) -> Result<(), String> {
    for (i, a) in sets.iter().enumerate() {
        if let Some(b) = sets[..i].iter().find(|b| b.prefix == a.prefix) {
            return Err(format!(
                "{} and {} both hold {} vectors (case ids would collide); give one of them",
                b.path.display(),
                a.path.display(),
                a.prefix
            ));
        }
    }
    Ok(())
}

/// One case: a vector of a set.
#[derive(Clone, Debug)]
pub struct Case<'a> {
    /// The stable id.
    pub id: String,
    /// The sentence the case checks.
    pub requirement: String,
    /// The file it comes from.
    pub set: &'a VectorSet,
    /// The vector.
    pub vector: &'a Vector,
}

/// The cases of `sets`, in file order, keeping those whose id contains `filter` (if any).
pub fn cases<'a>(sets: &'a [VectorSet], filter: Option<&str>) -> Vec<Case<'a>> {
    let mut out = Vec::new();
    for set in sets {
        for v in &set.file.tests {
            let id = case_id(set, v);
            if filter.is_some_and(|f| !id.contains(f)) {
                continue;
            }
            out.push(Case {
                requirement: requirement(set, v),
                id,
                set,
                vector: v,
            });
        }
    }
    out
}

fn type_label(j: &J) -> String {
    match j {
        J::String(s) => DataType::parse(s)
            .and_then(|t| t.name().map(str::to_string))
            .unwrap_or_else(|| s.replace(['.', ' '], "_")),
        J::Number(n) => n
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .map(|n| {
                DataType(n)
                    .name()
                    .map(str::to_string)
                    .unwrap_or_else(|| n.to_string())
            })
            .unwrap_or_else(|| "?".into()),
        _ => "?".into(),
    }
}

fn item_types(items: &J) -> Vec<&J> {
    items
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i.get("type").unwrap_or(&J::Null))
                .collect()
        })
        .unwrap_or_default()
}

fn result_name(v: &Vector) -> &'static str {
    match v.result {
        vf::Outcome::Valid => "valid",
        vf::Outcome::Invalid => "invalid",
        vf::Outcome::Acceptable => "acceptable",
    }
}

/// The id of vector `v` of `set`.
pub fn case_id(set: &VectorSet, v: &Vector) -> String {
    let types: Vec<String> = item_types(&v.items).into_iter().map(type_label).collect();
    let t = match types.len() {
        0 => "empty".to_string(),
        1..=3 => types.join("+"),
        n => format!("{}+{}more", types[0], n - 1),
    };
    format!("{}.{t}.{}.{}", set.prefix, result_name(v), v.id)
}

fn calls_phrase(items: &J, with_counts: bool) -> String {
    let Some(a) = items.as_array() else {
        return "?".into();
    };
    if a.is_empty() {
        return "no calls".into();
    }
    let one = |i: &J| {
        let t = type_label(i.get("type").unwrap_or(&J::Null));
        let n = i.get("values").and_then(J::as_array).map_or(0, Vec::len);
        if with_counts {
            format!("{t} ×{n}")
        } else {
            t
        }
    };
    let mut parts: Vec<String> = a.iter().take(4).map(one).collect();
    if a.len() > 4 {
        parts.push(format!("… {} calls in all", a.len()));
    }
    parts.join(", ")
}

fn status_text(status: i32, item: usize) -> String {
    match Status(status).name() {
        Some(n) => format!("PMIX_{n} ({status}) at call {item}"),
        None => format!("status {status} at call {item}"),
    }
}

/// The sentence vector `v` of `set` checks.
pub fn requirement(set: &VectorSet, v: &Vector) -> String {
    let buf = format!("a {} {} buffer", set.kind, set.component);
    let calls = calls_phrase(&v.items, true);
    let what = match (&v.result, &v.error) {
        (vf::Outcome::Invalid, Some(e)) if e.phase == Phase::Encode => format!(
            "Packing [{calls}] into {buf} is refused with {}",
            status_text(e.status, e.item)
        ),
        (vf::Outcome::Invalid, Some(e)) => format!(
            "Unpacking these {} bytes from {buf} as [{}] fails with {}",
            v.wire.len() / 2,
            calls_phrase(&v.items, false),
            status_text(e.status, e.item)
        ),
        (vf::Outcome::Invalid, None) => "An invalid vector without an error (malformed)".into(),
        (r, _) => {
            let back = if v.decoded.is_some() {
                "the values the library reads back (lossy)"
            } else {
                "the same values"
            };
            let quirk = if *r == vf::Outcome::Acceptable {
                " [acceptable: OpenPMIx behaviour another implementation may not share]"
            } else {
                ""
            };
            format!(
                "Packing [{calls}] into {buf} gives exactly the recorded {} bytes, which unpack to {back}{quirk}",
                v.wire.len() / 2
            )
        }
    };
    format!("{what} ({}; release {})", v.comment, set.release)
}

/// A case's verdict.
struct Verdict {
    outcome: Outcome,
    signature: Option<String>,
    diff: Option<String>,
    /// Where it failed, when there is more to say than the signature (the field's path).
    detail: Option<String>,
    /// The failure in detail ([`crate::explain`]).
    explanation: Option<Explanation>,
    /// A pass that only a lenient `--status` mode allowed: what was accepted.
    lenient: Option<String>,
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
    fn unsupported(reason: impl Into<String>) -> Self {
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
    fn from_testee_error(phase: &str, e: &TesteeError) -> Self {
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
fn name_the_quirk(mut verdict: Verdict, v: &Vector) -> Verdict {
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

/// Run one case against `testee` (which supports its component, kind and release).
fn run_vector(set: &VectorSet, v: &Vector, testee: &mut dyn Testee, mode: StatusMode) -> Verdict {
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
            match encode(testee) {
                Err(te) => return Verdict::from_testee_error("encode", &te),
                Ok(Reply::Ok { wire: Some(w), .. }) => match unhex(&w) {
                    None => {
                        return Verdict::error(
                            "bad-reply",
                            format!(
                                "encode: the testee's wire is not lowercase hex: {}",
                                clip(w, 100)
                            ),
                        )
                    }
                    Some(got) => {
                        if let Some(d) = hex_diff(&wire, &got) {
                            let signature = format!("encode-bytes@{}", d.offset);
                            let mut verdict = Verdict::fail(&signature, d.expected, d.actual);
                            verdict.diff = Some(d.marker);
                            let codec =
                                Codec::new(set.component, set.kind).with_release(set.release);
                            let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
                            if let Some(f) = fieldwalk::explain(&codec, &types, &wire, &got) {
                                verdict.detail = Some(format!("{signature} in {}", f.field.path));
                                verdict = verdict.explained(Explanation::EncodeField(f));
                            }
                            return verdict;
                        }
                    }
                },
                Ok(Reply::Ok { wire: None, .. }) => {
                    return Verdict::error("bad-reply", "encode: the testee's answer has no wire")
                }
                Ok(Reply::Error { status, item, .. }) => {
                    return Verdict::fail(
                        format!("encode-error:{status}@{item}"),
                        format!("encode succeeds: {}", clip(v.wire.clone(), 200)),
                        format!("encode fails with {}", status_text(status, item)),
                    )
                }
                Ok(Reply::Unsupported { reason }) => return Verdict::unsupported(reason),
                Ok(Reply::RuntimeError { message }) => {
                    return Verdict::error(
                        "runtime-error",
                        format!("encode: testee error: {message}"),
                    )
                }
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

/// Run `cases` against `testee`, in order. Cases whose component, buffer kind or release
/// the testee lacks are `unsupported` without a request. With `progress`, a counter is
/// drawn on stderr when it is a terminal.
pub fn run(cases: &[Case<'_>], testee: &mut dyn Testee, progress: bool) -> Vec<CaseRun> {
    run_in(cases, testee, progress, StatusMode::Exact)
}

/// [`run`], judging invalid vectors' statuses in `mode` (`--status`).
pub fn run_in(
    cases: &[Case<'_>],
    testee: &mut dyn Testee,
    progress: bool,
    mode: StatusMode,
) -> Vec<CaseRun> {
    run_limited(cases, testee, progress, mode, &Limits::default()).0
}

/// [`run_in`], stopping early when `limits` are reached; then also why it stopped.
pub fn run_limited(
    cases: &[Case<'_>],
    testee: &mut dyn Testee,
    progress: bool,
    mode: StatusMode,
    limits: &Limits,
) -> (Vec<CaseRun>, Option<String>) {
    let (mut errors, mut timeouts, mut stopped) = (0usize, 0usize, None);
    let progress = progress && std::io::stderr().is_terminal();
    let mut caps: Result<Capabilities, TesteeError> = testee.capabilities();
    let mut out = Vec::with_capacity(cases.len());
    let t_all = Instant::now();
    for (n, case) in cases.iter().enumerate() {
        if let Some(why) = limits.reached(errors, timeouts) {
            stopped = Some(format!(
                "stopped early: {why}; {n} of {} cases run, {} not run",
                cases.len(),
                cases.len() - n
            ));
            break;
        }
        if progress && n % 500 == 0 {
            eprint!(
                "\r  {n}/{} cases, {:.0} s",
                cases.len(),
                t_all.elapsed().as_secs_f64()
            );
        }
        let t0 = Instant::now();
        if caps.is_err() {
            // Try again (a process testee gives up by itself after a few failed starts).
            caps = testee.capabilities();
        }
        let verdict = match &caps {
            Err(e) => Verdict::from_testee_error("capabilities", e),
            Ok(c) => match c.supports(case.set.component, case.set.kind, case.set.release) {
                Err(reason) => Verdict::unsupported(reason),
                Ok(()) => {
                    testee.begin_case();
                    name_the_quirk(run_vector(case.set, case.vector, testee, mode), case.vector)
                }
            },
        };
        if matches!(verdict.outcome, Outcome::Error { .. }) {
            errors += 1;
            timeouts += usize::from(verdict.signature.as_deref() == Some("timeout"));
        }
        out.push(CaseRun {
            result: CaseResult {
                id: case.id.clone(),
                requirement: case.requirement.clone(),
                group: case.set.label.clone(),
                outcome: verdict.outcome,
                detail: verdict.detail.or(verdict.signature.clone()),
                diff: verdict.diff,
                duration: t0.elapsed(),
            },
            signature: verdict.signature,
            prefix: case.set.prefix.clone(),
            lenient: verdict.lenient,
            explanation: verdict.explanation,
        });
    }
    if progress {
        eprint!("\r{}\r", " ".repeat(40));
    }
    (out, stopped)
}

/// Where a vector's expectation comes from: recorded by the library its file names, or
/// computed (flag `UpstreamBug`: the library crashed or read garbage, so the expectation is
/// pmix-codec's), with the quirk its comment names when a quirk decides it.
pub fn origin(set: &VectorSet, v: &Vector) -> Origin {
    let computed = v.flags.iter().any(|f| f == "UpstreamBug");
    let src = &set.file.source;
    let quirk = pmix_codec::quirks::Quirk::named_in(&v.comment).map(|q| q.id.to_string());
    Origin {
        provenance: if computed { "computed" } else { "recorded" }.into(),
        recorded_from: (!computed).then(|| format!("{} {}", src.implementation, src.version)),
        flags: v.flags.clone(),
        quirk,
    }
}

/// A finished run of the suite.
#[derive(Clone, Debug)]
pub struct SuiteRun {
    /// The report (expected failures applied).
    pub report: Report,
    /// The cases with their signatures (for `--fix`).
    pub runs: Vec<CaseRun>,
    /// Case-id prefixes of the files replayed in full (no filter).
    pub complete: BTreeSet<String>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
    /// Why the run stopped before its last case (`--max-errors`, `--max-timeouts`).
    pub stopped: Option<String>,
}

/// Replay `sets` (the cases whose id contains `filter`) against `testee`, judge the result
/// against `xfail` if given, and build the report (statuses judged exactly).
pub fn run_suite(
    sets: &[VectorSet],
    filter: Option<&str>,
    testee: &mut dyn Testee,
    xfail: Option<&ExpectedFailures>,
    progress: bool,
) -> SuiteRun {
    run_suite_in(sets, filter, testee, xfail, progress, StatusMode::Exact)
}

/// [`run_suite`], judging invalid vectors' statuses in `mode` (`--status`); the report says
/// which mode it was and lists the passes only that mode allowed.
pub fn run_suite_in(
    sets: &[VectorSet],
    filter: Option<&str>,
    testee: &mut dyn Testee,
    xfail: Option<&ExpectedFailures>,
    progress: bool,
    mode: StatusMode,
) -> SuiteRun {
    run_suite_limited(
        sets,
        filter,
        testee,
        xfail,
        progress,
        mode,
        &Limits::default(),
    )
}

/// [`run_suite_in`], stopping early when `limits` are reached (the cases not run are not in
/// the report, and no file counts as replayed in full).
pub fn run_suite_limited(
    sets: &[VectorSet],
    filter: Option<&str>,
    testee: &mut dyn Testee,
    xfail: Option<&ExpectedFailures>,
    progress: bool,
    mode: StatusMode,
    limits: &Limits,
) -> SuiteRun {
    let t0 = Instant::now();
    let all = cases(sets, filter);
    let (mut runs, stopped) = run_limited(&all, testee, progress, mode, limits);
    let complete: BTreeSet<String> = if filter.is_some() || stopped.is_some() {
        BTreeSet::new()
    } else {
        sets.iter().map(|s| s.prefix.clone()).collect()
    };
    let extra = match xfail {
        Some(x) => x.apply(&mut runs, &complete),
        None => Vec::new(),
    };
    let mut report = Report::new("vectors", testee.describe());
    report.status_mode = Some(mode);
    for c in all.iter().take(runs.len()) {
        report.origins.insert(c.id.clone(), origin(c.set, c.vector));
    }
    for c in &runs {
        report.push(c.result.clone());
        if let Some(l) = &c.lenient {
            report.lenient_passes.insert(c.result.id.clone(), l.clone());
        }
        if let Some(x) = &c.explanation {
            report.explanations.insert(c.result.id.clone(), x.clone());
        }
    }
    for c in extra {
        report.push(c);
    }
    SuiteRun {
        report,
        runs,
        complete,
        elapsed: t0.elapsed(),
        stopped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_name_the_release_only_when_needed() {
        use BufferKind::*;
        assert_eq!(
            id_prefix(Component::V61, NonDescribed, Release::OpenPmix6_1),
            "v61.non-described"
        );
        assert_eq!(
            id_prefix(Component::V61, NonDescribed, Release::Master),
            "v61@master.non-described"
        );
        assert_eq!(
            id_prefix(Component::V41, FullyDescribed, Release::OpenPmix4_2),
            "v41.fully-described"
        );
        assert_eq!(
            id_prefix(Component::V41, NonDescribed, Release::Master),
            "v41@master.non-described"
        );
        assert_eq!(
            id_prefix(Component::V61, NonDescribed, Release::OpenPmix4_2),
            "v61@4_2.non-described"
        );
        assert_eq!(
            id_prefix(Component::V61, NonDescribed, Release::OpenPmix7_0),
            "v61@7_0.non-described"
        );
    }

    #[test]
    fn hex_diff_marks_the_first_differing_byte() {
        let d = hex_diff(&[1, 2, 3, 4], &[1, 2, 0xff, 4]).unwrap();
        assert_eq!(d.offset, 2);
        assert_eq!(d.expected, "01020304");
        assert_eq!(d.actual, "0102ff04");
        assert!(d
            .marker
            .starts_with("    ^^ first difference at byte 2: expected 03, got ff"));
        let d = hex_diff(&[1, 2], &[1]).unwrap();
        assert_eq!(d.offset, 1);
        assert!(d.marker.contains("actual ends at byte 1"), "{}", d.marker);
        assert!(d.marker.contains("expected 2 bytes, got 1"), "{}", d.marker);
        assert!(hex_diff(&[], &[]).is_none());
        // Long buffers: a window, the marker still under the differing byte.
        let a: Vec<u8> = (0..200u8).collect();
        let mut b = a.clone();
        b[150] ^= 0x01;
        let d = hex_diff(&a, &b).unwrap();
        assert_eq!(d.offset, 150);
        assert!(d.expected.starts_with("...8a8b") && d.expected.ends_with("..."));
        let col = d.marker.find('^').unwrap();
        assert_eq!(&d.expected[col..col + 2], "96");
        assert_eq!(&d.actual[col..col + 2], "97");
    }
}
