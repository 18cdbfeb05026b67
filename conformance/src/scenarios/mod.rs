//! Specification scenarios: the TOML file model ([`Scenario`], [`Step`], [`Expect`]), the
//! loader ([`load_dir`], [`parse_file`]) and the runner ([`run_scenario`], [`run_all`],
//! [`run_mutants`]). `SCENARIOS.md` explains how to read and write them.

mod expected;
mod load;
mod run;
pub mod server_report;
mod suite;
mod values;

pub use expected::{
    outcome_word, reading_lines, verdict, ExpectedResults, ExpectedScenario, OUTCOMES,
};
pub use load::{load_dir, parse_file, LoadError};
pub use run::run_scenario;
pub use suite::{coverage, run_all, run_mutants, MutantResult};

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A named reading of the specification: where seed 001 admits more than one reading, the
/// reading an expectation takes and the sentence of the other side. SCENARIOS.md quotes both.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// The name (`reading = "..."` in a scenario).
    pub id: &'static str,
    /// The reading taken, in words.
    pub taken: &'static str,
    /// The other reading: the specification's sentence for it, in our words. A server whose
    /// result differs from an expectation tagged with this reading "follows" this one.
    pub other: &'static str,
    /// Whether the specification contradicts itself here (both sides are normative text).
    pub contradiction: bool,
}

/// Every named reading of the specification a scenario or an expectation may name.
pub const READINGS: &[Reading] = &[
    Reading {
        id: "tool-target-share",
        taken: "a tool's TARGET with SHARE=true: nodes shared, <ns> is the owning namespace",
        other: "the decision table has no row for TARGET with SHARE=true; the design plan (003) reserves the nodes for <ns>",
        contradiction: false,
    },
    Reading {
        id: "row1-any-target",
        taken: "error row 1 holds for EXTEND and for any TARGET value, the app's own included",
        other: "rows 4-5 decide an application's request by PMIX_ALLOC_SHARE; a TARGET naming the application itself designates no other owner",
        contradiction: false,
    },
    Reading {
        id: "carved-nodes-revert",
        taken: "granted startup nodes are carved from the default session and revert to it when returned",
        other: "'the DVM shrinks for nodes the scheduler owns': a node the scheduler granted is the scheduler's, wherever it came from",
        contradiction: false,
    },
    Reading {
        id: "shared-allocation-id",
        taken: "a shared allocation has its own PMIX_ALLOC_ID (listed, releasable, resolving to the default session)",
        other: "'A successful allocation response returns the destination's PMIX_ALLOC_ID': a shared allocation's destination is the default session, whose id is the empty sentinel",
        contradiction: false,
    },
    Reading {
        id: "child-no-target-default",
        taken: "a job without PMIX_SPAWN_TARGET maps onto the default session, even when its parent runs in a reservation",
        other: "attribute contract: 'When absent, the job uses the default session (or its parent's session, exactly as today)'",
        contradiction: false,
    },
    Reading {
        id: "release-statuses",
        taken: "RELEASE answers with the EXTEND statuses and names its reservation as EXTEND does (PMIX_ALLOC_ID or the requester's own PMIX_ALLOC_REQ_ID)",
        other: "trigger 1: 'An owner releases it by issuing PMIX_ALLOC_RELEASE for the reservation's allocation id': RELEASE names its reservation by PMIX_ALLOC_ID only",
        contradiction: false,
    },
    Reading {
        id: "reaquire-cancel-inert",
        taken: "REAQUIRE and REQ_CANCEL change no reservation and ignore inheritance",
        other: "the spec says nothing else about REAQUIRE and REQ_CANCEL: a host may not support them",
        contradiction: false,
    },
    Reading {
        id: "compat-app-target-rejected",
        taken: "without PMIX_ALLOC_TARGET an application carrying its key is still refused",
        other: "'When PMIX_ALLOC_TARGET is unavailable, a dynamic allocation is always reserved to the requester's own namespace': the key is ignored",
        contradiction: false,
    },
    Reading {
        id: "child-no-descendants",
        taken: "a CHILD* reservation whose owner has no descendants fires at the owner's termination",
        other: "CHILD is released 'only when all derived children have terminated'; with none, nothing says when",
        contradiction: false,
    },
    Reading {
        id: "extend-requires-ownership",
        taken: "PMIX_ALLOC_TARGET on EXTEND grants nothing: the requester's namespace must own the reservation",
        other: "PMIX_ALLOC_TARGET names 'the namespace ... whose existing reservation is extended': a tool may extend on its target's behalf",
        contradiction: false,
    },
    Reading {
        id: "disposition-at-creation",
        taken: "the disposition is recorded at creation; EXTEND validates but never replaces it",
        other: "PMIX_ALLOC_INHERITANCE 'is honored on PMIX_ALLOC_NEW and PMIX_ALLOC_EXTEND requests': an EXTEND's value replaces the recorded one",
        contradiction: true,
    },
    Reading {
        id: "req-id-echo-extend",
        taken: "an EXTEND that supplied no PMIX_ALLOC_REQ_ID gets none echoed",
        other: "the spec is silent on a request that carries none; the reservation's stored request id may be returned",
        contradiction: false,
    },
];

/// The reading named `id`, if it is one of [`READINGS`].
pub fn reading(id: &str) -> Option<&'static Reading> {
    READINGS.iter().find(|r| r.id == id)
}

/// One scenario.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Unique id.
    pub id: String,
    /// Clause ids from [`crate::spec::CLAUSES`] this scenario checks; the first is the primary one.
    pub clauses: Vec<String>,
    /// The requirement, as one sentence.
    pub requirement: String,
    /// The reading chosen where the specification is ambiguous, if any.
    #[serde(default)]
    pub ambiguity: Option<String>,
    /// The named readings ([`READINGS`], SCENARIOS.md "Readings") this scenario's
    /// interpretation rests on; reports show them next to the result and tally per reading.
    /// An expectation that depends on one says so itself (`expect.reading`); only those make
    /// a failure reading-dependent.
    #[serde(default)]
    pub readings: Vec<String>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The file it came from (set by the loader).
    #[serde(skip)]
    pub file: PathBuf,
}

impl Scenario {
    /// Every reading the scenario names, its own and its expectations' (no duplicates).
    pub fn all_readings(&self) -> Vec<String> {
        let mut v = self.readings.clone();
        for st in &self.steps {
            if let Some(r) = &st.expect().reading {
                if !v.contains(r) {
                    v.push(r.clone());
                }
            }
        }
        v
    }

    /// The 1-based numbers of the steps that carry the scenario's requirement.
    pub fn subject_steps(&self) -> Vec<usize> {
        self.steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.expect().subject)
            .map(|(i, _)| i + 1)
            .collect()
    }

    /// How many processes per node each job needs: one more than the highest rank the
    /// scenario names for it, as a requester (`app:NS:RANK`) or an event recipient
    /// (`NS:RANK`). Jobs it names only at rank 0 are left out (they need 1).
    pub fn ranks_named(&self) -> BTreeMap<String, u32> {
        let mut ranks: BTreeMap<String, u32> = BTreeMap::new();
        let mut note = |ns: &str, rank: u32| {
            if rank > 0 {
                let e = ranks.entry(ns.to_string()).or_insert(1);
                *e = (*e).max(rank.saturating_add(1));
            }
        };
        for st in &self.steps {
            match st {
                Step::Alloc { by, .. } | Step::Spawn { by, .. } | Step::CanSpawn { by, .. } => {
                    if let Ok(r) = values::parse_requester(by) {
                        note(&r.nspace, r.rank);
                    }
                }
                _ => {}
            }
            for ev in st.expect().events.iter().flatten() {
                if let Some((ns, r)) = ev.to.split_once(':') {
                    if let Ok(r) = r.parse() {
                        note(ns, r);
                    }
                }
            }
        }
        ranks
    }

    /// The specification section of the primary clause.
    pub fn section(&self) -> &'static str {
        self.clauses
            .first()
            .and_then(|c| crate::spec::clause(c))
            .map_or("(unknown)", |c| c.section)
    }
}

/// One step: an action and the observations expected right after it.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Start a DVM on `nodes` (the default session).
    DvmStart {
        /// Startup nodes.
        nodes: Vec<String>,
        /// Attribute macro names the underlying PMIx lacks.
        #[serde(default)]
        unavailable: Vec<String>,
        /// Whether the scheduler implements `PMIX_ALLOC_WARN_TIMEOUT` (default true).
        #[serde(default = "yes")]
        scheduler_honors_warn_timeout: bool,
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// A tool connects (it gets namespace `tool`).
    ToolConnect {
        /// The tool namespace.
        tool: String,
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// `PMIx_Allocation_request`.
    Alloc {
        /// Requester: `tool:NS`, `app:NS[:RANK]` or `scheduler`.
        by: String,
        /// `NEW`, `EXTEND`, `RELEASE`, `REAQUIRE`, `REQ_CANCEL` (or a number).
        directive: String,
        /// The info array.
        #[serde(default)]
        info: Vec<InfoSpec>,
        /// Nodes the scheduler grants (NEW/EXTEND).
        #[serde(default)]
        grant: Vec<String>,
        /// Bind the returned `PMIX_ALLOC_ID` to this variable (`$NAME` later).
        #[serde(default)]
        bind: Option<String>,
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// `PMIx_Spawn` of a job that gets namespace `nspace`.
    Spawn {
        /// Requester.
        by: String,
        /// The new namespace.
        nspace: String,
        /// The job-level info array.
        #[serde(default)]
        info: Vec<InfoSpec>,
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// A namespace (job or tool) terminates normally.
    Terminate {
        /// The namespace.
        nspace: String,
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// The scheduler terminates an allocation (timeout or administrative reclaim).
    Reclaim {
        /// The allocation (usually `$VAR`).
        alloc: String,
        /// `timeout` or `admin`.
        #[serde(default)]
        reason: String,
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// The scheduler reaches an allocation's warning threshold.
    TimeoutWarning {
        /// The allocation.
        alloc: String,
        /// Seconds remaining (default: the requested threshold).
        #[serde(default)]
        remaining: Option<u32>,
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// The DVM tears down.
    DvmTeardown {
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// A behavioural probe, "can `by` spawn onto `target`?": a spawn with
    /// `PMIX_SPAWN_TARGET = target` of a throw-away job that is ended at once when it
    /// started. `expect.status` is the spawn's status (success by default).
    CanSpawn {
        /// Requester.
        by: String,
        /// The allocation id (usually `$VAR`).
        target: String,
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
    /// Only observe.
    Observe {
        /// Expectations.
        #[serde(default)]
        expect: Expect,
    },
}

fn yes() -> bool {
    true
}

impl Step {
    /// The step's op name.
    pub fn op(&self) -> &'static str {
        match self {
            Step::DvmStart { .. } => "dvm_start",
            Step::ToolConnect { .. } => "tool_connect",
            Step::Alloc { .. } => "alloc",
            Step::Spawn { .. } => "spawn",
            Step::Terminate { .. } => "terminate",
            Step::Reclaim { .. } => "reclaim",
            Step::TimeoutWarning { .. } => "timeout_warning",
            Step::DvmTeardown { .. } => "dvm_teardown",
            Step::CanSpawn { .. } => "can_spawn",
            Step::Observe { .. } => "observe",
        }
    }

    /// The step's expectations.
    pub fn expect(&self) -> &Expect {
        match self {
            Step::DvmStart { expect, .. }
            | Step::ToolConnect { expect, .. }
            | Step::Alloc { expect, .. }
            | Step::Spawn { expect, .. }
            | Step::Terminate { expect, .. }
            | Step::Reclaim { expect, .. }
            | Step::TimeoutWarning { expect, .. }
            | Step::DvmTeardown { expect, .. }
            | Step::CanSpawn { expect, .. }
            | Step::Observe { expect, .. } => expect,
        }
    }
}

/// One `pmix_info_t`: key (macro name or key string), type and value.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InfoSpec {
    /// `PMIX_ALLOC_SHARE` or `pmix.alloc.share`.
    pub key: String,
    /// The PMIx data type name; defaults to the attribute's declared type.
    #[serde(default, rename = "type")]
    pub ty: Option<String>,
    /// Element type of a `DATA_ARRAY` (default `STRING`).
    #[serde(default)]
    pub elem: Option<String>,
    /// The value (TOML bool, integer, string or array as the type requires).
    pub value: toml::Value,
    /// `pmix_info_t` flags.
    #[serde(default)]
    pub flags: u32,
}

/// A status given by name (`ERR_NOT_FOUND`, `PMIX_ERR_NOT_FOUND`) or number.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum StatusSpec {
    /// A name.
    Name(String),
    /// A number.
    Code(i32),
}

/// Observations expected after a step. Everything is optional; a step without `status`
/// (and without `status_not`) must succeed.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// This step carries the scenario's requirement (its subject). A failure at a subject
    /// step is a deviation; a failure at any other step is inconclusive (a precondition or
    /// follow-up did not hold, so the case says nothing about its requirement).
    #[serde(default)]
    pub subject: bool,
    /// The reading ([`READINGS`]) these expectations take where the specification admits
    /// more than one; a failure here is reading-dependent ("follows the other reading").
    pub reading: Option<String>,
    /// The returned status.
    pub status: Option<StatusSpec>,
    /// A status the response must not have (when the spec only excludes one).
    pub status_not: Option<StatusSpec>,
    /// Any of these statuses (where the readings of the spec allow several).
    pub status_in: Option<Vec<StatusSpec>>,
    /// The returned `PMIX_ALLOC_ID` (usually `$VAR`).
    pub alloc_id: Option<String>,
    /// The echoed `PMIX_ALLOC_REQ_ID`; `""` means it must be absent.
    pub req_id: Option<String>,
    /// The spawned job's candidate nodes (exactly).
    pub candidates: Option<Vec<String>>,
    /// The spawned job's candidate nodes are exactly one of these sets (where readings allow
    /// several placements).
    pub candidates_in: Option<Vec<Vec<String>>>,
    /// Node -> session: `default`, `absent` (not in the DVM) or an allocation id.
    pub sessions: Option<BTreeMap<String, String>>,
    /// Allocation -> owner set (exactly).
    pub owners: Option<BTreeMap<String, Vec<String>>>,
    /// Allocation -> owning namespace.
    pub owning: Option<BTreeMap<String, String>>,
    /// Allocation -> reserved (true) or shared (false).
    pub reserved: Option<BTreeMap<String, bool>>,
    /// The live allocations (exactly), as `PMIX_QUERY_ALLOC_IDS` reports them.
    pub allocations: Option<Vec<String>>,
    /// Allocations that must no longer exist (absent from `PMIX_QUERY_ALLOC_IDS`).
    pub gone: Option<Vec<String>>,
    /// Allocation -> its nodes (exactly), as `PMIX_QUERY_ALLOCATION` with `PMIX_ALLOC_ID` reports them.
    pub alloc_nodes: Option<BTreeMap<String, Vec<String>>>,
    /// Job namespace -> the nodes its processes run on (exactly), per `PMIX_QUERY_PROC_TABLE`.
    pub ran_on: Option<BTreeMap<String, Vec<String>>>,
    /// The DVM's nodes (exactly).
    pub dvm_nodes: Option<Vec<String>>,
    /// Every node returned to the scheduler so far (exactly).
    pub returned: Option<Vec<String>>,
    /// Every job killed so far (exactly).
    pub killed: Option<Vec<String>>,
    /// Application namespaces (spawned by this scenario) still running (exactly), per
    /// `PMIX_QUERY_NAMESPACES`.
    pub running: Option<Vec<String>>,
    /// Every event delivered so far (exactly, in order).
    pub events: Option<Vec<EventExpect>>,
    /// The observable state is exactly what it was before the step.
    pub unchanged: Option<bool>,
}

/// One expected event.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventExpect {
    /// Recipient `NSPACE` or `NSPACE:RANK` (rank 0 by default).
    pub to: String,
    /// The event code.
    pub code: StatusSpec,
    /// Expected `PMIX_ALLOC_ID` in the payload.
    pub alloc_id: Option<String>,
    /// Expected `PMIX_ALLOC_REQ_ID`; `""` means it must be absent.
    pub req_id: Option<String>,
    /// Expected `PMIX_TIME_REMAINING`.
    pub time_remaining: Option<u32>,
}
