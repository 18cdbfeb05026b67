//! # pmix-conformance
//!
//! Two suites with one report format:
//!
//! * **vectors** — the golden wire vectors (`vectors/`) replayed against any implementation
//!   of the bfrops wire format: pmix-codec in process, or an external *testee* program
//!   speaking the protocol documented in `TESTEE.md`;
//! * **scenarios** — executable specification scenarios for PRRTE *Node Reservation and
//!   Session Targeting* (and the PMIx allocation-inheritance overview), a reference server
//!   model that passes them, and an adapter that runs them against any external server
//!   speaking the protocol documented in `SERVER.md`.
//!
//! * [`scenarios`] — the TOML scenario model, its loader and its runner.
//! * [`model`] — the reference model: a readable state machine of the specification, plus
//!   deliberately wrong [`model::Mutant`]s that prove the scenarios have teeth.
//! * [`server`] — the [`server::Server`] trait, the in-process model server and the
//!   external-process adapter.
//! * [`protocol`] — the request/response messages shared by every server.
//! * [`wireinfo`] — info arrays carried as codec wire bytes.
//! * [`report`] — generic case results rendered to the console, JSON and JUnit XML.
//! * [`vectors`] — the wire-vector suite: golden vector files replayed against a testee.
//! * [`testee`] — the [`testee::Testee`] trait, the built-in codec, the external-process
//!   testee (protocol in `TESTEE.md`) and a serving loop for testees written in Rust.
//! * [`reuse`] — the built-in testee's second decode, into the memory of earlier values.
//! * [`xfail`] — per-implementation expected-failure lists.
//! * [`status_mode`] — `--status exact|class|reject`: how strictly an invalid vector's status
//!   is judged, and the classes of statuses.
//! * [`explain`] — failures that explain themselves: the first differing decoded field, an
//!   invalid vector's input and expected refusal.
//! * [`fieldwalk`] — encode mismatches explained field by field, with the first differing
//!   field's path, from the codec's own decoder.
//! * [`process`] — child processes spoken to in length-prefixed frames, each in its own
//!   process group, replies capped in size.
//! * [`limits`] — when a vector run stops early (`--max-errors`, `--max-timeouts`).
//! * [`parallel`] — a scoped parallel map whose results keep the order of its inputs.
//! * [`spec`] — the catalogue of specification clauses scenarios refer to.
#![warn(missing_docs)]

pub mod as_written;
pub mod bridge;
pub mod call_by_call;
pub mod explain;
pub mod fieldwalk;
pub mod limits;
pub mod model;
pub mod narration;
pub mod packer_calls;
pub mod parallel;
pub mod process;
pub mod protocol;
pub mod report;
pub mod reuse;
pub mod scenarios;
pub mod server;
pub mod spec;
pub mod status_mode;
pub mod testee;
pub mod vectors;
pub mod wireinfo;
pub mod xfail;

/// Status codes the specification relies on, as OpenPMIx numbers them.
///
/// Every code the specification names exists in [`pmix_codec::Status`]; this module only
/// re-exports them under the names the scenarios use.
pub mod status {
    pub use pmix_codec::Status;

    /// Parse a status given as a name (`ERR_NOT_FOUND`, `PMIX_ERR_NOT_FOUND`) or a number (`-46`).
    pub fn parse(s: &str) -> Option<Status> {
        Status::from_name(s.trim()).or_else(|| s.trim().parse::<i32>().ok().map(Status))
    }
}
