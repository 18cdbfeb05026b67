//! Reading a capture file, pcap or pcapng (told apart by the first four bytes), one packet
//! at a time, through the `pcap-file` crate; and taking each packet apart down to its TCP
//! segment through `etherparse`.
//!
//! Memory: the file readers hold one fixed 8 MB read buffer (a record larger than that is an
//! error, not an allocation); a pcapng section may declare at most [`MAX_INTERFACES`]
//! interfaces. Nothing else is kept from one packet to the next.

use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::PcapError;

/// Most interfaces one pcapng section may describe (a real capture has a handful).
pub const MAX_INTERFACES: usize = 4096;

/// Link-layer types this reader takes apart (LINKTYPE_* numbers of the pcap spec).
pub mod linktype {
    /// BSD loopback: a 4-byte address family in host order.
    pub const NULL: u32 = 0;
    /// Ethernet (what `tcpdump -i lo` writes on Linux).
    pub const ETHERNET: u32 = 1;
    /// Raw IP (IPv4 or IPv6, from the version nibble).
    pub const RAW: u32 = 101;
    /// OpenBSD loopback: a 4-byte address family in network order.
    pub const LOOP: u32 = 108;
    /// Linux cooked capture v1 (`tcpdump -i any` on older libpcap).
    pub const LINUX_SLL: u32 = 113;
    /// Raw IPv4.
    pub const IPV4: u32 = 228;
    /// Raw IPv6.
    pub const IPV6: u32 = 229;
    /// Linux cooked capture v2 (`tcpdump -i any`).
    pub const LINUX_SLL2: u32 = 276;
}

/// Why a capture file could not be read (further).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    /// The 1-based number of the packet (record) being read when it failed; 0 = the header.
    pub packet: u64,
    /// What went wrong.
    pub reason: String,
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.packet == 0 {
            write!(f, "capture header: {}", self.reason)
        } else {
            write!(f, "capture record {}: {}", self.packet, self.reason)
        }
    }
}

impl std::error::Error for CaptureError {}

fn describe(e: PcapError) -> String {
    match e {
        PcapError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the file ends inside a record (truncated capture, or a record longer than 8 MB)"
                .to_string()
        }
        PcapError::IncompleteBuffer => "the file ends inside a record (truncated)".to_string(),
        other => other.to_string(),
    }
}

/// One captured packet, as the file holds it.
#[derive(Debug, Clone, Copy)]
pub struct RawPacket<'a> {
    /// 1-based record number (as tshark counts frames).
    pub number: u64,
    /// Capture time since the epoch.
    pub time: Duration,
    /// The link-layer type of the interface it was captured on.
    pub linktype: u32,
    /// The captured bytes (possibly cut at the snap length).
    pub data: &'a [u8],
    /// The packet's length on the wire.
    pub orig_len: u32,
}

/// The file format, from its magic number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// libpcap (either byte order, micro- or nanosecond timestamps).
    Pcap,
    /// pcapng.
    PcapNg,
}

/// Tell the format from the first four bytes.
pub fn sniff(magic: &[u8]) -> Option<Format> {
    match magic {
        [0xd4, 0xc3, 0xb2, 0xa1, ..]
        | [0xa1, 0xb2, 0xc3, 0xd4, ..]
        | [0x4d, 0x3c, 0xb2, 0xa1, ..]
        | [0xa1, 0xb2, 0x3c, 0x4d, ..] => Some(Format::Pcap),
        [0x0a, 0x0d, 0x0d, 0x0a, ..] => Some(Format::PcapNg),
        _ => None,
    }
}

/// Read every packet of `input` and hand it to `each`, in file order. Stops at the first
/// unreadable record with its error (the packets before it have been handed over).
pub fn for_each_packet<R: Read>(
    mut input: R,
    mut each: impl FnMut(RawPacket<'_>),
) -> Result<u64, CaptureError> {
    let mut magic = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match input.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(CaptureError {
                    packet: 0,
                    reason: format!("cannot read: {e}"),
                })
            }
        }
    }
    let format = sniff(&magic[..got]).ok_or_else(|| CaptureError {
        packet: 0,
        reason: if got < 4 {
            format!("{got} bytes: too short for a pcap or pcapng file")
        } else {
            format!(
                "magic {:02x}{:02x}{:02x}{:02x} is neither pcap nor pcapng",
                magic[0], magic[1], magic[2], magic[3]
            )
        },
    })?;
    let whole = std::io::Cursor::new(magic[..got].to_vec()).chain(input);
    match format {
        Format::Pcap => read_pcap(whole, &mut each),
        Format::PcapNg => read_pcapng(whole, &mut each),
    }
}

fn read_pcap<R: Read>(input: R, each: &mut impl FnMut(RawPacket<'_>)) -> Result<u64, CaptureError> {
    let mut reader = PcapReader::new(input).map_err(|e| CaptureError {
        packet: 0,
        reason: describe(e),
    })?;
    let linktype = u32::from(reader.header().datalink);
    let mut number = 0u64;
    while let Some(next) = reader.next_packet() {
        number += 1;
        let p = next.map_err(|e| CaptureError {
            packet: number,
            reason: describe(e),
        })?;
        each(RawPacket {
            number,
            time: p.timestamp,
            linktype,
            data: &p.data,
            orig_len: p.orig_len,
        });
    }
    Ok(number)
}

fn read_pcapng<R: Read>(
    input: R,
    each: &mut impl FnMut(RawPacket<'_>),
) -> Result<u64, CaptureError> {
    let mut reader = PcapNgReader::new(input).map_err(|e| CaptureError {
        packet: 0,
        reason: describe(e),
    })?;
    let mut number = 0u64;
    let mut blocks = 0u64;
    // the link type of each interface the current section declared
    let mut links: Vec<u32> = Vec::new();
    loop {
        blocks += 1;
        let block = match reader.next_block() {
            None => break,
            Some(Err(e)) => {
                return Err(CaptureError {
                    packet: number + 1,
                    reason: format!("pcapng block {blocks}: {}", describe(e)),
                })
            }
            Some(Ok(b)) => b,
        };
        // Packets carry an interface index; its link type comes from the section's list.
        let (iface, time, data, orig_len) = match block {
            Block::EnhancedPacket(p) => (p.interface_id, p.timestamp, p.data, p.original_len),
            Block::SimplePacket(p) => (0u32, Duration::ZERO, p.data, p.original_len),
            Block::Packet(p) => (
                u32::from(p.interface_id),
                Duration::from_micros(p.timestamp),
                p.data,
                p.original_len,
            ),
            Block::SectionHeader(_) => {
                links.clear();
                continue;
            }
            Block::InterfaceDescription(idb) => {
                links.push(u32::from(idb.linktype));
                if links.len() > MAX_INTERFACES {
                    return Err(CaptureError {
                        packet: number + 1,
                        reason: format!(
                            "pcapng block {blocks}: more than {MAX_INTERFACES} interfaces in one section"
                        ),
                    });
                }
                continue;
            }
            _ => continue,
        };
        number += 1;
        let Some(&linktype) = links.get(iface as usize) else {
            return Err(CaptureError {
                packet: number,
                reason: format!("pcapng block {blocks}: packet names interface {iface}, which no interface description block declared"),
            });
        };
        each(RawPacket {
            number,
            time,
            linktype,
            data: &data,
            orig_len,
        });
    }
    Ok(number)
}

/// TCP flags the reassembly needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// SYN.
    pub syn: bool,
    /// ACK.
    pub ack: bool,
    /// FIN.
    pub fin: bool,
    /// RST.
    pub rst: bool,
}

/// One TCP segment taken out of a packet.
#[derive(Debug, Clone, Copy)]
pub struct Segment<'a> {
    /// Sender.
    pub src: SocketAddr,
    /// Receiver.
    pub dst: SocketAddr,
    /// Sequence number of the first payload byte (of the SYN itself when `syn`).
    pub seq: u32,
    /// The flags.
    pub flags: Flags,
    /// The TCP payload as captured.
    pub payload: &'a [u8],
    /// Payload bytes the snap length cut off (0 for a whole packet).
    pub cut: usize,
}

/// What a packet is, for the dissector.
#[derive(Debug)]
pub enum Parsed<'a> {
    /// A TCP segment.
    Tcp(Segment<'a>),
    /// Not TCP over IP (ARP, UDP, ICMP ...): ignored.
    Other,
    /// A link type this reader does not take apart.
    UnknownLink(u32),
    /// Headers that do not parse (why).
    Malformed(String),
}

fn sll2_to_ip(data: &[u8]) -> Option<&[u8]> {
    // LINUX_SLL2: protocol (2), reserved (2), ifindex (4), arphrd (2), pkttype (1),
    // addr len (1), addr (8): 20 bytes, then the network layer.
    data.get(20..)
}

/// Take a captured packet apart down to TCP.
pub fn parse<'a>(p: &RawPacket<'a>) -> Parsed<'a> {
    let sliced = match p.linktype {
        linktype::ETHERNET => SlicedPacket::from_ethernet(p.data),
        linktype::LINUX_SLL => SlicedPacket::from_linux_sll(p.data),
        linktype::RAW | linktype::IPV4 | linktype::IPV6 => SlicedPacket::from_ip(p.data),
        linktype::NULL | linktype::LOOP => match p.data.get(4..) {
            Some(ip) => SlicedPacket::from_ip(ip),
            None => return Parsed::Malformed("loopback header shorter than 4 bytes".into()),
        },
        linktype::LINUX_SLL2 => match sll2_to_ip(p.data) {
            Some(ip) => SlicedPacket::from_ip(ip),
            None => return Parsed::Malformed("LINUX_SLL2 header shorter than 20 bytes".into()),
        },
        other => return Parsed::UnknownLink(other),
    };
    let sliced = match sliced {
        Ok(s) => s,
        // A packet cut by the snap length parses up to where it ends; anything else is
        // not a packet we can use.
        Err(e) => return Parsed::Malformed(e.to_string()),
    };
    let (src_ip, dst_ip): (IpAddr, IpAddr) = match &sliced.net {
        Some(NetSlice::Ipv4(v4)) => (
            v4.header().source_addr().into(),
            v4.header().destination_addr().into(),
        ),
        Some(NetSlice::Ipv6(v6)) => (
            v6.header().source_addr().into(),
            v6.header().destination_addr().into(),
        ),
        _ => return Parsed::Other,
    };
    let Some(TransportSlice::Tcp(tcp)) = &sliced.transport else {
        return Parsed::Other;
    };
    let payload = tcp.payload();
    let cut = (p.orig_len as usize).saturating_sub(p.data.len());
    Parsed::Tcp(Segment {
        src: SocketAddr::new(src_ip, tcp.source_port()),
        dst: SocketAddr::new(dst_ip, tcp.destination_port()),
        seq: tcp.sequence_number(),
        flags: Flags {
            syn: tcp.syn(),
            ack: tcp.ack(),
            fin: tcp.fin(),
            rst: tcp.rst(),
        },
        payload,
        cut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_apart_by_magic() {
        assert_eq!(sniff(&[0xd4, 0xc3, 0xb2, 0xa1]), Some(Format::Pcap));
        assert_eq!(sniff(&[0x0a, 0x0d, 0x0d, 0x0a]), Some(Format::PcapNg));
        assert_eq!(sniff(b"GET "), None);
        let e = for_each_packet(&b"\x7fELF\x02\x01"[..], |_| {}).unwrap_err();
        assert!(e.reason.contains("neither pcap nor pcapng"), "{e}");
        let e = for_each_packet(&b"\xd4\xc3"[..], |_| {}).unwrap_err();
        assert!(e.reason.contains("too short"), "{e}");
    }
}
