//! A PRRTE 5.0.0rc1 DVM (OpenPMIx 7.0.0rc1, sid root) started by `tools/prrte/dvm.sh`,
//! stopped when dropped.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use pmix_ptl::ServerUri;

use crate::repo;

/// A running DVM.
pub struct Dvm {
    /// Its directory (`uri`, logs).
    pub dir: PathBuf,
}

impl Dvm {
    /// Whether the sid root with PRRTE exists (quietly).
    pub fn available() -> bool {
        crate::sid_root().is_some_and(|r| r.join("usr/bin/prte").exists())
    }

    /// Start a DVM of the fake nodes `nodes` (e.g. `n1,n2`); `name` keeps its directory
    /// apart from other DVMs of the same test process.
    pub fn start(nodes: &str, name: &str) -> Dvm {
        let dir = std::env::temp_dir().join(format!("pmix-dvm-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let t0 = Instant::now();
        let out = Command::new("timeout")
            .args(["90", "bash"])
            .arg(repo().join("tools/prrte/dvm.sh"))
            .args(["start", "--nodes", nodes, "--timeout", "60", "--dir"])
            .arg(&dir)
            .output()
            .expect("run dvm.sh");
        let dvm = Dvm { dir };
        assert!(
            out.status.success(),
            "dvm.sh start failed after {:?}: {}",
            t0.elapsed(),
            String::from_utf8_lossy(&out.stderr)
        );
        dvm
    }

    /// The URI the DVM wrote.
    pub fn uri(&self) -> ServerUri {
        ServerUri::from_file(&self.dir.join("uri")).expect("URI file")
    }
}

impl Drop for Dvm {
    fn drop(&mut self) {
        let _ = Command::new("timeout")
            .args(["40", "bash"])
            .arg(repo().join("tools/prrte/dvm.sh"))
            .args(["stop", "--timeout", "20", "--dir"])
            .arg(&self.dir)
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
