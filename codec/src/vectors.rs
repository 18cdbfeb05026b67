//! Golden vector files: the serde model and the check of one vector against this codec.
//!
//! The format is documented for vendors in `vectors/README.md`.

use crate::json;
use crate::{BufferKind, Codec, Component, DataType, Item, Release, Status};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The folder of `vectors/` that holds the live interop matrix's observations
/// (`vectors/live/README.md`): JSON, but not vector files, so every walker leaves it out.
pub const OBSERVATIONS_DIR: &str = "live";

/// Every vector file (`*.json`) under `dir`, recursively, sorted by path, leaving out
/// [`OBSERVATIONS_DIR`]. A file named directly is returned as it is.
pub fn vector_paths(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        if p.is_dir() {
            for e in std::fs::read_dir(p)? {
                let e = e?.path();
                if !(e.is_dir() && e.file_name().is_some_and(|n| n == OBSERVATIONS_DIR)) {
                    walk(&e, out)?;
                }
            }
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p.to_path_buf());
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// The schema identifier written in every file.
pub const SCHEMA: &str = "pmix-wire-vectors/1";

/// Where a file's bytes come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// `openpmix` for bytes a real OpenPMIx produced.
    pub implementation: String,
    /// e.g. `4.2.2` or `7.0.0a1`.
    pub version: String,
    /// The commit, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// How the bytes were obtained.
    pub method: String,
}

/// `valid`, `invalid` or `acceptable` (Wycheproof's terms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Encodes to exactly `wire`, and `wire` decodes to `items` (or `decoded`).
    Valid,
    /// Must fail with `error`.
    Invalid,
    /// OpenPMIx accepts it, but an implementation may refuse it (quirk or upstream bug).
    Acceptable,
}

/// The phase an invalid vector fails in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Packing `items` fails.
    Encode,
    /// Unpacking `wire` as the types of `items` fails.
    Decode,
}

/// The expected error of an invalid vector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedError {
    /// Encode or decode.
    pub phase: Phase,
    /// The PMIx status value (e.g. -50).
    pub status: i32,
    /// Its name (e.g. `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER`).
    pub name: String,
    /// 0-based index of the pack/unpack call that fails.
    pub item: usize,
}

/// One test vector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Vector {
    /// Unique within the file; stable.
    pub id: u32,
    /// What it checks.
    pub comment: String,
    /// The pack calls (for decode-phase invalid vectors: the types to unpack, values empty).
    pub items: serde_json::Value,
    /// The buffer, lowercase hex.
    pub wire: String,
    /// valid / invalid / acceptable.
    pub result: Outcome,
    /// e.g. `Quirk`, `UpstreamBug`, `Lossy`, `Derived`, `Truncated`.
    #[serde(default)]
    pub flags: Vec<String>,
    /// For invalid vectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ExpectedError>,
    /// Where decoding does not give back `items` (lossy wire forms): what it gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decoded: Option<serde_json::Value>,
}

/// One vector file: one (source, component, buffer kind).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VectorFile {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Provenance.
    pub source: Source,
    /// Component name.
    pub component: String,
    /// `non-described` or `fully-described`.
    pub buffer: String,
    /// Release profile a codec must use to reproduce these bytes (`4.2` or `master`).
    pub release: String,
    /// Number of tests; checked on load.
    #[serde(rename = "numberOfTests")]
    pub number_of_tests: usize,
    /// How many tests are flagged `Computed` (expected by pmix-codec, not produced by a
    /// library); checked on load.
    #[serde(rename = "numberOfComputed", default)]
    pub number_of_computed: usize,
    /// Meaning of each flag used in this file.
    #[serde(default)]
    pub notes: std::collections::BTreeMap<String, String>,
    /// The vectors.
    pub tests: Vec<Vector>,
}

impl VectorFile {
    /// Parse and validate a file (schema, counts, unique ids, known component).
    pub fn from_json(text: &str) -> Result<VectorFile, String> {
        let f: VectorFile =
            serde_json::from_str(text).map_err(|e| format!("not a vector file: {e}"))?;
        if f.schema != SCHEMA {
            return Err(format!("schema {:?}, expected {SCHEMA:?}", f.schema));
        }
        if f.number_of_tests != f.tests.len() {
            return Err(format!(
                "numberOfTests says {} but there are {} tests",
                f.number_of_tests,
                f.tests.len()
            ));
        }
        let computed = f.computed();
        if f.number_of_computed != computed {
            return Err(format!(
                "numberOfComputed says {} but {computed} tests are flagged Computed",
                f.number_of_computed
            ));
        }
        let mut ids: Vec<u32> = f.tests.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() != f.tests.len() {
            return Err("duplicate test ids".into());
        }
        f.codec()?;
        Ok(f)
    }

    /// The tests flagged `Computed`: their expectation comes from pmix-codec, because no
    /// library could produce it (it crashed or read memory it does not own).
    pub fn computed(&self) -> usize {
        self.tests
            .iter()
            .filter(|t| t.flags.iter().any(|f| f == "Computed"))
            .count()
    }

    /// The codec these vectors are for.
    pub fn codec(&self) -> Result<Codec, String> {
        let comp: Component = self.component.parse()?;
        let kind: BufferKind = self.buffer.parse()?;
        let rel: Release = self.release.parse()?;
        Ok(Codec::new(comp, kind).with_release(rel))
    }

    /// Pretty JSON with a trailing newline (the checked-in form).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("serialisable");
        s.push('\n');
        s
    }
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err("odd-length wire hex".into());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| "bad wire hex".to_string())
        })
        .collect()
}

/// Lowercase hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Check one vector against `codec`; `Err` explains the first difference.
pub fn check_vector(codec: &Codec, v: &Vector) -> Result<(), String> {
    let items = json::items_from_json(&v.items)?;
    let wire = unhex(&v.wire)?;
    let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
    match (v.result, &v.error) {
        (Outcome::Invalid, Some(e)) => {
            let got = match e.phase {
                Phase::Encode => codec.encode(&items).map(|_| ()),
                Phase::Decode => codec.decode(&wire, &types).map(|_| ()),
            };
            match got {
                Ok(()) => Err(format!(
                    "expected {} ({}) at item {}, but it succeeded",
                    e.name, e.status, e.item
                )),
                Err(err) if err.status.0 == e.status && err.item == e.item => Ok(()),
                Err(err) => Err(format!(
                    "expected {} ({}) at item {}, got {err}",
                    e.name, e.status, e.item
                )),
            }
        }
        (Outcome::Invalid, None) => Err("invalid vector without an error".into()),
        (Outcome::Valid | Outcome::Acceptable, _) => {
            let enc = codec
                .encode(&items)
                .map_err(|e| format!("encode failed: {e}"))?;
            if enc != wire {
                return Err(format!(
                    "encode differs:\n  expected {}\n  actual   {}",
                    v.wire,
                    hex(&enc)
                ));
            }
            let want: Vec<Item> = match &v.decoded {
                Some(d) => json::items_from_json(d)?,
                None => items,
            };
            let got = codec
                .decode(&wire, &types)
                .map_err(|e| format!("decode failed: {e}"))?;
            if format!("{got:?}") != format!("{want:?}") {
                return Err(format!(
                    "decode differs:\n  expected {}\n  actual   {}",
                    json::items_to_json(&want),
                    json::items_to_json(&got)
                ));
            }
            Ok(())
        }
    }
}

/// The expected-error record for a status.
pub fn expected_error(phase: Phase, status: Status, item: usize) -> ExpectedError {
    ExpectedError {
        phase,
        status: status.0,
        name: status
            .name()
            .map(|n| format!("PMIX_{n}"))
            .unwrap_or_else(|| format!("status {}", status.0)),
        item,
    }
}
