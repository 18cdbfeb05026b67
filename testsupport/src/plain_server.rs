//! The plain OpenPMIx 7.0.0rc1 server (`peer/servers/plain-server.c`: no resource manager,
//! it grants allocations itself and logs what its library delivered to it), built and run
//! inside the sid root.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pmix_ptl::ServerUri;

use crate::cbuild::{build, Built};
use crate::repo;

/// A running plain server; stopped (its whole process group) when dropped.
pub struct PlainServer {
    child: Child,
    /// Its URI, as it wrote it.
    pub uri: ServerUri,
    /// Its standard error: what the library delivered to it.
    pub log: PathBuf,
    built: Built,
}

impl PlainServer {
    /// Build the server against 7.0.0rc1 and start it (it ends itself after 60 s).
    pub fn start() -> PlainServer {
        let built = build(
            "7.0.0rc1",
            "plain-server",
            &repo().join("peer/servers/plain-server.c"),
            None,
        );
        let inner_dir = built
            .program
            .rsplit_once('/')
            .map(|(d, _)| d.to_string())
            .expect("a directory");
        let log = built.dir.join("server.log");
        let child = Command::new("timeout")
            .args(["90", "bash"])
            .arg(repo().join("tools/peers.sh"))
            .args(["run", "7.0.0rc1", "--"])
            .arg(&built.program)
            .arg(format!("{inner_dir}/uri"))
            .arg("60")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .process_group(0)
            .spawn()
            .unwrap();
        let uri_file = built.dir.join("uri");
        let deadline = Instant::now() + Duration::from_secs(20);
        let uri = loop {
            if let Ok(u) = ServerUri::from_file(&uri_file) {
                break u;
            }
            if Instant::now() > deadline {
                let _ = Command::new("kill")
                    .args(["-TERM", "--", &format!("-{}", child.id())])
                    .status();
                panic!(
                    "plain-server wrote no URI in 20 s: {}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        PlainServer {
            child,
            uri,
            log,
            built,
        }
    }

    /// What the server logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for PlainServer {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.child.id())])
            .status();
        // bounded: the server exits on SIGTERM, and `timeout 90` ends it regardless
        crate::reap(&mut self.child, 10);
        let _ = &self.built; // removed after the server has stopped
    }
}
