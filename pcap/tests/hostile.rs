//! Hostile captures: a million tiny connections, garbage on a PMIx connection, frames whose
//! length lies, absurd record lengths. Clear reports, no panic, and memory bounded by the
//! limits (the live state), not by the capture.

use std::time::Duration;

use etherparse::PacketBuilder;
use pmix_codec::Component;
use pmix_pcap::capture::{linktype, RawPacket};
use pmix_pcap::{Dissector, Event, Options, Severity};
use pmix_ptl::{ConnectRequest, Identity};

/// One Ethernet/IPv4/TCP packet from `a` to `b` (ports), with `seq` and flags.
fn tcp(a: u16, b: u16, seq: u32, syn: bool, fin: bool, payload: &[u8]) -> Vec<u8> {
    let mut builder = PacketBuilder::ethernet2([0; 6], [0; 6])
        .ipv4([127, 0, 0, 1], [127, 0, 0, 1], 64)
        .tcp(a, b, seq, 1024)
        .ack(1);
    if syn {
        builder = builder.syn();
    }
    if fin {
        builder = builder.fin();
    }
    let mut out = Vec::with_capacity(64 + payload.len());
    builder.write(&mut out, payload).unwrap();
    out
}

fn feed(d: &mut Dissector<'_>, n: &mut u64, data: &[u8]) {
    *n += 1;
    d.packet(&RawPacket {
        number: *n,
        time: Duration::from_micros(*n),
        linktype: linktype::ETHERNET,
        data,
        orig_len: data.len() as u32,
    });
}

#[test]
fn a_million_tiny_connections_stay_within_the_connection_limit() {
    let opts = Options {
        max_connections: 10_000,
        ..Options::default()
    };
    let mut pmix_like = 0u64;
    let mut sink = |e: Event| {
        if let Event::Connection(_) = e {
            pmix_like += 1;
        }
    };
    let mut d = Dissector::new(opts, &mut sink);
    let mut n = 0;
    for i in 0..1_000_000u32 {
        // each opens, sends half of a connect header, and never closes
        let (port_a, port_b) = (1024 + (i % 60_000) as u16, 30_000 + (i / 60_000) as u16);
        feed(&mut d, &mut n, &tcp(port_a, port_b, 7, true, false, &[]));
        feed(
            &mut d,
            &mut n,
            &tcp(port_a, port_b, 8, false, false, &[0xff; 12]),
        );
    }
    let stats = d.finish(n);
    assert_eq!(stats.connections, 1_000_000);
    assert!(stats.evicted >= 990_000, "{stats:?}");
    // 10 000 connections of 12 bytes (plus buffer slack) at most, never the whole capture
    assert!(stats.peak_held < 10_000 * 64, "{stats:?}");
    assert_eq!(pmix_like, 0);
}

#[test]
fn closed_tiny_connections_hold_nothing() {
    let mut sink = |_: Event| {};
    let mut d = Dissector::new(Options::default(), &mut sink);
    let mut n = 0;
    for i in 0..200_000u32 {
        let (a, b) = (1024 + (i % 60_000) as u16, 40_000 + (i / 60_000) as u16);
        feed(&mut d, &mut n, &tcp(a, b, 7, true, false, &[]));
        feed(
            &mut d,
            &mut n,
            &tcp(a, b, 8, false, true, b"GET / HTTP/1.0\r\n"),
        );
        feed(&mut d, &mut n, &tcp(b, a, 99, false, true, &[]));
    }
    let stats = d.finish(n);
    assert_eq!(stats.not_pmix, 200_000);
    assert!(stats.peak_held < 1 << 16, "{stats:?}");
    assert_eq!(stats.evicted, 0);
}

fn connect_bytes() -> Vec<u8> {
    let mut req = ConnectRequest::tool(
        Identity::ToolGivenId {
            nspace: "hostile".into(),
            rank: 0,
        },
        Component::V61,
    );
    req.uid = 0;
    req.gid = 0;
    req.encode().unwrap().to_vec()
}

fn answer_bytes() -> Vec<u8> {
    let mut a = vec![0u8; 268];
    a[4..10].copy_from_slice(b"server");
    a
}

/// A PMIx connection after its handshake, then `client_bytes` from the client.
fn pmix_then(client_bytes: &[u8], opts: Options) -> Vec<Event> {
    let mut events = Vec::new();
    let mut sink = |e: Event| events.push(e);
    let mut d = Dissector::new(opts, &mut sink);
    let mut n = 0;
    let c = connect_bytes();
    let a = answer_bytes();
    feed(&mut d, &mut n, &tcp(5000, 6000, 0, true, false, &[]));
    feed(&mut d, &mut n, &tcp(6000, 5000, 0, true, false, &[]));
    feed(&mut d, &mut n, &tcp(5000, 6000, 1, false, false, &c));
    feed(&mut d, &mut n, &tcp(6000, 5000, 1, false, false, &a));
    let mut seq = 1 + c.len() as u32;
    for chunk in client_bytes.chunks(1400) {
        feed(&mut d, &mut n, &tcp(5000, 6000, seq, false, false, chunk));
        seq += chunk.len() as u32;
    }
    d.finish(n);
    events
}

fn problems(events: &[Event]) -> Vec<(Severity, String)> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::Message(m) => {
                out.extend(m.problems.iter().map(|p| (p.severity, p.text.clone())))
            }
            Event::Problem { problem, .. } => out.push((problem.severity, problem.text.clone())),
            _ => {}
        }
    }
    out
}

#[test]
fn a_frame_whose_length_lies_is_named_and_nothing_is_allocated_for_it() {
    let mut hdr = vec![0, 0, 0, 0, 0, 0, 0, 100];
    hdr.extend_from_slice(&0xffff_ff00u32.to_be_bytes());
    hdr.extend_from_slice(&[0; 4]);
    hdr.extend_from_slice(&[0x02; 100]);
    let events = pmix_then(&hdr, Options::default());
    let p = problems(&events);
    assert!(
        p.iter()
            .any(|(s, t)| *s == Severity::Error && t.contains("lying frame")),
        "{p:?}"
    );
    let stats = events.iter().find_map(|e| match e {
        Event::Stats(s) => Some(s.clone()),
        _ => None,
    });
    assert!(stats.unwrap().peak_held < 1 << 16);
}

#[test]
fn a_truncated_frame_is_named_at_the_end() {
    let mut f = vec![0, 0, 0, 0, 0, 0, 0, 100];
    f.extend_from_slice(&50u32.to_be_bytes());
    f.extend_from_slice(&[0; 4]);
    f.extend_from_slice(&[0x02, 0x11]);
    let p = problems(&pmix_then(&f, Options::default()));
    assert!(
        p.iter().any(|(_, t)| t.contains(
            "truncated frame: the header says 50 payload bytes, the stream ends after 2"
        )),
        "{p:?}"
    );
}

#[test]
fn garbage_on_a_pmix_connection_is_flagged_without_panic() {
    // pseudo-random bytes (fixed seed): frames with random headers and payloads
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..200 {
        let mut g = Vec::new();
        for _ in 0..(64 + round * 7) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            g.push(x as u8);
        }
        // a plausible header with a random payload every other round
        if round % 2 == 0 {
            let len = (g.len() - 16) as u32;
            g[..16].copy_from_slice(&[0, 0, 0, 0, 0, 0, 0, 101, 0, 0, 0, 0, 0, 0, 0, 0]);
            g[8..12].copy_from_slice(&len.to_be_bytes());
        }
        let opts = Options {
            max_frame: 1 << 16,
            ..Options::default()
        };
        let events = pmix_then(&g, opts);
        let p = problems(&events);
        assert!(
            p.iter().any(|(s, _)| *s == Severity::Error),
            "round {round}: garbage went unflagged: {p:?}"
        );
    }
}

#[test]
fn random_bytes_are_no_capture() {
    let mut x: u32 = 12345;
    for len in [0usize, 3, 4, 24, 100, 5000] {
        let mut b: Vec<u8> = (0..len)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        let (_, r) = pmix_pcap::dissect_bytes(&b, Options::default());
        assert!(r.is_err(), "{len} random bytes read as a capture");
        // a pcap header followed by garbage records
        if len >= 24 {
            b[..4].copy_from_slice(&[0xd4, 0xc3, 0xb2, 0xa1]);
            let _ = pmix_pcap::dissect_bytes(&b, Options::default());
        }
        // a pcapng section header magic followed by garbage
        if len >= 28 {
            b[..4].copy_from_slice(&[0x0a, 0x0d, 0x0d, 0x0a]);
            let _ = pmix_pcap::dissect_bytes(&b, Options::default());
        }
    }
}

#[test]
fn mutated_real_captures_never_panic() {
    let full = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/captures/type75-v51.pcap"),
    )
    .unwrap();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..500 {
        let mut b = full.clone();
        for _ in 0..1 + round % 8 {
            let at = (next() as usize) % b.len();
            b[at] = next() as u8;
        }
        let opts = Options {
            component: (round % 3 == 0).then_some(Component::V51),
            ..Options::default()
        };
        let (events, _) = pmix_pcap::dissect_bytes(&b, opts);
        for e in &events {
            let _ = pmix_pcap::report::tree(e);
            let _ = pmix_pcap::report::summary(e);
            let _ = e.to_json();
        }
    }
}
