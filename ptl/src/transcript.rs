//! The transcript of a PTL conversation: every message, in order, as it crossed the socket.

use bytes::Bytes;

/// Direction of a recorded message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Sent by the side that keeps the transcript (the tool, in pmix-peer; the server, in
    /// pmix-server).
    Sent,
    /// Received by that side.
    Received,
}

/// One message of the conversation, as it crossed the socket.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// Who sent it.
    pub direction: Direction,
    /// The bytes (header included; the connect message with its host-order header, the
    /// connect reply without one).
    pub bytes: Bytes,
    /// What it is (`connect`, `connect-reply`, `alloc`, `reply:alloc`, `event`, ...).
    pub what: String,
    /// For messages built from typed pack calls (`Peer::request` in pmix-peer): the pack
    /// calls of the payload.
    pub items: Option<Vec<pmix_codec::Item>>,
}
