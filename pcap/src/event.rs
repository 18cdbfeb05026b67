//! What the dissector reports, in the order it finds it, and each report's JSON form.

use std::net::SocketAddr;
use std::time::Duration;

use pmix_codec::json::{items_to_json, type_to_json, value_to_json};
use pmix_codec::{BufferKind, Component, Item, Release};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value as J};

use crate::handshake::{Field, PeerKind};

/// Which end sent a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The end that sent the connect message (client, tool, launcher ...).
    Client,
    /// The server.
    Server,
}

impl Side {
    /// `client` / `server`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
        }
    }

    /// The conversation vectors' `direction` of what this side sends, seen from the
    /// client: `sent` / `received`.
    pub fn direction(self) -> &'static str {
        match self {
            Side::Client => "sent",
            Side::Server => "received",
        }
    }
}

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing (a message with no grammar here, a reply to a request not captured).
    Note,
    /// Odd but decodable.
    Warning,
    /// The bytes are wrong for the connection, or missing.
    Error,
}

impl Severity {
    /// `note` / `warning` / `error`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Something wrong, at a byte where there is one.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// How bad.
    pub severity: Severity,
    /// Offset in the message (header included; the connect answer has no header).
    pub offset: Option<usize>,
    /// The field.
    pub field: String,
    /// What is wrong.
    pub text: String,
    /// Why, where the dissector can tell (a quirk, a MATRIX.md cell, a status's meaning).
    pub explanation: Option<String>,
}

impl Problem {
    /// A problem without an explanation.
    pub fn new(
        severity: Severity,
        offset: Option<usize>,
        field: impl Into<String>,
        text: impl Into<String>,
    ) -> Problem {
        Problem {
            severity,
            offset,
            field: field.into(),
            text: text.into(),
            explanation: None,
        }
    }

    /// JSON form.
    pub fn to_json(&self) -> J {
        json!({
            "severity": self.severity.name(),
            "offset": self.offset,
            "field": self.field,
            "text": self.text,
            "explanation": self.explanation,
        })
    }
}

/// A PMIx connection, as its handshake describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnInfo {
    /// Its number in this capture (1-based, in order of first packet).
    pub id: u64,
    /// The end that sent the connect message.
    pub client: SocketAddr,
    /// The server.
    pub server: SocketAddr,
    /// The capture record where it was recognised.
    pub packet: u64,
    /// The peer kind (flag byte).
    pub kind: Option<PeerKind>,
    /// The version string.
    pub version: Option<String>,
    /// The release profile the client's messages are decoded with.
    pub release: Option<Release>,
    /// Whether the version string named that release exactly (or `--release` did).
    pub release_exact: bool,
    /// The release profile the server's messages are decoded with.
    pub server_release: Option<Release>,
    /// The negotiated bfrops component.
    pub component: Option<Component>,
    /// The buffer kind.
    pub buffer: Option<BufferKind>,
    /// The client's nspace and rank, when it sent them.
    pub proc: Option<(String, u32)>,
    /// The server's nspace and rank (tools), from the answer.
    pub server_proc: Option<(String, u32)>,
    /// The identifier the server assigned (needs-id tools).
    pub assigned: Option<(String, u32)>,
    /// The connect header's byte order.
    pub little_endian: Option<bool>,
    /// Joined mid-stream (no handshake; the component from `--component`).
    pub mid_stream: bool,
}

impl ConnInfo {
    /// A connection known only by its ends.
    pub fn unknown(id: u64, client: SocketAddr, server: SocketAddr, packet: u64) -> ConnInfo {
        ConnInfo {
            id,
            client,
            server,
            packet,
            kind: None,
            version: None,
            release: None,
            release_exact: false,
            server_release: None,
            component: None,
            buffer: None,
            proc: None,
            server_proc: None,
            assigned: None,
            little_endian: None,
            mid_stream: false,
        }
    }

    /// JSON form.
    pub fn to_json(&self) -> J {
        json!({
            "event": "connection",
            "conn": self.id,
            "client": self.client.to_string(),
            "server": self.server.to_string(),
            "packet": self.packet,
            "peer": self.kind.map(crate::handshake::kind_name),
            "version": self.version,
            "release": self.release.map(|r| r.name()),
            "release_exact": self.release_exact,
            "server_release": self.server_release.map(|r| r.name()),
            "component": self.component.map(|c| c.name()),
            "buffer": self.buffer.map(|b| b.name()),
            "proc": self.proc.as_ref().map(|(n, r)| json!({"nspace": n, "rank": r})),
            "mid_stream": self.mid_stream,
        })
    }
}

/// One message of a connection.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The connection.
    pub conn: u64,
    /// Its number within the connection (1-based; the connect message is 1).
    pub number: usize,
    /// The capture record where its last byte arrived.
    pub packet: u64,
    /// That record's time.
    pub time: Duration,
    /// Who sent it.
    pub from: Side,
    /// What it is: `connect`, `connect-reply`, a command (`alloc`), `reply:alloc`, `event`.
    pub what: String,
    /// The header's tag (framed messages).
    pub tag: Option<u32>,
    /// The 16 header bytes (framed messages and the connect message).
    pub header: Vec<u8>,
    /// The payload (the connect answer: its bytes).
    pub payload: Vec<u8>,
    /// Offset of the message in its direction's stream.
    pub stream_offset: u64,
    /// The pack calls decoded (up to a failure).
    pub items: Vec<Item>,
    /// Where each item starts (message offsets).
    pub offsets: Vec<usize>,
    /// Handshake fields.
    pub fields: Vec<Field>,
    /// The command byte (requests, events).
    pub command: Option<u8>,
    /// The status (replies, events, the connect answer).
    pub status: Option<i32>,
    /// For a reply: the request's message number.
    pub reply_to: Option<usize>,
    /// What is wrong with it.
    pub problems: Vec<Problem>,
}

fn field_j(f: &Field) -> J {
    json!({"offset": f.offset, "len": f.len, "name": f.name, "value": f.value})
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Message {
    /// JSON form: the conversation vector fields (`direction` sent/received seen from the
    /// client, `what`, `tag`, `header`, `wire`, `items`) and the dissector's own.
    pub fn to_json(&self) -> J {
        json!({
            "event": "message",
            "conn": self.conn,
            "number": self.number,
            "packet": self.packet,
            "time": self.time.as_secs_f64(),
            "from": self.from.name(),
            "direction": self.from.direction(),
            "what": self.what,
            "tag": self.tag,
            "header": hex(&self.header),
            "wire": hex(&self.payload),
            "stream_offset": self.stream_offset,
            "command": self.command,
            "status": self.status,
            "reply_to": self.reply_to,
            "items": items_to_json(&self.items),
            "offsets": self.offsets,
            "fields": self.fields.iter().map(field_j).collect::<Vec<_>>(),
            "problems": self.problems.iter().map(Problem::to_json).collect::<Vec<_>>(),
        })
    }
}

/// Bytes as one hex string, written as it is serialized (no copy of the text).
struct HexStr<'a>(&'a [u8]);

impl std::fmt::Display for HexStr<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl Serialize for HexStr<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One pack call as [`pmix_codec::json::item_to_json`] makes it, one value at a time.
struct ItemJson<'a>(&'a Item);

impl Serialize for ItemJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Values<'a>(&'a [pmix_codec::Value]);
        impl Serialize for Values<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(value_to_json))
            }
        }
        let mut o = s.serialize_map(Some(2))?;
        o.serialize_entry("type", &type_to_json(self.0.ty))?;
        o.serialize_entry("values", &Values(&self.0.values))?;
        o.end()
    }
}

/// [`Message::to_json`] written as it is serialized: the same keys in the same (sorted)
/// order, each pack call and value serialized and dropped in turn, the bytes as hex
/// straight into the output. Holds one value's JSON at a time, not the message's.
struct MessageJson<'a>(&'a Message);

impl Serialize for MessageJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Seq<'a, T, F>(&'a [T], F);
        impl<T, F: Fn(&T) -> J> Serialize for Seq<'_, T, F> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(&self.1))
            }
        }
        let m = self.0;
        let mut o = s.serialize_map(Some(19))?;
        o.serialize_entry("command", &m.command)?;
        o.serialize_entry("conn", &m.conn)?;
        o.serialize_entry("direction", m.from.direction())?;
        o.serialize_entry("event", "message")?;
        o.serialize_entry("fields", &Seq(&m.fields, field_j))?;
        o.serialize_entry("from", m.from.name())?;
        o.serialize_entry("header", &HexStr(&m.header))?;
        struct Items<'a>(&'a [Item]);
        impl Serialize for Items<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(ItemJson))
            }
        }
        o.serialize_entry("items", &Items(&m.items))?;
        o.serialize_entry("number", &m.number)?;
        o.serialize_entry("offsets", &m.offsets)?;
        o.serialize_entry("packet", &m.packet)?;
        o.serialize_entry("problems", &Seq(&m.problems, Problem::to_json))?;
        o.serialize_entry("reply_to", &m.reply_to)?;
        o.serialize_entry("status", &m.status)?;
        o.serialize_entry("stream_offset", &m.stream_offset)?;
        o.serialize_entry("tag", &m.tag)?;
        o.serialize_entry("time", &J::from(m.time.as_secs_f64()))?;
        o.serialize_entry("what", &m.what)?;
        o.serialize_entry("wire", &HexStr(&m.payload))?;
        o.end()
    }
}

/// Counters over the whole capture.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Records read.
    pub packets: u64,
    /// TCP segments among them.
    pub tcp_segments: u64,
    /// Packets of a link type not taken apart.
    pub unknown_link: u64,
    /// Packets whose headers did not parse.
    pub malformed: u64,
    /// TCP connections followed.
    pub connections: u64,
    /// Of those, PMIx connections.
    pub pmix_connections: u64,
    /// Connections whose first bytes are not a PMIx connect message.
    pub not_pmix: u64,
    /// Connections joined mid-stream and not decoded (no `--component`, or no frame found).
    pub mid_stream_skipped: u64,
    /// Connections dropped to stay within the limits.
    pub evicted: u64,
    /// Messages reported.
    pub messages: u64,
    /// Retransmitted or overlapping bytes dropped.
    pub duplicate_bytes: u64,
    /// Bytes missing from the capture.
    pub lost_bytes: u64,
    /// Most bytes held at once (frames being assembled, segments waiting).
    pub peak_held: u64,
}

impl Stats {
    /// JSON form.
    pub fn to_json(&self) -> J {
        json!({
            "event": "stats",
            "packets": self.packets,
            "tcp_segments": self.tcp_segments,
            "unknown_link": self.unknown_link,
            "malformed": self.malformed,
            "connections": self.connections,
            "pmix_connections": self.pmix_connections,
            "not_pmix": self.not_pmix,
            "mid_stream_skipped": self.mid_stream_skipped,
            "evicted": self.evicted,
            "messages": self.messages,
            "duplicate_bytes": self.duplicate_bytes,
            "lost_bytes": self.lost_bytes,
            "peak_held": self.peak_held,
        })
    }
}

/// One report of the dissector.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A PMIx connection recognised.
    Connection(ConnInfo),
    /// A message decoded (or not, with its problems).
    Message(Message),
    /// A problem not tied to one message.
    Problem {
        /// The connection, if any.
        conn: Option<u64>,
        /// The capture record.
        packet: u64,
        /// What.
        problem: Problem,
    },
    /// A PMIx connection ended (or the capture did).
    Closed {
        /// The connection.
        conn: u64,
        /// The last capture record.
        packet: u64,
        /// Messages it carried.
        messages: usize,
        /// Requests without a reply.
        unanswered: usize,
    },
    /// The counters, at the end.
    Stats(Stats),
}

impl Event {
    /// JSON form (one object; `--json` prints one per line).
    pub fn to_json(&self) -> J {
        match self {
            Event::Connection(c) => c.to_json(),
            Event::Message(m) => m.to_json(),
            Event::Problem {
                conn,
                packet,
                problem,
            } => {
                let mut j = problem.to_json();
                j["event"] = json!("problem");
                j["conn"] = json!(conn);
                j["packet"] = json!(packet);
                j
            }
            Event::Closed {
                conn,
                packet,
                messages,
                unanswered,
            } => {
                json!({"event": "closed", "conn": conn, "packet": packet, "messages": messages, "unanswered": unanswered})
            }
            Event::Stats(s) => s.to_json(),
        }
    }

    /// Write [`Event::to_json`]'s text (no newline) to `w`. A message is serialized as it
    /// is written, one value at a time, so a message of a million values costs one value's
    /// JSON at a time, not a JSON tree of the message (hundreds of bytes per value).
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match self {
            Event::Message(m) => serde_json::to_writer(w, &MessageJson(m))?,
            e => serde_json::to_writer(w, &e.to_json())?,
        }
        Ok(())
    }
}
