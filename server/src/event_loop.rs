//! One thread serves every connection: it polls all sockets at once (`poll(2)`), reads what
//! each has sent without blocking, and answers every complete frame in turn. A fence over 64
//! clients thus costs one thread's wake-ups, not 64 threads', and a connection costs its
//! buffers, not a thread and its stack. Frames are assembled as bytes arrive: a header's
//! length is checked against the limit before anything is read for it, and a payload's
//! buffer grows only with what the peer actually sent. Replies go out through each
//! connection's [`crate::outgoing::Outgoing`] half; a peer with replies waiting is not read until they drain
//! below [`READ_PAUSE`], so a client that sends and never reads cannot grow our memory.
//! Across connections, partial frames may hold at most [`crate::Config::max_buffered`]
//! bytes (beyond [`FREE_PER_CONN`] each): the connection that would go over is closed.
//! At most [`crate::Config::max_handshakes`] connections wait in their handshake; the
//! longest-waiting one makes room for a new one.
//! Nothing a handler does blocks (no handler waits on a peer).

use std::net::{Shutdown, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_ptl::accept::MAX_CONNECT_BODY;
use pmix_ptl::frame::{Header, HEADER_LEN};
use pmix_ptl::transcript::Direction;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use rustix::net::{recv, RecvFlags};

use crate::handlers::{handle, tool_left};
use crate::handshake::admit;
use crate::peer::Peer;
pub use crate::shared::EventLoop;
use crate::shared::Shared;

/// A peer with this many reply bytes waiting is not read until they drain below it.
pub const READ_PAUSE: usize = 256 << 10;

/// Most bytes read from one socket per poll round (the loop's one read buffer).
const READ_CHUNK: usize = 64 << 10;

/// Bytes of received input every connection may hold without counting against
/// [`crate::Config::max_buffered`]: small requests are never refused for what other
/// connections hold.
pub const FREE_PER_CONN: usize = 2 * READ_CHUNK;

enum Phase {
    /// Waiting for the connect message until the deadline.
    Connecting(Instant),
    /// Handshake done: requests are answered.
    Serving(Box<Peer>),
}

struct Conn {
    id: u32,
    /// The socket (its writing half shares it: one descriptor per connection).
    stream: Arc<TcpStream>,
    phase: Phase,
    /// Bytes received and not yet consumed (at most one frame and a read chunk).
    input: Vec<u8>,
}

impl Conn {
    /// Bytes of input counted against the cap on buffered bytes.
    fn counted(&self) -> usize {
        self.input.len().saturating_sub(FREE_PER_CONN)
    }

    fn queued(&self) -> usize {
        match &self.phase {
            Phase::Serving(peer) => peer.writer().queued(),
            Phase::Connecting(_) => 0,
        }
    }
}

/// Serve until the server stops and its last connection has ended.
pub fn run(sh: Arc<Shared>) {
    let mut conns: Vec<Conn> = Vec::new();
    let mut chunk = vec![0u8; READ_CHUNK];
    // input bytes held beyond each connection's free allowance, across connections
    let mut buffered = 0usize;
    loop {
        for (stream, id) in sh.event_loop.take_accepted() {
            stream.set_nodelay(true).ok();
            // only the connect reply is written blocking (a few bytes to a fresh socket)
            stream.set_write_timeout(Some(Duration::from_secs(30))).ok();
            conns.push(Conn {
                id,
                stream: Arc::new(stream),
                phase: Phase::Connecting(Instant::now() + sh.config.handshake),
                input: Vec::new(),
            });
        }
        evict_handshakes(&sh, &mut conns);
        if conns.is_empty() && sh.stop.load(Ordering::SeqCst) {
            return;
        }
        let ready = wait(&sh, &conns);
        let mut ended = Vec::new();
        for (i, flags) in ready {
            let c = &mut conns[i];
            let alive = if flags.intersects(PollFlags::OUT | PollFlags::ERR | PollFlags::HUP) {
                match &c.phase {
                    Phase::Serving(peer) => peer.writer().drain().is_ok(),
                    Phase::Connecting(_) => true,
                }
            } else {
                true
            };
            let before = c.counted();
            let alive = alive
                && (!flags.intersects(PollFlags::IN | PollFlags::ERR | PollFlags::HUP)
                    || receive(c, &mut chunk))
                && answer(&sh, c);
            buffered = buffered.saturating_sub(before) + c.counted();
            // over the cap on partial frames across connections: the connection holding
            // more than its free allowance is closed (its bytes go with it)
            let over = c.counted() > 0 && buffered > sh.config.max_buffered;
            if over {
                let codec = match &c.phase {
                    Phase::Serving(peer) => Some(peer.codec),
                    Phase::Connecting(_) => None,
                };
                sh.log(
                    c.id,
                    codec,
                    Direction::Received,
                    "over max_buffered",
                    Vec::new(),
                );
            }
            if !alive || over {
                ended.push(i);
            }
        }
        let now = Instant::now();
        for (i, c) in conns.iter().enumerate() {
            if matches!(c.phase, Phase::Connecting(t) if t <= now) && !ended.contains(&i) {
                ended.push(i);
            }
        }
        ended.sort_unstable();
        for i in ended.into_iter().rev() {
            let c = conns.swap_remove(i);
            buffered = buffered.saturating_sub(c.counted());
            end(&sh, c);
        }
    }
}

/// More connections in their handshake than [`crate::Config::max_handshakes`]: the ones
/// that have waited longest are timed out now (the loop then ends them), so silent sockets
/// cannot keep a real peer's handshake out.
fn evict_handshakes(sh: &Shared, conns: &mut [Conn]) {
    let mut waiting: Vec<(Instant, usize)> = conns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c.phase {
            Phase::Connecting(t) => Some((t, i)),
            Phase::Serving(_) => None,
        })
        .collect();
    let excess = waiting.len().saturating_sub(sh.config.max_handshakes);
    if excess == 0 {
        return;
    }
    waiting.sort_unstable();
    let now = Instant::now();
    for (_, i) in waiting.into_iter().take(excess) {
        conns[i].phase = Phase::Connecting(now);
    }
}

/// Poll every connection (and the waker); the ready ones with what they are ready for.
fn wait(sh: &Shared, conns: &[Conn]) -> Vec<(usize, PollFlags)> {
    let now = Instant::now();
    let timeout = conns
        .iter()
        .filter_map(|c| match c.phase {
            Phase::Connecting(t) => Some(t.saturating_duration_since(now)),
            Phase::Serving(_) => None,
        })
        .min()
        .map(|d| Timespec::try_from(d + Duration::from_millis(1)).unwrap_or(Timespec::default()));
    let waker = &sh.event_loop.waker;
    let mut fds = Vec::with_capacity(conns.len() + 1);
    fds.push(PollFd::new(waker.receiver(), PollFlags::IN));
    for c in conns {
        let queued = c.queued();
        let mut want = PollFlags::empty();
        if queued < READ_PAUSE {
            want |= PollFlags::IN;
        }
        if queued > 0 {
            want |= PollFlags::OUT;
        }
        fds.push(PollFd::new(&*c.stream, want));
    }
    match poll(&mut fds, timeout.as_ref()) {
        Ok(_) => {}
        Err(Errno::INTR) => return Vec::new(),
        Err(_) => {
            // not expected with valid descriptors; do not spin
            std::thread::sleep(Duration::from_millis(10));
            return Vec::new();
        }
    }
    if !fds[0].revents().is_empty() {
        waker.clear();
    }
    fds[1..]
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((i, f.revents())).filter(|(_, r)| !r.is_empty()))
        .collect()
}

/// Read what the socket holds (one chunk at most); `false` when the peer is gone.
fn receive(c: &mut Conn, chunk: &mut [u8]) -> bool {
    match recv(&*c.stream, &mut *chunk, RecvFlags::DONTWAIT) {
        Ok((_, 0)) => false,
        Ok((_, n)) => {
            c.input.extend_from_slice(&chunk[..n]);
            true
        }
        Err(Errno::AGAIN) | Err(Errno::INTR) => true,
        Err(_) => false,
    }
}

/// Answer every complete frame received (while the peer's replies do not pile up);
/// `false` when the peer is to be dropped.
fn answer(sh: &Arc<Shared>, c: &mut Conn) -> bool {
    let mut used = 0;
    let keep = loop {
        let rest = &c.input[used..];
        if rest.len() < HEADER_LEN || c.queued() >= READ_PAUSE {
            break true;
        }
        let hdr = &rest[..HEADER_LEN];
        let connecting = matches!(c.phase, Phase::Connecting(_));
        let header = if connecting {
            Header::parse_connect(hdr)
        } else {
            Header::parse(hdr)
        };
        let Some(h) = header else { break false };
        let codec = match &c.phase {
            Phase::Serving(peer) => Some(peer.codec),
            Phase::Connecting(_) => None,
        };
        let limit = if connecting {
            MAX_CONNECT_BODY
        } else {
            sh.config.max_payload
        };
        if h.nbytes > limit {
            // a length we will not trust: drop the peer (a connect message this long is
            // dropped without an answer, as OpenPMIx does)
            let what = if connecting {
                "connect (oversized)"
            } else {
                "oversized header"
            };
            sh.log(c.id, codec, Direction::Received, what, hdr.to_vec());
            break false;
        }
        let end = HEADER_LEN + h.nbytes as usize;
        if rest.len() < end {
            break true;
        }
        let (hdr, body) = (&rest[..HEADER_LEN], &rest[HEADER_LEN..end]);
        used += end;
        match &c.phase {
            Phase::Connecting(_) => match admit(sh, &c.stream, c.id, hdr, body) {
                Some(peer) => c.phase = Phase::Serving(Box::new(peer)),
                None => break false,
            },
            Phase::Serving(peer) => {
                if sh.config.record {
                    sh.log(
                        c.id,
                        codec,
                        Direction::Received,
                        "request",
                        rest[..end].to_vec(),
                    );
                }
                let out = handle(sh, peer, h.tag, body);
                sh.flush(out);
            }
        }
    };
    c.input.drain(..used);
    if c.input.capacity() > 2 * READ_CHUNK && c.input.len() <= READ_CHUNK {
        c.input.shrink_to(READ_CHUNK);
    }
    keep
}

/// A connection ended (closed, broken, dropped, or its handshake timed out): its rank is
/// gone, its fences and gets are settled, a tool leaves its host.
fn end(sh: &Shared, c: Conn) {
    let _ = c.stream.shutdown(Shutdown::Both);
    if let Phase::Serving(peer) = c.phase {
        peer.writer().close();
        let kind = match peer.state {
            Some(_) => &sh.clients,
            None => &sh.tools,
        };
        kind.fetch_sub(1, Ordering::SeqCst);
        sh.peers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(peer.caller.nspace.clone(), peer.caller.rank));
        match &peer.state {
            Some(state) => {
                let out = state.lock().unwrap_or_else(|e| e.into_inner()).lost(c.id);
                sh.flush(out);
            }
            None if !peer.finalized() => tool_left(sh, &peer),
            None => {}
        }
        sh.changed.notify_all();
    }
    sh.open.fetch_sub(1, Ordering::SeqCst);
}
