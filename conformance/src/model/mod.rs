//! The reference model: an executable, readable state machine of the specification.
//!
//! The model plays the DVM (PRRTE) together with a minimal scheduler. It is driven by
//! [`crate::protocol::Request`]s whose info arrays arrive as codec wire bytes and are
//! decoded with `pmix-codec`; see [`crate::server::ModelServer`].
//!
//! Every rule carries a comment naming the specification clause it implements. Where the
//! specification is ambiguous the reading chosen is written down in `SCENARIOS.md`.

mod alloc;
mod job_control;
mod lifecycle;
mod mutants;
mod observe;
mod spawn;
pub use mutants::Mutant;

use crate::protocol::{
    AllocView, EventView, JobView, Observed, ProcRef, Requester, RequesterKind, Snapshot,
};
use crate::wireinfo::{string_of, WireFormat};
use pmix_codec::attrs::{self, alloc_directive, AllocInherit};
use pmix_codec::{DataType, Info, Status, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The five optional attributes (macro names), as used in [`crate::protocol::Request::Start`]'s `unavailable`.
pub const OPTIONAL_ATTRIBUTES: [&str; 5] = [
    "PMIX_ALLOC_TARGET",
    "PMIX_ALLOC_SHARE",
    "PMIX_ALLOC_INHERITANCE",
    "PMIX_ALLOC_WARN_TIMEOUT",
    "PMIX_SPAWN_TARGET",
];

/// A rejection: a status and a human explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reject {
    /// The PMIx status returned.
    pub status: Status,
    /// Why.
    pub message: String,
}

fn reject<T>(status: Status, message: impl Into<String>) -> Result<T, Reject> {
    Err(Reject {
        status,
        message: message.into(),
    })
}

/// Where a node came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Discovered at DVM start: it reverts to the default session when released.
    Startup,
    /// Added by the scheduler for a dynamic allocation: it leaves the DVM when released.
    Scheduler,
}

#[derive(Clone, Debug)]
struct Node {
    origin: Origin,
    /// `None` = default session; `Some(id)` = the reservation.
    session: Option<String>,
}

#[derive(Clone, Debug)]
struct Alloc {
    req_id: Option<String>,
    /// The owning namespace: seeded at creation, fixed for life, drives inheritance.
    owning: String,
    /// The owner set (authorization).
    owners: BTreeSet<String>,
    /// `false` once shared (PMIX_ALLOC_SHARE=true): nodes live in the default session.
    reserved: bool,
    disposition: AllocInherit,
    /// The process that requested the allocation: the only recipient of timeout warnings.
    requester: ProcRef,
    nodes: BTreeSet<String>,
    /// The warning threshold forwarded to (and honored by) the scheduler.
    warn: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NsKind {
    Tool,
    App,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NsState {
    Running,
    Terminated,
    Killed,
}

#[derive(Clone, Debug)]
struct Namespace {
    kind: NsKind,
    state: NsState,
    /// The spawning namespace (genealogy, for CHILD* drain).
    parent: Option<String>,
    nodes: BTreeSet<String>,
}

#[derive(Clone, Debug)]
struct Event {
    to: ProcRef,
    code: Status,
    info: Vec<Info>,
}

/// Attributes of an allocation request, after decoding.
#[derive(Default)]
struct AllocAttrs {
    target: Option<String>,
    share: Option<bool>,
    inherit: Option<u8>,
    warn: Option<u32>,
    alloc_id: Option<String>,
    req_id: Option<String>,
}

/// A successful allocation response.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AllocReply {
    /// The returned info array (`PMIX_ALLOC_ID`, echoed `PMIX_ALLOC_REQ_ID`).
    pub info: Vec<Info>,
}

/// The reference model.
#[derive(Clone, Debug)]
pub struct Model {
    mutant: Option<Mutant>,
    started: bool,
    unavailable: BTreeSet<String>,
    honors_warn: bool,
    format: WireFormat,
    nodes: BTreeMap<String, Node>,
    allocs: BTreeMap<String, Alloc>,
    next_id: u32,
    nspaces: BTreeMap<String, Namespace>,
    returned: Vec<String>,
    killed: Vec<String>,
    events: Vec<Event>,
    /// The last `PMIX_ALLOC_REQ_ID` any request carried (used only by a mutant).
    last_req_id: Option<String>,
    /// Released allocations' (owning namespace, nodes) remembered by a mutant.
    ghosts: Vec<(String, BTreeSet<String>)>,
    /// Job control refuses requesters without a granted privilege (`job_control.rs`).
    strict_ownership: bool,
}

impl Default for Model {
    fn default() -> Self {
        Model::new(None)
    }
}

impl Model {
    /// A model, optionally with one deliberate flaw.
    pub fn new(mutant: Option<Mutant>) -> Self {
        Model {
            mutant,
            started: false,
            unavailable: BTreeSet::new(),
            honors_warn: true,
            format: WireFormat::default(),
            nodes: BTreeMap::new(),
            allocs: BTreeMap::new(),
            next_id: 1,
            nspaces: BTreeMap::new(),
            returned: Vec::new(),
            killed: Vec::new(),
            events: Vec::new(),
            last_req_id: None,
            ghosts: Vec::new(),
            strict_ownership: false,
        }
    }

    fn flaw(&self, m: Mutant) -> bool {
        self.mutant == Some(m)
    }

    fn available(&self, macro_name: &str) -> bool {
        !self.unavailable.contains(macro_name)
    }

    fn require_started(&self) -> Result<(), Reject> {
        if self.started {
            Ok(())
        } else {
            reject(
                Status::ERR_INIT,
                "the DVM is not running (send start first)",
            )
        }
    }

    /// Start a DVM: the startup nodes form the default session (allocation case 1).
    pub fn start(
        &mut self,
        nodes: &[String],
        unavailable: &[String],
        honors_warn: bool,
        format: WireFormat,
    ) -> Result<(), Reject> {
        let (mutant, strict) = (self.mutant, self.strict_ownership);
        *self = Model::new(mutant);
        self.strict_ownership = strict;
        for u in unavailable {
            if !OPTIONAL_ATTRIBUTES.contains(&u.as_str()) {
                return reject(
                    Status::ERR_BAD_PARAM,
                    format!("unknown optional attribute {u:?}"),
                );
            }
        }
        self.unavailable = unavailable.iter().cloned().collect();
        self.honors_warn = honors_warn;
        self.format = format;
        for n in nodes {
            if n.is_empty()
                || self
                    .nodes
                    .insert(
                        n.clone(),
                        Node {
                            origin: Origin::Startup,
                            session: None,
                        },
                    )
                    .is_some()
            {
                return reject(
                    Status::ERR_BAD_PARAM,
                    format!("bad or duplicate startup node {n:?}"),
                );
            }
        }
        self.started = true;
        Ok(())
    }

    /// A tool connects.
    pub fn tool_connect(&mut self, tool: &str) -> Result<(), Reject> {
        self.require_started()?;
        if tool.is_empty() || self.nspaces.contains_key(tool) {
            return reject(
                Status::ERR_EXISTS,
                format!("namespace {tool:?} is empty or already exists"),
            );
        }
        self.nspaces.insert(
            tool.into(),
            Namespace {
                kind: NsKind::Tool,
                state: NsState::Running,
                parent: None,
                nodes: BTreeSet::new(),
            },
        );
        Ok(())
    }

    fn check_requester(&self, rq: &Requester) -> Result<(), Reject> {
        self.require_started()?;
        let want = match rq.kind {
            RequesterKind::Scheduler => return Ok(()),
            RequesterKind::Tool => NsKind::Tool,
            RequesterKind::App => NsKind::App,
        };
        match self.nspaces.get(&rq.nspace) {
            Some(ns) if ns.kind == want && ns.state == NsState::Running => Ok(()),
            _ => reject(
                Status::ERR_BAD_PARAM,
                format!(
                    "requester {:?} is not a running {:?} namespace",
                    rq.nspace, rq.kind
                ),
            ),
        }
    }

    /// The wire format of this session's responses.
    pub fn format(&self) -> WireFormat {
        self.format
    }
}
