//! # pmix-peer
//!
//! A native PMIx peer: it connects to a running PMIx server (PRRTE's DVM, an OpenPMIx
//! server) over its real TCP socket, performs the PTL connect handshake as a tool with the
//! bfrops component the caller chooses (v41, v51, v61, ...), and sends the tool commands
//! (allocation, spawn, query, event registration, job control, finalize) whose bytes come
//! from `pmix-codec`. Every wait is bounded and every length the server sends is checked
//! before it is trusted.
//!
//! Layout: the wire itself lives in `pmix-ptl`, shared with `pmix-server`, and is
//! re-exported here: [`rendezvous`] (finding the server), [`frame`] (the 16-byte header),
//! [`handshake`] (the connect message and reply), [`command`] (typed requests and replies),
//! [`conversation`] (transcripts as vectors). This crate adds [`conn`] (the live
//! connection), [`hostile`] (malformed requests) and [`scenario`] (the tool scenarios).
#![warn(missing_docs)]

pub use pmix_ptl::{command, conversation, frame, handshake, rendezvous};
pub mod conn;
pub mod hostile;
pub mod live;
pub mod scenario;

/// What can go wrong talking to a server: the PTL layer's error, under this crate's name.
pub mod error {
    pub use pmix_ptl::error::{PtlError as PeerError, Result};
}

pub use command::{AllocDirective, Event, InfoReply, Request, SpawnReply};
pub use conn::{Direction, Exchange, Limits, Peer};
pub use error::{PeerError, Result};
pub use handshake::{ConnectReply, ConnectRequest, Identity};
pub use rendezvous::ServerUri;
