//! The real OpenPMIx libraries as judges, for the maintainers of pmix-wire: the client of
//! our C oracle (`tools/oracle/pmix_oracle.c`, linked against each release's libpmix) and
//! its token format, the corpus of pack calls it is run over, and the cross-release byte
//! matrix it yields. The vector generator (`pmix-vectorgen`), the live matrix (`pmix-live`)
//! and the differential suite (`tests/differential.rs`) stand on it.
#![warn(missing_docs)]

pub mod corpus;
pub mod diff;
pub mod edges;
pub mod forms;
pub mod hex;
pub mod matrix;
pub mod oracle;
pub mod tokens;
