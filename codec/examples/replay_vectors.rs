//! Replay golden vector files against pmix-codec from Rust: load each file, build its codec
//! (component, buffer kind, release profile) and check every vector.
//!
//! Run: `cargo run -p pmix-codec --example replay_vectors [DIR_OR_FILE ...]`
//! (default: the repository's `vectors/`). Exits 1 when a vector fails.

use pmix_codec::vectors::{check_vector, vector_paths, VectorFile};
use std::path::{Path, PathBuf};

/// Replay every vector under `roots`; returns (passed, failed).
pub fn replay(roots: &[PathBuf]) -> (usize, usize) {
    let mut list = Vec::new();
    for r in roots {
        list.extend(vector_paths(r).unwrap_or_else(|e| panic!("{}: {e}", r.display())));
    }
    let (mut passed, mut failed) = (0, 0);
    for path in list {
        let text = std::fs::read_to_string(&path).expect("readable file");
        let file =
            VectorFile::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let codec = file.codec().expect("known component, kind and release");
        for v in &file.tests {
            match check_vector(&codec, v) {
                Ok(()) => passed += 1,
                Err(e) => {
                    failed += 1;
                    eprintln!("{} #{}: {e}", path.display(), v.id);
                }
            }
        }
    }
    (passed, failed)
}

pub fn main() {
    let mut roots: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if roots.is_empty() {
        roots.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors"));
    }
    let (passed, failed) = replay(&roots);
    println!("{passed} vectors passed, {failed} failed");
    assert!(passed > 0, "no vectors found under {roots:?}");
    if failed > 0 {
        std::process::exit(1);
    }
}
