//! The live interop matrix (issue 28): real clients of each release against real servers,
//! predicted from the bytes and checked against what happens. For maintainers as code; its
//! reports (`vectors/LIVE.md`, `pmix-wire compat`) are for operators and server vendors.
//!
//! * [`ops`]: the closed list of operations a cell runs ([`Op`], [`TypeClass`], [`JobKey`]);
//! * [`observations`]: the shared observations format (`vectors/live/observations.json`);
//! * [`predict`]: what the byte matrix and the codec's profiles predict per operation;
//! * [`compare`]: predicted against observed, the explanations table, pair verdicts;
//! * [`gate`]: a run against a baseline run, cell by cell (`live-matrix.sh --baseline`);
//! * [`report`]: `vectors/LIVE.md`; [`svg`]: `vectors/LIVE.svg` and `vectors/MATRIX.svg`;
//!   [`html`]: `vectors/LIVE.html` (the matrix as a web page, filters and a detail panel).
//! * [`publish`]: the files `pmix-vectors live` writes, and their stale check;
//! * [`tap`]: the wire tap every connection of a live cell passes (`pmix-live-tap`).

pub mod compare;
pub mod gate;
pub mod html;
pub mod observations;
pub mod ops;
pub mod predict;
pub mod publish;
pub mod report;
pub mod svg;
pub mod tap;

pub use observations::{
    ClientKind, Ending, LiveCell, Observations, OpObservation, ProcessOutcome, Provenance, FORMAT,
};
pub use ops::{JobKey, Op, TypeClass};
