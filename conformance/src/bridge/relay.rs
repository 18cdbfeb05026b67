//! The harness layer alone, in front of any SERVER.md server: [`HarnessRelay`] passes every
//! request through, except the ones a bridge to a real server must act out with granted
//! privileges, which it acts out exactly as the PRRTE bridge does:
//!
//! * `terminate` of a job becomes a `kill` by its launcher while that runs, else by the job
//!   itself ([`super::end_job`]);
//! * `reclaim` goes to the server's scheduler path, or is unsupported with a reason when the
//!   real server offers none ([`Reclaim`]);
//! * a request by a job's rank R must name a process the job has (`ranks` of its `spawn`,
//!   [`super::rank_exists`]); anything else is a fault of the harness.
//!
//! Run against `pmix-model-server --strict-ownership`, a scenario suite that passes through
//! the relay shows the harness needs no server laxity to run (`tests/bridge_harness.rs`).

use super::{end_job, rank_exists, JobControl};
use crate::protocol::{Request, Requester, RequesterKind, Response};
use crate::server::{Server, ServerError};
use std::collections::BTreeMap;

/// How the relay acts out a scheduler reclaim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reclaim {
    /// The server offers a scheduler path: pass `reclaim` through.
    Scheduler,
    /// The real server offers none: answer unsupported with this reason
    /// (e.g. [`super::RECLAIM_UNSUPPORTED`] for PRRTE).
    Unsupported(&'static str),
}

/// What the relay did on the harness's behalf (for tests and reports).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A job was ended by `by` (its launcher or itself); `status` is the kill's answer.
    Killed {
        /// The job.
        job: String,
        /// Who sent the kill.
        by: Requester,
        /// The status of the kill.
        status: i32,
    },
    /// A reclaim was answered unsupported.
    ReclaimUnsupported,
    /// A request was made by a job's rank other than 0.
    RankDriven(Requester),
}

/// The harness layer in front of `S` (see the module comment).
pub struct HarnessRelay<S> {
    server: S,
    reclaim: Reclaim,
    /// Job namespace -> (the requester that spawned it, processes per node).
    jobs: BTreeMap<String, (Requester, u32)>,
    /// Everything the harness acted out, in order.
    pub actions: Vec<Action>,
}

impl<S: Server> HarnessRelay<S> {
    /// The harness in front of `server`, acting out reclaims as `reclaim` says.
    pub fn new(server: S, reclaim: Reclaim) -> Self {
        HarnessRelay {
            server,
            reclaim,
            jobs: BTreeMap::new(),
            actions: Vec::new(),
        }
    }

    fn requester_exists(&mut self, r: &Requester) -> Result<(), ServerError> {
        let ranks = self.jobs.get(&r.nspace).map(|(_, n)| *n);
        if !rank_exists(r, ranks) {
            return Err(ServerError::Protocol(format!(
                "harness fault: {:?} {}:{} is not a process of the job (spawned with {} per node)",
                r.kind,
                r.nspace,
                r.rank,
                ranks.unwrap_or(1)
            )));
        }
        if r.kind == RequesterKind::App && r.rank != 0 {
            self.actions.push(Action::RankDriven(r.clone()));
        }
        Ok(())
    }
}

/// Job control through SERVER.md requests to the wrapped server.
struct Through<'a, S>(&'a mut S);

impl<S: Server> JobControl for Through<'_, S> {
    fn running(&mut self, who: &Requester) -> Result<bool, String> {
        if who.kind == RequesterKind::Scheduler {
            return Ok(true);
        }
        let r = self.0.call(&Request::Query).map_err(|e| e.to_string())?;
        let o = r
            .observed
            .ok_or_else(|| format!("query answered no observation (status {})", r.status))?;
        Ok(o.namespaces.contains(&who.nspace))
    }

    fn kill(&mut self, by: &Requester, job: &str) -> Result<i32, String> {
        let r = self
            .0
            .call(&Request::Kill {
                requester: by.clone(),
                nspace: job.to_string(),
            })
            .map_err(|e| e.to_string())?;
        match r.unsupported {
            Some(why) => Err(format!("the server offers no job control: {why}")),
            None => Ok(r.status),
        }
    }
}

impl<S: Server> Server for HarnessRelay<S> {
    fn call(&mut self, req: &Request) -> Result<Response, ServerError> {
        match req {
            Request::Start { .. } => {
                self.jobs.clear();
                self.server.call(req)
            }
            Request::Alloc { requester, .. } => {
                self.requester_exists(requester)?;
                self.server.call(req)
            }
            Request::Spawn {
                requester,
                nspace,
                ranks,
                ..
            } => {
                self.requester_exists(requester)?;
                let r = self.server.call(req)?;
                if r.status == 0 && r.unsupported.is_none() {
                    self.jobs
                        .insert(nspace.clone(), (requester.clone(), (*ranks).max(1)));
                }
                Ok(r)
            }
            Request::Terminate { nspace } if self.jobs.contains_key(nspace) => {
                let launcher = self.jobs.get(nspace).map(|(l, _)| l.clone());
                let (by, status) =
                    end_job(&mut Through(&mut self.server), nspace, launcher.as_ref())
                        .map_err(ServerError::Protocol)?;
                self.actions.push(Action::Killed {
                    job: nspace.clone(),
                    by,
                    status,
                });
                Ok(Response::status(status))
            }
            Request::Reclaim { .. } => match self.reclaim {
                Reclaim::Scheduler => self.server.call(req),
                Reclaim::Unsupported(why) => {
                    self.actions.push(Action::ReclaimUnsupported);
                    Ok(Response {
                        unsupported: Some(why.to_string()),
                        ..Default::default()
                    })
                }
            },
            _ => self.server.call(req),
        }
    }

    fn capabilities(&self) -> Vec<String> {
        self.server.capabilities()
    }

    fn name(&self) -> Option<String> {
        self.server
            .name()
            .map(|n| format!("{n} (through the bridge harness)"))
    }
}
