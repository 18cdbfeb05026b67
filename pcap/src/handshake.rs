//! The PTL connect message and the server's answer, read from the server's side, as
//! OpenPMIx's connection handler reads them (`ptl_base_connection_hdlr.c`, flag values in
//! `ptl_base_handshake.h`). The tool's side of the same message is
//! [`pmix_peer::handshake::ConnectRequest::encode`].
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
use pmix_peer::handshake::{MAX_CONNECT_LEN, NSPACE_FIELD};

/// Who connects (the flag byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerKind {
    /// 0: a client the server launched (or registered).
    Client,
    /// 1: a tool of the pre-4 protocol.
    LegacyTool,
    /// 2: a launcher of the pre-4 protocol.
    LegacyLauncher,
    /// 3: a tool that needs the server to assign it an identifier.
    ToolNeedsId,
    /// 4: a tool that names itself.
    ToolGivenId,
    /// 5: a tool the server started.
    ToolClient,
    /// 6: a launcher that needs an identifier.
    LauncherNeedsId,
    /// 7: a launcher that names itself.
    LauncherGivenId,
    /// 8: a launcher the server started.
    LauncherClient,
    /// 9: a singleton client.
    Singleton,
    /// 10: a scheduler with an identifier.
    Scheduler,
}

impl PeerKind {
    /// From the flag byte.
    pub fn from_flag(flag: u8) -> Option<PeerKind> {
        use PeerKind::*;
        Some(match flag {
            0 => Client,
            1 => LegacyTool,
            2 => LegacyLauncher,
            3 => ToolNeedsId,
            4 => ToolGivenId,
            5 => ToolClient,
            6 => LauncherNeedsId,
            7 => LauncherGivenId,
            8 => LauncherClient,
            9 => Singleton,
            10 => Scheduler,
            _ => return None,
        })
    }

    /// The short name used in reports.
    pub fn name(self) -> &'static str {
        use PeerKind::*;
        match self {
            Client => "client",
            LegacyTool => "legacy-tool",
            LegacyLauncher => "legacy-launcher",
            ToolNeedsId => "needs-id-tool",
            ToolGivenId => "tool",
            ToolClient => "tool-client",
            LauncherNeedsId => "needs-id-launcher",
            LauncherGivenId => "launcher",
            LauncherClient => "launcher-client",
            Singleton => "singleton",
            Scheduler => "scheduler",
        }
    }

    /// Whether the server answers with the client's short reply (status, index).
    pub fn client_reply(self) -> bool {
        matches!(self, PeerKind::Client | PeerKind::Singleton)
    }

    /// Whether the server assigns an identifier in its answer.
    pub fn needs_id(self) -> bool {
        matches!(self, PeerKind::ToolNeedsId | PeerKind::LauncherNeedsId)
    }

    fn has_ids(self) -> bool {
        !matches!(self, PeerKind::Client)
    }

    fn has_proc(self) -> bool {
        use PeerKind::*;
        matches!(
            self,
            Client
                | ToolGivenId
                | LauncherGivenId
                | Singleton
                | Scheduler
                | ToolClient
                | LauncherClient
        )
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

/// What the connect message says.
#[derive(Clone, Debug, PartialEq)]
pub struct Connect {
    /// Whether its header was little-endian (the sender's host order).
    pub little_endian: bool,
    /// The peer kind (flag byte).
    pub kind: PeerKind,
    /// The version string.
    pub version: String,
    /// The bfrops component named (as sent).
    pub bfrops: String,
    /// The buffer type byte (1 non-described, 2 fully described).
    pub buffer_type: u8,
    /// The peer's nspace and rank, when it sent them.
    pub proc: Option<(String, u32)>,
    /// Every field in order.
    pub fields: Vec<Field>,
    /// Offset (from the message start) and bytes of the info blob.
    pub blob: (usize, Vec<u8>),
}

impl Connect {
    /// The negotiated component, if it is one this codec knows.
    pub fn component(&self) -> Option<Component> {
        self.bfrops.parse().ok()
    }

    /// The buffer kind.
    pub fn buffer_kind(&self) -> Option<BufferKind> {
        match self.buffer_type {
            1 => Some(BufferKind::NonDescribed),
            2 => Some(BufferKind::FullyDescribed),
            _ => None,
        }
    }

    /// The release profile the version string names, and whether it was an exact match.
    pub fn release(&self) -> (Release, bool) {
        release_of(&self.version)
    }

    /// The info blob's pack calls (`size_t n`, then `n` INFOs) decoded in `codec`.
    pub fn infos(&self, codec: &pmix_codec::Codec) -> Result<Vec<Item>, pmix_codec::Error> {
        let bytes = &self.blob.1;
        let mut u = codec.unpacker(&bytes[..]);
        let mut items = Vec::new();
        if bytes.is_empty() {
            return Ok(items);
        }
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

/// Whether 16 bytes look like a connect header, and its nbytes if so.
/// `None` = not a connect header; `Some(Err(..))` = one whose length no server accepts.
pub fn connect_header(h: &[u8; 16]) -> Option<Result<(u32, bool), String>> {
    if h[..8] != [0xff; 8] {
        return None;
    }
    let le = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
    let be = u32::from_be_bytes([h[8], h[9], h[10], h[11]]);
    Some(if (le as usize) <= MAX_CONNECT_LEN && le > 0 {
        Ok((le, true))
    } else if (be as usize) <= MAX_CONNECT_LEN && be > 0 {
        Ok((be, false))
    } else {
        Err(format!(
            "connect header claims {le} bytes (little-endian) or {be} (big-endian); the server accepts at most {MAX_CONNECT_LEN}"
        ))
    })
}

/// A failure to read the connect message: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadField {
    /// Offset from the start of the message.
    pub offset: usize,
    /// The field.
    pub field: &'static str,
    /// Why.
    pub reason: String,
}

struct Cursor<'a> {
    msg: &'a [u8],
    at: usize,
    fields: Vec<Field>,
}

impl<'a> Cursor<'a> {
    fn bad(&self, field: &'static str, reason: impl Into<String>) -> BadField {
        BadField {
            offset: self.at,
            field,
            reason: reason.into(),
        }
    }
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], BadField> {
        let left = self.msg.len() - self.at;
        if n > left {
            return Err(self.bad(field, format!("needs {n} bytes, {left} left")));
        }
        let s = &self.msg[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn record(&mut self, start: usize, name: &'static str, value: String) {
        self.fields.push(Field {
            offset: start,
            len: self.at - start,
            name,
            value,
        });
    }
    fn cstr(&mut self, field: &'static str) -> Result<String, BadField> {
        let start = self.at;
        let rest = &self.msg[self.at..];
        let Some(nul) = rest.iter().position(|b| *b == 0) else {
            return Err(self.bad(field, "no NUL before the end of the message"));
        };
        let s = String::from_utf8_lossy(&rest[..nul]).into_owned();
        self.at += nul + 1;
        self.record(start, field, format!("{s:?}"));
        Ok(s)
    }
    fn u32(&mut self, field: &'static str) -> Result<u32, BadField> {
        let start = self.at;
        let b = self.take(4, field)?;
        let v = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        self.record(start, field, v.to_string());
        Ok(v)
    }
    fn u8(&mut self, field: &'static str) -> Result<u8, BadField> {
        let start = self.at;
        let v = self.take(1, field)?[0];
        self.record(start, field, v.to_string());
        Ok(v)
    }
}

/// Parse a whole connect message (header and `nbytes` of body).
pub fn parse_connect(msg: &[u8], little_endian: bool) -> Result<Connect, BadField> {
    let mut c = Cursor {
        msg,
        at: 16,
        fields: Vec::new(),
    };
    if msg.len() < 16 {
        return Err(c.bad("header", "shorter than 16 bytes"));
    }
    let psec = c.cstr("psec")?;
    let _ = psec;
    let cred_len = c.u32("credential length")?;
    let start = c.at;
    let cred = c.take(cred_len as usize, "credential")?;
    let hexcred: String = cred.iter().map(|b| format!("{b:02x}")).collect();
    c.record(start, "credential", hexcred);
    let flag = c.u8("flag")?;
    let kind = PeerKind::from_flag(flag).ok_or_else(|| BadField {
        offset: c.at - 1,
        field: "flag",
        reason: format!(
            "{flag} is no peer kind the server knows (0..=10): it drops the connection"
        ),
    })?;
    if let Some(f) = c.fields.last_mut() {
        f.value = format!("{flag} ({})", kind.name());
    }
    if kind.has_ids() {
        c.u32("uid")?;
        c.u32("gid")?;
    }
    let mut proc = None;
    if kind.has_proc() {
        let ns = c.cstr("nspace")?;
        let rank = c.u32("rank")?;
        proc = Some((ns, rank));
    }
    let version = c.cstr("version")?;
    let (bfrops, buffer_type) = if version.starts_with("2.0") {
        ("v20".to_string(), 1u8)
    } else {
        let b = c.cstr("bfrops")?;
        let t = c.u8("buffer type")?;
        c.cstr("gds")?;
        (b, t)
    };
    let blob = (c.at, msg[c.at..].to_vec());
    Ok(Connect {
        little_endian,
        kind,
        version,
        bfrops,
        buffer_type,
        proc,
        fields: c.fields,
        blob,
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
    } else if kind.client_reply() {
        8
    } else {
        4 + pmix_peer::handshake::reply_len_after_status(kind.needs_id())
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
    if kind.client_reply() {
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
    use pmix_peer::{ConnectRequest, Identity};

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
        assert_eq!(c.proc, Some(("tw".to_string(), 3)));
        assert_eq!(c.version, "5.0.7");
        assert_eq!(c.component(), Some(Component::V51));
        assert_eq!(c.buffer_kind(), Some(BufferKind::NonDescribed));
        assert_eq!(c.release(), (Release::OpenPmix5_0, true));
        let codec = pmix_codec::Codec::new(Component::V51, BufferKind::NonDescribed);
        let infos = c.infos(&codec).unwrap();
        assert_eq!(infos[1].values.len(), 2);
        // cut anywhere: a clear field error, never a panic
        for cut in 16..b.len() - c.blob.1.len() {
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
        assert_eq!(answer_len(PeerKind::Client, 0), 8);
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
