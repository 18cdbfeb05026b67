//! # pmix-ptl
//!
//! The PMIx PTL layer (OpenPMIx `src/mca/ptl/`) as both sides of a connection see it:
//! [`frame`] (the 16-byte header), [`handshake`] (the connect message and the server's
//! reply, tool side), [`accept`] (the same, server side), [`command`] (command codes, typed requests and replies), [`grammar`] (the argument grammar of every message, as data), [`rendezvous`] (the URI
//! and rendezvous files), [`transcript`] (every message as it crossed the socket) and
//! [`conversation`] (a transcript as a conversation vector file). Bytes of payloads come
//! from `pmix-codec`; nothing here does I/O on a socket, so the tool (`pmix-peer`), the
//! server (`pmix-server`) and a capture reader share one definition of the wire.
#![warn(missing_docs)]

pub mod accept;
pub mod command;
pub mod conversation;
pub mod error;
pub mod frame;
pub mod grammar;
pub mod handshake;
pub mod rendezvous;
pub mod transcript;

pub use command::{AllocDirective, Event, InfoReply, Request, SpawnReply};
pub use error::{PtlError, Result};
pub use frame::{Frame, Header, HEADER_LEN};
pub use handshake::{ConnectReply, ConnectRequest, Identity};
pub use rendezvous::ServerUri;
pub use transcript::{Direction, Exchange};
