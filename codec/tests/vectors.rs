//! Replays every golden vector in `vectors/` through the codec (encode for valid and
//! acceptable vectors, decode for all), checks the files' headers and coverage, and checks
//! `vectors/LOCK`: a frozen vector whose bytes change fails here.
//!
//! The vectors are regenerated from the installed libpmix with
//! `cargo run --release -p pmix-vectorgen --bin pmix-vectors -- regenerate`; see `vectors/README.md`.

use pmix_codec::vectors::{check_vector, Outcome, VectorFile};
use pmix_codec::*;
use serde_json::Value as J;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors")
}

/// Every `*.json` under `vectors/` (relative path, text), sorted.
fn files() -> Vec<(String, String)> {
    let base = vectors_dir();
    let out: Vec<(String, String)> = pmix_codec::vectors::vector_paths(&base)
        .unwrap_or_else(|e| panic!("{}: {e}", base.display()))
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap();
            (rel, text)
        })
        .collect();
    assert!(
        !out.is_empty(),
        "no vector files under {}",
        vectors_dir().display()
    );
    out
}

fn load(rel: &str, text: &str) -> VectorFile {
    VectorFile::from_json(text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn every_vector_replays_through_the_codec() {
    let mut failures = Vec::new();
    let (mut total, mut passed) = (0, 0);
    for (rel, text) in files() {
        let f = load(&rel, &text);
        let codec = f.codec().unwrap();
        let mut ok = 0;
        let mut by_outcome: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for v in &f.tests {
            let k = match v.result {
                Outcome::Valid => "valid",
                Outcome::Invalid => "invalid",
                Outcome::Acceptable => "acceptable",
            };
            let e = by_outcome.entry(k).or_default();
            e.1 += 1;
            match check_vector(&codec, v) {
                Ok(()) => {
                    ok += 1;
                    e.0 += 1;
                }
                Err(why) => failures.push(format!(
                    "{rel} #{} ({}): {why}\n   wire {}",
                    v.id, v.comment, v.wire
                )),
            }
        }
        let detail: Vec<String> = by_outcome
            .iter()
            .map(|(k, (p, n))| format!("{k} {p}/{n}"))
            .collect();
        println!(
            "{rel:<50} {ok:>5}/{:<5} pass  ({})",
            f.tests.len(),
            detail.join(", ")
        );
        total += f.tests.len();
        passed += ok;
    }
    println!("{passed}/{total} vectors pass");
    let show: usize = std::env::var("VECTORS_SHOW")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(80);
    for f in failures.iter().take(show) {
        println!("FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {total} vectors fail (first ones printed above)",
        failures.len()
    );
}

/// Each of the eight components, both buffer kinds, and every type each component registers
/// appear in the vectors (as a pack call with values).
#[test]
fn the_corpus_covers_every_component_kind_and_registered_type() {
    let mut seen: BTreeMap<(String, String), BTreeSet<u16>> = BTreeMap::new();
    let mut valid = 0;
    let mut invalid = 0;
    for (rel, text) in files() {
        let f = load(&rel, &text);
        let types = seen
            .entry((f.component.clone(), f.buffer.clone()))
            .or_default();
        for v in &f.tests {
            match v.result {
                Outcome::Invalid => invalid += 1,
                _ => valid += 1,
            }
            // a type is covered by a pack call of it: a valid vector, or one the library refuses
            // to pack or cannot unpack (v12 cannot carry some types it registers)
            for it in v.items.as_array().unwrap() {
                if !it["values"].as_array().unwrap().is_empty() {
                    types.insert(json::parse_type(&it["type"]).unwrap().0);
                }
            }
        }
    }
    for comp in Component::ALL {
        let rel = if comp >= Component::V51 {
            Release::Master
        } else {
            Release::OpenPmix4_2
        };
        for kind in BufferKind::ALL {
            let got = seen
                .get(&(comp.name().to_string(), kind.name().to_string()))
                .unwrap_or_else(|| panic!("no vectors for {comp} {kind}"));
            let missing: Vec<String> = comp
                .registered_types(rel)
                .iter()
                .filter(|t| !got.contains(&t.0))
                .map(|t| t.to_string())
                .collect();
            assert!(
                missing.is_empty(),
                "{comp} {kind}: no vector packs {missing:?}"
            );
        }
    }
    assert!(
        valid >= 3000 && invalid >= 300,
        "corpus too small: {valid} valid, {invalid} invalid"
    );
}

// ---- the lock (the same computation as pmix_vectorgen::lock_digest) -------------------

fn canonical_json(j: &J) -> String {
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

fn lock_digest(tests: &[J], max_id: u64) -> (String, usize) {
    let mut sel: Vec<(u64, String)> = tests
        .iter()
        .filter_map(|t| {
            let id = t.get("id")?.as_u64()?;
            (id <= max_id).then(|| {
                let mut t = t.clone();
                t.as_object_mut().unwrap().remove("comment");
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
    (
        h.finalize().iter().map(|b| format!("{b:02x}")).collect(),
        sel.len(),
    )
}

fn is_frozen(rel: &str) -> bool {
    // conversations/ are live recordings of a real server (vectors/README.md)
    !rel.starts_with("openpmix-master-494e9d9d/v61-") && !rel.starts_with("conversations/")
}

/// Frozen vectors never change: every vector with an id up to the one recorded in `LOCK`
/// must hash as recorded. New vectors (higher ids) may be added; `pmix-vectors lock` then
/// extends the lock.
#[test]
fn frozen_vectors_are_unchanged() {
    let lock_path = vectors_dir().join("LOCK");
    let lock = std::fs::read_to_string(&lock_path)
        .unwrap_or_else(|e| panic!("{}: {e}", lock_path.display()));
    let mut entries: BTreeMap<String, (String, usize, u64)> = BTreeMap::new();
    for line in lock
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let p: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(p.len(), 4, "bad LOCK line {line:?}");
        entries.insert(
            p[3].to_string(),
            (
                p[0].to_string(),
                p[1].parse().unwrap(),
                p[2].parse().unwrap(),
            ),
        );
    }
    let mut problems = Vec::new();
    let all = files();
    for (rel, text) in &all {
        if !is_frozen(rel) {
            continue;
        }
        let Some((digest, n, max_id)) = entries.get(rel) else {
            problems.push(format!(
                "{rel}: frozen but not in LOCK (run `pmix-vectors lock` once it is reviewed)"
            ));
            continue;
        };
        let j: J = serde_json::from_str(text).unwrap();
        let tests = j["tests"].as_array().unwrap();
        let (d, m) = lock_digest(tests, *max_id);
        if m != *n {
            problems.push(format!("{rel}: {m} vectors with id <= {max_id}, LOCK says {n} (a frozen vector was removed or renumbered)"));
        } else if &d != digest {
            problems.push(format!(
                "{rel}: a frozen vector (id <= {max_id}) changed: digest {d}, LOCK says {digest}"
            ));
        }
    }
    for rel in entries.keys() {
        if !all.iter().any(|(r, _)| r == rel) {
            problems.push(format!("{rel}: in LOCK but missing"));
        }
    }
    assert!(
        problems.is_empty(),
        "frozen vectors changed - existing vectors must keep their bytes; add new vectors instead:\n{}",
        problems.join("\n")
    );
}

/// Every flag a file uses is explained in its notes and in vectors/README.md.
#[test]
fn flags_are_documented() {
    let readme =
        std::fs::read_to_string(vectors_dir().join("README.md")).expect("vectors/README.md");
    for (rel, text) in files() {
        let f = load(&rel, &text);
        let used: BTreeSet<&String> = f.tests.iter().flat_map(|t| &t.flags).collect();
        for flag in used {
            assert!(
                f.notes.contains_key(flag),
                "{rel}: flag {flag} not in notes"
            );
            assert!(
                readme.contains(&format!("`{flag}`")),
                "vectors/README.md does not document flag {flag}"
            );
        }
    }
}
