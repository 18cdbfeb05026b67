//! The PRRTE bridge (`pmix-prrte-bridge`): a SERVER.md server backed by a real PRRTE DVM.
//!
//! `pmix-prrte-bridge --repo DIR --puppet PATH [--release 7.0.0rc1]`. PRRTE-specific parts: the
//! puppets (`puppet.rs`), DVM control and observation (`dvm.rs`), the SERVER.md requests
//! (`requests.rs`); the harness policy they follow is [`crate::bridge`].
//!
//! `start` runs `tools/prrte/dvm.sh start` (a real `prte` from the sid root, one logical node
//! per startup node). Every scenario tool is a real PMIx tool process (the C `puppet`,
//! `tools/prrte/puppet.c`, at PATH inside the root), driven line by line; so is the bridge's
//! own query/probe tool and, when a warning is due, a tool attached as the scheduler
//! (`PMIX_SERVER_SCHEDULER`). PRRTE's job namespaces are translated to the scenario's names
//! (responses, queries, and `PMIX_ALLOC_TARGET` values in requests). Every wait is bounded.
//!
//! Every spawned job runs the puppet too (client mode), `ranks` processes per candidate node
//! (`PMIX_MAPBY ppr:RANKS:node`, where `ranks` is one more than the highest rank the
//! scenario names for the job): each process serves the bridge through FIFOs under
//! `ROOT/tmp/pmix-wire-ctl/<bridge pid>` (`NSPACE.RANK.in`/`.out`; one directory per bridge,
//! removed when the DVM stops), so an application requester `app:J:R` is rank R of job J,
//! a real process, and the events of ranks 0..ranks of each job are collected.
//!
//! What PRRTE does, however surprising, is reported as an observation, never as a bridge
//! error: a PMIx call that does not return within `PUPPET_TIMEOUT` (30 s) answers
//! `PMIX_ERR_TIMEOUT` with a message naming the call; a request by a job's process PRRTE
//! already ended answers `PMIX_ERR_UNREACH` with a message; a job that is still running 10 s
//! after `PMIx_Job_control(KILL)` succeeded fails its `terminate` step the same way. A job
//! counts as ended when `PMIX_QUERY_NAMESPACES` no longer lists it or when
//! `PMIX_QUERY_PROC_TABLE` gives every one of its processes a terminated state (PRRTE keeps
//! listing the owning job of a CHILD reservation while its descendants drain). The bridge
//! answers a spawn, or kills a job, only once every process of it has connected: killing
//! earlier races PRRTE's launch bookkeeping, after which it answers `PMIX_ERR_UNREACH`.
//!
//! What PRRTE or the bridge offers no path for is answered `unsupported`: a PMIx without some
//! of the five attributes (they are compiled in); allocation requests by the scheduler (its
//! own PMIx library refuses them, `PMIX_ERR_NOT_SUPPORTED`, OpenPMIx `pmix_alloc.c`); a job
//! with more processes per node than a node's slots (8); REAQUIRE and REQ_CANCEL, which PRRTE answers `PMIX_ERR_NOT_SUPPORTED`
//! whatever they carry (the bridge resends without `PMIX_ALLOC_INHERITANCE` to tell); a
//! scheduler reclaim (see `RECLAIM_UNSUPPORTED`).
//!
//! The harness acts only with privileges the spec grants ([`crate::bridge::end_job`], which
//! `tests/bridge_harness.rs` runs against `pmix-model-server --strict-ownership`): a job is
//! ended by its launcher (the tool or job that spawned it) while that runs, else by itself; the bridge's own tool only
//! queries and spawns (and ends) its own probe jobs. It never relies on PRRTE letting a tool
//! that owns nothing act on a reservation (PRRTE's uid-ownership deviation).

use crate::bridge as harness;
use crate::protocol::{EventView, Observed, ProcRef, Request, Requester, RequesterKind, Response};
use crate::server::{read_frame, write_frame};
use crate::wireinfo::{string_of, WireFormat, WireInfo};
use pmix_codec::attrs;
use pmix_codec::{Info, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

mod dvm;
mod puppet;
mod requests;

use dvm::Bridge;
#[allow(unused_imports)]
use puppet::{line_reader, Puppet, PuppetErr};

/// How long one puppet command may take (a tool's grow waits up to 5 s for
/// PMIX_DVM_IS_READY). Three such waits stay under the suite's per-request timeout.
const PUPPET_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a job may take to end after a kill, and a grow to show its daemons.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);
/// `pmix_proc_state_t`: every state from PMIX_PROC_STATE_TERMINATED (20) on is an ended process.
const PROC_STATE_TERMINATED: i32 = 20;
/// `PMIX_PROC_STATE_CONNECTED`: the process has called PMIx_Init.
const PROC_STATE_CONNECTED: i32 = 6;
/// `O_NONBLOCK` (Linux): opening a FIFO's write end fails at once when nobody reads it.
const O_NONBLOCK: i32 = 0o4000;
/// The bridge's own tool namespace (queries, probes, kills, reclaims).
const BRIDGE_TOOL: &str = "pmix-bridge";
const SCHEDULER_TOOL: &str = "pmix-bridge-sched";
/// Slots per logical node (startup and granted alike).
const SLOTS: u32 = 8;

/// Serve SERVER.md on stdin/stdout with `args` (the command line after the program name).
pub fn main(args: impl Iterator<Item = String>) -> ExitCode {
    let mut repo = None;
    let mut puppet = None;
    let mut release = "7.0.0rc1".to_string();
    let mut native = None;
    let mut args = args;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repo" => repo = args.next().map(PathBuf::from),
            "--puppet" => puppet = args.next(),
            "--release" => release = args.next().unwrap_or_default(),
            "--native-server" => native = args.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!("usage: pmix-prrte-bridge --repo DIR --puppet PATH-IN-ROOT [--release 7.0.0rc1] [--native-server PATH]\nServes a real PRRTE DVM over SERVER.md (stdin/stdout); with --native-server, pmix-server serve (the model as host) in its place.");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("pmix-prrte-bridge: unknown argument {other:?} (valid: --repo --puppet --release --native-server)");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(repo), Some(puppet)) = (repo, puppet) else {
        eprintln!("pmix-prrte-bridge: --repo and --puppet are required");
        return ExitCode::from(2);
    };
    let root = match Command::new("bash")
        .arg(repo.join("tools/peers.sh"))
        .args(["root", &release])
        .stderr(Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
        _ => {
            eprintln!("pmix-prrte-bridge: no {release} root (bash tools/peers.sh make {release})");
            return ExitCode::from(1);
        }
    };
    // One control directory per bridge: FIFO names are PRRTE job namespaces, which a later
    // DVM with a recycled pid could repeat.
    let ctl = format!("/tmp/pmix-wire-ctl/{}", std::process::id());
    if let Err(e) = std::fs::create_dir_all(root.join(ctl.trim_start_matches('/'))) {
        eprintln!("pmix-prrte-bridge: {e}");
        return ExitCode::from(1);
    }
    let dir = std::env::temp_dir().join(format!("pmix-prrte-bridge-{}", std::process::id()));
    let mut b = Bridge {
        repo,
        puppet,
        release,
        dir,
        uri: None,
        format: WireFormat::default(),
        honors_warn: true,
        tools: BTreeMap::new(),
        apps: BTreeMap::new(),
        ranks: BTreeMap::new(),
        root,
        ctl,
        startup: Vec::new(),
        stuck: BTreeMap::new(),
        own: None,
        scheduler: None,
        jobs: BTreeMap::new(),
        launchers: BTreeMap::new(),
        warn: BTreeMap::new(),
        native,
        native_server: None,
    };
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    while let Ok(Some(frame)) = read_frame(&mut input) {
        let (resp, stop) = match serde_json::from_slice::<Request>(&frame) {
            Ok(req) => {
                let stop = matches!(req, Request::Shutdown);
                let resp = match b.handle(&req) {
                    Ok(r) => r,
                    Err(e) => {
                        // A bridge failure is not a finding about PRRTE: end the process so
                        // the suite reports an error, never a pass or a failure.
                        eprintln!("pmix-prrte-bridge: {e}");
                        b.stop_dvm();
                        let _ = std::fs::remove_dir_all(&b.dir);
                        let _ = std::fs::remove_dir_all(b.ctl_dir());
                        return ExitCode::from(1);
                    }
                };
                (resp, stop)
            }
            Err(e) => (
                Response {
                    status: pmix_codec::Status::ERR_BAD_PARAM.0,
                    message: Some(format!("invalid request: {e}")),
                    ..Default::default()
                },
                false,
            ),
        };
        let body = serde_json::to_vec(&resp).unwrap_or_default();
        if write_frame(&mut output, &body).is_err() || output.flush().is_err() || stop {
            break;
        }
    }
    b.stop_dvm();
    let _ = std::fs::remove_dir_all(&b.dir);
    let _ = std::fs::remove_dir_all(b.ctl_dir());
    ExitCode::SUCCESS
}
