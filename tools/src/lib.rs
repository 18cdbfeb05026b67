//! pmix-wire tools: a client for our C oracle (`tools/oracle`, linked against the real
//! libpmix) and its token format.
#![warn(missing_docs)]

pub mod cli;
pub mod corpus;
pub mod edges;
pub mod forms;
pub mod hex;
pub mod live;
pub mod oracle;
pub mod tap;
pub mod tokens;
pub mod vectorgen;
