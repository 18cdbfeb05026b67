//! What the tests that run real libraries share: the repository, `tools/peers.sh`, and
//! whether a release is made (loudly when not; failing under CI).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Run `tools/peers.sh ARGS`.
pub fn peers(args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg(repo().join("tools/peers.sh"))
        .args(args)
        .output()
        .expect("bash runs")
}

/// Whether `release` is made; if not, say so loudly (and fail under CI).
pub fn available(release: &str) -> bool {
    let list = String::from_utf8_lossy(&peers(&["list"]).stdout).to_string();
    let made = list
        .lines()
        .any(|l| l.starts_with(release) && l.split_whitespace().nth(2) == Some("made"));
    if !made {
        let msg = format!(
            "OpenPMIx {release} is MISSING: pmix-server was NOT tested against its clients; \
             run `bash tools/peers.sh make {release}` (see `bash tools/peers.sh list`)"
        );
        if std::env::var_os("CI").is_some() {
            panic!("{msg}");
        }
        eprintln!("\n*** {msg} ***\n");
    }
    made
}
