//! Bridges to real servers: the PRRTE bridge ([`prrte`], behind `pmix-prrte-bridge`), and the
//! harness layer it follows: how a scenario step the server has no request for is acted out,
//! and with whose privileges.
//!
//! A bridge must never depend on a server's laxity: every harness action uses only a
//! privilege the specification grants, so the harness keeps working on a server that
//! enforces ownership strictly. [`relay::HarnessRelay`] runs this same layer in front of any
//! SERVER.md server; `tests/bridge_harness.rs` runs the whole scenario suite through it
//! against `pmix-model-server --strict-ownership`.
//!
//! * A job is ended by its **launcher** (the tool or job that spawned it) while that runs,
//!   else by **itself** ([`job_ender`], [`end_job`]); never by a tool that owns nothing.
//! * A **scheduler reclaim** needs a scheduler's path; PRRTE offers the bridge none it can
//!   drive ([`RECLAIM_UNSUPPORTED`]), so such a step is unsupported rather than played by a
//!   tool that owns nothing.
//! * A job runs as many processes per node as the highest rank a scenario names for it plus
//!   one (`ranks` of a `spawn`), and a request by rank R is made by that process
//!   ([`rank_exists`]).

pub mod native;
pub mod prrte;
pub mod relay;

use crate::protocol::{Requester, RequesterKind};

/// Why a scheduler reclaim is unsupported against PRRTE 5.0.0rc1.
pub const RECLAIM_UNSUPPORTED: &str = "a scheduler reclaim has no path the bridge can drive: a tool attached as the scheduler cannot send PMIX_ALLOC_RELEASE (its own PMIx library refuses every allocation request by the scheduler, OpenPMIx pmix_alloc.c), PRRTE's scheduler path PMIx_Session_control(TERMINATE) names a numeric session id that no allocation response returns, and a RELEASE by a tool that owns nothing would work only through PRRTE's uid-ownership deviation";

/// Who ends job `job` when a scenario says it terminates: its launcher while `running`
/// says that still runs, else the job itself (rank 0, killing its own namespace).
pub fn job_ender(
    job: &str,
    launcher: Option<&Requester>,
    running: impl Fn(&Requester) -> bool,
) -> Requester {
    match launcher {
        Some(l) if running(l) => l.clone(),
        _ => Requester {
            kind: RequesterKind::App,
            nspace: job.to_string(),
            rank: 0,
        },
    }
}

/// What the harness needs from a server to end a job: who still runs, and job control
/// (`PMIx_Job_control(PMIX_JOB_CTRL_KILL)`) made by a given requester.
pub trait JobControl {
    /// Whether `who` still runs (and so may still act).
    fn running(&mut self, who: &Requester) -> Result<bool, String>;
    /// `PMIx_Job_control(KILL)` of job `job`, made by `by`: the status it answered. `Err` is
    /// a fault of the bridge, not an observation about the server.
    fn kill(&mut self, by: &Requester, job: &str) -> Result<i32, String>;
}

/// End job `job`, launched by `launcher`, with the privileges the spec grants
/// ([`job_ender`]): who ended it and the status of the kill.
pub fn end_job(
    server: &mut impl JobControl,
    job: &str,
    launcher: Option<&Requester>,
) -> Result<(Requester, i32), String> {
    let alive = match launcher {
        Some(l) => server.running(l)?,
        None => false,
    };
    let by = job_ender(job, launcher, |_| alive);
    let status = server.kill(&by, job)?;
    Ok((by, status))
}

/// Whether requester `r` names a process that exists: a job's rank below the number of
/// processes per node it was spawned with (`ranks`); tools and the scheduler are rank 0.
pub fn rank_exists(r: &Requester, ranks: Option<u32>) -> bool {
    match r.kind {
        RequesterKind::App => r.rank < ranks.unwrap_or(1),
        RequesterKind::Tool | RequesterKind::Scheduler => r.rank == 0,
    }
}
