//! # pmix-testsupport
//!
//! What the live tests of several crates share, in one place: the real OpenPMIx library
//! of each release ([`mod@peers`], through `tools/peers.sh`), C programs built against one
//! ([`cbuild`]), the plain OpenPMIx server of `peer/servers/plain-server.c`
//! ([`plain_server`]), a PRRTE DVM ([`dvm`], through `tools/prrte/dvm.sh`), a Slurm cluster
//! ([`slurm`], through `tools/live/slurm.sh`), and tcpdump on
//! loopback, optionally inside a private network namespace so that a capture holds only
//! the test's own traffic ([`capture`]); and one test re-run under an address-space limit
//! ([`limited`]).
//!
//! A test that cannot run because something is missing says so loudly with [`missing`],
//! which fails under CI (`CI` set). Used only as a dev-dependency; never published.
#![warn(missing_docs)]

pub mod capture;
pub mod cbuild;
pub mod dvm;
pub mod limited;
pub mod peers;
pub mod plain_server;
pub mod slurm;

use std::path::{Path, PathBuf};

pub use capture::{
    capture_run, clients_passed, isolated_capture_unavailable, keep_capture, Netns, Tcpdump,
};
pub use cbuild::{build, Built};
pub use dvm::Dvm;
pub use limited::{is_limited_child, rerun_under_ulimit};
pub use peers::{peers, release_available, sid_root};
pub use plain_server::PlainServer;
pub use slurm::Slurm;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Say loudly that a live test did not run (`what` says what is missing and how to make
/// it); panic instead when `CI` is set, so that CI never passes a test that did not run.
pub fn missing(what: &str) {
    let msg = format!("{what}: the live test did NOT run");
    eprintln!("\n!!!!!!!!!! {msg}\n");
    if std::env::var_os("CI").is_some() {
        panic!("{msg}");
    }
}

/// Wait until `child` exits, at most `secs` seconds; kill it if it has not.
pub fn reap(child: &mut std::process::Child, secs: u64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}
