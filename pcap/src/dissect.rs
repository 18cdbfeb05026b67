//! The dissector: TCP connections from the capture's segments, PMIx ones found by their
//! connect message, each direction's bytes cut into PTL frames and decoded, events handed to
//! a sink as they happen (a connection, a message, a problem, a close) so that nothing of a
//! finished connection is kept.
//!
//! Memory is bounded by the live state: at most [`Options::max_connections`] connections
//! (the least recently active is dropped, and said so, past that), at most
//! [`Options::max_buffered`] bytes held for all of them (frames being assembled and segments
//! waiting out of order), a frame at most [`Options::max_frame`] bytes.
//!
//! One file (about 1,050 lines) on purpose: the connection table, stream reassembly and the
//! memory budget are one state machine whose invariants (bytes held, connections kept) are
//! kept in one place; capture parsing, the handshake, message decoding and events are
//! their own modules.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;

use pmix_codec::{BufferKind, Codec, Component, Release};
use pmix_ptl::frame::{Header, HEADER_LEN, TAG_NOTIFY};

use crate::capture::{self, Parsed, RawPacket};
use crate::event::{ConnInfo, Event, Message, Problem, Severity, Side, Stats};
use crate::handshake::{self, Connect, PeerKind};
use crate::message::{self, Decoded};
use crate::reassembly::Stream;

/// What the dissector assumes and how much it may hold.
#[derive(Clone, Debug)]
pub struct Options {
    /// The component of connections whose handshake is not in the capture (`--component`);
    /// without it such connections are counted, not decoded.
    pub component: Option<Component>,
    /// Their buffer kind.
    pub kind: BufferKind,
    /// The release profile of the client's messages, instead of the version string's.
    pub release: Option<Release>,
    /// The server's release profile (its version is not in the handshake); default: the
    /// client's.
    pub server_release: Option<Release>,
    /// Largest frame payload believed (a larger header is a lying frame).
    pub max_frame: u32,
    /// Most connections tracked at once.
    pub max_connections: usize,
    /// Most bytes held across all connections.
    pub max_buffered: usize,
    /// Most bytes one direction may hold out of order before its gap is given up.
    pub max_waiting: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            component: None,
            kind: BufferKind::NonDescribed,
            release: None,
            server_release: None,
            max_frame: 16 << 20,
            max_connections: 65_536,
            max_buffered: 256 << 20,
            max_waiting: 4 << 20,
        }
    }
}

type Key = (SocketAddr, SocketAddr);

fn key(a: SocketAddr, b: SocketAddr) -> Key {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No payload byte seen yet.
    Undecided,
    /// Not PMIx (or given up on): packets are ignored.
    Ignored,
    /// A PMIx connection.
    Pmix,
    /// Joined mid-stream, `--component` given: looking for a frame boundary.
    Sync,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The connect message (client) or its answer (server) comes next.
    Preamble,
    /// Frames.
    Frames,
    /// Decoding stopped (lost bytes, a lying frame).
    Dead,
}

struct Dir {
    stream: Stream,
    buf: Vec<u8>,
    /// Stream offset of `buf[0]`.
    start: u64,
    phase: Phase,
    closed: bool,
}

impl Dir {
    fn new(max_waiting: usize) -> Dir {
        Dir {
            stream: Stream::new(max_waiting),
            buf: Vec::new(),
            start: 0,
            phase: Phase::Preamble,
            closed: false,
        }
    }
    fn held(&self) -> usize {
        self.buf.capacity() + self.stream.waiting_bytes()
    }
    fn consume(&mut self, n: usize) {
        self.buf.drain(..n);
        self.start += n as u64;
        if self.buf.capacity() > 64 * 1024 && self.buf.len() < self.buf.capacity() / 4 {
            self.buf.shrink_to(self.buf.len().max(4096));
        }
    }
    fn drop_bytes(&mut self) {
        self.start += self.buf.len() as u64;
        self.buf = Vec::new();
    }
}

struct Conn {
    id: u64,
    /// The first sender seen; `dirs[0]` carries its bytes.
    a: SocketAddr,
    b: SocketAddr,
    dirs: [Dir; 2],
    state: State,
    /// Which of `dirs` the client sends on.
    client: usize,
    connect: Option<Connect>,
    info: Option<ConnInfo>,
    client_codec: Option<Codec>,
    server_codec: Option<Codec>,
    pending: HashMap<u32, (usize, u8)>,
    messages: usize,
    tick: u64,
    held: usize,
}

/// Most requests awaiting a reply on one connection.
pub const MAX_PENDING: usize = 4096;

/// The dissector. Feed it packets with [`Dissector::packet`], then call
/// [`Dissector::finish`].
pub struct Dissector<'s> {
    opts: Options,
    conns: HashMap<Key, Conn>,
    lru: BTreeMap<u64, Key>,
    tick: u64,
    next_id: u64,
    held: usize,
    stats: Stats,
    sink: &'s mut dyn FnMut(Event),
}

impl<'s> Dissector<'s> {
    /// A dissector that hands every event to `sink`.
    pub fn new(opts: Options, sink: &'s mut dyn FnMut(Event)) -> Dissector<'s> {
        Dissector {
            opts,
            conns: HashMap::new(),
            lru: BTreeMap::new(),
            tick: 0,
            next_id: 1,
            held: 0,
            stats: Stats::default(),
            sink,
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Take one captured packet.
    pub fn packet(&mut self, p: &RawPacket<'_>) {
        self.stats.packets += 1;
        let seg = match capture::parse(p) {
            Parsed::Tcp(s) => s,
            Parsed::Other => return,
            Parsed::UnknownLink(l) => {
                if self.stats.unknown_link == 0 {
                    (self.sink)(Event::Problem {
                        conn: None,
                        packet: p.number,
                        problem: Problem::new(
                            Severity::Warning,
                            None,
                            "link type",
                            format!("link type {l} is not one this reader takes apart (Ethernet, Linux cooked v1/v2, raw IP, loopback); such packets are skipped"),
                        ),
                    });
                }
                self.stats.unknown_link += 1;
                return;
            }
            Parsed::Malformed(why) => {
                self.stats.malformed += 1;
                let _ = why;
                return;
            }
        };
        self.stats.tcp_segments += 1;
        let k = key(seg.src, seg.dst);
        if !self.conns.contains_key(&k) {
            if seg.payload.is_empty() && !seg.flags.syn {
                // a bare ACK/FIN/RST of a connection we do not follow
                return;
            }
            self.make_room(p.number);
            let id = self.next_id;
            self.next_id += 1;
            self.stats.connections += 1;
            let m = self.opts.max_waiting;
            self.conns.insert(
                k,
                Conn {
                    id,
                    a: seg.src,
                    b: seg.dst,
                    dirs: [Dir::new(m), Dir::new(m)],
                    state: State::Undecided,
                    client: 0,
                    connect: None,
                    info: None,
                    client_codec: None,
                    server_codec: None,
                    pending: HashMap::new(),
                    messages: 0,
                    tick: 0,
                    held: 0,
                },
            );
        }
        self.tick += 1;
        let tick = self.tick;
        let mut conn = self.conns.remove(&k).expect("present");
        self.lru.remove(&conn.tick);
        conn.tick = tick;
        let d = if seg.src == conn.a { 0 } else { 1 };
        if conn.state != State::Ignored {
            let pushed = conn.dirs[d]
                .stream
                .push(seg.seq, seg.flags.syn, seg.payload);
            self.stats.duplicate_bytes += pushed.duplicate as u64;
            if pushed.lost > 0 {
                self.lost(&mut conn, d, pushed.lost, p.number);
            }
            if conn.dirs[d].phase != Phase::Dead {
                conn.dirs[d].buf.extend_from_slice(&pushed.data);
            } else {
                conn.dirs[d].start += pushed.data.len() as u64;
            }
            if seg.cut > 0 {
                self.lost(&mut conn, d, seg.cut, p.number);
            }
            self.process(&mut conn, d, p);
        }
        if seg.flags.fin || seg.flags.rst {
            conn.dirs[d].closed = true;
            if seg.flags.rst {
                conn.dirs[1 - d].closed = true;
            }
        }
        self.held -= conn.held;
        conn.held = if conn.state == State::Ignored {
            0
        } else {
            conn.dirs[0].held() + conn.dirs[1].held()
        };
        self.held += conn.held;
        self.stats.peak_held = self.stats.peak_held.max(self.held as u64);
        if conn.dirs[0].closed && conn.dirs[1].closed {
            self.close(conn, p.number);
        } else {
            self.lru.insert(tick, k);
            self.conns.insert(k, conn);
            while self.held > self.opts.max_buffered {
                if !self.evict_oldest(
                    p.number,
                    "the bytes held for all connections exceed --max-buffered",
                ) {
                    break;
                }
            }
        }
    }

    fn make_room(&mut self, packet: u64) {
        while self.conns.len() >= self.opts.max_connections {
            if !self.evict_oldest(packet, "more connections are open than --max-connections") {
                break;
            }
        }
    }

    fn evict_oldest(&mut self, packet: u64, why: &str) -> bool {
        let Some((_, k)) = self.lru.pop_first() else {
            return false;
        };
        let Some(conn) = self.conns.remove(&k) else {
            return false;
        };
        self.stats.evicted += 1;
        if conn.state == State::Pmix {
            (self.sink)(Event::Problem {
                conn: Some(conn.id),
                packet,
                problem: Problem::new(
                    Severity::Warning,
                    None,
                    "connection",
                    format!("stopped following this connection (the least recently active): {why}"),
                ),
            });
        }
        self.held -= conn.held;
        self.close(conn, packet);
        true
    }

    fn lost(&mut self, conn: &mut Conn, d: usize, n: usize, packet: u64) {
        self.stats.lost_bytes += n as u64;
        let side = side_of(conn, d);
        let dir = &mut conn.dirs[d];
        if conn.state == State::Pmix && dir.phase != Phase::Dead {
            (self.sink)(Event::Problem {
                conn: Some(conn.id),
                packet,
                problem: Problem::new(
                    Severity::Error,
                    None,
                    "capture",
                    format!(
                        "{n} bytes of the {} stream at offset {} are not in the capture (dropped or cut by the snap length); the rest of this direction is not decoded",
                        side.name(),
                        dir.start + dir.buf.len() as u64
                    ),
                ),
            });
        }
        dir.phase = Phase::Dead;
        dir.drop_bytes();
    }

    /// Decode what direction `d` now holds.
    fn process(&mut self, conn: &mut Conn, d: usize, p: &RawPacket<'_>) {
        if conn.state == State::Undecided {
            self.decide(conn, d, p.number);
        }
        match conn.state {
            State::Pmix => {
                // the client's bytes first: the answer needs the connect message
                self.frames(conn, conn.client, p);
                self.frames(conn, 1 - conn.client, p);
            }
            State::Sync => self.sync(conn, d, p),
            _ => {}
        }
    }

    fn decide(&mut self, conn: &mut Conn, d: usize, packet: u64) {
        let buf = &conn.dirs[d].buf;
        if buf.is_empty() {
            return;
        }
        let ff = buf.iter().take(8).all(|b| *b == 0xff);
        if ff && buf.len() < HEADER_LEN {
            return;
        }
        if ff {
            let h: [u8; 16] = buf[..16].try_into().expect("16 bytes");
            match handshake::connect_header(&h) {
                Some(Ok(_)) => {
                    conn.state = State::Pmix;
                    conn.client = d;
                    self.stats.pmix_connections += 1;
                }
                Some(Err(why)) => {
                    self.stats.pmix_connections += 1;
                    let (client, server) = ends(conn, d);
                    let info = ConnInfo::unknown(conn.id, client, server, packet);
                    (self.sink)(Event::Connection(info));
                    (self.sink)(Event::Problem {
                        conn: Some(conn.id),
                        packet,
                        problem: Problem::new(
                            Severity::Error,
                            Some(8),
                            "connect header nbytes",
                            why,
                        ),
                    });
                    conn.state = State::Ignored;
                }
                None => unreachable!("eight 0xff bytes"),
            }
            return;
        }
        if conn.dirs[d].stream.saw_syn {
            conn.state = State::Ignored;
            self.stats.not_pmix += 1;
        } else if self.opts.component.is_some() {
            conn.state = State::Sync;
        } else {
            conn.state = State::Ignored;
            self.stats.mid_stream_skipped += 1;
        }
        if conn.state == State::Ignored {
            for dir in &mut conn.dirs {
                dir.buf = Vec::new();
            }
        }
    }

    /// Mid-stream with `--component`: find a frame that decodes, then follow from there.
    fn sync(&mut self, conn: &mut Conn, d: usize, p: &RawPacket<'_>) {
        let component = self.opts.component.expect("sync needs --component");
        let codec = Codec::new(component, self.opts.kind)
            .with_release(self.opts.release.unwrap_or(Release::Master));
        let buf = &conn.dirs[d].buf;
        let mut found = None;
        let mut i = 0;
        while i + HEADER_LEN <= buf.len() {
            let h = Header::parse(&buf[i..]).expect("16 bytes");
            let padding = &buf[i + 12..i + 16];
            let end = i + HEADER_LEN + h.nbytes as usize;
            if padding == [0, 0, 0, 0]
                && h.nbytes > 0
                && h.nbytes <= self.opts.max_frame
                && end <= buf.len()
            {
                let payload = &buf[i + HEADER_LEN..end];
                let req = message::decode_request(&codec, payload);
                if req.error.is_none() && req.grammar && h.tag != TAG_NOTIFY {
                    found = Some((i, d));
                    break;
                }
                let rep = message::decode_reply(&codec, payload, None);
                if rep.error.is_none() {
                    found = Some((i, 1 - d));
                    break;
                }
            }
            i += 1;
        }
        let Some((at, client)) = found else {
            if buf.len() > 1 << 20 {
                conn.state = State::Ignored;
                self.stats.mid_stream_skipped += 1;
                for dir in &mut conn.dirs {
                    dir.buf = Vec::new();
                }
            }
            return;
        };
        conn.dirs[d].consume(at);
        conn.state = State::Pmix;
        conn.client = client;
        self.stats.pmix_connections += 1;
        let release = self.opts.release.unwrap_or(Release::Master);
        let server_release = self.opts.server_release.unwrap_or(release);
        conn.client_codec = Some(codec);
        conn.server_codec =
            Some(Codec::new(component, self.opts.kind).with_release(server_release));
        for dir in &mut conn.dirs {
            dir.phase = Phase::Frames;
        }
        let (c, s) = ends(conn, client);
        let mut info = ConnInfo::unknown(conn.id, c, s, p.number);
        info.mid_stream = true;
        info.component = Some(component);
        info.buffer = Some(self.opts.kind);
        info.release = Some(release);
        info.server_release = Some(server_release);
        conn.info = Some(info.clone());
        (self.sink)(Event::Connection(info));
        // the other direction may hold bytes from mid-frame: resynchronise it too
        let other = 1 - d;
        if !conn.dirs[other].buf.is_empty() {
            let skipped = conn.dirs[other].buf.len();
            conn.dirs[other].drop_bytes();
            (self.sink)(Event::Problem {
                conn: Some(conn.id),
                packet: p.number,
                problem: Problem::new(
                    Severity::Note,
                    None,
                    "capture",
                    format!("joined mid-stream: {skipped} bytes of the other direction before this point skipped"),
                ),
            });
        }
        self.frames(conn, client, p);
        self.frames(conn, 1 - client, p);
    }

    fn frames(&mut self, conn: &mut Conn, d: usize, p: &RawPacket<'_>) {
        loop {
            let progressed = match conn.dirs[d].phase {
                Phase::Dead => false,
                Phase::Preamble if d == conn.client => self.connect(conn, d, p),
                Phase::Preamble => self.answer(conn, d, p),
                Phase::Frames => self.frame(conn, d, p),
            };
            if !progressed {
                return;
            }
        }
    }

    fn connect(&mut self, conn: &mut Conn, d: usize, p: &RawPacket<'_>) -> bool {
        let buf = &conn.dirs[d].buf;
        if buf.len() < HEADER_LEN {
            return false;
        }
        let h: [u8; 16] = buf[..16].try_into().expect("16 bytes");
        let Some(Ok((n, le))) = handshake::connect_header(&h) else {
            conn.dirs[d].phase = Phase::Dead;
            return false;
        };
        let total = HEADER_LEN + n as usize;
        if buf.len() < total {
            return false;
        }
        let bytes = buf[..total].to_vec();
        let offset = conn.dirs[d].start;
        conn.dirs[d].consume(total);
        conn.dirs[d].phase = Phase::Frames;
        let (client, server) = ends(conn, d);
        let mut info = ConnInfo::unknown(conn.id, client, server, p.number);
        let mut msg = self.message(conn, Side::Client, "connect", p, offset);
        msg.header = bytes[..16].to_vec();
        match handshake::parse_connect(&bytes, le) {
            Err(why) => {
                msg.payload = bytes[16..].to_vec();
                msg.problems.push(Problem::new(
                    Severity::Error,
                    None,
                    "connect message",
                    format!("does not parse as the server's connection handler reads it (the server drops the connection): {why}"),
                ));
                (self.sink)(Event::Connection(info));
                (self.sink)(Event::Message(msg));
                conn.dirs[0].phase = Phase::Dead;
                conn.dirs[1].phase = Phase::Dead;
                return false;
            }
            Ok(c) => {
                let (release, exact) = c.release();
                let release = self.opts.release.unwrap_or(release);
                let server_release = self.opts.server_release.unwrap_or(release);
                info.kind = Some(c.kind);
                info.version = Some(c.msg.version.clone());
                info.release = Some(release);
                info.release_exact = exact || self.opts.release.is_some();
                info.server_release = Some(server_release);
                info.component = c.component();
                info.buffer = c.buffer_kind();
                info.proc = c.msg.proc.clone();
                info.little_endian = Some(c.little_endian);
                msg.fields = c.fields.clone();
                msg.payload = bytes[16..].to_vec();
                match (c.component(), c.buffer_kind()) {
                    (Some(comp), Some(kind)) => {
                        let (release, server_release) = match release.refusal(comp) {
                            Some(why) => {
                                // a release without the component cannot have sent it:
                                // decode with the nearest release that ships it
                                let near = nearest_shipping(release, comp);
                                msg.problems.push(Problem::new(
                                    Severity::Note,
                                    field_offset(&c, "bfrops"),
                                    "bfrops",
                                    format!("{why}: decoded with the {near} profile, the nearest that does"),
                                ));
                                info.release = Some(near);
                                info.release_exact = false;
                                let s = self.opts.server_release.unwrap_or(near);
                                info.server_release = Some(s);
                                (near, s)
                            }
                            None => (release, server_release),
                        };
                        let codec = Codec::new(comp, kind).with_release(release);
                        match c.infos(&codec) {
                            Ok(items) => {
                                msg.offsets =
                                    offsets_of(&codec, &c.msg.tail, &items, c.blob_offset);
                                msg.items = items;
                            }
                            Err(e) => msg.problems.push(decode_problem(
                                &e,
                                c.blob_offset,
                                &c.msg.tail,
                                comp,
                                release,
                            )),
                        }
                        conn.client_codec = Some(codec);
                        conn.server_codec =
                            Some(Codec::new(comp, kind).with_release(server_release));
                    }
                    (comp, _) => {
                        let (field, what) = if comp.is_none() {
                            ("bfrops", format!("bfrops component {:?} is none this dissector knows (v12 v20 v21 v3 v4 v41 v51 v61): the connection's messages are not decoded", c.msg.bfrops))
                        } else {
                            ("buffer type", format!("buffer type {} is neither 1 (non-described) nor 2 (fully described): the connection's messages are not decoded", c.msg.buffer_type))
                        };
                        msg.problems.push(Problem::new(
                            Severity::Error,
                            field_offset(&c, field),
                            field,
                            what,
                        ));
                        conn.dirs[0].phase = Phase::Dead;
                        conn.dirs[1].phase = Phase::Dead;
                    }
                }
                conn.connect = Some(c);
            }
        }
        conn.info = Some(info.clone());
        (self.sink)(Event::Connection(info));
        (self.sink)(Event::Message(msg));
        true
    }

    fn answer(&mut self, conn: &mut Conn, d: usize, p: &RawPacket<'_>) -> bool {
        let Some(kind) = conn.connect.as_ref().map(|c| c.kind) else {
            return false;
        };
        let buf = &conn.dirs[d].buf;
        if buf.len() < 4 {
            return false;
        }
        let status = i32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
        let len = handshake::answer_len(kind, status);
        if buf.len() < len {
            return false;
        }
        let bytes = buf[..len].to_vec();
        let offset = conn.dirs[d].start;
        conn.dirs[d].consume(len);
        conn.dirs[d].phase = Phase::Frames;
        let a = handshake::parse_answer(kind, &bytes);
        let mut msg = self.message(conn, Side::Server, "connect-reply", p, offset);
        msg.payload = bytes;
        msg.status = Some(a.status);
        msg.fields = answer_fields(kind, &a);
        if a.status != 0 {
            msg.problems.push(Problem::new(
                Severity::Error,
                Some(0),
                "status",
                format!(
                    "the server refused the connection: {}",
                    pmix_codec::Status(a.status)
                ),
            ));
        }
        if let Some(v) = a.validation.filter(|v| *v != 0) {
            msg.problems.push(Problem::new(
                Severity::Error,
                Some(len - 4),
                "validation status",
                format!("the credential was refused: {}", pmix_codec::Status(v)),
            ));
        }
        if let (Some(info), Some(server)) = (conn.info.as_mut(), a.server.clone()) {
            info.server_proc = Some(server);
            info.assigned = a.assigned.clone();
        }
        (self.sink)(Event::Message(msg));
        true
    }

    fn frame(&mut self, conn: &mut Conn, d: usize, p: &RawPacket<'_>) -> bool {
        let buf = &conn.dirs[d].buf;
        if buf.len() < HEADER_LEN {
            return false;
        }
        let h = Header::parse(buf).expect("16 bytes");
        let side = side_of(conn, d);
        if h.nbytes > self.opts.max_frame {
            let header = buf[..16].to_vec();
            let start = conn.dirs[d].start;
            let mut msg = self.message(conn, side, "frame", p, start);
            msg.header = header;
            msg.tag = Some(h.tag);
            msg.problems.push(Problem::new(
                Severity::Error,
                Some(8),
                "nbytes",
                format!(
                    "lying frame: the header claims {} payload bytes, over the limit of {} (--max-frame); the rest of this direction is not decoded",
                    h.nbytes, self.opts.max_frame
                ),
            ));
            (self.sink)(Event::Message(msg));
            conn.dirs[d].phase = Phase::Dead;
            conn.dirs[d].drop_bytes();
            return false;
        }
        let total = HEADER_LEN + h.nbytes as usize;
        if buf.len() < total {
            return false;
        }
        let header = buf[..16].to_vec();
        let payload = buf[16..total].to_vec();
        let offset = conn.dirs[d].start;
        conn.dirs[d].consume(total);
        let (Some(cc), Some(sc)) = (conn.client_codec, conn.server_codec) else {
            return true;
        };
        let mut msg = self.message(conn, side, "", p, offset);
        msg.header = header;
        msg.tag = Some(h.tag);
        let (codec, decoded): (Codec, Decoded) = match side {
            Side::Client => {
                let dec = message::decode_request(&cc, &payload);
                msg.what = match dec.command {
                    Some(c) => message::command_name(c)
                        .map(str::to_string)
                        .unwrap_or(format!("cmd-{c}")),
                    None => "request".to_string(),
                };
                if let Some(c) = dec.command.filter(|c| pmix_ptl::grammar::answered(*c)) {
                    if conn.pending.len() >= MAX_PENDING && !conn.pending.contains_key(&h.tag) {
                        msg.problems.push(Problem::new(Severity::Warning, Some(4), "tag", format!("more than {MAX_PENDING} requests await a reply: this one is not paired")));
                    } else if let Some((prev, _)) = conn.pending.insert(h.tag, (msg.number, c)) {
                        msg.problems.push(Problem::new(
                            Severity::Warning,
                            Some(4),
                            "tag",
                            format!(
                                "tag {} is reused while request #{prev} on it has had no reply",
                                h.tag
                            ),
                        ));
                    }
                }
                (cc, dec)
            }
            Side::Server if h.tag == TAG_NOTIFY => {
                msg.what = "event".to_string();
                (sc, message::decode_event(&sc, &payload))
            }
            Side::Server => match conn.pending.remove(&h.tag) {
                Some((number, c)) => {
                    msg.reply_to = Some(number);
                    msg.what = format!(
                        "reply:{}",
                        message::command_name(c)
                            .map(str::to_string)
                            .unwrap_or(format!("cmd-{c}"))
                    );
                    (sc, message::decode_reply(&sc, &payload, Some(c)))
                }
                None => {
                    msg.what = "reply".to_string();
                    msg.problems.push(Problem::new(
                        Severity::Note,
                        Some(4),
                        "tag",
                        format!(
                            "no request on tag {} in this capture: decoded as status and infos",
                            h.tag
                        ),
                    ));
                    (sc, message::decode_reply(&sc, &payload, None))
                }
            },
        };
        msg.status = decoded.status;
        msg.command = decoded.command;
        if !decoded.grammar && decoded.error.is_none() && side == Side::Client {
            msg.problems.push(Problem::new(
                Severity::Note,
                None,
                "arguments",
                format!(
                    "no argument grammar for command {} in this dissector: its {} argument bytes are shown, not decoded",
                    msg.what,
                    payload.len().saturating_sub(decoded.offsets.get(1).copied().unwrap_or(payload.len()))
                ),
            ));
        }
        if let Some(e) = &decoded.error {
            let mut pr = decode_problem(e, HEADER_LEN, &payload, codec.component, codec.release);
            if !decoded.grammar {
                pr.severity = Severity::Note;
                pr.text = format!("(no request seen, grammar guessed) {}", pr.text);
            }
            msg.problems.push(pr);
        }
        if side == Side::Server {
            if let Some(s) = decoded
                .status
                .filter(|s| crate::explain::is_cross_version(*s))
            {
                let at = decoded
                    .offsets
                    .iter()
                    .position(|_| true)
                    .map(|i| HEADER_LEN + decoded.offsets[i]);
                let mut pr = Problem::new(
                    Severity::Error,
                    at,
                    "status",
                    match msg.reply_to {
                        Some(n) => format!("reply to message #{n}: the server could not read it"),
                        None => "the server could not read a request".to_string(),
                    },
                );
                pr.explanation = Some(crate::explain::status(s));
                msg.problems.push(pr);
            }
        }
        msg.offsets = decoded.offsets.iter().map(|o| o + HEADER_LEN).collect();
        msg.items = decoded.items;
        msg.payload = payload;
        (self.sink)(Event::Message(msg));
        true
    }

    fn message(
        &mut self,
        conn: &mut Conn,
        from: Side,
        what: &str,
        p: &RawPacket<'_>,
        offset: u64,
    ) -> Message {
        conn.messages += 1;
        self.stats.messages += 1;
        Message {
            conn: conn.id,
            number: conn.messages,
            packet: p.number,
            time: p.time,
            from,
            what: what.to_string(),
            tag: None,
            header: Vec::new(),
            payload: Vec::new(),
            stream_offset: offset,
            items: Vec::new(),
            offsets: Vec::new(),
            fields: Vec::new(),
            command: None,
            status: None,
            reply_to: None,
            problems: Vec::new(),
        }
    }

    fn close(&mut self, mut conn: Conn, packet: u64) {
        if conn.state == State::Pmix {
            for d in 0..2 {
                let fin = conn.dirs[d].stream.finish();
                if fin.lost > 0 {
                    self.lost(&mut conn, d, fin.lost, packet);
                }
                let dir = &conn.dirs[d];
                if dir.phase != Phase::Dead && !dir.buf.is_empty() {
                    let side = side_of(&conn, d);
                    let what = if dir.buf.len() >= HEADER_LEN && dir.phase == Phase::Frames {
                        let h = Header::parse(&dir.buf).expect("16 bytes");
                        format!(
                            "truncated frame: the header says {} payload bytes, the stream ends after {}",
                            h.nbytes,
                            dir.buf.len() - HEADER_LEN
                        )
                    } else {
                        format!(
                            "{} bytes that are not a whole {}",
                            dir.buf.len(),
                            if dir.phase == Phase::Preamble {
                                "handshake"
                            } else {
                                "header"
                            }
                        )
                    };
                    (self.sink)(Event::Problem {
                        conn: Some(conn.id),
                        packet,
                        problem: Problem::new(
                            Severity::Error,
                            None,
                            "stream",
                            format!(
                                "the {} stream ends at offset {} with {what}",
                                side.name(),
                                dir.start
                            ),
                        ),
                    });
                }
            }
            let unanswered = conn.pending.len();
            (self.sink)(Event::Closed {
                conn: conn.id,
                packet,
                messages: conn.messages,
                unanswered,
            });
        }
    }

    /// End of the capture: close every connection still open (reporting what was cut off),
    /// and hand over the counters.
    pub fn finish(mut self, last_packet: u64) -> Stats {
        let mut open: Vec<(u64, Key)> = self.lru.iter().map(|(t, k)| (*t, *k)).collect();
        open.sort();
        for (_, k) in open {
            if let Some(c) = self.conns.remove(&k) {
                self.close(c, last_packet);
            }
        }
        let stats = self.stats.clone();
        (self.sink)(Event::Stats(stats.clone()));
        stats
    }
}

/// The release nearest to `r` (the first later one, else the last earlier one) that ships
/// `c`.
fn nearest_shipping(r: Release, c: Component) -> Release {
    let all = Release::ALL;
    let at = all.iter().position(|x| *x == r).unwrap_or(0);
    all[at..]
        .iter()
        .chain(all[..at].iter().rev())
        .copied()
        .find(|x| x.ships(c))
        .unwrap_or(Release::Master)
}

fn side_of(conn: &Conn, d: usize) -> Side {
    if d == conn.client {
        Side::Client
    } else {
        Side::Server
    }
}

fn ends(conn: &Conn, client_dir: usize) -> (SocketAddr, SocketAddr) {
    if client_dir == 0 {
        (conn.a, conn.b)
    } else {
        (conn.b, conn.a)
    }
}

fn field_offset(c: &Connect, name: &str) -> Option<usize> {
    c.fields.iter().find(|f| f.name == name).map(|f| f.offset)
}

fn answer_fields(kind: PeerKind, a: &handshake::Answer) -> Vec<handshake::Field> {
    let mut f = vec![handshake::Field {
        offset: 0,
        len: 4,
        name: "status",
        value: pmix_codec::Status(a.status).to_string(),
    }];
    let mut at = 4;
    if let Some(i) = a.index {
        f.push(handshake::Field {
            offset: 4,
            len: 4,
            name: "index",
            value: i.to_string(),
        });
    }
    if let Some((ns, r)) = &a.assigned {
        f.push(handshake::Field {
            offset: at,
            len: 260,
            name: "assigned",
            value: format!("{ns}:{r}"),
        });
        at += 260;
    }
    if let Some((ns, r)) = &a.server {
        f.push(handshake::Field {
            offset: at,
            len: 260,
            name: "server",
            value: format!("{ns}:{r}"),
        });
        at += 260;
    }
    if let Some(v) = a.validation {
        f.push(handshake::Field {
            offset: at,
            len: 4,
            name: "validation status",
            value: pmix_codec::Status(v).to_string(),
        });
    }
    let _ = kind;
    f
}

/// Where each item of a decoded blob starts (message offsets), by decoding again call by
/// call (the blob is small).
fn offsets_of(codec: &Codec, blob: &[u8], items: &[pmix_codec::Item], base: usize) -> Vec<usize> {
    let mut u = codec.unpacker(blob);
    let mut out = Vec::new();
    for it in items {
        out.push(base + u.offset());
        if u.unpack(it.ty, it.values.len()).is_err() {
            break;
        }
    }
    out
}

/// A problem for a codec error at payload offset `e.offset`, the payload starting at
/// message offset `base`.
pub fn decode_problem(
    e: &pmix_codec::Error,
    base: usize,
    payload: &[u8],
    component: Component,
    release: Release,
) -> Problem {
    // An unregistered type is reported after its type field: point at the field itself.
    let mut offset = e.offset;
    if let Some(ty) = crate::explain::unregistered_type(e) {
        let id = ty.0.to_be_bytes();
        if offset >= 2 && payload.get(offset - 2..offset) == Some(&id[..]) {
            offset -= 2;
        }
    }
    let field = if e.path.is_empty() {
        match e.ty {
            Some(t) => format!("item {} ({t})", e.item),
            None => format!("item {}", e.item),
        }
    } else {
        format!("item {} {}", e.item, e.path)
    };
    let mut p = Problem::new(
        Severity::Error,
        Some(base + offset),
        field,
        format!(
            "does not decode in {component} ({release} profile): {} at payload byte {offset}: {}",
            e.status, e.reason
        ),
    );
    p.explanation = Some(crate::explain::decode_failure(e, component, release));
    p
}
