//! The real library of each release, as `tools/peers.sh` makes it available: 4.2.2 on the
//! host, 5.0.7 and 7.0.0rc1 in debootstrap roots, 6.0.0 and 6.1.0 built from source.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::repo;

/// Run `bash tools/peers.sh ARGS...` and return what it printed.
pub fn peers(args: &[&str]) -> Output {
    Command::new("bash")
        .arg(repo().join("tools/peers.sh"))
        .args(args)
        .output()
        .expect("bash runs")
}

/// Whether `release` is made (`peers.sh list` says `made`), without saying anything.
pub fn release_made(release: &str) -> bool {
    let list = String::from_utf8_lossy(&peers(&["list"]).stdout).to_string();
    list.lines()
        .any(|l| l.starts_with(release) && l.split_whitespace().nth(2) == Some("made"))
}

/// Whether `release` is made; if not, say so loudly (`consequence`: what did not run),
/// and fail under CI.
pub fn release_available(release: &str, consequence: &str) -> bool {
    let made = release_made(release);
    if !made {
        crate::missing(&format!(
            "OpenPMIx {release} is MISSING: {consequence}; run `bash tools/peers.sh make \
             {release}` (see `bash tools/peers.sh list`)"
        ));
    }
    made
}

/// The debootstrap root of a root release (5.0.7, 7.0.0rc1), if it exists.
pub fn root_of(release: &str) -> Option<PathBuf> {
    let out = peers(&["root", release]);
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && root.join("usr/bin/gcc").exists()).then_some(root)
}

/// The sid root of OpenPMIx 7.0.0rc1 and PRRTE 5.0.0rc1 (`peers.sh make 7.0.0rc1`).
pub fn sid_root() -> Option<PathBuf> {
    root_of("7.0.0rc1")
}

/// Whether the release lives in a root (its programs run through `peers.sh run`).
pub fn is_root_release(release: &str) -> bool {
    matches!(release, "5.0.7" | "7.0.0rc1")
}
