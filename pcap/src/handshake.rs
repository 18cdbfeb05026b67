//! The PTL connect message and the server's answer, read from the server's side, as
//! OpenPMIx's connection handler reads them (`ptl_base_connection_hdlr.c`, flag values in
//! `ptl_base_handshake.h`). The tool's side of the same message is
//! [`pmix_ptl::handshake::ConnectRequest::encode`]; the
//! parse itself is `pmix-ptl`'s ([`pmix_ptl::accept::ConnectMessage::parse`]), shared with
//! the native server; this module adds where each field sits and the answer's layout.
//!
//! Connect message: a 16-byte header in the sender's **host** order (pindex -1, tag
//! `u32::MAX`, nbytes, padding), then psec NUL, credential length (u32, network order),
//! credential, flag byte, the flag's fields (uid, gid, nspace NUL, rank), version NUL, and,
//! unless the version is 2.0.x, bfrops component NUL, buffer type byte, gds NUL and the
//! peer's info array packed in that component.
//!
//! Answer (no header): status (u32, network order); on success, for a client (flags 0, 9)
//! the peer's index (u32); for a tool or launcher the assigned nspace (256 bytes) and rank
//! when it asked for an id, the server's nspace (256 bytes) and rank, and a second status
//! (the credential's validation).

use pmix_codec::{BufferKind, Component, DataType, Item, Release, Value};
use pmix_ptl::accept::{ConnectMessage, PeerFlag, MAX_CONNECT_BODY};
use pmix_ptl::handshake::NSPACE_FIELD;

/// Who connects: the flag byte, as `pmix-ptl` reads it.
pub type PeerKind = PeerFlag;

/// The short name of a peer kind used in reports.
pub fn kind_name(k: PeerKind) -> &'static str {
    use PeerFlag::*;
    match k {
        SimpleClient => "client",
        LegacyTool => "legacy-tool",
        LegacyLauncher => "legacy-launcher",
        ToolNeedsId => "needs-id-tool",
        ToolGivenId => "tool",
        ToolClient => "tool-client",
        LauncherNeedsId => "needs-id-launcher",
        LauncherGivenId => "launcher",
        LauncherClient => "launcher-client",
        SingletonClient => "singleton",
        SchedulerWithId => "scheduler",
    }
}

/// One field of the connect message, where it sits.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Offset from the start of the message (header included).
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// Its name (`psec`, `credential`, `flag`, ...).
    pub name: &'static str,
    /// Its value, as text.
    pub value: String,
}

/// What the connect message says: `pmix-ptl`'s parse, and where each field sits.
#[derive(Clone, Debug, PartialEq)]
pub struct Connect {
    /// Whether its header was little-endian (the sender's host order).
    pub little_endian: bool,
    /// The message as `pmix_ptl::accept::ConnectMessage::parse` reads it.
    pub msg: ConnectMessage,
    /// The peer kind (flag byte).
    pub kind: PeerKind,
    /// Every field in order, with its message offset.
    pub fields: Vec<Field>,
    /// Offset (from the message start) of the tail after the gds name (the info blob).
    pub blob_offset: usize,
}

impl Connect {
    /// The negotiated component, if it is one this codec knows.
    pub fn component(&self) -> Option<Component> {
        self.msg.component()
    }

    /// The buffer kind.
    pub fn buffer_kind(&self) -> Option<BufferKind> {
        self.msg.kind()
    }

    /// The release profile the version string names, and whether it was an exact match.
    pub fn release(&self) -> (Release, bool) {
        release_of(&self.msg.version)
    }

    /// The info blob's pack calls (`size_t n`, then `n` INFOs) decoded in `codec`; none for
    /// no tail or the zero byte 4.2.2 clients send.
    pub fn infos(&self, codec: &pmix_codec::Codec) -> Result<Vec<Item>, pmix_codec::Error> {
        let bytes = &self.msg.tail;
        let mut items = Vec::new();
        if bytes.iter().all(|b| *b == 0) {
            return Ok(items);
        }
        let mut u = codec.unpacker(&bytes[..]);
        let n = u.unpack(DataType::SIZE, 1)?;
        let count = match n.values.first() {
            Some(Value::Size(c)) => *c,
            _ => 0,
        };
        items.push(n);
        if count > bytes.len() as u64 {
            return Err(crate::message::lying_count(count, bytes.len(), 0, 1));
        }
        if count > 0 {
            items.push(u.unpack(DataType::INFO, count as usize)?);
        }
        Ok(items)
    }
}

/// The release profile for a version string: an exact library version first, then by
/// major.minor (4.x: 4.2, 5.x: 5.0, 6.0, 6.1, 7.0.0rc: 7.0, later: master). `false` when
/// the string names no release with a profile of its own (the nearest is used).
pub fn release_of(version: &str) -> (Release, bool) {
    if let Ok(r) = version.parse::<Release>() {
        return (r, true);
    }
    if let Some(r) = Release::judged_by(version) {
        return (r, true);
    }
    let mut parts = version.split('.');
    let major: u32 = parts
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(u32::MAX);
    let minor: u32 = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    let r = match (major, minor) {
        (0..=4, _) => Release::OpenPmix4_2,
        (5, _) => Release::OpenPmix5_0,
        (6, 0) => Release::OpenPmix6_0,
        (6, _) => Release::OpenPmix6_1,
        (7, 0) if version.contains("rc") => Release::OpenPmix7_0,
        _ => Release::Master,
    };
    (r, false)
}

/// Whether 16 bytes look like a connect header, and its nbytes and byte order if so.
/// `None` = not a connect header; `Some(Err(..))` = one whose length no server accepts.
pub fn connect_header(h: &[u8; 16]) -> Option<Result<(u32, bool), String>> {
    if h[..8] != [0xff; 8] {
        return None;
    }
    let le = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
    let be = u32::from_be_bytes([h[8], h[9], h[10], h[11]]);
    Some(if le <= MAX_CONNECT_BODY && le > 0 {
        Ok((le, true))
    } else if be <= MAX_CONNECT_BODY && be > 0 {
        Ok((be, false))
    } else {
        Err(format!(
            "connect header claims {le} bytes (little-endian) or {be} (big-endian); the server accepts at most {MAX_CONNECT_BODY}"
        ))
    })
}

/// Parse a whole connect message (header and `nbytes` of body) with `pmix-ptl`, and lay
/// out where each field sits. The error is `pmix-ptl`'s reason.
pub fn parse_connect(msg: &[u8], little_endian: bool) -> Result<Connect, String> {
    let body = msg.get(16..).ok_or("shorter than its 16-byte header")?;
    let m = ConnectMessage::parse(body).map_err(|e| e.to_string())?;
    let mut fields = Vec::new();
    let mut at = 16;
    let mut put = |len: usize, name: &'static str, value: String| {
        fields.push(Field {
            offset: at,
            len,
            name,
            value,
        });
        at += len;
    };
    put(m.psec.len() + 1, "psec", format!("{:?}", m.psec));
    put(4, "credential length", m.credential.len().to_string());
    let cred: String = m.credential.iter().map(|b| format!("{b:02x}")).collect();
    put(m.credential.len(), "credential", cred);
    put(
        1,
        "flag",
        format!("{} ({})", m.flag.byte(), kind_name(m.flag)),
    );
    if let Some((uid, gid)) = m.ids {
        put(4, "uid", uid.to_string());
        put(4, "gid", gid.to_string());
    }
    if let Some((ns, rank)) = &m.proc {
        put(ns.len() + 1, "nspace", format!("{ns:?}"));
        put(4, "rank", rank.to_string());
    }
    put(m.version.len() + 1, "version", format!("{:?}", m.version));
    if !m.version.starts_with("2.0.") {
        put(m.bfrops.len() + 1, "bfrops", format!("{:?}", m.bfrops));
        put(1, "buffer type", m.buffer_type.to_string());
        put(m.gds.len() + 1, "gds", format!("{:?}", m.gds));
    }
    let blob_offset = msg.len() - m.tail.len();
    Ok(Connect {
        little_endian,
        kind: m.flag,
        msg: m,
        fields,
        blob_offset,
    })
}

/// The server's answer to a connect message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The first status (0 = accepted).
    pub status: i32,
    /// For a client: the index the server gave it.
    pub index: Option<u32>,
    /// For a tool that asked: the identifier the server assigned.
    pub assigned: Option<(String, u32)>,
    /// For a tool: the server's nspace and rank.
    pub server: Option<(String, u32)>,
    /// For a tool: the credential validation's status.
    pub validation: Option<i32>,
}

/// How many bytes the answer takes, given its first four (the status).
pub fn answer_len(kind: PeerKind, status: i32) -> usize {
    if status != 0 {
        4
    } else if kind.is_client() {
        8
    } else {
        4 + pmix_ptl::handshake::reply_len_after_status(kind.needs_id())
    }
}

fn nspace(b: &[u8]) -> String {
    let end = b.iter().position(|x| *x == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Parse an answer of exactly [`answer_len`] bytes.
pub fn parse_answer(kind: PeerKind, b: &[u8]) -> Answer {
    let u = |o: usize| u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let status = u(0) as i32;
    let mut a = Answer {
        status,
        index: None,
        assigned: None,
        server: None,
        validation: None,
    };
    if status != 0 || b.len() < answer_len(kind, status) {
        return a;
    }
    if kind.is_client() {
        a.index = Some(u(4));
        return a;
    }
    let mut at = 4;
    if kind.needs_id() {
        a.assigned = Some((nspace(&b[at..at + NSPACE_FIELD]), u(at + NSPACE_FIELD)));
        at += NSPACE_FIELD + 4;
    }
    a.server = Some((nspace(&b[at..at + NSPACE_FIELD]), u(at + NSPACE_FIELD)));
    at += NSPACE_FIELD + 4;
    a.validation = Some(u(at) as i32);
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_ptl::{ConnectRequest, Identity};

    #[test]
    fn the_peers_connect_message_parses_back() {
        let req = ConnectRequest::tool(
            Identity::ToolGivenId {
                nspace: "tw".into(),
                rank: 3,
            },
            Component::V51,
        );
        let b = req.encode().unwrap();
        let h: [u8; 16] = b[..16].try_into().unwrap();
        let (n, le) = connect_header(&h).unwrap().unwrap();
        assert_eq!(n as usize, b.len() - 16);
        let c = parse_connect(&b, le).unwrap();
        assert_eq!(c.kind, PeerKind::ToolGivenId);
        assert_eq!(
            c.fields.iter().find(|f| f.name == "bfrops").unwrap().offset,
            b.windows(4).position(|w| w == b"v51\0").unwrap()
        );
        assert_eq!(c.msg.proc, Some(("tw".to_string(), 3)));
        assert_eq!(c.msg.version, "5.0.7");
        assert_eq!(c.component(), Some(Component::V51));
        assert_eq!(c.buffer_kind(), Some(BufferKind::NonDescribed));
        assert_eq!(c.release(), (Release::OpenPmix5_0, true));
        let codec = pmix_codec::Codec::new(Component::V51, BufferKind::NonDescribed);
        let infos = c.infos(&codec).unwrap();
        assert_eq!(infos[1].values.len(), 2);
        // cut anywhere: a clear field error, never a panic
        for cut in 16..c.blob_offset {
            assert!(parse_connect(&b[..cut], le).is_err(), "cut {cut}");
        }
    }

    #[test]
    fn absurd_connect_lengths_are_named() {
        let mut h = [0xffu8; 16];
        h[8..12].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
        assert!(connect_header(&h).unwrap().is_err());
        assert!(connect_header(&[0u8; 16]).is_none());
    }

    #[test]
    fn answers() {
        assert_eq!(answer_len(PeerKind::SimpleClient, 0), 8);
        assert_eq!(answer_len(PeerKind::ToolGivenId, -1), 4);
        assert_eq!(answer_len(PeerKind::ToolGivenId, 0), 4 + 256 + 8);
        assert_eq!(answer_len(PeerKind::ToolNeedsId, 0), 4 + 2 * 260 + 4);
        let mut b = vec![0u8; 268];
        b[4..7].copy_from_slice(b"srv");
        b[263] = 7;
        let a = parse_answer(PeerKind::ToolGivenId, &b);
        assert_eq!(a.server, Some(("srv".into(), 7)));
        assert_eq!(a.validation, Some(0));
        assert_eq!(release_of("4.1.9"), (Release::OpenPmix4_2, false));
        assert_eq!(release_of("7.0.0rc1"), (Release::OpenPmix7_0, true));
    }
}
