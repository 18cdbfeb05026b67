//! The server's host: what decides the requests a PMIx server hands up to its resource
//! manager (`pmix_server_module_t` in OpenPMIx: query, allocate, spawn, job control,
//! notify). The server decodes each request from the wire, asks its [`Host`], and packs
//! the answer; it launches the processes of a spawn the host grants and kills the jobs the
//! host ends.
//!
//! [`NoHost`] (the default) answers `PMIX_ERR_NOT_SUPPORTED` to all of them;
//! [`model::ModelHost`] is the reference model of `pmix-conformance`, so the model *is*
//! this server's host and the spec scenarios can run through real clients against it.

pub mod model;

use pmix_codec::{App, Info, ProcInfo, Query, Status};
use std::collections::{BTreeMap, BTreeSet};

/// The processes the server launched for spawned jobs, by namespace, in rank order: each
/// one's node (as `hostname`), pid and state (`PMIX_PROC_STATE_RUNNING` 5 until it
/// connects, `PMIX_PROC_STATE_CONNECTED` 6, `PMIX_PROC_STATE_TERMINATED` 20 once it ended).
pub type ProcTable = BTreeMap<String, Vec<ProcInfo>>;

/// What kind of peer makes a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallerKind {
    /// A client: a process of a job (PMIx_Init).
    Client,
    /// A tool (PMIx_tool_init).
    Tool,
    /// A tool that connected as the scheduler (`PMIX_SERVER_SCHEDULER`).
    Scheduler,
}

/// Who makes a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// Its namespace (a client's job; a tool's own).
    pub nspace: String,
    /// Its rank.
    pub rank: u32,
    /// Its kind.
    pub kind: CallerKind,
}

/// A status and the infos that go back with it (query, allocation and job control replies).
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The PMIx status.
    pub status: i32,
    /// The returned infos.
    pub infos: Vec<Info>,
    /// The host has no such entry: the reply is the status alone, as an OpenPMIx server
    /// answers when its host module leaves the entry empty (the request fails before a
    /// host callback, and the switchyard packs only its status).
    pub no_entry: bool,
}

impl Answer {
    /// A bare status (then `size_t 0` infos on the wire, as a host callback's reply).
    pub fn status(status: Status) -> Answer {
        Answer {
            status: status.0,
            infos: Vec::new(),
            no_entry: false,
        }
    }

    /// The host has no such entry: `PMIX_ERR_NOT_SUPPORTED`, the status alone.
    pub fn no_entry() -> Answer {
        Answer {
            status: Status::ERR_NOT_SUPPORTED.0,
            infos: Vec::new(),
            no_entry: true,
        }
    }
}

/// A spawn the host granted: the new job's namespace and where each of its ranks goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The new namespace.
    pub nspace: String,
    /// One entry per rank, in rank order: the index of the app it runs and the (logical)
    /// node it runs on.
    pub ranks: Vec<(usize, String)>,
}

/// An event the host raises for one process.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// The process it is for (nspace, rank; `PMIX_RANK_WILDCARD` = every rank).
    pub to: (String, u32),
    /// The event's status code.
    pub status: i32,
    /// Its source.
    pub source: (String, u32),
    /// Its infos.
    pub infos: Vec<Info>,
}

/// The host of a PMIx server. Every method has a default: refuse (`PMIX_ERR_NOT_SUPPORTED`)
/// or ignore. The server calls it under one lock, in the order requests arrive.
pub trait Host: Send {
    /// A tool or scheduler connected; an error status refuses it.
    fn tool_connected(&mut self, _caller: &Caller) -> Result<(), i32> {
        Ok(())
    }
    /// A tool or scheduler is gone (finalized or lost).
    fn tool_left(&mut self, _caller: &Caller) {}
    /// `PMIx_Query_info`; `procs` is what the server knows of the processes it launched.
    fn query(&mut self, _caller: &Caller, _queries: &[Query], _procs: &ProcTable) -> Answer {
        Answer::no_entry()
    }
    /// `PMIx_Allocation_request`.
    fn alloc(&mut self, _caller: &Caller, _directive: u8, _infos: &[Info]) -> Answer {
        Answer::no_entry()
    }
    /// `PMIx_Spawn`: where the new job's ranks go, or a status refusing it.
    fn spawn(
        &mut self,
        _caller: &Caller,
        _job_infos: &[Info],
        _apps: &[App],
    ) -> Result<Grant, i32> {
        Err(Status::ERR_NOT_SUPPORTED.0)
    }
    /// `PMIx_Job_control`.
    fn job_control(
        &mut self,
        _caller: &Caller,
        _targets: &[(String, u32)],
        _directives: &[Info],
    ) -> Answer {
        Answer::no_entry()
    }
    /// `PMIx_Notify_event` sent to the server.
    fn notify(&mut self, _caller: &Caller, _status: i32, _range: u8, _infos: &[Info]) -> i32 {
        Status::ERR_NOT_SUPPORTED.0
    }
    /// Every process of a spawned job has ended.
    fn job_ended(&mut self, _nspace: &str) {}
    /// The spawned jobs the host still considers running (`None`: the host does not say);
    /// the server kills the processes of every other job it launched.
    fn running_jobs(&self) -> Option<BTreeSet<String>> {
        None
    }
    /// Events raised since the last call, to deliver.
    fn take_notices(&mut self) -> Vec<Notice> {
        Vec::new()
    }
}

/// A host that supports nothing: every request handed up is answered
/// `PMIX_ERR_NOT_SUPPORTED` (as a server whose host module leaves the entry empty).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHost;

impl Host for NoHost {}
