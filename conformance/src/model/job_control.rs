//! Ending a job by request (`PMIx_Job_control` with `PMIX_JOB_CTRL_KILL`), and who may.
//!
//! The specification grants the right to end a job to the job itself, to its launcher (the
//! namespace that spawned it), to an owner of a reservation it runs in, and to the scheduler.
//! With strict ownership ([`Model::set_strict_ownership`]) anyone else is refused with
//! `PMIX_ERR_NO_PERMISSIONS`, whatever its uid; without it (the default) any requester may, as
//! a server granting by uid would. Harnesses that drive a real server are checked against the
//! strict model, so they never depend on a server's laxity (`crate::bridge`).

use super::{reject, Model, NsState, Reject};
use crate::protocol::{Requester, RequesterKind};
use pmix_codec::Status;

impl Model {
    /// Enforce ownership strictly for job control: a requester without a granted privilege
    /// is refused, whatever its uid.
    pub fn set_strict_ownership(&mut self, strict: bool) {
        self.strict_ownership = strict;
    }

    /// Whether `by` may end job `job`: the job itself, its launcher, an owner of a
    /// reservation whose nodes it runs on, or the scheduler.
    pub fn may_end(&self, by: &Requester, job: &str) -> bool {
        if by.kind == RequesterKind::Scheduler || by.nspace == job {
            return true;
        }
        let Some(ns) = self.nspaces.get(job) else {
            return false;
        };
        if ns.parent.as_deref() == Some(by.nspace.as_str()) {
            return true;
        }
        self.allocs
            .values()
            .any(|al| al.owners.contains(&by.nspace) && !al.nodes.is_disjoint(&ns.nodes))
    }

    /// `PMIx_Job_control(KILL)` of `job` by `by`: the job ends as if it terminated (its
    /// dispositions run). Refused when `by` is not running, when the job is not running, and,
    /// under strict ownership, when `by` has no privilege over it ([`Model::may_end`]).
    pub fn kill(&mut self, by: &Requester, job: &str) -> Result<(), Reject> {
        self.require_started()?;
        if by.kind != RequesterKind::Scheduler
            && self.nspaces.get(&by.nspace).map(|n| n.state) != Some(NsState::Running)
        {
            return reject(
                Status::ERR_BAD_PARAM,
                format!("requester {} is not running", by.nspace),
            );
        }
        if self.strict_ownership && !self.may_end(by, job) {
            return reject(
                Status::ERR_NO_PERMISSIONS,
                format!(
                    "{} may not end {job}: neither the job, its launcher, an owner of its reservation nor the scheduler",
                    by.nspace
                ),
            );
        }
        self.terminate(job)
    }
}
