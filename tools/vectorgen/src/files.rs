//! The vector files: flags, ids kept from the previous file, options and loading.

use super::draft::Draft;
use pmix_codec::json;
use pmix_codec::vectors::{expected_error, Source, Vector, VectorFile, SCHEMA};
use pmix_codec::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::result::Result;

/// Flags and what they mean (the `notes` of each file list those it uses).
pub const FLAGS: &[(&str, &str)] = &[
    ("Quirk", "OpenPMIx behaviour listed in codec/src/quirks.rs; the comment names the quirk id"),
    ("Lossy", "the library's unpack does not give back the packed values; `decoded` holds what it gives"),
    ("UpstreamBug", "the library crashed, hung or read uninitialized memory on this input; the expectation is pmix-codec's (see the comment)"),
    ("SelfUnpackFails", "the library packs these values into `wire` but its unpacker fails on those bytes (items keep the packed values; a decoder uses only their types)"),
    ("Truncated", "a valid encoding cut short"),
    ("LyingCount", "a count or size larger than the bytes that follow (or negative)"),
    ("LyingLength", "a string length larger than the bytes that follow (or negative)"),
    ("UnregisteredType", "a PMIx type id (1-75) this component does not register"),
    ("UnknownType", "a type id no component registers (0, or above 75)"),
    ("BadFlexInteger", "a flexible integer that is over-long, wider than its type, or unterminated"),
    ("DeepNesting", "DATA_ARRAY of DATA_ARRAY, from 2 levels to past the 100-level cap of master"),
    ("TagMismatch", "a described buffer whose type tags do not match the unpack calls"),
    ("Hardening", "the library accepts this input (with unbounded memory or recursion); pmix-codec refuses it with the recorded status, and an implementation may accept it (the comment names the quirk)"),
    ("Derived", "not produced by this file's source library; how it was obtained is in the notes and the other flags"),
    ("Computed", "expected bytes and status computed by pmix-codec's release profile, because the library could not produce them (it crashed or emitted memory it does not own, see UpstreamBug)"),
    ("Reference", "bytes quoted from the reference guide's table of verified master bytes (wire-format.md §2.2)"),
];

fn flag_notes(drafts: &[Draft]) -> BTreeMap<String, String> {
    let used: BTreeSet<&str> = drafts
        .iter()
        .flat_map(|d| d.flags.iter().map(|s| s.as_str()))
        .collect();
    FLAGS
        .iter()
        .filter(|(f, _)| used.contains(f))
        .map(|(f, m)| (f.to_string(), m.to_string()))
        .collect()
}

/// The relative path of a file: `<dir>/<component>-<kind>.json`.
pub fn file_name(dir: &str, comp: Component, kind: BufferKind) -> String {
    format!("{dir}/{}-{}.json", comp.name(), kind.name())
}

/// Turn drafts into a file, keeping the ids of `previous` (matched by comment).
pub(super) fn finish(
    drafts: Vec<Draft>,
    source: Source,
    comp: Component,
    kind: BufferKind,
    rel: Release,
    mut notes: BTreeMap<String, String>,
    previous: Option<&VectorFile>,
) -> VectorFile {
    let old: HashMap<&str, u32> = previous
        .map(|p| p.tests.iter().map(|t| (t.comment.as_str(), t.id)).collect())
        .unwrap_or_default();
    let mut next = previous
        .and_then(|p| p.tests.iter().map(|t| t.id).max())
        .unwrap_or(0)
        + 1;
    // What a library did not produce is computed by the codec: say so on each vector.
    let mut drafts = drafts;
    for d in &mut drafts {
        if d.flags.contains("UpstreamBug") {
            d.flags.insert("Computed".to_string());
        }
    }
    notes.extend(flag_notes(&drafts));
    let mut used = HashSet::new();
    let current: HashSet<String> = drafts.iter().map(|d| d.comment.clone()).collect();
    let tests: Vec<Vector> = drafts
        .into_iter()
        .map(|d| {
            // A comment refined by `; ...` clauses keeps the id it had without them, unless
            // that shorter comment is still a vector of its own.
            let refined = d
                .comment
                .rmatch_indices("; ")
                .map(|(at, _)| &d.comment[..at]);
            let id = std::iter::once(d.comment.as_str())
                .chain(refined.filter(|c| !current.contains(*c)))
                .find_map(|c| old.get(c).copied());
            let id = match id {
                Some(id) if used.insert(id) => id,
                _ => {
                    let id = next;
                    next += 1;
                    used.insert(id);
                    id
                }
            };
            Vector {
                id,
                comment: d.comment,
                items: json::items_to_json(&d.items),
                wire: pmix_oracle::hex::encode(&d.wire),
                result: d.result,
                flags: d.flags.into_iter().collect(),
                error: d
                    .error
                    .map(|(ph, st, idx)| expected_error(ph, Status(st), idx)),
                decoded: d.decoded.map(|x| json::items_to_json(&x)),
            }
        })
        .collect();
    VectorFile {
        schema: SCHEMA.into(),
        source,
        component: comp.name().into(),
        buffer: kind.name().into(),
        release: rel.name().into(),
        number_of_tests: tests.len(),
        number_of_computed: tests
            .iter()
            .filter(|t| t.flags.iter().any(|f| f == "Computed"))
            .count(),
        notes,
        tests,
    }
}

/// Options for a regeneration.
#[derive(Clone, Debug)]
pub struct Options {
    /// The checked-in `vectors/` directory (ids are kept from its files).
    pub vectors_dir: PathBuf,
    /// The raw recordings (default `vectors/recordings`).
    pub shared_dir: PathBuf,
    /// No progress output.
    pub quiet: bool,
    /// The library releases to regenerate (default: every one in [`pmix_oracle::oracle::LIBRARIES`]).
    pub libraries: Vec<String>,
}

impl Options {
    /// Defaults relative to the workspace root.
    pub fn defaults() -> Self {
        let root = pmix_oracle::oracle::workspace_root();
        Options {
            vectors_dir: root.join("vectors"),
            shared_dir: root.join("vectors/recordings"),
            quiet: false,
            libraries: pmix_oracle::oracle::LIBRARIES
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }
}

/// The generated corpus: relative path -> file.
pub type Corpus = BTreeMap<String, VectorFile>;

/// Read every `*.json` vector file under `dir` (relative paths as keys).
pub fn load_dir(dir: &Path) -> Result<Corpus, String> {
    let mut out = Corpus::new();
    let mut subs: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("openpmix-"))
                .collect()
        })
        .unwrap_or_default();
    subs.sort();
    for sub in subs {
        let d = dir.join(&sub);
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut names: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        for p in names {
            let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let f = VectorFile::from_json(&text).map_err(|e| format!("{}: {e}", p.display()))?;
            out.insert(
                format!(
                    "{sub}/{}",
                    p.file_name().unwrap_or_default().to_string_lossy()
                ),
                f,
            );
        }
    }
    Ok(out)
}
