//! The PTL message header (`pmix_ptl_hdr_t`, OpenPMIx `src/mca/ptl/ptl_types.h`): four
//! 32-bit fields, `int32 pindex`, `uint32 tag`, `uint32 nbytes`, `uint32 padding`.
//!
//! Every steady-state header is in network order. The one exception is the connect
//! message: `construct_message` (`ptl_base_fns.c`) memcpy's the header without `htonl`, and
//! the server's connection handler reads `hdr.nbytes` without `ntohl`, so that header is in
//! the sender's **host** order (see [`Header::encode_connect`]).

use bytes::{BufMut, Bytes, BytesMut};
use nom::number::complete::{i32 as nom_i32, u32 as nom_u32};
use nom::number::Endianness;
use nom::IResult;

/// Size of a header on the wire.
pub const HEADER_LEN: usize = 16;

/// Tag of unsolicited event notifications (`PMIX_PTL_TAG_NOTIFY`).
pub const TAG_NOTIFY: u32 = 0;
/// First tag of the dynamic range a requester allocates from (`PMIX_PTL_TAG_DYNAMIC`).
pub const TAG_DYNAMIC: u32 = 100;

/// A message header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The sender's index into the receiver's peer array (-1 in the connect message).
    pub pindex: i32,
    /// The tag the message is sent on (replies come back on the request's tag).
    pub tag: u32,
    /// The payload length that follows the header.
    pub nbytes: u32,
}

fn header_in(endian: Endianness) -> impl Fn(&[u8]) -> IResult<&[u8], Header> {
    move |i| {
        let (i, pindex) = nom_i32(endian)(i)?;
        let (i, tag) = nom_u32(endian)(i)?;
        let (i, nbytes) = nom_u32(endian)(i)?;
        let (i, _padding) = nom_u32(endian)(i)?;
        Ok((
            i,
            Header {
                pindex,
                tag,
                nbytes,
            },
        ))
    }
}

impl Header {
    /// A steady-state header (network order).
    pub fn encode(&self, out: &mut BytesMut) {
        out.put_i32(self.pindex);
        out.put_u32(self.tag);
        out.put_u32(self.nbytes);
        out.put_u32(0);
    }

    /// The connect message's header: the same fields in host order.
    pub fn encode_connect(&self, out: &mut BytesMut) {
        out.put_slice(&self.pindex.to_ne_bytes());
        out.put_slice(&self.tag.to_ne_bytes());
        out.put_slice(&self.nbytes.to_ne_bytes());
        out.put_u32(0);
    }

    /// Parse a steady-state header; `None` if fewer than 16 bytes are given.
    pub fn parse(bytes: &[u8]) -> Option<Header> {
        header_in(Endianness::Big)(bytes).ok().map(|(_, h)| h)
    }

    /// Parse a connect header (host order), as the server's connection handler reads it.
    pub fn parse_connect(bytes: &[u8]) -> Option<Header> {
        header_in(Endianness::Native)(bytes).ok().map(|(_, h)| h)
    }
}

/// One received or sent message: a header and its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The header as it was on the wire.
    pub header: Header,
    /// The payload (shared, not copied, when handed to the event queue or a caller).
    pub payload: Bytes,
}

impl Frame {
    /// The frame's bytes as they go on the wire (network-order header).
    pub fn to_wire(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(HEADER_LEN + self.payload.len());
        self.header.encode(&mut out);
        out.put_slice(&self.payload);
        out.freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_network_order() {
        let h = Header {
            pindex: 3,
            tag: 0x67,
            nbytes: 76,
        };
        let mut b = BytesMut::new();
        h.encode(&mut b);
        assert_eq!(&b[..], [0, 0, 0, 3, 0, 0, 0, 0x67, 0, 0, 0, 76, 0, 0, 0, 0]);
        assert_eq!(Header::parse(&b), Some(h));
        assert_eq!(Header::parse(&b[..15]), None);
    }

    #[test]
    fn connect_header_host_order_matches_capture() {
        // The captured connect message starts ff ff ff ff ff ff ff ff d6 00 00 00 00 00 00 00
        // on x86-64 (nbytes 214, little-endian host).
        let h = Header {
            pindex: -1,
            tag: u32::MAX,
            nbytes: 214,
        };
        let mut b = BytesMut::new();
        h.encode_connect(&mut b);
        if cfg!(target_endian = "little") {
            assert_eq!(
                &b[..],
                [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xd6, 0, 0, 0, 0, 0, 0, 0]
            );
        }
        assert_eq!(Header::parse_connect(&b), Some(h));
    }
}
