//! The server: the listener (a thread that accepts and hands each connection to the
//! [`crate::event_loop`], which reads and answers every connection; the handshake is
//! [`crate::handshake`]'s), its URI files, and waiting for and stopping it.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::event_loop::run;
pub use crate::handshake::release_of;
use crate::host::{Host, NoHost};
use crate::shared::EventLoop;
pub use crate::shared::{Config, Logged, Shared};
use crate::spawn::kill_all;
use crate::state::State;

/// A running server.
pub struct Server {
    /// Shared state (the launcher waits on it).
    pub shared: Arc<Shared>,
    /// Where it listens.
    pub addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Listen on an ephemeral loopback port and serve in background threads, with no host
    /// ([`NoHost`]: what a server hands up to its host is not supported).
    pub fn start(config: Config) -> std::io::Result<Server> {
        Server::start_with_host(config, Box::new(NoHost))
    }

    /// The same, with `host` deciding queries, allocations, spawns, job control and events.
    pub fn start_with_host(config: Config, host: Box<dyn Host>) -> std::io::Result<Server> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            uri: format!("{}.0;tcp4://{addr}", config.server_nspace),
            state: Arc::new(Mutex::new(State::new(config.job.clone()))),
            host: Mutex::new(host),
            spawned: Mutex::new(Default::default()),
            peers: Mutex::new(Default::default()),
            config,
            changed: Condvar::new(),
            transcript: Mutex::new(Vec::new()),
            next_conn: AtomicU32::new(0),
            next_tool: AtomicU32::new(1),
            open: AtomicUsize::new(0),
            clients: AtomicUsize::new(0),
            tools: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            event_loop: EventLoop::new()?,
        });
        let sh = shared.clone();
        std::thread::spawn(move || run(sh));
        let sh = shared.clone();
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if sh.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else {
                    // out of descriptors, say: wait a little rather than spin
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                if sh.open.load(Ordering::SeqCst) >= sh.config.max_connections {
                    drop(stream); // bounded: a connection over the limit is closed at once
                    continue;
                }
                sh.open.fetch_add(1, Ordering::SeqCst);
                let id = sh.next_conn.fetch_add(1, Ordering::SeqCst);
                sh.event_loop.adopt(stream, id);
            }
        });
        Ok(Server {
            shared,
            addr,
            accept: Some(accept),
        })
    }

    /// The URI clients and tools are given: `NSPACE.RANK;tcp4://ADDR:PORT`.
    pub fn uri(&self) -> String {
        self.shared.uri.clone()
    }

    /// Write the URI file a tool reads (`--uri FILE` of pmix-peer; PRRTE's
    /// `--report-uri`): the URI, then the version line.
    pub fn write_uri_file(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, format!("{}\nv{}\n", self.uri(), crate::VERSION_LINE))
    }

    /// Write the tool rendezvous files OpenPMIx tools look for in `dir`
    /// (`pmix.HOST.tool.PID` and `pmix.HOST.tool`, `ptl_base_connect.c`); returns them.
    pub fn write_rendezvous(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        let host = &self.shared.config.job.hostname;
        let mut out = Vec::new();
        for name in [
            format!("pmix.{host}.tool.{}", std::process::id()),
            format!("pmix.{host}.tool"),
        ] {
            let p = dir.join(name);
            self.write_uri_file(&p)?;
            out.push(p);
        }
        Ok(out)
    }

    /// Wait until every rank has finalized or gone, or an abort, or `bound` ends. Returns
    /// whether all ranks are done.
    pub fn wait_all_done(&self, bound: Duration) -> bool {
        let deadline = Instant::now() + bound;
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if st.all_done() {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, left.min(Duration::from_millis(200)))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Connections open now.
    pub fn open_connections(&self) -> usize {
        self.shared.open.load(Ordering::SeqCst)
    }

    /// Clients and tools connected now (handshake done).
    pub fn connected(&self) -> (usize, usize) {
        (
            self.shared.clients.load(Ordering::SeqCst),
            self.shared.tools.load(Ordering::SeqCst),
        )
    }

    /// The messages recorded so far.
    pub fn transcript(&self) -> Vec<Logged> {
        self.shared
            .transcript
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Stop accepting connections (open ones end when their peers close) and kill the
    /// processes of spawned jobs.
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // the event loop ends once its last connection has
        self.shared.event_loop.waker.wake();
        kill_all(&self.shared);
        // wake the accept loop
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
