//! The server's side of the connect handshake: parsing the connect message a client or a
//! tool sends, and the replies it expects (OpenPMIx `ptl_base_connection_hdlr.c`,
//! `pmix_ptl_base_connection_handler` and `process_tool_request`; the field macros are in
//! `ptl_base_handshake.h`).
//!
//! Body (after the host-order header, see [`crate::frame::Header::parse_connect`]):
//! psec NUL, credential length (u32 network order), credential, flag byte, then by flag:
//! a simple client or a singleton sends its id (nspace NUL, rank u32); a tool or launcher
//! sends uid and gid (u32 each) and, unless it needs an id, its id; then the version NUL,
//! and (for every version but 2.0) the bfrops component NUL, the buffer type byte, the gds
//! list NUL and an optional info blob packed in that component (`size_t n`, `n` INFOs).
//!
//! Tails seen on the wire: 4.2.2 clients send one zero byte after the gds name (their
//! `nbytes` counts a flag byte twice), 5.0.7 clients nothing, 7.0.0rc1 clients a v61 info
//! blob (`pmix.ppid`, `pmix.cmd.line`). [`ConnectMessage::infos`] reads the first and the
//! last alike.
//!
//! Every length is checked against the bytes actually received before it is used; nothing
//! is allocated beyond the message itself.

use pmix_codec::{BufferKind, Codec, Component, DataType, Info, Value};

use crate::error::{PtlError, Result};
use crate::handshake::NSPACE_FIELD;

/// The server's limit on a connect message's body (`PMIX_MAX_CRED_SIZE`, 128 KiB).
pub const MAX_CONNECT_BODY: u32 = 128 * 1024;

/// What kind of process connects (the flag byte, `ptl_base_handshake.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerFlag {
    /// 0: a client the server launched (registered in advance).
    SimpleClient,
    /// 1: a pre-v3 tool.
    LegacyTool,
    /// 2: a pre-v3 launcher.
    LegacyLauncher,
    /// 3: a tool that needs the server to assign its id.
    ToolNeedsId,
    /// 4: a tool that names itself.
    ToolGivenId,
    /// 5: a tool the server started.
    ToolClient,
    /// 6: a launcher that needs an id.
    LauncherNeedsId,
    /// 7: a launcher that names itself.
    LauncherGivenId,
    /// 8: a launcher the server started.
    LauncherClient,
    /// 9: a singleton client.
    SingletonClient,
    /// 10: a scheduler that names itself.
    SchedulerWithId,
}

impl PeerFlag {
    /// The flag for byte `b`, if it is one OpenPMIx defines.
    pub fn from_byte(b: u8) -> Option<PeerFlag> {
        use PeerFlag::*;
        Some(match b {
            0 => SimpleClient,
            1 => LegacyTool,
            2 => LegacyLauncher,
            3 => ToolNeedsId,
            4 => ToolGivenId,
            5 => ToolClient,
            6 => LauncherNeedsId,
            7 => LauncherGivenId,
            8 => LauncherClient,
            9 => SingletonClient,
            10 => SchedulerWithId,
            _ => return None,
        })
    }

    /// The byte on the wire.
    pub fn byte(self) -> u8 {
        self as u8
    }

    /// A client (simple or singleton): answered with the 8-byte client reply.
    pub fn is_client(self) -> bool {
        matches!(self, PeerFlag::SimpleClient | PeerFlag::SingletonClient)
    }

    /// Sends uid and gid after the flag.
    fn sends_ids(self) -> bool {
        self != PeerFlag::SimpleClient
    }

    /// Sends its own nspace and rank.
    pub fn sends_proc(self) -> bool {
        use PeerFlag::*;
        matches!(
            self,
            SimpleClient
                | ToolGivenId
                | LauncherGivenId
                | SingletonClient
                | SchedulerWithId
                | ToolClient
                | LauncherClient
        )
    }

    /// Asks the server for an id (its reply carries the assigned nspace and rank).
    pub fn needs_id(self) -> bool {
        matches!(self, PeerFlag::ToolNeedsId | PeerFlag::LauncherNeedsId)
    }
}

/// A parsed connect message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectMessage {
    /// The psec module the peer used (`native`, `munge`, ...).
    pub psec: String,
    /// Its credential (`native` over TCP: euid, egid in the sender's host order).
    pub credential: Vec<u8>,
    /// What kind of process it is.
    pub flag: PeerFlag,
    /// uid and gid, for every flag but a simple client's.
    pub ids: Option<(u32, u32)>,
    /// Its nspace and rank, when it sends them.
    pub proc: Option<(String, u32)>,
    /// The version string (`4.2.2rc2`, `5.0.7a1`, `7.0.0rc1`).
    pub version: String,
    /// The bfrops component name it will speak (`v41`, `v61`, ...).
    pub bfrops: String,
    /// The buffer type byte (1 non-described, 2 fully described).
    pub buffer_type: u8,
    /// The gds module list (`hash`, `shmem2,hash`, ...).
    pub gds: String,
    /// What follows the gds name, as received (a packed info array, a 4.2.2 zero byte, or
    /// nothing).
    pub tail: Vec<u8>,
}

struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn cstr(&mut self, what: &str) -> Result<String> {
        let end = self.rest.iter().position(|b| *b == 0).ok_or_else(|| {
            PtlError::malformed("connect message", format!("{what}: no terminating NUL"))
        })?;
        let s = std::str::from_utf8(&self.rest[..end])
            .map_err(|_| PtlError::malformed("connect message", format!("{what}: not UTF-8")))?
            .to_string();
        self.rest = &self.rest[end + 1..];
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        let b: [u8; 4] = self
            .rest
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| PtlError::malformed("connect message", format!("{what}: truncated")))?;
        self.rest = &self.rest[4..];
        Ok(u32::from_be_bytes(b))
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        let (&b, rest) = self
            .rest
            .split_first()
            .ok_or_else(|| PtlError::malformed("connect message", format!("{what}: truncated")))?;
        self.rest = rest;
        Ok(b)
    }

    fn take(&mut self, n: u32, what: &str) -> Result<&'a [u8]> {
        let n = n as usize;
        if n > self.rest.len() {
            return Err(PtlError::malformed(
                "connect message",
                format!("{what}: {n} bytes claimed, {} left", self.rest.len()),
            ));
        }
        let (a, b) = self.rest.split_at(n);
        self.rest = b;
        Ok(a)
    }
}

impl ConnectMessage {
    /// Parse a connect message's body (the `nbytes` bytes after its header).
    pub fn parse(body: &[u8]) -> Result<ConnectMessage> {
        if body.len() > MAX_CONNECT_BODY as usize {
            return Err(PtlError::malformed(
                "connect message",
                format!("{} bytes exceed {MAX_CONNECT_BODY}", body.len()),
            ));
        }
        let mut c = Cursor { rest: body };
        let psec = c.cstr("psec")?;
        let len = c.u32("credential length")?;
        let credential = c.take(len, "credential")?.to_vec();
        let raw = c.u8("flag")?;
        let flag = PeerFlag::from_byte(raw).ok_or_else(|| {
            PtlError::malformed("connect message", format!("unknown peer flag {raw}"))
        })?;
        let ids = if flag.sends_ids() {
            Some((c.u32("uid")?, c.u32("gid")?))
        } else {
            None
        };
        let proc = if flag.sends_proc() {
            let ns = c.cstr("nspace")?;
            if ns.len() >= NSPACE_FIELD {
                return Err(PtlError::malformed(
                    "connect message",
                    format!(
                        "nspace of {} bytes (at most {})",
                        ns.len(),
                        NSPACE_FIELD - 1
                    ),
                ));
            }
            Some((ns, c.u32("rank")?))
        } else {
            None
        };
        let version = c.cstr("version")?;
        let (bfrops, buffer_type, gds) = if version.starts_with("2.0.") {
            // the 2.0 handshake ends with the version string
            ("v20".to_string(), 1, "ds12,hash".to_string())
        } else {
            let b = c.cstr("bfrops")?;
            let t = c.u8("buffer type")?;
            let g = c.cstr("gds")?;
            (b, t, g)
        };
        Ok(ConnectMessage {
            psec,
            credential,
            flag,
            ids,
            proc,
            version,
            bfrops,
            buffer_type,
            gds,
            tail: c.rest.to_vec(),
        })
    }

    /// The component named in the message, if the codec knows it.
    pub fn component(&self) -> Option<Component> {
        self.bfrops.parse().ok()
    }

    /// The buffer kind named in the message.
    pub fn kind(&self) -> Option<BufferKind> {
        match self.buffer_type {
            1 => Some(BufferKind::NonDescribed),
            2 => Some(BufferKind::FullyDescribed),
            _ => None,
        }
    }

    /// The infos of the tail, unpacked in the peer's component: empty for no tail or for
    /// the 4.2.2 zero byte(s). The count is checked against the tail's length first.
    pub fn infos(&self) -> Result<Vec<Info>> {
        if self.tail.iter().all(|b| *b == 0) {
            return Ok(Vec::new());
        }
        let (Some(component), Some(kind)) = (self.component(), self.kind()) else {
            return Err(PtlError::malformed(
                "connect message",
                format!(
                    "an info blob in unknown component '{}' / buffer type {}",
                    self.bfrops, self.buffer_type
                ),
            ));
        };
        let codec = Codec::new(component, kind);
        let mut u = codec.unpacker(&self.tail);
        let n = match u.unpack(DataType::SIZE, 1)?.values.pop() {
            Some(Value::Size(n)) if n <= self.tail.len() as u64 => n as usize,
            other => {
                return Err(PtlError::malformed(
                    "connect message",
                    format!("info count {other:?} for a {}-byte blob", self.tail.len()),
                ))
            }
        };
        let mut out = Vec::with_capacity(n);
        if n > 0 {
            for v in u.unpack(DataType::INFO, n)?.values {
                if let Value::Info(i) = v {
                    out.push(*i);
                }
            }
        }
        Ok(out)
    }
}

/// The reply to a client's connect message: status (u32 network order) and, on success,
/// the index the server gives the peer (u32 network order). 4 bytes on failure, 8 on success.
pub fn client_reply(status: i32, pindex: u32) -> Vec<u8> {
    let mut v = status.to_be_bytes().to_vec();
    if status == 0 {
        v.extend_from_slice(&pindex.to_be_bytes());
    }
    v
}

fn put_nspace(out: &mut Vec<u8>, ns: &str) -> Result<()> {
    if ns.len() >= NSPACE_FIELD || ns.as_bytes().contains(&0) {
        return Err(PtlError::Usage(format!(
            "nspace '{ns}' must be under {NSPACE_FIELD} bytes without NUL"
        )));
    }
    let start = out.len();
    out.extend_from_slice(ns.as_bytes());
    out.resize(start + NSPACE_FIELD, 0);
    Ok(())
}

/// The reply to a tool's connect message: status; on success, the assigned id when the
/// tool needs one (nspace in 256 bytes, rank), the server's nspace (256 bytes) and rank,
/// and the security-handshake status (0: nothing more). The inverse of
/// [`crate::handshake::parse_reply_rest`].
pub fn tool_reply(
    status: i32,
    assigned: Option<(&str, u32)>,
    server: (&str, u32),
    security: i32,
) -> Result<Vec<u8>> {
    let mut v = status.to_be_bytes().to_vec();
    if status != 0 {
        return Ok(v);
    }
    if let Some((ns, rank)) = assigned {
        put_nspace(&mut v, ns)?;
        v.extend_from_slice(&rank.to_be_bytes());
    }
    put_nspace(&mut v, server.0)?;
    v.extend_from_slice(&server.1.to_be_bytes());
    v.extend_from_slice(&security.to_be_bytes());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handshake::{parse_reply_rest, ConnectRequest, Identity};

    fn unhex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len() / 2)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn a_4_2_2_client_connect_with_its_trailing_zero() {
        // The 52-byte body of a 4.2.2rc2 client (URI41), as in the reference notes.
        let body = unhex(
            "6e6174697665 00 00000008 0000000000000000 00 6d6f636b6a6f6200 00000000
             342e322e32726332 00 76343100 01 6861736800 00",
        );
        assert_eq!(body.len(), 52);
        let m = ConnectMessage::parse(&body).unwrap();
        assert_eq!(m.psec, "native");
        assert_eq!(m.credential, vec![0; 8]);
        assert_eq!(m.flag, PeerFlag::SimpleClient);
        assert_eq!(m.ids, None);
        assert_eq!(m.proc, Some(("mockjob".into(), 0)));
        assert_eq!(m.version, "4.2.2rc2");
        assert_eq!(m.component(), Some(Component::V41));
        assert_eq!(m.kind(), Some(BufferKind::NonDescribed));
        assert_eq!(m.gds, "hash");
        assert_eq!(m.tail, vec![0]);
        assert!(m.infos().unwrap().is_empty());
    }

    #[test]
    fn a_tool_connect_round_trips_with_the_tool_encoder() {
        for id in [
            Identity::ToolNeedsId,
            Identity::ToolGivenId {
                nspace: "tw".into(),
                rank: 3,
            },
        ] {
            let req = ConnectRequest::tool(id.clone(), Component::V61);
            let wire = req.encode().unwrap();
            let m = ConnectMessage::parse(&wire[16..]).unwrap();
            assert_eq!(m.flag.byte(), id.flag());
            assert_eq!(m.ids, Some((req.uid, req.gid)));
            assert_eq!(m.version, "7.0.0rc1");
            assert_eq!(m.component(), Some(Component::V61));
            assert_eq!(m.infos().unwrap(), req.infos);
            if let Identity::ToolGivenId { nspace, rank } = id {
                assert_eq!(m.proc, Some((nspace, rank)));
            } else {
                assert_eq!(m.proc, None);
            }
        }
    }

    #[test]
    fn lying_lengths_and_unknown_flags_are_refused() {
        let good = ConnectRequest::tool(Identity::ToolNeedsId, Component::V41)
            .encode()
            .unwrap()[16..]
            .to_vec();
        let mut cred = good.clone();
        cred[7..11].copy_from_slice(&[0xff; 4]);
        assert!(ConnectMessage::parse(&cred).is_err());
        let mut flag = good.clone();
        flag[19] = 99;
        assert!(ConnectMessage::parse(&flag)
            .unwrap_err()
            .to_string()
            .contains("flag 99"));
        for cut in 0..good.len() - 1 {
            // every strict prefix that ends before the gds NUL fails cleanly
            if !good[..cut].ends_with(b"hash\0") {
                assert!(ConnectMessage::parse(&good[..cut]).is_err(), "{cut}");
            }
        }
        // a lying info count in the tail
        let mut m = ConnectMessage::parse(&good).unwrap();
        m.tail = vec![0x02, 0x7f];
        assert!(m.infos().is_err());
    }

    #[test]
    fn replies_have_the_layout_the_libraries_read() {
        assert_eq!(client_reply(0, 0), vec![0; 8]);
        assert_eq!(client_reply(0, 5), vec![0, 0, 0, 0, 0, 0, 0, 5]);
        assert_eq!(client_reply(-46, 0), (-46i32).to_be_bytes().to_vec());
        let r = tool_reply(0, Some(("t.1", 0)), ("srv", 0), 0).unwrap();
        let p = parse_reply_rest(0, true, &r[4..]).unwrap();
        assert_eq!(p.assigned, Some(("t.1".into(), 0)));
        assert_eq!(p.server_nspace, "srv");
        let r = tool_reply(0, None, ("srv", 2), 0).unwrap();
        assert_eq!(parse_reply_rest(0, false, &r[4..]).unwrap().server_rank, 2);
        assert!(tool_reply(0, None, (&"x".repeat(256), 0), 0).is_err());
    }
}
