//! # pmix-peer
//!
//! A native PMIx peer: it connects to a running PMIx server (PRRTE's DVM, an OpenPMIx
//! server) over its real TCP socket, performs the PTL connect handshake as a tool with the
//! bfrops component the caller chooses (v41, v51, v61, ...), and sends the tool commands
//! (allocation, spawn, query, event registration, job control, finalize) whose bytes come
//! from `pmix-codec`. Every wait is bounded and every length the server sends is checked
//! before it is trusted.
//!
//! Layout: [`rendezvous`] (finding the server), [`frame`] (the 16-byte header),
//! [`handshake`] (the connect message and reply), [`command`] (typed requests and replies),
//! [`conn`] (the live connection).
#![warn(missing_docs)]

pub mod command;
pub mod conn;
pub mod conversation;
pub mod error;
pub mod frame;
pub mod handshake;
pub mod hostile;
pub mod rendezvous;
pub mod scenario;

pub use command::{AllocDirective, Event, InfoReply, Request, SpawnReply};
pub use conn::{Direction, Exchange, Limits, Peer};
pub use error::{PeerError, Result};
pub use handshake::{ConnectReply, ConnectRequest, Identity};
pub use rendezvous::ServerUri;
