//! Hostile requests to a server: truncated and lying messages, bounded in count and time,
//! loopback only. For each case the peer reports whether the server answered (and with
//! which status), dropped the connection, stayed silent, or died (a fresh handshake then
//! fails): a server that dies is a finding.
//!
//! Cases: the connect message with a lying or oversized length, a truncated body, a lying
//! credential length, an unknown peer flag; after a good handshake, a header whose length
//! lies, and payloads built from the codec's invalid vectors (decode phase: truncated,
//! lying counts and lengths, unknown types), each wrapped in the command whose arguments
//! have that type (INFO → allocation infos, QUERY → query, APP → spawn, COMMAND as is).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use bytes::{BufMut, BytesMut};
use pmix_codec::vectors::{Outcome, Phase, VectorFile};
use pmix_codec::{Codec, Item, Value};
use serde_json::{json, Value as J};

pub use crate::conn::Verdict;
use crate::conn::{Limits, Peer};
use crate::error::{PeerError, Result};
use crate::frame::{Header, HEADER_LEN};
use crate::handshake::{ConnectRequest, Identity};
use crate::rendezvous::ServerUri;

/// One hostile case and its outcome.
#[derive(Clone, Debug)]
pub struct Case {
    /// Name.
    pub name: String,
    /// The bytes sent after the connection was made (hex in reports).
    pub sent: Vec<u8>,
    /// What happened.
    pub verdict: Verdict,
}

impl Case {
    /// As JSON.
    pub fn to_json(&self) -> J {
        let (v, d) = match &self.verdict {
            Verdict::Answered(s) => ("answered", s.clone()),
            Verdict::Dropped => ("dropped", String::new()),
            Verdict::Silent => ("silent", String::new()),
            Verdict::Died(s) => ("died", s.clone()),
        };
        json!({"case": self.name, "verdict": v, "detail": d,
               "sent": self.sent.iter().map(|b| format!("{b:02x}")).collect::<String>()})
    }
}

/// Budget of a hostile run.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// At most this many cases.
    pub max_cases: usize,
    /// Total time.
    pub total: Duration,
    /// Wait per case for an answer.
    pub per_case: Duration,
}

/// Refuse anything but loopback.
pub fn require_loopback(uri: &ServerUri) -> Result<()> {
    if uri.addr.ip().is_loopback() {
        Ok(())
    } else {
        Err(PeerError::Usage(format!(
            "hostile mode talks to loopback servers only; {} is not loopback",
            uri.addr
        )))
    }
}

/// Raw write, then classify what comes back within `wait`. The socket is returned open,
/// so that the liveness check runs while a silent hostile peer still holds its connection.
fn raw_case(
    uri: &ServerUri,
    bytes: &[u8],
    wait: Duration,
    limits: Limits,
) -> Result<(Verdict, TcpStream)> {
    let mut s =
        TcpStream::connect_timeout(&uri.addr, limits.connect).map_err(|e| PeerError::Io {
            what: "connect".into(),
            source: e,
        })?;
    s.set_write_timeout(Some(wait)).ok();
    let _ = s.write_all(bytes);
    let v = classify(&mut s, wait);
    Ok((v, s))
}

fn classify(s: &mut TcpStream, wait: Duration) -> Verdict {
    s.set_read_timeout(Some(wait)).ok();
    let mut buf = [0u8; 64];
    match s.read(&mut buf) {
        Ok(0) => Verdict::Dropped,
        Ok(n) => Verdict::Answered(
            buf[..n.min(16)]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        ),
        Err(e)
            if e.kind() == std::io::ErrorKind::WouldBlock
                || e.kind() == std::io::ErrorKind::TimedOut =>
        {
            Verdict::Silent
        }
        Err(_) => Verdict::Dropped,
    }
}

fn alive(uri: &ServerUri, component: pmix_codec::Component, limits: Limits) -> Option<String> {
    let req = ConnectRequest::tool(Identity::ToolNeedsId, component);
    match Peer::connect(uri, &req, limits) {
        Ok(p) => {
            let _ = p.finalize(Duration::from_secs(2));
            None
        }
        Err(e) => Some(e.to_string()),
    }
}

/// The connect-message cases (built from a good connect message).
fn handshake_cases(good: &[u8]) -> Vec<(String, Vec<u8>)> {
    let body = &good[HEADER_LEN..];
    let with_len = |n: u32, b: &[u8]| {
        let mut m = BytesMut::new();
        Header {
            pindex: -1,
            tag: u32::MAX,
            nbytes: n,
        }
        .encode_connect(&mut m);
        m.put_slice(b);
        m.to_vec()
    };
    let mut v = vec![
        (
            "connect: header only, then close".to_string(),
            good[..HEADER_LEN].to_vec(),
        ),
        (
            "connect: nbytes lies (body + 1000)".into(),
            with_len(body.len() as u32 + 1000, body),
        ),
        (
            "connect: nbytes 0xffffffff".into(),
            with_len(u32::MAX, body),
        ),
        (
            "connect: nbytes over PMIX_MAX_CRED_SIZE".into(),
            with_len(200_000, body),
        ),
        (
            "connect: nbytes shorter than the body".into(),
            with_len(5, body),
        ),
    ];
    // credential length (after "native\0") set to 0xffffffff
    let mut lying_cred = body.to_vec();
    if lying_cred.len() > 11 {
        lying_cred[7..11].copy_from_slice(&[0xff; 4]);
        v.push((
            "connect: credential length 0xffffffff".into(),
            with_len(lying_cred.len() as u32, &lying_cred),
        ));
    }
    // the flag byte (after psec, cred len, 8-byte cred) set to 99
    let mut bad_flag = body.to_vec();
    if bad_flag.len() > 19 {
        bad_flag[19] = 99;
        v.push((
            "connect: unknown peer flag 99".into(),
            with_len(bad_flag.len() as u32, &bad_flag),
        ));
    }
    // truncated bodies with an honest length
    for cut in [
        1,
        7,
        12,
        20,
        30,
        body.len() / 2,
        body.len().saturating_sub(1),
    ] {
        if cut < body.len() {
            v.push((
                format!(
                    "connect: body truncated to {cut} of {} (honest length)",
                    body.len()
                ),
                with_len(cut as u32, &body[..cut]),
            ));
        }
    }
    v
}

/// Payload cases from the invalid decode vectors of `file`.
fn payload_cases(codec: &Codec, file: &VectorFile, max: usize) -> Result<Vec<(String, Vec<u8>)>> {
    let mut groups: std::collections::BTreeMap<String, Vec<(String, Vec<u8>)>> =
        std::collections::BTreeMap::new();
    let prefix = |items: Vec<Item>| codec.encode(&items);
    for t in &file.tests {
        let decode_invalid = t.result == Outcome::Invalid
            && t.error.as_ref().is_some_and(|e| e.phase == Phase::Decode);
        if !decode_invalid {
            continue;
        }
        let ty = t
            .items
            .get(0)
            .and_then(|i| i["type"].as_str())
            .unwrap_or("");
        let Ok(wire) = (0..t.wire.len() / 2)
            .map(|i| u8::from_str_radix(&t.wire[2 * i..2 * i + 2], 16))
            .collect::<std::result::Result<Vec<u8>, _>>()
        else {
            continue;
        };
        let head = match ty {
            "INFO" => prefix(vec![
                Item::one(Value::Command(crate::command::cmd::ALLOC)),
                Item::one(Value::AllocDirective(1)),
                Item::one(Value::Size(1)),
            ])?,
            "QUERY" => prefix(vec![
                Item::one(Value::Command(crate::command::cmd::QUERY)),
                Item::one(Value::Size(1)),
            ])?,
            "APP" => prefix(vec![
                Item::one(Value::Command(crate::command::cmd::SPAWN)),
                Item::one(Value::Size(0)),
                Item::one(Value::Size(1)),
            ])?,
            "COMMAND" => Vec::new(),
            _ => continue,
        };
        let mut p = head;
        p.extend_from_slice(&wire);
        let class = t
            .flags
            .iter()
            .find(|f| !matches!(f.as_str(), "Computed" | "Derived"))
            .cloned()
            .unwrap_or_default();
        groups.entry(format!("{ty}/{class}")).or_default().push((
            format!("payload: vector {} ({}) as {ty} argument", t.id, t.comment),
            p,
        ));
    }
    // round-robin over (type, class) so that a small budget still sees every kind
    let mut out = Vec::new();
    let mut iters: Vec<_> = groups.into_values().map(|g| g.into_iter()).collect();
    while out.len() < max {
        let before = out.len();
        for it in iters.iter_mut() {
            if out.len() < max {
                if let Some(c) = it.next() {
                    out.push(c);
                }
            }
        }
        if out.len() == before {
            break;
        }
    }
    Ok(out)
}

/// Run the hostile cases against `uri` with `component`, within `budget`.
pub fn run(
    uri: &ServerUri,
    component: pmix_codec::Component,
    vectors: &VectorFile,
    budget: Budget,
) -> Result<Vec<Case>> {
    require_loopback(uri)?;
    let limits = Limits {
        connect: Duration::from_secs(3),
        handshake: Duration::from_secs(5),
        reply: budget.per_case,
        max_payload: 16 << 20,
        ..Limits::default()
    };
    let t0 = Instant::now();
    let good = ConnectRequest::tool(Identity::ToolNeedsId, component).encode()?;
    let codec = Codec::new(component, pmix_codec::BufferKind::NonDescribed);
    let mut cases = Vec::new();
    let mut todo = handshake_cases(&good);
    todo.push(("frame: nbytes 0x7fffffff, then close".into(), Vec::new()));
    todo.extend(payload_cases(&codec, vectors, budget.max_cases)?);
    for (name, bytes) in todo.into_iter().take(budget.max_cases) {
        if t0.elapsed() > budget.total {
            break;
        }
        let mut held = None;
        let verdict = if name.starts_with("connect:") {
            let (v, s) = raw_case(uri, &bytes, budget.per_case, limits)?;
            held = Some(s);
            v
        } else {
            // a good handshake first, then the hostile frame
            let req = ConnectRequest::tool(Identity::ToolNeedsId, component);
            let mut peer = Peer::connect(uri, &req, limits)?;
            let v = if name.starts_with("frame:") {
                let mut m = BytesMut::new();
                Header {
                    pindex: 0,
                    tag: 100,
                    nbytes: 0x7fff_ffff,
                }
                .encode(&mut m);
                m.put_slice(&[0x02, 0x11]);
                peer.send_header_and_bytes(&m)
            } else {
                match peer.send_raw(&bytes, "hostile") {
                    Ok(tag) => match peer.recv_reply(tag, "hostile", budget.per_case) {
                        Ok(p) => Ok(Verdict::Answered(
                            match codec.decode(&p, &[pmix_codec::DataType::STATUS]) {
                                Ok(items) => format!("{:?}", items[0].values[0]),
                                Err(_) => format!("{} bytes", p.len()),
                            },
                        )),
                        Err(PeerError::Closed { .. }) => Ok(Verdict::Dropped),
                        Err(PeerError::Timeout { .. }) => Ok(Verdict::Silent),
                        Err(e) => Err(e),
                    },
                    Err(e) => Err(e),
                }
            };
            v.unwrap_or(Verdict::Dropped)
        };
        let verdict = match alive(uri, component, limits) {
            None => verdict,
            Some(e) if held.is_some() => {
                // maybe only blocked by the open hostile socket: close it and look again
                drop(held.take());
                match alive(uri, component, limits) {
                    None => Verdict::Died(format!(
                        "while this connection stayed open, a new tool could not connect ({e}); \
                         after closing it, it could"
                    )),
                    Some(e2) => Verdict::Died(e2),
                }
            }
            Some(e) => Verdict::Died(e),
        };
        drop(held);
        let died = matches!(verdict, Verdict::Died(_));
        cases.push(Case {
            name,
            sent: bytes,
            verdict,
        });
        if died {
            break; // nothing left to talk to
        }
    }
    Ok(cases)
}
