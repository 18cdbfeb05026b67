//! The jobs a spawn starts: each rank a real process started with the environment of a
//! client of this server (as `launch` starts the server's own job), its state kept apart
//! from the other jobs', a thread that notices when every process has ended, and a kill.
//!
//! After the host decided something, [`settle`] kills the processes of every spawned job
//! it no longer runs and delivers the events it raised ([`crate::notify`]).
//!
//! The processes' standard output goes to the server's standard error (a server driven
//! through its standard output, as the conformance bridge does, keeps that clean).

use std::collections::BTreeMap;
use std::os::fd::AsFd;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use pmix_codec::App;

use crate::host::model::proc_info_of;
use crate::host::{Grant, Host, ProcTable};
use crate::job::Job;
use crate::notify::deliver_all;
use crate::process::{command, environment_for, kill_group, Launch};
pub use crate::process::{LaunchedJob, LaunchedProc};
use crate::shared::Shared;
use crate::state::State;

/// `PMIX_PROC_STATE_RUNNING`, `PMIX_PROC_STATE_CONNECTED`, `PMIX_PROC_STATE_TERMINATED`.
const RUNNING: u8 = 5;
const CONNECTED: u8 = 6;
const TERMINATED: u8 = 20;

fn text(t: &pmix_codec::NullableText) -> Option<String> {
    t.as_ref().and_then(|t| t.as_str()).map(str::to_string)
}

/// Start the job `grant` describes, each rank running its app. A rank that cannot be
/// started is recorded as ended. Returns whether every rank started.
pub fn launch(sh: &Arc<Shared>, grant: &Grant, apps: &[App]) -> bool {
    let size = grant.ranks.len() as u32;
    let mut job = Job::new(&grant.nspace, size);
    job.hostname = sh.config.job.hostname.clone();
    let state = Arc::new(Mutex::new(State::new(job.clone())));
    let mut procs = Vec::new();
    let mut all = true;
    for (rank, (a, node)) in grant.ranks.iter().enumerate() {
        let child = apps
            .get(*a)
            .and_then(|app| start(sh, &job, rank as u32, app));
        all &= child.is_some();
        procs.push(LaunchedProc {
            node: node.clone(),
            pid: child.as_ref().map_or(0, |c| c.id() as i32),
            child,
        });
    }
    sh.spawned
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(grant.nspace.clone(), LaunchedJob { state, procs });
    let sh2 = sh.clone();
    let ns = grant.nspace.clone();
    std::thread::spawn(move || reap(&sh2, &ns));
    all
}

/// Start rank `rank` of `job` running `app` (its `env` entries added to the client's).
fn start(sh: &Shared, job: &Job, rank: u32, app: &App) -> Option<Child> {
    let mut env = environment_for(&sh.uri, job, &sh.config.psec, rank, &Launch::default());
    env.extend(app.env.iter().filter_map(text).filter_map(|kv| {
        kv.split_once('=')
            .map(|(k, v)| (k.to_string(), v.to_string()))
    }));
    let argv: Vec<String> = app.argv.iter().filter_map(text).collect();
    let program = text(&app.cmd).or_else(|| argv.first().cloned())?;
    let args = argv.get(1..).unwrap_or_default();
    let mut c = command(&program, args, env, &sh.config.spawn_wrapper);
    if let Some(cwd) = text(&app.cwd).filter(|d| !d.is_empty()) {
        c.current_dir(cwd);
    }
    let out = std::io::stderr().as_fd().try_clone_to_owned().ok()?;
    c.stdin(Stdio::null()).stdout(Stdio::from(out));
    c.spawn().ok()
}

/// Wait for every process of `nspace` to end, then tell the host.
fn reap(sh: &Arc<Shared>, nspace: &str) {
    loop {
        let done = {
            let mut jobs = sh.spawned.lock().unwrap_or_else(|e| e.into_inner());
            let Some(job) = jobs.get_mut(nspace) else {
                return;
            };
            for p in job.procs.iter_mut() {
                if let Some(c) = p.child.as_mut() {
                    if !matches!(c.try_wait(), Ok(None)) {
                        p.child = None;
                    }
                }
            }
            job.procs.iter().all(|p| p.child.is_none())
        };
        if done {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    sh.host
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .job_ended(nspace);
    settle(sh);
}

/// Kill every process of `nspace` (the reaper then reports the job ended).
pub fn kill(sh: &Shared, nspace: &str) {
    let jobs = sh.spawned.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(job) = jobs.get(nspace) {
        for c in job.procs.iter().filter_map(|p| p.child.as_ref()) {
            kill_group(c, "-KILL");
        }
    }
}

/// The state of spawned job `nspace`, for its clients' handshakes.
pub fn state_of(sh: &Shared, nspace: &str) -> Option<Arc<Mutex<State>>> {
    sh.spawned
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(nspace)
        .map(|j| j.state.clone())
}

/// What the server knows of every spawned process: node, pid and state.
pub fn proc_table(sh: &Shared) -> ProcTable {
    let jobs = sh.spawned.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = BTreeMap::new();
    for (ns, job) in jobs.iter() {
        let st = job.state.lock().unwrap_or_else(|e| e.into_inner());
        let procs = job
            .procs
            .iter()
            .enumerate()
            .map(|(rank, p)| {
                let state = if p.child.is_none() {
                    TERMINATED
                } else if st.ranks.get(&(rank as u32)).is_some_and(|r| r.connected) {
                    CONNECTED
                } else {
                    RUNNING
                };
                proc_info_of(ns, rank as u32, &p.node, p.pid, state)
            })
            .collect();
        out.insert(ns.clone(), procs);
    }
    out
}

/// The spawned jobs with a process still running.
pub fn live_jobs(sh: &Shared) -> Vec<String> {
    sh.spawned
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|(_, j)| j.procs.iter().any(|p| p.child.is_some()))
        .map(|(ns, _)| ns.clone())
        .collect()
}

/// Kill every spawned process (the server is stopping).
pub fn kill_all(sh: &Shared) {
    for ns in live_jobs(sh) {
        kill(sh, &ns);
    }
}

/// How long a job that ended itself by its own request keeps running after its answer went
/// out: killed at once, its process could die before it has read the answer from its socket
/// (a race the scenario runs hit), where PRRTE's answer always arrives first.
const REQUESTER_GRACE: Duration = Duration::from_millis(1500);

/// The host, locked (a poisoned lock still serves).
pub(crate) fn host(sh: &Shared) -> MutexGuard<'_, Box<dyn Host>> {
    sh.host.lock().unwrap_or_else(|e| e.into_inner())
}

/// After the host decided something: kill the processes of every spawned job it no longer
/// runs, and deliver the events it raised.
pub fn settle(sh: &Shared) {
    settle_sparing(sh, None)
}

/// [`settle`], except that the requester's own job, if the host ended it, is killed only
/// after [`REQUESTER_GRACE`], and only if the host still does not run it then.
pub(crate) fn settle_sparing(sh: &Shared, requester: Option<(&Arc<Shared>, &str)>) {
    let (running, notices) = {
        let mut h = host(sh);
        (h.running_jobs(), h.take_notices())
    };
    if let Some(running) = running {
        for ns in live_jobs(sh) {
            if running.contains(&ns) {
                continue;
            }
            match requester {
                Some((shared, r)) if r == ns => {
                    let shared = Arc::clone(shared);
                    std::thread::spawn(move || {
                        std::thread::sleep(REQUESTER_GRACE);
                        let still = host(&shared).running_jobs();
                        if still.is_some_and(|r| !r.contains(&ns)) {
                            kill(&shared, &ns);
                        }
                    });
                }
                _ => kill(sh, &ns),
            }
        }
    }
    deliver_all(sh, &notices);
}
