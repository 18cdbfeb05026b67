//! What the documentation tests share: the repository root and its tree of files.

use std::path::{Path, PathBuf};

/// The repository root (two levels above this crate, `tools/cli`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file and folder of the repository (relative, `/`-separated), without `target/`,
/// `.git/` and the rendered book (`docs/book`).
pub fn tree() -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if rel.is_empty() && (name == "target" || name == ".git") {
                continue;
            }
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if path == "docs/book" {
                continue;
            }
            out.push(path.clone());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), "", &mut out);
    out
}
