//! What the listener, the event loop and the request handlers share: the configuration,
//! the state behind its lock, the bounded transcript, and the event loop's inbox
//! ([`EventLoop`]). Its own module so that they all depend on it, not on each other.

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use pmix_codec::Codec;
use pmix_ptl::frame::HEADER_LEN;
use pmix_ptl::transcript::{Direction, Exchange};

use crate::host::Host;
use crate::job::Job;
use crate::outgoing::Waker;
use crate::process::LaunchedJob;
use crate::psec::Psec;
use crate::state::{send, Outbox, ReplyTo, State};

/// How the server behaves.
#[derive(Clone, Debug)]
pub struct Config {
    /// The job it hosts.
    pub job: Job,
    /// The server's own nspace (in the URI and the tool reply).
    pub server_nspace: String,
    /// Largest payload accepted from a peer (bytes).
    pub max_payload: u32,
    /// Bound on reading a connect message.
    pub handshake: Duration,
    /// Keep a transcript of every message (bounded by `max_transcript` messages).
    pub record: bool,
    /// At most this many messages are kept in the transcript.
    pub max_transcript: usize,
    /// At most this many connections at once, in every phase; more are closed at once.
    /// Default [`Config::max_clients`] + [`Config::max_tools`] +
    /// [`Config::max_handshakes`].
    pub max_connections: usize,
    /// At most this many clients (processes of a job) connected at once; one more is
    /// refused with `PMIX_ERR_OUT_OF_RESOURCE` in the connect reply. Default 1024 (`launch`
    /// raises it to the job's size).
    pub max_clients: usize,
    /// At most this many tools (and schedulers) connected at once; one more is refused
    /// with `PMIX_ERR_OUT_OF_RESOURCE` in the connect reply. Counted apart from the
    /// clients, so that idle tools cannot lock a job's processes out. Default 256.
    pub max_tools: usize,
    /// At most this many connections still in their handshake; when one more arrives, the
    /// one that has waited longest is closed (a real peer sends its connect message at
    /// once: only a silent one waits). Default 64.
    pub max_handshakes: usize,
    /// At most this many bytes held across all connections in frames not yet complete
    /// (beyond [`crate::event_loop::FREE_PER_CONN`] per connection, which every connection
    /// may hold): a connection whose partial frame would go over is closed. Default 64 MiB
    /// (four frames of the largest payload at once).
    pub max_buffered: usize,
    /// The most processes one spawn may ask for (the sum of its apps' `maxprocs`, and the
    /// host's grant): more are refused with `PMIX_ERR_OUT_OF_RESOURCE` before anything is
    /// allocated for them. Default 1024.
    pub max_spawn_procs: u32,
    /// The command the processes of a spawned job run under, whose environment is not
    /// inherited (e.g. `bash tools/peers.sh run 7.0.0rc1 --`): the variables are passed
    /// with `env`, as [`crate::Launch::wrapper`].
    pub spawn_wrapper: Vec<String>,
    /// The psec modules offered: a peer naming another is refused as OpenPMIx refuses it
    /// (the connection closed without a reply, [`crate::psec`]). Default `native`.
    pub psec: Psec,
}

impl Config {
    /// Defaults for `job`.
    pub fn new(job: Job) -> Config {
        Config {
            server_nspace: format!("native-server-{}", std::process::id()),
            job,
            max_payload: 16 << 20,
            handshake: Duration::from_secs(10),
            record: false,
            max_transcript: 100_000,
            max_connections: 1024 + 256 + 64,
            max_clients: 1024,
            max_tools: 256,
            max_handshakes: 64,
            max_buffered: 64 << 20,
            max_spawn_procs: 1024,
            spawn_wrapper: Vec::new(),
            psec: Psec::default(),
        }
    }
}

/// One message of a connection, kept when [`Config::record`] is set.
#[derive(Clone, Debug)]
pub struct Logged {
    /// The connection.
    pub conn: u32,
    /// The codec it spoke (after the handshake).
    pub codec: Option<Codec>,
    /// The message (direction seen from the server).
    pub exchange: Exchange,
}

/// What the server shares between its threads.
pub struct Shared {
    /// The configuration.
    pub config: Config,
    /// The URI clients and tools are given.
    pub uri: String,
    /// The state of the job the server was started with.
    pub state: Arc<Mutex<State>>,
    /// The host: who decides queries, allocations, spawns, job control and events.
    pub host: Mutex<Box<dyn Host>>,
    /// The jobs spawned through the host, by namespace: their state and processes.
    pub spawned: Mutex<BTreeMap<String, LaunchedJob>>,
    /// Connected peers by (nspace, rank), to deliver events to (tag 0).
    pub peers: Mutex<BTreeMap<(String, u32), ReplyTo>>,
    /// Signalled whenever a rank finalizes, goes or aborts.
    pub changed: Condvar,
    /// The transcript, when recording.
    pub transcript: Mutex<Vec<Logged>>,
    pub(crate) next_conn: AtomicU32,
    pub(crate) next_tool: AtomicU32,
    pub(crate) open: AtomicUsize,
    /// Clients connected now (handshake done).
    pub(crate) clients: AtomicUsize,
    /// Tools and schedulers connected now (handshake done).
    pub(crate) tools: AtomicUsize,
    pub(crate) stop: AtomicBool,
    /// The thread that serves every connection.
    pub(crate) event_loop: EventLoop,
}

impl Shared {
    /// Record one message, if recording (bounded).
    pub fn log(
        &self,
        conn: u32,
        codec: Option<Codec>,
        direction: Direction,
        what: &str,
        bytes: Vec<u8>,
    ) {
        if !self.config.record {
            return;
        }
        let mut t = self.transcript.lock().unwrap_or_else(|e| e.into_inner());
        if t.len() < self.config.max_transcript {
            t.push(Logged {
                conn,
                codec,
                exchange: Exchange {
                    direction,
                    bytes: bytes.into(),
                    what: what.to_string(),
                    items: None,
                },
            });
        }
    }

    /// Send every reply of `out`, logging each; a failed send is the receiver's loss.
    pub fn flush(&self, out: Outbox) {
        for (to, payload) in out {
            if self.config.record {
                let mut wire = Vec::with_capacity(HEADER_LEN + payload.len());
                wire.extend_from_slice(&0i32.to_be_bytes());
                wire.extend_from_slice(&to.tag.to_be_bytes());
                wire.extend_from_slice(&(payload.len() as u32).to_be_bytes());
                wire.extend_from_slice(&0u32.to_be_bytes());
                wire.extend_from_slice(&payload);
                self.log(to.conn, Some(to.codec), Direction::Sent, "reply", wire);
            }
            let _ = send(&to, &payload);
        }
    }
}

/// What the listener and the writers share with the event loop ([`crate::event_loop`]):
/// the connections accepted and not yet served, and the waker.
pub struct EventLoop {
    /// Wakes the loop (new connections, replies waiting, stop).
    pub waker: Arc<Waker>,
    accepted: Mutex<Vec<(TcpStream, u32)>>,
}

impl EventLoop {
    /// A loop with nothing to serve yet.
    pub fn new() -> std::io::Result<EventLoop> {
        Ok(EventLoop {
            waker: Arc::new(Waker::new()?),
            accepted: Mutex::new(Vec::new()),
        })
    }

    /// Hand an accepted connection (id `conn`) to the loop.
    pub fn adopt(&self, stream: TcpStream, conn: u32) {
        self.accepted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((stream, conn));
        self.waker.wake();
    }

    /// The connections adopted since the last call.
    pub(crate) fn take_accepted(&self) -> Vec<(TcpStream, u32)> {
        std::mem::take(&mut *self.accepted.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
