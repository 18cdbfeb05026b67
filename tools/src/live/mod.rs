//! The live interop matrix (issue 28): real clients of each release against real servers.
//!
//! * [`ops`]: the closed list of operations a cell runs ([`Op`], [`TypeClass`]);
//! * [`observations`]: the shared observations format (`vectors/live/observations.json`).

pub mod observations;
pub mod ops;

pub use observations::{ClientKind, LiveCell, Observations, OpObservation, Provenance, FORMAT};
pub use ops::{Op, TypeClass};
