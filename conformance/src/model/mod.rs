//! The reference model: an executable, readable state machine of the specification.
//!
//! The model plays the DVM (PRRTE) together with a minimal scheduler. It is driven by
//! [`crate::protocol::Request`]s whose info arrays arrive as codec wire bytes and are
//! decoded with `pmix-codec`; see [`crate::server::ModelServer`].
//!
//! Every rule carries a comment naming the specification clause it implements. Where the
//! specification is ambiguous the reading chosen is written down in `SCENARIOS.md`.

mod mutants;
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
        let mutant = self.mutant;
        *self = Model::new(mutant);
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

    fn parse_alloc_attrs(info: &[Info]) -> Result<AllocAttrs, Reject> {
        let mut a = AllocAttrs::default();
        for i in info {
            let key = i.key.to_string();
            let bad = |what: &str| Reject {
                status: Status::ERR_BAD_PARAM,
                message: format!("{key} must be {what}, got {}", i.value.data_type()),
            };
            match key.as_str() {
                attrs::ALLOC_TARGET => {
                    a.target = Some(string_of(&i.value).ok_or_else(|| bad("a STRING"))?)
                }
                attrs::ALLOC_ID => {
                    a.alloc_id = Some(string_of(&i.value).ok_or_else(|| bad("a STRING"))?)
                }
                attrs::ALLOC_REQ_ID => {
                    a.req_id = Some(string_of(&i.value).ok_or_else(|| bad("a STRING"))?)
                }
                attrs::ALLOC_SHARE => match i.value {
                    Value::Bool(b) => a.share = Some(b),
                    _ => return Err(bad("a BOOL")),
                },
                attrs::ALLOC_INHERITANCE => match i.value {
                    Value::AllocInherit(v) => a.inherit = Some(v),
                    _ => return Err(bad("an ALLOC_INHERIT")),
                },
                attrs::ALLOC_WARN_TIMEOUT => match i.value {
                    Value::Uint32(v) => a.warn = Some(v),
                    _ => return Err(bad("a UINT32")),
                },
                // Other keys (node counts, time, ...) are for the scheduler; the DVM ignores them.
                _ => {}
            }
        }
        Ok(a)
    }

    /// `PMIx_Allocation_request`. `grant` is what the scheduler hands back for NEW/EXTEND.
    pub fn alloc(
        &mut self,
        rq: &Requester,
        directive: u8,
        info: &[Info],
        grant: &[String],
    ) -> Result<AllocReply, Reject> {
        self.check_requester(rq)?;
        let a = Self::parse_alloc_attrs(info)?;
        let reply = self.alloc_directive(rq, directive, &a, grant);
        if a.req_id.is_some() {
            self.last_req_id = a.req_id.clone();
        }
        reply
    }

    fn alloc_directive(
        &mut self,
        rq: &Requester,
        directive: u8,
        a: &AllocAttrs,
        grant: &[String],
    ) -> Result<AllocReply, Reject> {
        let a = AllocAttrs {
            target: a.target.clone(),
            share: a.share,
            inherit: a.inherit,
            warn: a.warn,
            alloc_id: a.alloc_id.clone(),
            req_id: a.req_id.clone(),
        };
        match directive {
            alloc_directive::NEW | alloc_directive::EXTEND => {
                self.alloc_new_or_extend(rq, directive, a, grant)
            }
            alloc_directive::RELEASE => {
                // Unconditional trigger 1: any owner (or the scheduler) releases. Inheritance is ignored.
                let id = self.find_alloc(rq, &a)?;
                let info = self.reply_info(&id, a.req_id.as_deref());
                self.return_to_scheduler(&id);
                Ok(AllocReply { info })
            }
            alloc_directive::REAQUIRE | alloc_directive::REQ_CANCEL => {
                // Forwarded to the scheduler; the DVM changes no reservation on its own
                // initiative (conformance item 2). Inheritance is ignored, even if unsupported.
                Ok(AllocReply::default())
            }
            d => reject(
                Status::ERR_BAD_PARAM,
                format!("unknown allocation directive {d}"),
            ),
        }
    }

    fn alloc_new_or_extend(
        &mut self,
        rq: &Requester,
        directive: u8,
        a: AllocAttrs,
        grant: &[String],
    ) -> Result<AllocReply, Reject> {
        // Error table row 7: a non-default inheritance value the host does not support.
        let disposition = match a.inherit {
            None if self.flaw(Mutant::DefaultNone) => None,
            // Default disposition: absent means DEFAULT.
            None => Some(AllocInherit::Default),
            Some(v) => match AllocInherit::from_u8(v) {
                Some(AllocInherit::Default) => Some(AllocInherit::Default),
                // Backward compatibility: without the attribute only DEFAULT can be had.
                Some(d) if self.available("PMIX_ALLOC_INHERITANCE") => Some(d),
                _ if self.flaw(Mutant::UnsupportedInheritanceIgnored) => {
                    Some(AllocInherit::Default)
                }
                _ => {
                    return reject(
                        Status::ERR_NOT_SUPPORTED,
                        format!(
                            "inheritance value {v} ({}) is not supported",
                            attrs::alloc_inheritance_string(v)
                        ),
                    )
                }
            },
        };
        let disposition_or_default = disposition.unwrap_or(AllocInherit::None);
        // Error table row 1: an application may not redirect a reservation — this rejection
        // holds even when the build lacks the attribute (conformance item 7).
        if a.target.is_some()
            && rq.kind == RequesterKind::App
            && !self.flaw(Mutant::AppTargetHonored)
        {
            return reject(
                Status::ERR_NO_PERMISSIONS,
                "an application request may not carry PMIX_ALLOC_TARGET",
            );
        }
        // Backward compatibility: unavailable attributes fall back to their defaults.
        let target = a
            .target
            .clone()
            .filter(|_| self.available("PMIX_ALLOC_TARGET"));
        let share = a
            .share
            .filter(|_| self.available("PMIX_ALLOC_SHARE"))
            .unwrap_or(false);
        let warn = a
            .warn
            .filter(|_| self.available("PMIX_ALLOC_WARN_TIMEOUT") && self.honors_warn);

        if directive == alloc_directive::EXTEND {
            let id = match self.find_alloc(rq, &a) {
                Ok(id) => id,
                Err(e) => {
                    if self.flaw(Mutant::RejectedExtendSetsDisposition) {
                        if let Some(al) = a.alloc_id.as_ref().and_then(|i| self.allocs.get_mut(i)) {
                            al.disposition = disposition_or_default;
                        }
                    }
                    if self.flaw(Mutant::PartialExtend) && e.status == Status::ERR_NO_PERMISSIONS {
                        for n in grant {
                            self.nodes.entry(n.clone()).or_insert(Node {
                                origin: Origin::Scheduler,
                                session: None,
                            });
                        }
                    }
                    return Err(e);
                }
            };
            self.check_grant(grant)?;
            let reserved = self.allocs[&id].reserved;
            self.add_nodes(grant, reserved.then(|| id.clone()));
            let al = self.allocs.get_mut(&id).expect("found above");
            al.nodes.extend(grant.iter().cloned());
            // The disposition is "selected at creation" and "recorded at its creation": an
            // EXTEND validates its inheritance value (error row 7) but never replaces it
            // (reading disposition-at-creation).
            if a.inherit.is_some() && self.mutant == Some(Mutant::ExtendReplacesDisposition) {
                al.disposition = disposition_or_default;
            }
            if warn.is_some() {
                al.warn = warn;
            }
            return Ok(AllocReply {
                info: self.reply_info(&id, a.req_id.as_deref()),
            });
        }

        self.check_grant(grant)?;
        // Decision table: the owning namespace is the tool's TARGET, else the requester's own.
        let owning = match (rq.kind, target) {
            (RequesterKind::App, Some(t)) if self.flaw(Mutant::AppTargetHonored) => t,
            (RequesterKind::Tool | RequesterKind::Scheduler, Some(t)) => t,
            _ => rq.nspace.clone(),
        };
        // New versus extend: NEW always mints a fresh allocation id.
        let id = format!("alloc-{}", self.next_id);
        self.next_id += 1;
        // SHARE governs only the destination: reserved, or the default session.
        self.add_nodes(grant, (!share).then(|| id.clone()));
        self.allocs.insert(
            id.clone(),
            Alloc {
                req_id: a.req_id.clone(),
                owners: if self.flaw(Mutant::TargetRequesterOwns) {
                    BTreeSet::from([owning.clone(), rq.nspace.clone()])
                } else {
                    BTreeSet::from([owning.clone()])
                },
                owning,
                reserved: !share,
                disposition: disposition_or_default,
                requester: ProcRef {
                    nspace: rq.nspace.clone(),
                    rank: rq.rank,
                },
                nodes: grant.iter().cloned().collect(),
                warn,
            },
        );
        Ok(AllocReply {
            info: self.reply_info(&id, a.req_id.as_deref()),
        })
    }

    fn check_grant(&self, grant: &[String]) -> Result<(), Reject> {
        if grant.is_empty() {
            return reject(Status::ERR_BAD_PARAM, "the scheduler granted no nodes");
        }
        for n in grant {
            match self.nodes.get(n) {
                Some(Node {
                    session: Some(s), ..
                }) => {
                    return reject(
                        Status::ERR_RESOURCE_BUSY,
                        format!("node {n} is already reserved by {s}"),
                    )
                }
                _ if n.is_empty() => return reject(Status::ERR_BAD_PARAM, "empty node name"),
                _ => {}
            }
        }
        Ok(())
    }

    /// The nodes are always added to the DVM; `session` decides where they become available.
    fn add_nodes(&mut self, grant: &[String], session: Option<String>) {
        for n in grant {
            let node = self.nodes.entry(n.clone()).or_insert(Node {
                origin: Origin::Scheduler,
                session: None,
            });
            node.session = session.clone();
        }
    }

    fn reply_info(&self, id: &str, req_id: Option<&str>) -> Vec<Info> {
        let mut v = vec![Info::new(attrs::ALLOC_ID, Value::string(id))];
        let stored = self.allocs.get(id).and_then(|a| a.req_id.clone());
        let req_id = match req_id {
            None if self.flaw(Mutant::StoredReqIdEchoed) => stored.as_deref(),
            None if self.flaw(Mutant::ReqIdFromPrevious) => self.last_req_id.as_deref(),
            r => r,
        };
        if let Some(r) = req_id {
            if !self.flaw(Mutant::NoReqIdEcho) {
                v.push(Info::new(attrs::ALLOC_REQ_ID, Value::string(r)));
            }
        }
        v
    }

    /// Resolve the allocation an EXTEND/RELEASE names and check the requester owns it.
    fn find_alloc(&self, rq: &Requester, a: &AllocAttrs) -> Result<String, Reject> {
        // "succeeds only when the requester's namespace owns the named reservation":
        // PMIX_ALLOC_TARGET on EXTEND grants nothing (reading extend-requires-ownership).
        let may =
            |al: &Alloc| rq.kind == RequesterKind::Scheduler || al.owners.contains(&rq.nspace);
        let id = if let Some(id) = &a.alloc_id {
            if !self.allocs.contains_key(id) {
                return reject(Status::ERR_NOT_FOUND, format!("no allocation {id:?}"));
            }
            id.clone()
        } else if let Some(r) = &a.req_id {
            let found: Vec<&String> = self
                .allocs
                .iter()
                .filter(|(_, al)| al.req_id.as_ref() == Some(r))
                .map(|(id, _)| id)
                .collect();
            match found
                .iter()
                .find(|id| may(&self.allocs[**id]))
                .or(found.first())
            {
                Some(id) => (*id).clone(),
                None => {
                    return reject(
                        Status::ERR_NOT_FOUND,
                        format!("no allocation with request id {r:?}"),
                    )
                }
            }
        } else {
            return reject(
                Status::ERR_BAD_PARAM,
                "the request names no allocation (PMIX_ALLOC_ID or PMIX_ALLOC_REQ_ID)",
            );
        };
        if !may(&self.allocs[&id]) {
            return reject(
                Status::ERR_NO_PERMISSIONS,
                format!("{} does not own {id}", rq.nspace),
            );
        }
        Ok(id)
    }

    /// `PMIx_Spawn` of one job; returns the candidate nodes.
    pub fn spawn(
        &mut self,
        rq: &Requester,
        nspace: &str,
        info: &[Info],
    ) -> Result<Vec<String>, Reject> {
        self.check_requester(rq)?;
        if nspace.is_empty() || self.nspaces.contains_key(nspace) {
            return reject(
                Status::ERR_EXISTS,
                format!("namespace {nspace:?} is empty or already exists"),
            );
        }
        let mut entries: Option<Vec<String>> = None;
        for i in info {
            if i.key.as_bytes() == attrs::SPAWN_TARGET.as_bytes() {
                entries = Some(match &i.value {
                    Value::String(_) => vec![string_of(&i.value).unwrap_or_default()],
                    Value::DataArray(arr) if arr.ty == DataType::STRING && !arr.values.is_empty() => {
                        arr.values.iter().map(|v| string_of(v).unwrap_or_default()).collect()
                    }
                    v => return reject(Status::ERR_BAD_PARAM, format!("PMIX_SPAWN_TARGET must be a STRING or a non-empty DATA_ARRAY of STRING, got {}", v.data_type())),
                });
            }
        }
        // Absent (or unavailable): the default session.
        let entries = entries
            .filter(|_| self.available("PMIX_SPAWN_TARGET"))
            .unwrap_or_else(|| vec![String::new()]);

        // Resolve every entry; all-or-nothing ownership check.
        let mut use_default = false;
        let mut targets: Vec<String> = Vec::new();
        for e in &entries {
            if e.is_empty() {
                use_default = true;
                continue;
            }
            let Some(al) = self.allocs.get(e) else {
                return reject(
                    Status::ERR_NOT_FOUND,
                    format!("PMIX_SPAWN_TARGET {e:?} resolves to no session"),
                );
            };
            if !al.reserved {
                // A shared allocation's nodes live in the default session.
                use_default = true;
                continue;
            }
            if rq.kind != RequesterKind::Scheduler && !al.owners.contains(&rq.nspace) {
                if self.flaw(Mutant::SpawnNarrowed) {
                    continue;
                }
                return reject(
                    Status::ERR_NO_PERMISSIONS,
                    format!("{} does not own {e}", rq.nspace),
                );
            }
            targets.push(e.clone());
        }
        if targets.is_empty() && !use_default {
            return reject(Status::ERR_NO_PERMISSIONS, "no permitted session remains");
        }
        // The candidate pool is exactly the union of the permitted sessions.
        let mut candidates = BTreeSet::new();
        for (name, node) in &self.nodes {
            let in_target = node.session.as_ref().is_some_and(|s| targets.contains(s));
            let in_default =
                use_default && (node.session.is_none() || self.flaw(Mutant::ReservedVisible));
            if in_target || in_default {
                candidates.insert(name.clone());
            }
        }
        if candidates.is_empty() {
            return reject(
                Status::ERR_OUT_OF_RESOURCE,
                "the targeted sessions hold no nodes",
            );
        }
        // Ownership grows by spawn-into (whoever spawned, the scheduler too), and is not transitive.
        let grows =
            !(rq.kind == RequesterKind::Scheduler && self.flaw(Mutant::SchedulerSpawnNotOwner));
        for t in targets.iter().filter(|_| grows) {
            if let Some(al) = self.allocs.get_mut(t) {
                al.owners.insert(nspace.to_string());
            }
        }
        if self.flaw(Mutant::TransitiveOwnership) {
            for al in self.allocs.values_mut() {
                if al.owners.contains(&rq.nspace) {
                    al.owners.insert(nspace.to_string());
                }
            }
        }
        let parent = (rq.kind != RequesterKind::Scheduler).then(|| rq.nspace.clone());
        self.nspaces.insert(
            nspace.into(),
            Namespace {
                kind: NsKind::App,
                state: NsState::Running,
                parent,
                nodes: candidates.clone(),
            },
        );
        Ok(candidates.into_iter().collect())
    }

    /// Namespace `nspace` terminates normally.
    pub fn terminate(&mut self, nspace: &str) -> Result<(), Reject> {
        self.require_started()?;
        match self.nspaces.get_mut(nspace) {
            Some(ns) if ns.state == NsState::Running => ns.state = NsState::Terminated,
            Some(_) => {
                return reject(
                    Status::ERR_BAD_PARAM,
                    format!("namespace {nspace} is not running"),
                )
            }
            None => return reject(Status::ERR_NOT_FOUND, format!("no namespace {nspace}")),
        }
        self.settle();
        Ok(())
    }

    /// Unconditional trigger 3: the scheduler terminates an allocation.
    pub fn reclaim(&mut self, id: &str) -> Result<(), Reject> {
        self.require_started()?;
        if !self.allocs.contains_key(id) {
            return reject(Status::ERR_NOT_FOUND, format!("no allocation {id:?}"));
        }
        self.return_to_scheduler(id);
        Ok(())
    }

    /// The scheduler's warning threshold for `id` is reached: relay to the requester only.
    pub fn timeout_warning(&mut self, id: &str, remaining: Option<u32>) -> Result<(), Reject> {
        self.require_started()?;
        let Some(al) = self.allocs.get(id) else {
            return reject(Status::ERR_NOT_FOUND, format!("no allocation {id:?}"));
        };
        // Advisory: without a (honored) request no warning is issued at all.
        let Some(threshold) = al.warn else {
            return Ok(());
        };
        // A mutant reports the requester's first allocation instead of this one.
        let al = if self.flaw(Mutant::WarningWrongAlloc) {
            self.allocs
                .values()
                .find(|o| o.requester == al.requester)
                .unwrap_or(al)
        } else {
            al
        };
        let id = self
            .allocs
            .iter()
            .find(|(_, o)| std::ptr::eq(*o, al))
            .map_or(id, |(k, _)| k.as_str());
        let mut info = vec![Info::new(attrs::ALLOC_ID, Value::string(id))];
        if let Some(r) = &al.req_id {
            info.push(Info::new(attrs::ALLOC_REQ_ID, Value::string(r)));
        }
        info.push(Info::new(
            attrs::TIME_REMAINING,
            Value::Uint32(remaining.unwrap_or(threshold)),
        ));
        let mut to = vec![al.requester.clone()];
        if self.flaw(Mutant::WarningBroadcast) {
            to.extend(
                al.owners
                    .iter()
                    .filter(|o| **o != al.requester.nspace)
                    .map(|o| ProcRef {
                        nspace: o.clone(),
                        rank: u32::MAX - 1,
                    }),
            );
        }
        for p in to {
            self.events.push(Event {
                to: p,
                code: Status::ALLOC_TIMEOUT_WARNING,
                info: info.clone(),
            });
        }
        Ok(())
    }

    /// Unconditional trigger 2: the DVM tears down and every session ends with it.
    pub fn teardown(&mut self) -> Result<(), Reject> {
        self.require_started()?;
        self.allocs.clear();
        let nodes: Vec<String> = self.nodes.keys().cloned().collect();
        // Every node departs, so the processes on them end with it.
        for (name, ns) in self.nspaces.iter_mut() {
            if ns.kind == NsKind::App && ns.state == NsState::Running {
                ns.state = NsState::Killed;
                self.killed.push(name.clone());
            }
        }
        self.returned.extend(nodes);
        self.nodes.clear();
        self.started = false;
        Ok(())
    }

    /// "Returned to the scheduler": the same path as an explicit release. Scheduler-owned
    /// nodes leave the DVM (killing what runs there); startup nodes revert to the default session.
    fn return_to_scheduler(&mut self, id: &str) {
        let Some(al) = self.allocs.remove(id) else {
            return;
        };
        if self.flaw(Mutant::ReturnedTwice) && al.disposition == AllocInherit::None {
            self.ghosts.push((al.owning.clone(), al.nodes.clone()));
        }
        let mut departing = BTreeSet::new();
        for n in &al.nodes {
            match self.nodes.get_mut(n) {
                Some(node) if node.origin == Origin::Scheduler => {
                    departing.insert(n.clone());
                }
                Some(node) => node.session = None,
                None => {}
            }
        }
        if self.flaw(Mutant::UnreserveKills) {
            let staying: BTreeSet<String> = al.nodes.difference(&departing).cloned().collect();
            self.kill_on(&staying);
        }
        for n in &departing {
            self.nodes.remove(n);
            self.returned.push(n.clone());
        }
        self.kill_on(&departing);
        self.settle();
    }

    /// "Unreserved in session": the allocation goes away, its nodes join the default session.
    fn unreserve(&mut self, id: &str) {
        let Some(al) = self.allocs.remove(id) else {
            return;
        };
        for n in &al.nodes {
            if let Some(node) = self.nodes.get_mut(n) {
                node.session = None;
            }
        }
        if self.flaw(Mutant::UnreserveKills) {
            self.kill_on(&al.nodes);
        }
    }

    /// DVM shrink: jobs on departing nodes are terminated.
    fn kill_on(&mut self, nodes: &BTreeSet<String>) {
        for (name, ns) in self.nspaces.iter_mut() {
            if ns.kind == NsKind::App
                && ns.state == NsState::Running
                && !ns.nodes.is_disjoint(nodes)
            {
                ns.state = NsState::Killed;
                self.killed.push(name.clone());
            }
        }
    }

    fn running(&self, ns: &str) -> bool {
        self.nspaces
            .get(ns)
            .is_some_and(|n| n.state == NsState::Running)
    }

    fn ended(&self, ns: &str) -> bool {
        self.nspaces
            .get(ns)
            .is_some_and(|n| n.state != NsState::Running)
    }

    /// A mutant returns a released NONE allocation's nodes again at its owner's exit, taking
    /// them from whatever holds them now.
    fn return_ghosts(&mut self) {
        let (due, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.ghosts)
            .into_iter()
            .partition(|(owning, _)| self.ended(owning));
        self.ghosts = keep;
        for (_, nodes) in due {
            for n in &nodes {
                for al in self.allocs.values_mut() {
                    al.nodes.remove(n);
                }
                match self.nodes.get(n).map(|x| x.origin) {
                    Some(Origin::Scheduler) => {
                        self.nodes.remove(n);
                        self.returned.push(n.clone());
                    }
                    Some(Origin::Startup) => {
                        if let Some(x) = self.nodes.get_mut(n) {
                            x.session = None;
                        }
                    }
                    None => {}
                }
            }
        }
    }

    /// Whether some namespace descending from `root` has ended.
    fn has_ended_descendant(&self, root: &str) -> bool {
        self.nspaces.iter().any(|(name, ns)| {
            ns.state != NsState::Running && name != root && self.descends_from(name, root)
        })
    }

    fn descends_from(&self, name: &str, root: &str) -> bool {
        let mut p = self.nspaces.get(name).and_then(|x| x.parent.clone());
        let mut guard = 0;
        while let Some(pp) = p {
            if pp == root {
                return true;
            }
            guard += 1;
            if guard > self.nspaces.len() {
                return false;
            }
            p = self.nspaces.get(&pp).and_then(|x| x.parent.clone());
        }
        false
    }

    /// Derived children: namespaces reachable from `root` through the spawn relationship, at any depth.
    fn has_live_descendant(&self, root: &str) -> bool {
        self.nspaces.iter().any(|(name, ns)| {
            if ns.state != NsState::Running || name == root {
                return false;
            }
            let mut p = ns.parent.clone();
            let mut guard = 0;
            while let Some(pp) = p {
                if pp == root {
                    return true;
                }
                guard += 1;
                if guard > self.nspaces.len() {
                    return false;
                }
                p = self.nspaces.get(&pp).and_then(|x| x.parent.clone());
            }
            false
        })
    }

    /// Apply namespace-termination dispositions until nothing more fires.
    fn settle(&mut self) {
        loop {
            let mut fire: Option<(String, bool)> = None; // (id, return_to_scheduler)
            for (id, al) in &self.allocs {
                let early = self.flaw(Mutant::ChildReleasesWhileOwnerRuns)
                    && matches!(
                        al.disposition,
                        AllocInherit::Child | AllocInherit::ChildDefault
                    )
                    && self.has_ended_descendant(&al.owning)
                    && !self.has_live_descendant(&al.owning);
                if !self.ended(&al.owning) && !early {
                    continue;
                }
                let drained = || {
                    if self.flaw(Mutant::ChildDrainByOwners) {
                        !al.owners.iter().any(|o| *o != al.owning && self.running(o))
                    } else {
                        !self.has_live_descendant(&al.owning)
                    }
                };
                let verdict = match al.disposition {
                    AllocInherit::None => Some(true),
                    AllocInherit::Default => Some(false),
                    AllocInherit::Child if self.flaw(Mutant::ChildNotDeferred) => Some(true),
                    AllocInherit::Child => drained().then_some(true),
                    AllocInherit::ChildDefault => drained().then_some(false),
                };
                if let Some(to_sched) = verdict {
                    fire = Some((id.clone(), to_sched));
                    break;
                }
            }
            match fire {
                Some((id, true)) => self.return_to_scheduler(&id),
                Some((id, false)) => self.unreserve(&id),
                None => {
                    self.return_ghosts();
                    break;
                }
            }
        }
    }

    /// The observable state; info arrays of events are packed in the session's wire format.
    pub fn snapshot(&self) -> Result<Snapshot, String> {
        let mut s = Snapshot::default();
        for (n, node) in &self.nodes {
            s.nodes
                .insert(n.clone(), node.session.clone().unwrap_or_default());
        }
        for (id, al) in &self.allocs {
            s.allocations.insert(
                id.clone(),
                AllocView {
                    owning: al.owning.clone(),
                    owners: al.owners.iter().cloned().collect(),
                    reserved: al.reserved,
                    nodes: al.nodes.iter().cloned().collect(),
                    req_id: al.req_id.clone(),
                },
            );
        }
        for (name, ns) in &self.nspaces {
            s.jobs.insert(
                name.clone(),
                JobView {
                    kind: if ns.kind == NsKind::Tool {
                        "tool"
                    } else {
                        "app"
                    }
                    .into(),
                    state: match ns.state {
                        NsState::Running => "running",
                        NsState::Terminated => "terminated",
                        NsState::Killed => "killed",
                    }
                    .into(),
                    parent: ns.parent.clone().unwrap_or_default(),
                    nodes: ns.nodes.iter().cloned().collect(),
                },
            );
        }
        s.returned = self.returned.clone();
        s.killed = self.killed.clone();
        for e in &self.events {
            s.events.push(EventView {
                to: e.to.clone(),
                code: e.code.0,
                info: self.format.encode(&e.info)?,
            });
        }
        Ok(s)
    }

    /// The nodes an untargeted job of an unrelated tool lands on (the default session),
    /// computed by the same spawn path on a copy, so the model's state does not change.
    pub fn probe_default(&self) -> Result<Vec<String>, Reject> {
        if !self.started {
            // No DVM (never started or torn down): the probe lands nowhere.
            return Ok(Vec::new());
        }
        let mut copy = self.clone();
        let mut tool = String::from("probe");
        while copy.nspaces.contains_key(&tool) {
            tool.push('_');
        }
        copy.tool_connect(&tool)?;
        let rq = Requester {
            kind: RequesterKind::Tool,
            nspace: tool.clone(),
            rank: 0,
        };
        match copy.spawn(&rq, &format!("{tool}-job"), &[]) {
            Ok(c) => Ok(c),
            // An empty default session: the probe lands nowhere.
            Err(r) if r.status == Status::ERR_OUT_OF_RESOURCE => Ok(Vec::new()),
            Err(r) => Err(r),
        }
    }

    /// What PMIx peers observe: query answers and the events delivered so far.
    pub fn observed(&self) -> Result<Observed, String> {
        let mut o = Observed {
            alloc_ids: self.allocs.keys().cloned().collect(),
            ..Default::default()
        };
        for (id, al) in &self.allocs {
            o.allocations
                .insert(id.clone(), al.nodes.iter().cloned().collect());
        }
        for (name, ns) in &self.nspaces {
            if ns.state != NsState::Running {
                continue;
            }
            o.namespaces.push(name.clone());
            if ns.kind == NsKind::App {
                o.proc_table
                    .insert(name.clone(), ns.nodes.iter().cloned().collect());
            }
        }
        for e in &self.events {
            o.events.push(EventView {
                to: e.to.clone(),
                code: e.code.0,
                info: self.format.encode(&e.info)?,
            });
        }
        Ok(o)
    }

    /// The wire format of this session's responses.
    pub fn format(&self) -> WireFormat {
        self.format
    }
}
