//! The checked-in files under `vectors/`: writing, checking against a regeneration, and
//! the lock (`vectors/LOCK`).

use super::files::{load_dir, Corpus};
use super::DIR_MASTER;
use pmix_codec::vectors::{Outcome, VectorFile};
use serde_json::Value as J;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::Path;
use std::result::Result;

pub use pmix_oracle::diff::line_diff;

/// Write `corpus` under `dir` (removing vector files of ours that are no longer generated).
pub fn write_corpus(corpus: &Corpus, dir: &Path) -> Result<(), String> {
    let existing = load_dir(dir).unwrap_or_default();
    let regenerated: BTreeSet<&str> = corpus.keys().filter_map(|k| k.split('/').next()).collect();
    for old in existing.keys() {
        let sub = old.split('/').next().unwrap_or_default();
        if regenerated.contains(sub) && !corpus.contains_key(old) {
            std::fs::remove_file(dir.join(old)).map_err(|e| format!("{old}: {e}"))?;
        }
    }
    for (rel, f) in corpus {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&p, f.to_json()).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// Compare `corpus` with the files under `dir`; `Err` holds a unified-ish diff of the first
/// differences.
pub fn check_corpus(corpus: &Corpus, dir: &Path) -> Result<(), String> {
    let mut report = String::new();
    let mut differing = 0;
    let mut on_disk: BTreeSet<String> = BTreeSet::new();
    // The directories regenerated (a run limited to some releases checks only those).
    let subs: BTreeSet<String> = corpus
        .keys()
        .filter_map(|k| k.split('/').next().map(String::from))
        .collect();
    for sub in subs {
        if let Ok(rd) = std::fs::read_dir(dir.join(&sub)) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().to_string();
                if n.ends_with(".json") {
                    on_disk.insert(format!("{sub}/{n}"));
                }
            }
        }
    }
    for extra in on_disk.iter().filter(|p| !corpus.contains_key(*p)) {
        differing += 1;
        report += &format!("--- {extra}\n+++ (not generated any more)\n");
    }
    for (rel, f) in corpus {
        let want = f.to_json();
        let have = std::fs::read_to_string(dir.join(rel)).unwrap_or_default();
        if want != have {
            differing += 1;
            if differing <= 5 {
                report += &line_diff(rel, &have, &want);
            }
        }
    }
    if differing == 0 {
        Ok(())
    } else {
        Err(format!("{differing} vector file(s) differ from what the library gives now (checked-in: -, regenerated: +):\n{report}"))
    }
}

/// Whether a file is frozen (covered by `vectors/LOCK`): all except the newest component's
/// master file, which follows OpenPMIx master and pmix-codec's master profile.
pub fn is_frozen(rel_path: &str) -> bool {
    !rel_path.starts_with(&format!("{DIR_MASTER}/v61-"))
}

/// Canonical JSON (object keys sorted, no whitespace).
pub fn canonical_json(j: &J) -> String {
    match j {
        J::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", J::String((*k).clone()), canonical_json(&m[*k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        J::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical_json).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// The lock digest of one file: SHA-256 over the canonical JSON (without `comment`) of each
/// test with id <= `max_id`, in id order, one per line. Returns (digest, number of tests).
pub fn lock_digest(tests: &[J], max_id: u64) -> (String, usize) {
    let mut sel: Vec<(u64, String)> = tests
        .iter()
        .filter_map(|t| {
            let id = t.get("id")?.as_u64()?;
            (id <= max_id).then(|| {
                let mut t = t.clone();
                if let Some(o) = t.as_object_mut() {
                    o.remove("comment");
                }
                (id, canonical_json(&t))
            })
        })
        .collect();
    sel.sort();
    let mut h = Sha256::new();
    for (_, s) in &sel {
        h.update(s.as_bytes());
        h.update(b"\n");
    }
    (pmix_oracle::hex::encode(&h.finalize()), sel.len())
}

/// The text of `vectors/LOCK` for the files under `dir`.
pub fn lock_text(dir: &Path) -> Result<String, String> {
    let corpus = load_dir(dir)?;
    let mut s = String::from(
        "# pmix-wire golden vector lock, format 1 (see README.md, \"Frozen vectors\").\n\
         # <sha256> <locked tests> <highest locked id> <file>\n",
    );
    for (rel, f) in &corpus {
        if !is_frozen(rel) {
            continue;
        }
        let j: J = serde_json::to_value(&f.tests).map_err(|e| e.to_string())?;
        let tests = j.as_array().cloned().unwrap_or_default();
        let max = f.tests.iter().map(|t| t.id as u64).max().unwrap_or(0);
        let (d, n) = lock_digest(&tests, max);
        s += &format!("{d} {n} {max} {rel}\n");
    }
    Ok(s)
}

/// Per-file counts: (valid, invalid, acceptable).
pub fn counts(f: &VectorFile) -> (usize, usize, usize) {
    let c = |o: Outcome| f.tests.iter().filter(|t| t.result == o).count();
    (
        c(Outcome::Valid),
        c(Outcome::Invalid),
        c(Outcome::Acceptable),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_first_difference() {
        let d = line_diff("f", "a\nb\nc\n", "a\nB\nc\n");
        assert!(d.contains("-b\n+B\n"), "{d}");
    }
}
