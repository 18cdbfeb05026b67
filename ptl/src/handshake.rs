//! The tool's connect message and the server's answer (OpenPMIx
//! `src/mca/ptl/base/ptl_base_fns.c`: `construct_message`, `pmix_ptl_base_tool_handshake`;
//! server side `ptl_base_connection_hdlr.c`; macros in `ptl_base_handshake.h`).
//!
//! Connect message = host-order header (pindex -1, tag `u32::MAX`, nbytes) and:
//! psec name NUL, credential length (u32, network order), credential, flag byte,
//! [uid, gid (u32 network order)], [nspace NUL, rank (u32 network order)], version NUL,
//! bfrops component NUL, buffer type byte, gds NUL, then the tool's info array packed in the
//! chosen component (`size_t n`, then `n` INFOs).

use bytes::{BufMut, Bytes, BytesMut};
use nom::bytes::complete::take;
use nom::number::complete::be_u32;
use nom::IResult;
use pmix_codec::{BufferKind, Codec, Component, DataType, Info, Item, Value};

use crate::error::{PtlError, Result};
use crate::frame::Header;

/// `PMIX_MAX_NSLEN + 1`: an nspace travels as 256 bytes in the reply.
pub const NSPACE_FIELD: usize = 256;

/// The server's limit on the connect message (`PMIX_MAX_CRED_SIZE`, 128 KiB); we refuse to
/// build one it would drop.
pub const MAX_CONNECT_LEN: usize = 128 * 1024;

/// How the tool identifies itself (the flag byte, `ptl_base_handshake.h`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identity {
    /// `PMIX_TOOL_GIVEN_ID` (4): the tool names itself.
    ToolGivenId {
        /// Its namespace.
        nspace: String,
        /// Its rank.
        rank: u32,
    },
    /// `PMIX_TOOL_NEEDS_ID` (3): the server assigns nspace and rank.
    ToolNeedsId,
}

impl Identity {
    /// The flag byte.
    pub fn flag(&self) -> u8 {
        match self {
            Identity::ToolGivenId { .. } => 4,
            Identity::ToolNeedsId => 3,
        }
    }
}

/// Everything the connect message carries.
#[derive(Clone, Debug)]
pub struct ConnectRequest {
    /// Who the tool is.
    pub identity: Identity,
    /// Effective uid (sent in the credential and the id block).
    pub uid: u32,
    /// Effective gid.
    pub gid: u32,
    /// The version string the server parses into major.minor.release.
    pub version: String,
    /// The bfrops component both sides use from now on.
    pub component: Component,
    /// The buffer kind.
    pub kind: BufferKind,
    /// The gds module name.
    pub gds: String,
    /// The psec module name.
    pub psec: String,
    /// The tool's infos (packed in `component`); empty = no info blob.
    pub infos: Vec<Info>,
}

impl ConnectRequest {
    /// A tool request with the usual defaults for `component`: psec `native`, gds `hash`,
    /// non-described buffers, the version string of the OpenPMIx release that speaks it
    /// natively (v41 4.2.2, v51 5.0.7, v61 7.0.0rc1, others 4.2.2), and infos naming the
    /// tool (`PMIX_TOOL_NSPACE`, `PMIX_TOOL_RANK`) when it names itself.
    pub fn tool(identity: Identity, component: Component) -> ConnectRequest {
        let version = match component {
            Component::V61 => "7.0.0rc1",
            Component::V51 => "5.0.7",
            _ => "4.2.2",
        };
        let mut infos = Vec::new();
        if let Identity::ToolGivenId { nspace, rank } = &identity {
            infos.push(Info::new("pmix.tool.nspace", Value::string(nspace)));
            infos.push(Info::new("pmix.tool.rank", Value::Uint32(*rank)));
        }
        ConnectRequest {
            identity,
            uid: current_euid(),
            gid: current_egid(),
            version: version.to_string(),
            component,
            kind: BufferKind::NonDescribed,
            gds: "hash".to_string(),
            psec: "native".to_string(),
            infos,
        }
    }

    /// The connect message's bytes: header (host order) and body.
    pub fn encode(&self) -> Result<Bytes> {
        for (what, s) in [
            ("psec", &self.psec),
            ("version", &self.version),
            ("gds", &self.gds),
        ] {
            if s.as_bytes().contains(&0) {
                return Err(PtlError::Usage(format!("{what} '{s}' contains a NUL")));
            }
        }
        let mut body = BytesMut::with_capacity(256);
        put_cstr(&mut body, &self.psec);
        // psec native over TCP: the credential is euid, egid in host order (8 bytes).
        body.put_u32(8);
        body.put_slice(&self.uid.to_ne_bytes());
        body.put_slice(&self.gid.to_ne_bytes());
        body.put_u8(self.identity.flag());
        body.put_u32(self.uid);
        body.put_u32(self.gid);
        if let Identity::ToolGivenId { nspace, rank } = &self.identity {
            if nspace.is_empty() || nspace.len() > 255 || nspace.as_bytes().contains(&0) {
                return Err(PtlError::Usage(format!(
                    "tool nspace '{nspace}' must be 1..=255 bytes without NUL"
                )));
            }
            put_cstr(&mut body, nspace);
            body.put_u32(*rank);
        }
        put_cstr(&mut body, &self.version);
        put_cstr(&mut body, self.component.name());
        body.put_u8(buffer_type_byte(self.kind));
        put_cstr(&mut body, &self.gds);
        if !self.infos.is_empty() {
            let codec = Codec::new(self.component, self.kind);
            let blob = codec.encode(&[
                Item::one(Value::Size(self.infos.len() as u64)),
                Item::new(
                    DataType::INFO,
                    self.infos
                        .iter()
                        .map(|i| Value::Info(Box::new(i.clone())))
                        .collect(),
                ),
            ])?;
            body.put_slice(&blob);
        }
        if body.len() > MAX_CONNECT_LEN {
            return Err(PtlError::Usage(format!(
                "connect message of {} bytes exceeds the server's limit {MAX_CONNECT_LEN}",
                body.len()
            )));
        }
        let mut out = BytesMut::with_capacity(16 + body.len());
        Header {
            pindex: -1,
            tag: u32::MAX,
            nbytes: body.len() as u32,
        }
        .encode_connect(&mut out);
        out.put_slice(&body);
        Ok(out.freeze())
    }
}

/// `pmix_bfrop_buffer_type_t`: 1 non-described, 2 fully described.
pub fn buffer_type_byte(kind: BufferKind) -> u8 {
    match kind {
        BufferKind::NonDescribed => 1,
        BufferKind::FullyDescribed => 2,
    }
}

fn put_cstr(out: &mut BytesMut, s: &str) {
    out.put_slice(s.as_bytes());
    out.put_u8(0);
}

/// What the server answered to a tool's connect message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectReply {
    /// The first status (0 = accepted).
    pub status: i32,
    /// For a needs-id tool: the nspace and rank the server assigned.
    pub assigned: Option<(String, u32)>,
    /// The server's nspace.
    pub server_nspace: String,
    /// The server's rank.
    pub server_rank: u32,
    /// The security-handshake status (0 = nothing more to do).
    pub security: i32,
}

/// Bytes of the reply that follow a success status.
pub fn reply_len_after_status(needs_id: bool) -> usize {
    (if needs_id { NSPACE_FIELD + 4 } else { 0 }) + NSPACE_FIELD + 4 + 4
}

fn nspace_field(i: &[u8]) -> IResult<&[u8], String> {
    let (i, raw) = take(NSPACE_FIELD)(i)?;
    let end = raw.iter().position(|b| *b == 0).unwrap_or(raw.len());
    Ok((i, String::from_utf8_lossy(&raw[..end]).into_owned()))
}

/// Parse the part of the reply after a success status (exactly
/// [`reply_len_after_status`] bytes).
pub fn parse_reply_rest(status: i32, needs_id: bool, rest: &[u8]) -> Result<ConnectReply> {
    let parsed: IResult<&[u8], ConnectReply> = (|| {
        let mut i = rest;
        let mut assigned = None;
        if needs_id {
            let (j, ns) = nspace_field(i)?;
            let (j, rank) = be_u32(j)?;
            assigned = Some((ns, rank));
            i = j;
        }
        let (i, server_nspace) = nspace_field(i)?;
        let (i, server_rank) = be_u32(i)?;
        let (i, security) = be_u32(i)?;
        Ok((
            i,
            ConnectReply {
                status,
                assigned,
                server_nspace,
                server_rank,
                security: security as i32,
            },
        ))
    })();
    match parsed {
        Ok(([], r)) => Ok(r),
        Ok((left, _)) => Err(PtlError::malformed(
            "connect reply",
            format!("{} bytes left over", left.len()),
        )),
        Err(_) => Err(PtlError::malformed(
            "connect reply",
            format!(
                "{} bytes, expected {}",
                rest.len(),
                reply_len_after_status(needs_id)
            ),
        )),
    }
}

fn current_euid() -> u32 {
    // Without libc: the owner of /proc/self is the effective uid of this process.
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .unwrap_or(0)
}

fn current_egid() -> u32 {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::gid(&m))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_message_shape_matches_the_capture() {
        // Q5 capture, without the infos: the fields after the header.
        let mut req = ConnectRequest::tool(
            Identity::ToolGivenId {
                nspace: "tw".into(),
                rank: 0,
            },
            Component::V61,
        );
        req.uid = 0;
        req.gid = 0;
        req.version = "7.0.0a1".into();
        req.infos.clear();
        let b = req.encode().unwrap();
        let mut want = b"native\0".to_vec();
        want.extend_from_slice(&[0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 4]);
        want.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
        want.extend_from_slice(b"tw\0");
        want.extend_from_slice(&[0, 0, 0, 0]);
        want.extend_from_slice(b"7.0.0a1\0v61\0\x01hash\0");
        assert_eq!(&b[16..], &want[..]);
        assert_eq!(
            Header::parse_connect(&b).unwrap().nbytes as usize,
            want.len()
        );
    }

    #[test]
    fn tool_infos_are_packed_in_the_component() {
        let req = ConnectRequest::tool(
            Identity::ToolGivenId {
                nspace: "tw".into(),
                rank: 0,
            },
            Component::V61,
        );
        let b = req.encode().unwrap();
        // `02 02`: one size_t, 2; `04`: two infos; `22`: key length 17. The Q5 capture shows
        // `02 08 10 22 "pmix.tool.nspace"` for its 8 infos.
        let hash = b.windows(5).position(|w| w == b"hash\0").unwrap();
        let infos = &b[hash + 5..];
        assert_eq!(&infos[..4], &[0x02, 0x02, 0x04, 0x22]);
        assert_eq!(&infos[4..20], b"pmix.tool.nspace");
    }

    #[test]
    fn reply_parses_and_rejects_short_input() {
        let mut rest = vec![0u8; NSPACE_FIELD + 8];
        rest[..15].copy_from_slice(b"prte-vm-23657@0");
        let r = parse_reply_rest(0, false, &rest).unwrap();
        assert_eq!(r.server_nspace, "prte-vm-23657@0");
        assert_eq!(r.security, 0);
        assert!(parse_reply_rest(0, false, &rest[..100]).is_err());
        assert!(parse_reply_rest(0, true, &rest).is_err());
    }
}
