//! The reference model of `pmix-conformance` as this server's host: allocation requests,
//! spawns, job control, the timeout warning and the queries a peer can make are decided by
//! [`pmix_conformance::model::Model`], which plays the DVM and a minimal scheduler.
//!
//! How the wire maps onto the model:
//! * a tool is a model tool namespace from its handshake on, and terminates when it leaves;
//!   a tool connected as the scheduler is the model's scheduler; a client is a process of
//!   its job (a model application namespace when this server spawned it);
//! * `PMIx_Allocation_request`: the scheduler's grant for NEW and EXTEND is the
//!   `PMIX_ALLOC_NODE_LIST` the request carries (comma-separated node names, each optionally
//!   `:SLOTS`), the stand-in for a scheduler's decision; the other infos go to the model.
//!   A granted NEW or EXTEND raises `PMIX_DVM_IS_READY` for the requester, as PRRTE does;
//! * `PMIx_Spawn`: the model names the candidate nodes; each app gets `maxprocs` ranks
//!   placed round robin over them, or, when `maxprocs` is 0, N per candidate node for a
//!   `PMIX_MAPBY` of `ppr:N:node` (else one per node). The new namespace is `SERVER-NSPACE.N`;
//! * `PMIx_Job_control(PMIX_JOB_CTRL_KILL)` ends each target job through the model (with its
//!   ownership rules); other directives are not supported;
//! * `PMIx_Notify_event(PMIX_ALLOC_TIMEOUT_WARNING)` with `PMIX_ALLOC_ID` and
//!   `PMIX_TIME_REMAINING` (from the scheduler) is the scheduler's warning: the model relays
//!   it to the allocation's requester. Other events are not supported;
//! * queries: `PMIX_QUERY_NAMESPACES` (a comma-separated STRING of the running namespaces),
//!   `PMIX_QUERY_PROC_TABLE` with `PMIX_NSPACE` (a DATA_ARRAY of PROC_INFO: for a spawned
//!   job its launched processes, for the server's own namespace one daemon per DVM node),
//!   `PMIX_QUERY_ALLOC_IDS` (a DATA_ARRAY of STRING) and `PMIX_QUERY_ALLOCATION` with
//!   `PMIX_ALLOC_ID` (a DATA_ARRAY of INFO, one `PMIX_HOSTNAME` per node; without the
//!   qualifier, every DVM node).

use super::{Answer, Caller, CallerKind, Grant, Host, Notice, ProcTable};
use pmix_codec::{attrs, App, DataArray, DataType, Info, ProcInfo, Query, Status, Value};
use pmix_conformance::model::Model;
use pmix_conformance::protocol::{Requester, RequesterKind};
use pmix_conformance::wireinfo::WireFormat;
use std::collections::BTreeSet;

/// `PMIX_QUERY_NAMESPACES`.
pub const QUERY_NAMESPACES: &str = "pmix.qry.ns";
/// `PMIX_QUERY_PROC_TABLE`.
pub const QUERY_PROC_TABLE: &str = "pmix.qry.ptable";
/// `PMIX_QUERY_ALLOC_IDS` (OpenPMIx 7.0).
pub const QUERY_ALLOC_IDS: &str = "pmix.query.alloc.ids";
/// `PMIX_QUERY_ALLOCATION`.
pub const QUERY_ALLOCATION: &str = "pmix.query.allc";
/// `PMIX_NSPACE`.
pub const NSPACE: &str = "pmix.nspace";
/// `PMIX_HOSTNAME`.
pub const HOSTNAME: &str = "pmix.hname";
/// `PMIX_JOB_CTRL_KILL`.
pub const JOB_CTRL_KILL: &str = "pmix.jctrl.kill";
/// `PMIX_PROC_STATE_RUNNING`.
const PROC_STATE_RUNNING: u8 = 5;

/// The reference model as a server's host.
pub struct ModelHost {
    model: Model,
    /// The server's namespace: spawned jobs are named after it, and its proc table lists
    /// the DVM's daemons.
    server_nspace: String,
    next_job: u32,
    /// Events of the model already handed to the server.
    delivered: usize,
    /// Requesters of a granted NEW or EXTEND, owed `PMIX_DVM_IS_READY`.
    ready: Vec<Caller>,
}

impl ModelHost {
    /// A model whose DVM starts with `nodes`, for the server named `server_nspace`.
    pub fn new(nodes: &[String], server_nspace: &str) -> Result<ModelHost, String> {
        ModelHost::with_unavailable(nodes, &[], server_nspace)
    }

    /// The same, for a PMIx that does not define the optional attributes `unavailable`
    /// (macro names, [`pmix_conformance::model::OPTIONAL_ATTRIBUTES`]).
    pub fn with_unavailable(
        nodes: &[String],
        unavailable: &[String],
        server_nspace: &str,
    ) -> Result<ModelHost, String> {
        let mut model = Model::new(None);
        model
            .start(nodes, unavailable, true, WireFormat::default())
            .map_err(|r| r.message)?;
        Ok(ModelHost {
            model,
            server_nspace: server_nspace.to_string(),
            next_job: 1,
            delivered: 0,
            ready: Vec::new(),
        })
    }

    /// The model (for reports and tests).
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Enforce job-control ownership strictly ([`Model::set_strict_ownership`]).
    pub fn set_strict_ownership(&mut self, strict: bool) {
        self.model.set_strict_ownership(strict);
    }

    fn requester(c: &Caller) -> Requester {
        Requester {
            kind: match c.kind {
                CallerKind::Client => RequesterKind::App,
                CallerKind::Tool => RequesterKind::Tool,
                CallerKind::Scheduler => RequesterKind::Scheduler,
            },
            nspace: c.nspace.clone(),
            rank: c.rank,
        }
    }

    fn proc_table(&self, ns: &str, procs: &ProcTable) -> Option<Value> {
        let infos: Vec<Value> = if ns == self.server_nspace {
            self.model
                .dvm_nodes()
                .into_iter()
                .enumerate()
                .map(|(i, node)| proc_info(ns, i as u32, &node, 0, PROC_STATE_RUNNING))
                .collect()
        } else {
            let observed = self.model.observed().ok()?;
            observed.proc_table.get(ns)?;
            procs
                .get(ns)?
                .iter()
                .map(|p| Value::ProcInfo(Box::new(p.clone())))
                .collect()
        };
        Some(array(DataType::PROC_INFO, infos))
    }

    fn answer_one(&self, key: &str, quals: &[Info], procs: &ProcTable) -> Option<Value> {
        let qual = |k: &str| {
            quals
                .iter()
                .find(|i| i.key.as_bytes() == k.as_bytes())
                .and_then(|i| text(&i.value))
        };
        let observed = self.model.observed().ok()?;
        match key {
            QUERY_NAMESPACES => Some(Value::string(&observed.namespaces.join(","))),
            QUERY_PROC_TABLE => self.proc_table(&qual(NSPACE)?, procs),
            QUERY_ALLOC_IDS => Some(strings(&observed.alloc_ids)),
            QUERY_ALLOCATION => {
                let nodes = match qual(attrs::ALLOC_ID) {
                    Some(id) => observed.allocations.get(&id)?.clone(),
                    None => self.model.dvm_nodes(),
                };
                let hosts = nodes
                    .iter()
                    .map(|n| Value::Info(Box::new(Info::new(HOSTNAME, Value::string(n)))))
                    .collect();
                Some(array(DataType::INFO, hosts))
            }
            _ => None,
        }
    }
}

/// A DATA_ARRAY value of `ty` elements.
fn array(ty: DataType, values: Vec<Value>) -> Value {
    Value::DataArray(Box::new(DataArray { ty, values }))
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(Some(t)) => t.as_str().map(str::to_string),
        _ => None,
    }
}

fn strings(v: &[String]) -> Value {
    array(
        DataType::STRING,
        v.iter().map(|s| Value::string(s)).collect(),
    )
}

/// A `pmix_proc_info_t` of rank `rank` of `nspace` on `node`.
pub fn proc_info(nspace: &str, rank: u32, node: &str, pid: i32, state: u8) -> Value {
    Value::ProcInfo(Box::new(proc_info_of(nspace, rank, node, pid, state)))
}

/// The same, unboxed.
pub fn proc_info_of(nspace: &str, rank: u32, node: &str, pid: i32, state: u8) -> ProcInfo {
    let Value::Proc(proc) = Value::proc(nspace, rank) else {
        unreachable!("Value::proc makes a PROC")
    };
    let Value::String(hostname) = Value::string(node) else {
        unreachable!("Value::string makes a STRING")
    };
    ProcInfo {
        proc,
        hostname,
        executable: None,
        pid,
        state,
    }
}

impl Host for ModelHost {
    fn tool_connected(&mut self, caller: &Caller) -> Result<(), i32> {
        match caller.kind {
            CallerKind::Tool => self
                .model
                .tool_connect(&caller.nspace)
                .map_err(|r| r.status.0),
            _ => Ok(()),
        }
    }

    fn tool_left(&mut self, caller: &Caller) {
        if caller.kind == CallerKind::Tool {
            // a tool that leaves terminates: its reservations' dispositions run
            let _ = self.model.terminate(&caller.nspace);
        }
    }

    fn query(&mut self, _caller: &Caller, queries: &[Query], procs: &ProcTable) -> Answer {
        let mut infos = Vec::new();
        let mut missed = 0;
        for q in queries {
            for key in q.keys.iter().filter_map(|k| k.as_ref()?.as_str()) {
                match self.answer_one(key, &q.qualifiers, procs) {
                    Some(v) => infos.push(Info::new(key, v)),
                    None => missed += 1,
                }
            }
        }
        let status = match (infos.is_empty(), missed) {
            (true, _) => Status::ERR_NOT_FOUND.0,
            (false, 0) => 0,
            (false, _) => Status::ERR_PARTIAL_SUCCESS.0,
        };
        Answer {
            status,
            infos,
            no_entry: false,
        }
    }

    fn alloc(&mut self, caller: &Caller, directive: u8, infos: &[Info]) -> Answer {
        let mut grant = Vec::new();
        let mut rest = Vec::new();
        for i in infos {
            if i.key.as_bytes() == attrs::ALLOC_NODE_LIST.as_bytes() {
                for n in text(&i.value).unwrap_or_default().split(',') {
                    let name = n.split(':').next().unwrap_or_default().trim();
                    if !name.is_empty() {
                        grant.push(name.to_string());
                    }
                }
            } else {
                rest.push(i.clone());
            }
        }
        match self
            .model
            .alloc(&Self::requester(caller), directive, &rest, &grant)
        {
            Ok(reply) => {
                if matches!(directive, 1 | 2) {
                    self.ready.push(caller.clone());
                }
                Answer {
                    status: 0,
                    infos: reply.info,
                    no_entry: false,
                }
            }
            Err(r) => Answer::status(r.status),
        }
    }

    fn spawn(&mut self, caller: &Caller, job_infos: &[Info], apps: &[App]) -> Result<Grant, i32> {
        let nspace = format!("{}.{}", self.server_nspace, self.next_job);
        let candidates = self
            .model
            .spawn(&Self::requester(caller), &nspace, job_infos)
            .map_err(|r| r.status.0)?;
        if candidates.is_empty() {
            return Err(Status::ERR_OUT_OF_RESOURCE.0);
        }
        self.next_job += 1;
        let mut ranks = Vec::new();
        let per_node = procs_per_node(job_infos);
        for (a, app) in apps.iter().enumerate() {
            if app.maxprocs > 0 {
                for i in 0..app.maxprocs as usize {
                    ranks.push((a, candidates[i % candidates.len()].clone()));
                }
            } else {
                for node in &candidates {
                    ranks.extend(std::iter::repeat_n((a, node.clone()), per_node));
                }
            }
        }
        Ok(Grant { nspace, ranks })
    }

    fn job_control(
        &mut self,
        caller: &Caller,
        targets: &[(String, u32)],
        directives: &[Info],
    ) -> Answer {
        let kill = directives.iter().any(|d| {
            d.key.as_bytes() == JOB_CTRL_KILL.as_bytes()
                && matches!(d.value, Value::Bool(true) | Value::Undef)
        });
        if !kill || directives.len() != 1 {
            return Answer::status(Status::ERR_NOT_SUPPORTED);
        }
        let jobs: BTreeSet<&str> = targets.iter().map(|(ns, _)| ns.as_str()).collect();
        if jobs.is_empty() {
            return Answer::status(Status::ERR_BAD_PARAM);
        }
        let rq = Self::requester(caller);
        for job in jobs {
            if let Err(r) = self.model.kill(&rq, job) {
                return Answer::status(r.status);
            }
        }
        Answer::status(Status(0))
    }

    fn notify(&mut self, _caller: &Caller, status: i32, _range: u8, infos: &[Info]) -> i32 {
        if status != Status::ALLOC_TIMEOUT_WARNING.0 {
            return Status::ERR_NOT_SUPPORTED.0;
        }
        let id = infos
            .iter()
            .find(|i| i.key.as_bytes() == attrs::ALLOC_ID.as_bytes())
            .and_then(|i| text(&i.value));
        let remaining = infos.iter().find_map(|i| {
            match (
                i.key.as_bytes() == attrs::TIME_REMAINING.as_bytes(),
                &i.value,
            ) {
                (true, Value::Uint32(r)) => Some(*r),
                _ => None,
            }
        });
        let Some(id) = id else {
            return Status::ERR_BAD_PARAM.0;
        };
        match self.model.timeout_warning(&id, remaining) {
            Ok(()) => 0,
            Err(r) => r.status.0,
        }
    }

    fn job_ended(&mut self, nspace: &str) {
        // already ended (killed, or its nodes left) is not an error here
        let _ = self.model.terminate(nspace);
    }

    fn running_jobs(&self) -> Option<BTreeSet<String>> {
        self.model
            .observed()
            .ok()
            .map(|o| o.proc_table.into_keys().collect())
    }

    fn take_notices(&mut self) -> Vec<Notice> {
        let mut out: Vec<Notice> = std::mem::take(&mut self.ready)
            .into_iter()
            .map(|c| Notice {
                to: (c.nspace, c.rank),
                status: Status::DVM_IS_READY.0,
                source: (self.server_nspace.clone(), 0),
                infos: Vec::new(),
            })
            .collect();
        let events = self.model.events_from(self.delivered);
        self.delivered += events.len();
        for (to, code, infos) in events {
            out.push(Notice {
                to: (to.nspace, to.rank),
                status: code.0,
                source: (self.server_nspace.clone(), 0),
                infos,
            });
        }
        out
    }
}

/// The processes per candidate node a job asks for with `PMIX_MAPBY` `ppr:N:node` (at most
/// 64), 1 otherwise: ranks fill each node in turn, as PRRTE ranks by slot.
fn procs_per_node(job_infos: &[Info]) -> usize {
    job_infos
        .iter()
        .find(|i| i.key.as_bytes() == b"pmix.mapby")
        .and_then(|i| pmix_conformance::wireinfo::string_of(&i.value))
        .and_then(|m| m.strip_prefix("ppr:")?.strip_suffix(":node")?.parse().ok())
        .filter(|n| (1..=64).contains(n))
        .unwrap_or(1)
}
