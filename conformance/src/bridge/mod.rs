//! Bridges to real servers: the PRRTE bridge ([`prrte`], behind `pmix-prrte-bridge`), and the
//! harness layer it follows: how a scenario step the server has no request for is acted out,
//! and with whose privileges.
//!
//! A bridge must never depend on a server's laxity: every harness action uses only a
//! privilege the specification grants, so the harness keeps working on a server that
//! enforces ownership strictly. `tests/bridge_harness.rs` runs these decisions against the
//! reference model with strict ownership ([`crate::model::Model::set_strict_ownership`]).
//!
//! * A job is ended by its **launcher** (the tool or job that spawned it) while that runs,
//!   else by **itself** ([`job_ender`]); never by a tool that owns nothing.
//! * A **scheduler reclaim** needs a scheduler's path; PRRTE offers the bridge none it can
//!   drive ([`RECLAIM_UNSUPPORTED`]), so such a step is unsupported rather than played by a
//!   tool that owns nothing.
//! * A requester rank other than 0 is unsupported ([`RANK_UNSUPPORTED`]).

pub mod native;
pub mod prrte;

use crate::protocol::{Requester, RequesterKind};

/// Why a scheduler reclaim is unsupported against PRRTE 5.0.0rc1.
pub const RECLAIM_UNSUPPORTED: &str = "a scheduler reclaim has no path the bridge can drive: a tool attached as the scheduler cannot send PMIX_ALLOC_RELEASE (its own PMIx library refuses every allocation request by the scheduler, OpenPMIx pmix_alloc.c), PRRTE's scheduler path PMIx_Session_control(TERMINATE) names a numeric session id that no allocation response returns, and a RELEASE by a tool that owns nothing would work only through PRRTE's uid-ownership deviation";

/// Why a requester rank other than 0 is unsupported by the PRRTE bridge.
pub const RANK_UNSUPPORTED: &str = "the bridge drives rank 0 of each job only (a job runs one process per candidate node, and only rank 0 takes commands): a limit of the bridge, not of PRRTE";

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
