//! The native target of the bridge: `pmix-server serve` (the reference model as its host,
//! crate `pmix-server`) in place of a PRRTE DVM. Everything else is the PRRTE bridge's
//! driver unchanged: every scenario tool is a real OpenPMIx 7.0.0rc1 tool (the puppet), every
//! spawned job's processes are real libpmix clients (the puppet in client mode, started by
//! pmix-server under `tools/peers.sh run 7.0.0rc1`), and the bridge asks only through the
//! PMIx calls those make. `pmix-prrte-bridge --native-server PATH` selects it; the scenarios
//! then judge the model as it answers real libpmix requests on the wire.
//!
//! What the bridge cannot drive stays unsupported, with its reason: a scheduler reclaim
//! ([`RECLAIM_UNSUPPORTED`]), allocation requests by the scheduler (its own PMIx library
//! refuses them). A job runs as many processes per node as the scenario names ranks for it
//! (`PMIX_MAPBY` `ppr:N:node`, which the model host honours), so any requester rank is driven.
//!
//! With `PMIX_BRIDGE_RECORD=DIR` in its environment, each server the bridge starts records
//! every message (`pmix-server serve --record DIR/server-PID-N`), so that a case that fails
//! only now and then can be read on the wire afterwards.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::Duration;

/// The server's name in `hello`.
pub const NAME: &str =
    "pmix-server (the reference model as host) with OpenPMIx 7.0.0rc1 tools and clients (pmix-prrte-bridge --native-server)";

/// Why a scheduler reclaim is unsupported against pmix-server.
pub const RECLAIM_UNSUPPORTED: &str = "a scheduler reclaim has no path the bridge can drive: a tool attached as the scheduler cannot send PMIX_ALLOC_RELEASE (its own PMIx library refuses every allocation request by the scheduler, OpenPMIx pmix_alloc.c), and pmix-server does not serve PMIx_Session_control";

/// The variable naming a directory to record each server's conversations in.
pub const RECORD_VAR: &str = "PMIX_BRIDGE_RECORD";

/// How long the server may take to print its URI.
const START_LIMIT: Duration = Duration::from_secs(20);

/// A running `pmix-server serve`: it stops (and kills the processes it spawned) when its
/// standard input closes, so it also stops when the bridge dies.
pub struct NativeServer {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl NativeServer {
    /// Start `server` (the pmix-server binary) with the DVM's startup `nodes`, the five
    /// optional attributes it should not define (`unavailable`), its spawned processes run
    /// in `release`'s root through `repo`'s `tools/peers.sh`. Returns it and its URI.
    pub fn start(
        server: &Path,
        repo: &Path,
        release: &str,
        nodes: &[String],
        unavailable: &[String],
    ) -> Result<(NativeServer, String), String> {
        let wrapper = format!(
            "bash {} run {release} --",
            repo.join("tools/peers.sh").display()
        );
        let mut c = Command::new(server);
        c.args([
            "serve",
            "--nodes",
            &nodes.join(","),
            "--spawn-wrapper",
            &wrapper,
        ])
        .args(["--nspace", &format!("pmix-native-{}", std::process::id())]);
        if !unavailable.is_empty() {
            c.args(["--unavailable", &unavailable.join(",")]);
        }
        if let Some(dir) = std::env::var_os(RECORD_VAR) {
            static STARTED: AtomicUsize = AtomicUsize::new(0);
            let n = STARTED.fetch_add(1, Ordering::Relaxed);
            let dir = Path::new(&dir).join(format!("server-{}-{n}", std::process::id()));
            c.arg("--record").arg(dir);
        }
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", server.display()))?;
        let stdin = child.stdin.take();
        let out = child.stdout.take().ok_or("no pmix-server stdout")?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(out).read_line(&mut line);
            let _ = tx.send(line);
        });
        let mut s = NativeServer { child, stdin };
        match rx.recv_timeout(START_LIMIT) {
            Ok(uri) if uri.contains(";tcp4://") => Ok((s, uri.trim().to_string())),
            Ok(other) => {
                s.stop();
                Err(format!("pmix-server serve printed {other:?}, not a URI"))
            }
            Err(_) => {
                s.stop();
                Err(format!(
                    "pmix-server serve gave no URI within {START_LIMIT:?}"
                ))
            }
        }
    }

    /// Stop it (bounded): close its standard input, then kill it if it lingers.
    pub fn stop(&mut self) {
        self.stdin.take();
        for _ in 0..100 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for NativeServer {
    fn drop(&mut self) {
        self.stop();
    }
}
