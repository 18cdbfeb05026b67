//! A connected peer ([`Peer`]: its connection, codec, caller and job) and what every
//! command's handler reads its arguments with: the command codes ([`cmd`]) and the
//! argument readers, each count checked against the bytes left before an unpack is sized
//! by it. Both the server's own commands ([`crate::handlers`]) and the host's
//! ([`crate::requests`]) read with them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pmix_codec::{Codec, DataType, Info, Unpacker, Value};

use crate::host::Caller;
use crate::state::{ReplyTo, State, Writer};

/// `pmix_cmd_t` values a client sends (`src/include/pmix_globals.h`).
pub mod cmd {
    pub use pmix_ptl::command::cmd::*;
    /// `PMIX_ABORT_CMD`.
    pub const ABORT: u8 = 1;
    /// `PMIX_COMMIT_CMD`.
    pub const COMMIT: u8 = 2;
    /// `PMIX_FENCENB_CMD`.
    pub const FENCENB: u8 = 3;
    /// `PMIX_GETNB_CMD`.
    pub const GETNB: u8 = 4;
    /// `PMIX_DEREGEVENTS_CMD` (no answer).
    pub const DEREGEVENTS: u8 = 14;
}

/// A connected peer.
pub struct Peer {
    /// Connection id.
    pub conn: u32,
    /// Its rank, for a client (tools have none in the job).
    pub rank: Option<u32>,
    /// The codec of its component and release.
    pub codec: Codec,
    /// The version string it sent.
    pub version: String,
    /// Who it is, as the host sees it.
    pub caller: Caller,
    /// Its job's state, for a client.
    pub state: Option<Arc<Mutex<State>>>,
    writer: Writer,
    finalized: AtomicBool,
}

impl Peer {
    /// A client of the job whose state is `state`, after its handshake.
    pub fn client(
        conn: u32,
        caller: Caller,
        state: Arc<Mutex<State>>,
        codec: Codec,
        version: String,
        writer: Writer,
    ) -> Peer {
        Peer {
            conn,
            rank: Some(caller.rank),
            codec,
            version,
            caller,
            state: Some(state),
            writer,
            finalized: AtomicBool::new(false),
        }
    }

    /// A tool (or scheduler) after its handshake.
    pub fn tool(conn: u32, caller: Caller, codec: Codec, version: String, writer: Writer) -> Peer {
        Peer {
            conn,
            rank: None,
            codec,
            version,
            caller,
            state: None,
            writer,
            finalized: AtomicBool::new(false),
        }
    }

    /// Where to send it something unrequested (an event: tag 0).
    pub fn events_to(&self) -> ReplyTo {
        self.to(0)
    }

    /// The writing half of its connection.
    pub fn writer(&self) -> &Writer {
        &self.writer
    }

    /// It sent FINALIZE.
    pub fn finalized(&self) -> bool {
        self.finalized.load(Ordering::SeqCst)
    }

    /// Mark it finalized (it sent FINALIZE); returns whether it already was.
    pub(crate) fn finalize(&self) -> bool {
        self.finalized.swap(true, Ordering::SeqCst)
    }

    /// Where to answer its request of tag `tag`.
    pub(crate) fn to(&self, tag: u32) -> ReplyTo {
        ReplyTo {
            writer: self.writer.clone(),
            conn: self.conn,
            codec: self.codec,
            tag,
        }
    }
}

/// A request's reading result: an error says why it does not decode.
pub(crate) type R<T> = Result<T, String>;

/// One value of type `ty`.
pub(crate) fn one(u: &mut Unpacker<'_>, ty: DataType) -> R<Value> {
    u.unpack(ty, 1)
        .map_err(|e| e.to_string())?
        .values
        .pop()
        .ok_or_else(|| format!("no {ty:?} value"))
}

/// A `size_t` count, refused when it exceeds the bytes left (every element takes one).
pub(crate) fn count(u: &mut Unpacker<'_>) -> R<usize> {
    match one(u, DataType::SIZE)? {
        Value::Size(n) if n <= u.remaining() as u64 => Ok(n as usize),
        Value::Size(n) => Err(format!(
            "count {n} exceeds the {} bytes left",
            u.remaining()
        )),
        v => Err(format!("count: {v:?}")),
    }
}

/// A `size_t` count, then that many PROCs.
pub(crate) fn procs(u: &mut Unpacker<'_>) -> R<Vec<(String, u32)>> {
    let n = count(u)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    u.unpack(DataType::PROC, n)
        .map_err(|e| e.to_string())?
        .values
        .into_iter()
        .map(|v| match v {
            Value::Proc(p) => Ok((p.nspace.as_str().unwrap_or_default().to_string(), p.rank)),
            v => Err(format!("expected a PROC, got {v:?}")),
        })
        .collect()
}

/// A `size_t` count, then that many INFOs.
pub(crate) fn infos(u: &mut Unpacker<'_>) -> R<Vec<Info>> {
    let n = count(u)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    Ok(u.unpack(DataType::INFO, n)
        .map_err(|e| e.to_string())?
        .values
        .into_iter()
        .filter_map(|v| match v {
            Value::Info(i) => Some(*i),
            _ => None,
        })
        .collect())
}
