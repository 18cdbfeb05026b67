//! Issue 25, finding 1: after the handshake a server floods frames on a tag the tool never
//! asked for. Every received frame went into the transcript, which nothing bounded: the
//! peer grew to 1.99 GB and aborted under `ulimit -v 2000000`. The transcript is now bounded
//! by count and bytes (`Limits::max_transcript_*`), and the excess is refused with a clear
//! error.
//!
//! A tiny hostile server (a thread here) answers the tool's connect message and then
//! floods; the tool runs in a child process under `ulimit -v 2000000` (this test binary,
//! again), which must exit normally.

use pmix_codec::{BufferKind, Component};
use pmix_peer::frame::{Frame, Header};
use pmix_peer::{ConnectRequest, Identity, Limits, Peer, PeerError, ServerUri};
use pmix_testsupport::{is_limited_child, rerun_under_ulimit};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

/// Accept one tool, answer its connect message, then send `frames` frames of `size` bytes
/// on tag 4242 (nobody asks for it), or until the tool goes away.
fn hostile_server(size: usize, frames: usize) -> ServerUri {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        // the connect message: read what comes within 300 ms
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut buf = [0u8; 4096];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
        }
        let reply = pmix_ptl::accept::tool_reply(0, None, ("flood", 0), 0).unwrap();
        if s.write_all(&reply).is_err() {
            return;
        }
        let frame = Frame {
            header: Header {
                pindex: 0,
                tag: 4242,
                nbytes: size as u32,
            },
            payload: vec![7u8; size].into(),
        }
        .to_wire();
        for _ in 0..frames {
            if s.write_all(&frame).is_err() {
                return;
            }
        }
    });
    ServerUri::parse(&format!("flood.0;tcp4://{addr}")).unwrap()
}

/// Connect, then wait for an event that never comes while the server floods; the error.
fn flooded(size: usize, frames: usize, limits: Limits) -> PeerError {
    let uri = hostile_server(size, frames);
    let req = ConnectRequest::tool(
        Identity::ToolGivenId {
            nspace: "tool".into(),
            rank: 0,
        },
        Component::V41,
    );
    assert_eq!(req.kind, BufferKind::NonDescribed);
    let mut peer = Peer::connect(&uri, &req, limits).expect("the handshake succeeds");
    let e = peer
        .wait_event(-31_337, Duration::from_secs(60))
        .expect_err("no such event comes");
    assert!(peer.transcript.len() <= limits.max_transcript_messages);
    let bytes: usize = peer.transcript.iter().map(|x| x.bytes.len()).sum();
    assert!(bytes <= limits.max_transcript_bytes, "{bytes}");
    e
}

#[test]
fn a_flood_of_large_frames_stops_at_the_byte_bound() {
    const TEST: &str = "a_flood_of_large_frames_stops_at_the_byte_bound";
    if is_limited_child(TEST) {
        // 64 KiB frames: 3 GiB if all were kept
        let e = flooded(64 << 10, 48 << 10, Limits::default());
        println!("error: {e}");
        return;
    }
    let out = rerun_under_ulimit(TEST, 2_000_000, "the peer, flooded,");
    assert!(
        out.contains("malformed transcript: the transcript is full")
            && out.contains("limits 10000 messages, 67108864 bytes"),
        "{out}"
    );
}

#[test]
fn a_flood_of_tiny_frames_stops_at_the_count_bound() {
    const TEST: &str = "a_flood_of_tiny_frames_stops_at_the_count_bound";
    if is_limited_child(TEST) {
        // 16-byte frames (an empty payload)
        let e = flooded(0, 1 << 20, Limits::default());
        println!("error: {e}");
        return;
    }
    let out = rerun_under_ulimit(TEST, 2_000_000, "the peer, flooded,");
    assert!(
        out.contains("the transcript is full (10000 messages"),
        "{out}"
    );
}

#[test]
fn the_bounds_are_configurable() {
    let limits = Limits {
        max_transcript_messages: 50,
        ..Limits::default()
    };
    let e = flooded(0, 1000, limits);
    assert!(
        e.to_string()
            .contains("the transcript is full (50 messages"),
        "{e}"
    );
    let limits = Limits {
        max_transcript_bytes: 100_000,
        ..Limits::default()
    };
    let e = flooded(1000, 1000, limits);
    assert!(
        e.to_string()
            .contains("limits 10000 messages, 100000 bytes"),
        "{e}"
    );
}
