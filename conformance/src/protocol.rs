//! The messages every server understands (in process or over stdin/stdout; see `SERVER.md`).
//!
//! Each message is JSON. Requests are tagged by `"op"`. Every response carries a PMIx
//! numeric `status`; the other fields depend on the request.

use crate::wireinfo::WireInfo;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// The class of a requesting process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequesterKind {
    /// A PMIx tool: a client with no job of its own (it still has a namespace).
    Tool,
    /// A process belonging to a running application namespace (job).
    App,
    /// The scheduler: an implicit owner of every session.
    Scheduler,
}

/// The process issuing a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requester {
    /// Its class.
    pub kind: RequesterKind,
    /// Its namespace (tool namespace, job namespace, or the scheduler's name).
    pub nspace: String,
    /// Its rank.
    #[serde(default)]
    pub rank: u32,
}

/// A process an event was delivered to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ProcRef {
    /// Namespace.
    pub nspace: String,
    /// Rank.
    pub rank: u32,
}

/// A request to a server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Start (or restart from scratch) a DVM whose startup allocation is `nodes`.
    Start {
        /// The nodes discovered at startup: they form the default session.
        nodes: Vec<String>,
        /// Attribute macro names the underlying PMIx does not define (backward compatibility).
        #[serde(default)]
        unavailable: Vec<String>,
        /// Whether the scheduler implements `PMIX_ALLOC_WARN_TIMEOUT`.
        #[serde(default = "yes")]
        scheduler_honors_warn_timeout: bool,
        /// Component used for info arrays in responses and events.
        #[serde(default = "v61")]
        component: String,
    },
    /// A tool with namespace `tool` connects.
    ToolConnect {
        /// The tool's namespace.
        tool: String,
    },
    /// `PMIx_Allocation_request(directive, info)`.
    Alloc {
        /// Who asks.
        requester: Requester,
        /// `pmix_alloc_directive_t` value (1 NEW, 2 EXTEND, 3 RELEASE, 4 REAQUIRE, 5 REQ_CANCEL).
        directive: u8,
        /// The info array.
        info: WireInfo,
        /// The nodes the scheduler grants for NEW/EXTEND (new names join the DVM; names already
        /// in the default session are carved from the startup pool).
        #[serde(default)]
        grant: Vec<String>,
    },
    /// `PMIx_Spawn` of one job whose namespace will be `nspace`.
    Spawn {
        /// Who asks.
        requester: Requester,
        /// The namespace the new job gets.
        nspace: String,
        /// The job-level info array.
        info: WireInfo,
        /// How many processes per candidate node the job runs: one more than the highest
        /// rank the scenario names for it (1 when absent), so that every requester rank a
        /// scenario drives is a real process of the job.
        #[serde(default = "one", skip_serializing_if = "is_one")]
        ranks: u32,
    },
    /// Namespace `nspace` (job or tool) terminates normally.
    Terminate {
        /// The namespace.
        nspace: String,
    },
    /// `PMIx_Job_control(PMIX_JOB_CTRL_KILL)` of job `nspace` by `requester`. The scenarios
    /// never send it; a harness that acts a `terminate` out through a server's job control
    /// does (`crate::bridge`). A server without job control answers `unsupported`.
    Kill {
        /// Who asks.
        requester: Requester,
        /// The job to end.
        nspace: String,
    },
    /// The scheduler terminates allocation `alloc` (timeout or administrative reclaim).
    Reclaim {
        /// The allocation id.
        alloc: String,
        /// `timeout` or `admin`; informational.
        #[serde(default)]
        reason: String,
    },
    /// The warning threshold of allocation `alloc` is reached at the scheduler.
    TimeoutWarning {
        /// The allocation id.
        alloc: String,
        /// Seconds remaining the scheduler reports; default: the requested threshold.
        #[serde(default)]
        remaining: Option<u32>,
    },
    /// The DVM tears down.
    Teardown,
    /// Report the model's internal state (only with the `introspection` capability).
    Observe,
    /// Report what PMIx peers observe: the answers to `PMIX_QUERY_ALLOC_IDS`,
    /// `PMIX_QUERY_ALLOCATION` (per `PMIX_ALLOC_ID`), `PMIX_QUERY_NAMESPACES` and
    /// `PMIX_QUERY_PROC_TABLE`, and every event the scenario's processes received.
    Query,
    /// A behavioural probe: a tool of the server's own (not a scenario process) spawns one
    /// job without `PMIX_SPAWN_TARGET`, one process per candidate node, and ends it at once;
    /// answer `candidates` with the nodes its processes ran on (the default session).
    Probe,
    /// Identify the server.
    Hello {
        /// The client's protocol version.
        protocol: u32,
    },
    /// End the server process.
    Shutdown,
}

fn yes() -> bool {
    true
}
fn one() -> u32 {
    1
}
fn is_one(n: &u32) -> bool {
    *n == 1
}
fn v61() -> String {
    "v61".into()
}

/// A response.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The PMIx status of the request (0 = success).
    pub status: i32,
    /// Returned info array (allocation responses: `PMIX_ALLOC_ID`, echoed `PMIX_ALLOC_REQ_ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<WireInfo>,
    /// The candidate nodes a spawned job may map onto.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<String>>,
    /// The observable state (`observe`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Snapshot>,
    /// Set when the server cannot perform this kind of request at all; the scenario is
    /// then reported as unsupported rather than failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
    /// Free text for humans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `hello`: the server's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// `hello`: optional capabilities (e.g. [`INTROSPECTION`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// `query`: what the peers observe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Observed>,
}

/// The capability of answering `observe` with the internal state (owner sets, node
/// sessions, nodes returned to the scheduler). A real server has no such view; the
/// reference model has.
pub const INTROSPECTION: &str = "introspection";

/// What PMIx peers can observe of a DVM: query answers and delivered events.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observed {
    /// `PMIX_QUERY_ALLOC_IDS`: the live allocation ids (sorted).
    pub alloc_ids: Vec<String>,
    /// `PMIX_QUERY_ALLOCATION` with `PMIX_ALLOC_ID`: each live allocation's nodes (sorted).
    pub allocations: BTreeMap<String, Vec<String>>,
    /// `PMIX_QUERY_NAMESPACES`: the namespaces (jobs and tools) that are still running.
    pub namespaces: Vec<String>,
    /// `PMIX_QUERY_PROC_TABLE`: for each running job, the nodes its processes run on (sorted).
    pub proc_table: BTreeMap<String, Vec<String>>,
    /// Every event the scenario's processes received so far, in order.
    pub events: Vec<EventView>,
}

impl Response {
    /// A bare status response.
    pub fn status(status: i32) -> Self {
        Response {
            status,
            ..Default::default()
        }
    }
}

/// The observable state of a DVM.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Each DVM node and the session it belongs to: `""` is the default session, otherwise
    /// the `PMIX_ALLOC_ID` of the reservation.
    pub nodes: BTreeMap<String, String>,
    /// Live allocations by `PMIX_ALLOC_ID`.
    pub allocations: BTreeMap<String, AllocView>,
    /// Namespaces known to the DVM.
    pub jobs: BTreeMap<String, JobView>,
    /// Every node returned to the scheduler so far, in order.
    pub returned: Vec<String>,
    /// Every job killed so far (because its nodes departed), in order.
    pub killed: Vec<String>,
    /// Every event delivered so far, in order.
    pub events: Vec<EventView>,
}

/// One allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocView {
    /// The owning namespace (drives inheritance).
    pub owning: String,
    /// The owner set (authorization), sorted.
    pub owners: Vec<String>,
    /// `true` while its nodes are withheld from the default session.
    pub reserved: bool,
    /// Its nodes, sorted.
    pub nodes: Vec<String>,
    /// The requester's `PMIX_ALLOC_REQ_ID`, if one was given.
    #[serde(default)]
    pub req_id: Option<String>,
}

/// One namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobView {
    /// `tool` or `app`.
    pub kind: String,
    /// `running`, `terminated` or `killed`.
    pub state: String,
    /// The namespace that spawned it (empty for tools and scheduler-spawned jobs).
    #[serde(default)]
    pub parent: String,
    /// Nodes it was mapped onto (sorted).
    #[serde(default)]
    pub nodes: Vec<String>,
}

/// One delivered event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventView {
    /// The process it was delivered to.
    pub to: ProcRef,
    /// The event status code.
    pub code: i32,
    /// The event's info array.
    pub info: WireInfo,
}
