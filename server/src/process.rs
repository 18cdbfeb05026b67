//! A client process: the environment a libpmix client reads in `PMIx_Init`
//! (`PMIX_NAMESPACE`, `PMIX_RANK`, `PMIX_SERVER_URI<v>`, `PMIX_VERSION`, plus `PMIX_SECURITY_MODE=native` and
//! `PMIX_GDS_MODULE=hash` so that no munge credential and no shared memory is needed), the
//! command that starts it in a process group of its own, the kill of that group, and the
//! processes of a spawned job ([`LaunchedJob`]). Both the server's own job
//! ([`crate::launch`]) and the jobs a spawn starts ([`crate::spawn`]) are started so.
//!
//! The URI variable picks the client's bfrops component: a client takes the first
//! component, in its own priority order, whose `PMIX_SERVER_URI<digits>` is set (`URI2` v20,
//! `URI21` v21, `URI3` v3, `URI4` v4, `URI41` v41, `URI51` v51, `URI61` v61). Without a
//! component every variable is set and the client picks its newest.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pmix_codec::{BufferKind, Component};

use crate::job::Job;
use crate::psec::Psec;
use crate::state::State;

/// The URI variable of `component`.
pub fn uri_variable(component: Component) -> &'static str {
    match component {
        Component::V12 => "PMIX_SERVER_URI",
        Component::V20 => "PMIX_SERVER_URI2",
        Component::V21 => "PMIX_SERVER_URI21",
        Component::V3 => "PMIX_SERVER_URI3",
        Component::V4 => "PMIX_SERVER_URI4",
        Component::V41 => "PMIX_SERVER_URI41",
        Component::V51 => "PMIX_SERVER_URI51",
        Component::V61 => "PMIX_SERVER_URI61",
    }
}

/// The OpenPMIx version a client is told its server runs (`PMIX_VERSION`, which
/// `PMIx_server_setup_fork` of every OpenPMIx server sets to its own version). A client
/// without it takes its server's version from the URI variable it picked
/// (`PMIX_SERVER_URI21` means 2.1), and a 7.0.0rc1 client refuses a server that old
/// before sending a byte (`PMIX_ERR_OUTDATED`, -76: "a version of the PMIx library this
/// process does not support"). pmix-server answers each client as a server of the
/// client's own release would, so the version named here only steers the clients'
/// compatibility branches: every branch of 4.2.2 to 6.1.0 tests an older server (before
/// 3.1.100, 4.0 or 4.2), and 6.1.0 is the newest final release, the one whose plain
/// server every client release of the live matrix completes against in every component
/// it offers.
pub const SERVER_VERSION: &str = "6.1.0";

/// How to start the clients.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// Force this component (only its URI variable is set).
    pub component: Option<Component>,
    /// Force this buffer kind (`PMIX_BFROP_BUFFER_TYPE`).
    pub kind: Option<BufferKind>,
    /// A command the client runs under, whose environment is not inherited (e.g.
    /// `bash tools/peers.sh run 5.0.7 --`): the variables are then passed with `env`.
    pub wrapper: Vec<String>,
    /// Kill every client after this long.
    pub timeout: Option<Duration>,
}

/// The environment of `rank` of `job`, served at `uri` by a server offering `psec`.
pub fn environment_for(
    uri: &str,
    job: &Job,
    psec: &Psec,
    rank: u32,
    launch: &Launch,
) -> Vec<(String, String)> {
    let mut env = vec![
        ("PMIX_NAMESPACE".to_string(), job.nspace.clone()),
        ("PMIX_RANK".to_string(), rank.to_string()),
    ];
    match launch.component {
        Some(c) => env.push((uri_variable(c).to_string(), uri.to_string())),
        None => {
            for c in Component::ALL.into_iter().skip(1) {
                env.push((uri_variable(c).to_string(), uri.to_string()));
            }
        }
    }
    env.push(("PMIX_VERSION".into(), SERVER_VERSION.into()));
    // the modules offered, highest priority first, as OpenPMIx's setup_fork passes them
    env.push(("PMIX_SECURITY_MODE".into(), psec.to_string()));
    env.push(("PMIX_GDS_MODULE".into(), "hash".into()));
    if let Some(k) = launch.kind {
        let v = match k {
            BufferKind::NonDescribed => "PMIX_BFROP_BUFFER_NON_DESC",
            BufferKind::FullyDescribed => "PMIX_BFROP_BUFFER_FULLY_DESC",
        };
        env.push(("PMIX_BFROP_BUFFER_TYPE".into(), v.into()));
    }
    env.push(("PMIX_HOSTNAME".into(), job.hostname.clone()));
    env.push(("PMIX_SERVER_TMPDIR".into(), job.tmpdir.clone()));
    env.push(("PMIX_SYSTEM_TMPDIR".into(), job.tmpdir.clone()));
    env
}

/// The command that starts `program` with `env`, directly or under `wrapper` (then the
/// variables are passed with `env`), in a process group of its own.
pub fn command(
    program: &str,
    args: &[String],
    env: Vec<(String, String)>,
    wrapper: &[String],
) -> Command {
    let mut cmd = if wrapper.is_empty() {
        let mut c = Command::new(program);
        c.args(args).envs(env);
        c
    } else {
        let mut c = Command::new(&wrapper[0]);
        c.args(&wrapper[1..]).arg("env");
        for (k, v) in env {
            c.arg(format!("{k}={v}"));
        }
        c.arg(program).args(args);
        c
    };
    cmd.process_group(0);
    cmd
}

/// Send `signal` (e.g. `-KILL`) to the process group `child` leads.
pub fn kill_group(child: &Child, signal: &str) {
    let _ = Command::new("kill")
        .args([signal, "--", &format!("-{}", child.id())])
        .stderr(std::process::Stdio::null())
        .status();
}

/// One process of a spawned job.
pub struct LaunchedProc {
    /// The (logical) node the host placed it on.
    pub node: String,
    /// Its pid (0 when it could not be started).
    pub pid: i32,
    /// The process, until it has ended.
    pub(crate) child: Option<Child>,
}

/// A spawned job: its state (as the server's own job has) and its processes, by rank.
pub struct LaunchedJob {
    /// What its clients committed, fenced and got.
    pub state: Arc<Mutex<State>>,
    /// Its processes, by rank.
    pub procs: Vec<LaunchedProc>,
}
