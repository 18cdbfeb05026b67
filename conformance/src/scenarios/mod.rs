//! Specification scenarios: the TOML file model ([`Scenario`], [`Step`], [`Expect`]), the
//! loader ([`load_dir`], [`parse_file`]) and the runner ([`run_scenario`], [`run_all`],
//! [`run_mutants`]). `SCENARIOS.md` explains how to read and write them.

mod expected;
mod load;
mod run;
mod values;

pub use expected::{reading_lines, verdict, Deviation, ExpectedResults, KnownUnsupported};
pub use load::{load_dir, parse_file, LoadError};
pub use run::{coverage, run_all, run_mutants, run_scenario, MutantResult};

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Every named reading of the specification a scenario may depend on: the name and the
/// reading taken. SCENARIOS.md quotes the sentences on each side.
pub const READINGS: &[(&str, &str)] = &[
    ("tool-target-share", "a tool's TARGET with SHARE=true: nodes shared, <ns> is the owning namespace"),
    ("row1-any-target", "error row 1 holds for EXTEND and for any TARGET value, the app's own included"),
    ("carved-nodes-revert", "granted startup nodes are carved from the default session and revert to it when returned"),
    ("shared-allocation-id", "a shared allocation has its own PMIX_ALLOC_ID (listed, releasable, resolving to the default session)"),
    ("child-no-target-default", "a job without PMIX_SPAWN_TARGET maps onto the default session, even when its parent runs in a reservation"),
    ("release-statuses", "RELEASE answers with the EXTEND statuses (BAD_PARAM / NOT_FOUND / NO_PERMISSIONS)"),
    ("reaquire-cancel-inert", "REAQUIRE and REQ_CANCEL change no reservation and ignore inheritance"),
    ("compat-app-target-rejected", "without PMIX_ALLOC_TARGET an application carrying its key is still refused"),
    ("child-no-descendants", "a CHILD* reservation whose owner has no descendants fires at the owner's termination"),
    ("extend-requires-ownership", "PMIX_ALLOC_TARGET on EXTEND grants nothing: the requester's namespace must own the reservation"),
    ("disposition-at-creation", "the disposition is recorded at creation; EXTEND validates but never replaces it"),
];

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
    /// expectations depend on; reports show them next to the result and tally per reading.
    #[serde(default)]
    pub readings: Vec<String>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The file it came from (set by the loader).
    #[serde(skip)]
    pub file: PathBuf,
}

impl Scenario {
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
