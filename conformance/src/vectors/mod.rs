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

mod case;
mod check;
mod run;

use case::*;
pub use case::{case_id, cases, requirement, Case};
use check::*;
pub use check::{hex_diff, HexDiff};
pub use run::*;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_name_the_release_only_when_needed() {
        use BufferKind::*;
        for (component, kind, release, want) in [
            (
                Component::V61,
                NonDescribed,
                Release::OpenPmix6_1,
                "v61.non-described",
            ),
            (
                Component::V61,
                NonDescribed,
                Release::Master,
                "v61@master.non-described",
            ),
            (
                Component::V41,
                FullyDescribed,
                Release::OpenPmix4_2,
                "v41.fully-described",
            ),
            (
                Component::V41,
                NonDescribed,
                Release::Master,
                "v41@master.non-described",
            ),
            (
                Component::V61,
                NonDescribed,
                Release::OpenPmix4_2,
                "v61@4_2.non-described",
            ),
            (
                Component::V61,
                NonDescribed,
                Release::OpenPmix7_0,
                "v61@7_0.non-described",
            ),
        ] {
            assert_eq!(id_prefix(component, kind, release), want);
        }
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
