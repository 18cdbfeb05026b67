//! A live connection to a server as a tool: connect, handshake, framed requests and
//! replies, and a receive path that sets events (tag 0) aside.
//!
//! The socket is blocking with a deadline per operation: every read sets the remaining time
//! as the socket's read timeout, so no call waits longer than its bound.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use pmix_codec::{App, BufferKind, Codec, Info, Proc, Query};

use crate::command::{
    decode_event, decode_info_reply, decode_spawn_reply, AllocDirective, Event, InfoReply, Request,
    SpawnReply,
};
use crate::error::{PeerError, Result};
use crate::frame::{Frame, Header, HEADER_LEN, TAG_DYNAMIC, TAG_NOTIFY};
use crate::handshake::{
    parse_reply_rest, reply_len_after_status, ConnectReply, ConnectRequest, Identity,
};
use crate::rendezvous::ServerUri;
pub use pmix_ptl::transcript::{Direction, Exchange};

/// Time bounds and size limits of a connection.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// TCP connect.
    pub connect: Duration,
    /// Sending the connect message and reading the server's answer.
    pub handshake: Duration,
    /// Default bound on each reply.
    pub reply: Duration,
    /// Largest payload accepted from the server (a job-info answer with topology XML is
    /// ~17 KB; the default leaves a wide margin).
    pub max_payload: u32,
    /// Most messages the transcript keeps (both ways). A server that sends more (a flood
    /// on a tag nobody asked for, say) ends the conversation with
    /// [`PeerError::Malformed`] `transcript` instead of growing it without bound.
    pub max_transcript_messages: usize,
    /// Most bytes the transcript keeps (both ways, headers included).
    pub max_transcript_bytes: usize,
}

/// The transcript's default bounds: far above any real conversation (the longest recorded,
/// PRRTE's v51, is 24 messages of 40 KB in all).
pub const DEFAULT_TRANSCRIPT_MESSAGES: usize = 10_000;
/// See [`DEFAULT_TRANSCRIPT_MESSAGES`] (64 MiB).
pub const DEFAULT_TRANSCRIPT_BYTES: usize = 64 << 20;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connect: Duration::from_secs(5),
            handshake: Duration::from_secs(10),
            reply: Duration::from_secs(30),
            max_payload: 16 << 20,
            max_transcript_messages: DEFAULT_TRANSCRIPT_MESSAGES,
            max_transcript_bytes: DEFAULT_TRANSCRIPT_BYTES,
        }
    }
}

/// What a server did with one hostile message (the answer [`Peer::send_header_and_bytes`]
/// classifies; `hostile` reports it per case).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It answered; the first 4 bytes (handshake) or the reply's status.
    Answered(String),
    /// It closed the connection.
    Dropped,
    /// Nothing within the wait.
    Silent,
    /// A fresh handshake failed afterwards: the server is gone (a finding).
    Died(String),
}

/// A connected tool.
pub struct Peer {
    stream: TcpStream,
    /// The codec of the negotiated component.
    pub codec: Codec,
    /// What the server said to the connect message.
    pub reply: ConnectReply,
    /// Our identity (given or assigned).
    pub me: Proc,
    limits: Limits,
    next_tag: u32,
    events: VecDeque<Event>,
    /// Frames that arrived on a tag nobody is waiting for (kept, bounded).
    pub stray: Vec<Frame>,
    /// Every message both ways, in order (bounded by [`Limits::max_transcript_messages`]
    /// and [`Limits::max_transcript_bytes`]).
    pub transcript: Vec<Exchange>,
    /// Bytes in `transcript`.
    transcript_bytes: usize,
}

fn io_err(what: &str) -> impl FnOnce(std::io::Error) -> PeerError + '_ {
    move |source| PeerError::Io {
        what: what.to_string(),
        source,
    }
}

/// Read exactly `buf.len()` bytes before `deadline`.
fn read_exact_by(
    stream: &mut TcpStream,
    buf: &mut [u8],
    deadline: Instant,
    what: &str,
    bound: Duration,
) -> Result<()> {
    let mut got = 0;
    while got < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(PeerError::Timeout {
                what: what.to_string(),
                ms: bound.as_millis(),
            });
        }
        stream
            .set_read_timeout(Some(left))
            .map_err(io_err("set read timeout"))?;
        match stream.read(&mut buf[got..]) {
            Ok(0) => {
                return Err(PeerError::Closed {
                    what: what.to_string(),
                })
            }
            Ok(n) => got += n,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                return Err(PeerError::Timeout {
                    what: what.to_string(),
                    ms: bound.as_millis(),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_err(what)(e)),
        }
    }
    Ok(())
}

/// Kept stray frames at most (more are dropped: a server cannot make us hoard).
const MAX_STRAY: usize = 64;

impl Peer {
    /// Connect to `uri` and perform the tool handshake described by `req`. A server that
    /// refuses answers with a non-zero status: that is [`PeerError::Refused`].
    pub fn connect(uri: &ServerUri, req: &ConnectRequest, limits: Limits) -> Result<Peer> {
        let (peer, _) = Peer::connect_recording(uri, req, limits)?;
        Ok(peer)
    }

    /// [`Peer::connect`], also giving back the connect message and reply bytes on failure
    /// (in the error case the transcript is returned through the error only as text).
    pub fn connect_recording(
        uri: &ServerUri,
        req: &ConnectRequest,
        limits: Limits,
    ) -> Result<(Peer, Vec<Exchange>)> {
        let msg = req.encode()?;
        let mut stream = TcpStream::connect_timeout(&uri.addr, limits.connect)
            .map_err(io_err("connect to the server"))?;
        stream.set_nodelay(true).ok();
        stream
            .set_write_timeout(Some(limits.handshake))
            .map_err(io_err("set write timeout"))?;
        stream
            .write_all(&msg)
            .map_err(io_err("send the connect message"))?;
        let mut transcript = vec![Exchange {
            direction: Direction::Sent,
            bytes: msg,
            what: "connect".into(),
            items: None,
        }];
        let deadline = Instant::now() + limits.handshake;
        let mut status = [0u8; 4];
        read_exact_by(
            &mut stream,
            &mut status,
            deadline,
            "the connect status",
            limits.handshake,
        )?;
        let st = i32::from_be_bytes(status);
        let mut reply_bytes = BytesMut::from(&status[..]);
        if st != 0 {
            transcript.push(Exchange {
                direction: Direction::Received,
                bytes: reply_bytes.freeze(),
                what: "connect-reply".into(),
                items: None,
            });
            return Err(PeerError::refused(st));
        }
        let needs_id = matches!(req.identity, Identity::ToolNeedsId);
        let mut rest = vec![0u8; reply_len_after_status(needs_id)];
        read_exact_by(
            &mut stream,
            &mut rest,
            deadline,
            "the connect reply",
            limits.handshake,
        )?;
        reply_bytes.extend_from_slice(&rest);
        let reply = parse_reply_rest(st, needs_id, &rest)?;
        transcript.push(Exchange {
            direction: Direction::Received,
            bytes: reply_bytes.freeze(),
            what: "connect-reply".into(),
            items: None,
        });
        if reply.security != 0 {
            return Err(PeerError::refused(reply.security));
        }
        let me = match (&req.identity, &reply.assigned) {
            (Identity::ToolGivenId { nspace, rank }, _) => Proc {
                nspace: nspace.as_str().into(),
                rank: *rank,
            },
            (Identity::ToolNeedsId, Some((ns, rank))) => Proc {
                nspace: ns.as_str().into(),
                rank: *rank,
            },
            (Identity::ToolNeedsId, None) => {
                return Err(PeerError::malformed("connect reply", "no assigned id"))
            }
        };
        let peer = Peer {
            stream,
            codec: Codec::new(req.component, req.kind),
            reply,
            me,
            limits,
            next_tag: TAG_DYNAMIC,
            events: VecDeque::new(),
            stray: Vec::new(),
            transcript_bytes: transcript.iter().map(|x| x.bytes.len()).sum(),
            transcript: transcript.clone(),
        };
        Ok((peer, transcript))
    }

    /// Send `payload` on a fresh tag; returns the tag.
    pub fn send_raw(&mut self, payload: &[u8], what: &str) -> Result<u32> {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1).max(TAG_DYNAMIC);
        let frame = Frame {
            header: Header {
                pindex: 0,
                tag,
                nbytes: u32::try_from(payload.len())
                    .map_err(|_| PeerError::Usage("payload over 4 GiB".into()))?,
            },
            payload: Bytes::copy_from_slice(payload),
        };
        let wire = frame.to_wire();
        self.stream
            .set_write_timeout(Some(self.limits.reply))
            .map_err(io_err("set write timeout"))?;
        self.stream.write_all(&wire).map_err(io_err(what))?;
        self.record(Exchange {
            direction: Direction::Sent,
            bytes: wire,
            what: what.to_string(),
            items: None,
        })?;
        Ok(tag)
    }

    /// Write raw bytes (a hostile header, say) and classify what the server does within
    /// the reply bound: closes, stays silent, or sends something.
    pub fn send_header_and_bytes(&mut self, bytes: &[u8]) -> Result<Verdict> {
        self.stream
            .write_all(bytes)
            .map_err(io_err("send hostile bytes"))?;
        let deadline = Instant::now() + self.limits.reply;
        loop {
            let mut hdr = [0u8; HEADER_LEN];
            match read_exact_by(
                &mut self.stream,
                &mut hdr,
                deadline,
                "hostile",
                self.limits.reply,
            ) {
                Ok(()) => {}
                Err(PeerError::Closed { .. }) => return Ok(Verdict::Dropped),
                Err(PeerError::Timeout { .. }) => return Ok(Verdict::Silent),
                Err(e) => return Err(e),
            }
            let h = Header::parse(&hdr).ok_or_else(|| PeerError::malformed("header", "short"))?;
            if h.tag != TAG_NOTIFY || h.nbytes > self.limits.max_payload {
                return Ok(Verdict::Answered(format!("{h:?}")));
            }
            // an unsolicited event: not an answer; consume it and keep waiting
            let mut payload = vec![0u8; h.nbytes as usize];
            read_exact_by(
                &mut self.stream,
                &mut payload,
                deadline,
                "hostile",
                self.limits.reply,
            )?;
        }
    }

    /// Receive one frame before `deadline`, checking its length against the limit.
    fn recv_frame(&mut self, deadline: Instant, what: &str, bound: Duration) -> Result<Frame> {
        let mut hdr = [0u8; HEADER_LEN];
        read_exact_by(&mut self.stream, &mut hdr, deadline, what, bound)?;
        let header = Header::parse(&hdr).ok_or_else(|| PeerError::malformed("header", "short"))?;
        if header.nbytes > self.limits.max_payload {
            return Err(PeerError::malformed(
                "header",
                format!(
                    "nbytes {} exceeds the limit {}",
                    header.nbytes, self.limits.max_payload
                ),
            ));
        }
        let mut payload = vec![0u8; header.nbytes as usize];
        read_exact_by(&mut self.stream, &mut payload, deadline, what, bound)?;
        let frame = Frame {
            header,
            payload: Bytes::from(payload),
        };
        let label = if header.tag == TAG_NOTIFY {
            "event".to_string()
        } else {
            format!("reply:{what}")
        };
        self.record(Exchange {
            direction: Direction::Received,
            bytes: frame.to_wire(),
            what: label,
            items: None,
        })?;
        Ok(frame)
    }

    /// Keep `x` in the transcript, or refuse it when the transcript is full (the
    /// conversation cannot go on without losing its record).
    fn record(&mut self, x: Exchange) -> Result<()> {
        let bytes = self.transcript_bytes.saturating_add(x.bytes.len());
        let (count, most, most_bytes) = (
            self.transcript.len(),
            self.limits.max_transcript_messages,
            self.limits.max_transcript_bytes,
        );
        if count >= most || bytes > most_bytes {
            return Err(PeerError::malformed(
                "transcript",
                format!(
                    "the transcript is full ({count} messages, {} bytes; limits {most} \
                     messages, {most_bytes} bytes): message {} ({}, {} bytes) refused; \
                     the server sent more than this conversation needs",
                    self.transcript_bytes,
                    count + 1,
                    x.what,
                    x.bytes.len()
                ),
            ));
        }
        self.transcript_bytes = bytes;
        self.transcript.push(x);
        Ok(())
    }

    /// Wait for the reply on `tag`, setting events aside. Bounded by `bound`.
    pub fn recv_reply(&mut self, tag: u32, what: &str, bound: Duration) -> Result<Bytes> {
        let deadline = Instant::now() + bound;
        loop {
            let f = self.recv_frame(deadline, what, bound)?;
            if f.header.tag == tag {
                return Ok(f.payload);
            }
            self.set_aside(f);
        }
    }

    fn set_aside(&mut self, f: Frame) {
        if f.header.tag == TAG_NOTIFY {
            match decode_event(&self.codec, &f.payload) {
                Ok(ev) => self.events.push_back(ev),
                Err(_) => self.keep_stray(f),
            }
        } else {
            self.keep_stray(f);
        }
    }

    fn keep_stray(&mut self, f: Frame) {
        if self.stray.len() < MAX_STRAY {
            self.stray.push(f);
        }
    }

    /// Send `req` and return the reply payload (finalize included).
    pub fn request(&mut self, req: &Request) -> Result<Bytes> {
        let payload = req.encode(&self.codec)?;
        let tag = self.send_raw(&payload, req.name())?;
        if let Some(last) = self.transcript.last_mut() {
            last.items = Some(req.items());
        }
        let bound = self.limits.reply;
        self.recv_reply(tag, req.name(), bound)
    }

    /// `PMIx_Allocation_request`.
    pub fn alloc(&mut self, directive: AllocDirective, infos: Vec<Info>) -> Result<InfoReply> {
        let p = self.request(&Request::Alloc { directive, infos })?;
        decode_info_reply(&self.codec, &p, "alloc reply")
    }

    /// `PMIx_Spawn`.
    pub fn spawn(&mut self, job_infos: Vec<Info>, apps: Vec<App>) -> Result<SpawnReply> {
        let p = self.request(&Request::Spawn { job_infos, apps })?;
        decode_spawn_reply(&self.codec, &p)
    }

    /// `PMIx_Query_info`.
    pub fn query(&mut self, queries: Vec<Query>) -> Result<InfoReply> {
        let p = self.request(&Request::Query(queries))?;
        decode_info_reply(&self.codec, &p, "query reply")
    }

    /// Register for events (`codes` empty = all); returns the status.
    pub fn register_events(&mut self, codes: Vec<i32>, infos: Vec<Info>) -> Result<i32> {
        let p = self.request(&Request::RegisterEvents { codes, infos })?;
        Ok(decode_info_reply(&self.codec, &p, "register-events reply")?.status)
    }

    /// `PMIx_Job_control`.
    pub fn job_control(&mut self, targets: Vec<Proc>, directives: Vec<Info>) -> Result<InfoReply> {
        let p = self.request(&Request::JobControl {
            targets,
            directives,
        })?;
        decode_info_reply(&self.codec, &p, "job-control reply")
    }

    /// `PMIx_Notify_event`; returns the server's status.
    pub fn notify(&mut self, status: i32, range: u8, infos: Vec<Info>) -> Result<i32> {
        let p = self.request(&Request::Notify {
            status,
            range,
            infos,
        })?;
        Ok(decode_info_reply(&self.codec, &p, "notify reply")?.status)
    }

    /// `PMIx_tool_finalize`: send, wait (bounded) for the server's acknowledgement, close.
    /// Returns the acknowledgement payload's length.
    pub fn finalize(mut self, bound: Duration) -> Result<(usize, Vec<Exchange>)> {
        let payload = Request::Finalize.encode(&self.codec)?;
        let tag = self.send_raw(&payload, "finalize")?;
        if let Some(last) = self.transcript.last_mut() {
            last.items = Some(Request::Finalize.items());
        }
        let ack = self.recv_reply(tag, "finalize", bound)?;
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        Ok((ack.len(), std::mem::take(&mut self.transcript)))
    }

    /// Wait (bounded) for an event whose status is `status`; events already received count.
    pub fn wait_event(&mut self, status: i32, bound: Duration) -> Result<Event> {
        let deadline = Instant::now() + bound;
        loop {
            if let Some(i) = self.events.iter().position(|e| e.status == status) {
                return Ok(self.events.remove(i).expect("index in range"));
            }
            let what = format!("event {status}");
            let f = self.recv_frame(deadline, &what, bound)?;
            self.set_aside(f);
        }
    }

    /// The events received and not yet taken.
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.events.iter()
    }

    /// The buffer kind in use.
    pub fn kind(&self) -> BufferKind {
        self.codec.kind
    }
}
