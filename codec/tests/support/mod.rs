//! Helpers shared by the integration tests that walk the golden vectors.

use pmix_codec::vectors::VectorFile;
use std::path::{Path, PathBuf};

/// Every golden vector file under `vectors/`, in path order.
pub fn vector_files() -> Vec<VectorFile> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors"),
        &mut paths,
    );
    paths.sort();
    paths
        .iter()
        .map(|p| VectorFile::from_json(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

/// Bytes from hex text (the vectors' `wire`).
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}
