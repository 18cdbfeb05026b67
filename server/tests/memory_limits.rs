//! pmix-server under an address-space limit: memory follows the bytes peers really send,
//! never the lengths they claim. The test runs again in a child process under
//! `ulimit -v 1000000` (about 1 GB), where an allocation of what the peers claim (48 frames
//! of 16 MiB, and connect messages and frames of 4 GiB) would abort the process.

use std::io::Write;
use std::time::Duration;

use pmix_codec::Component;
use pmix_peer::conn::Verdict;
use pmix_peer::frame::{Header, HEADER_LEN};
use pmix_peer::{ConnectRequest, Identity, Limits, Peer, ServerUri};
use pmix_server::{Config, Job, Server};
use pmix_testsupport::{is_limited_child, rerun_under_ulimit};

fn limits() -> Limits {
    Limits {
        connect: Duration::from_secs(5),
        handshake: Duration::from_secs(5),
        reply: Duration::from_millis(200),
        ..Limits::default()
    }
}

fn tool(uri: &ServerUri) -> Peer {
    let req = ConnectRequest::tool(Identity::ToolNeedsId, Component::V61);
    Peer::connect(uri, &req, limits()).expect("a tool connects")
}

/// A steady-state header claiming `nbytes`, then `sent` bytes of its payload.
fn claim(nbytes: u32, sent: usize) -> Vec<u8> {
    let mut b = bytes::BytesMut::with_capacity(HEADER_LEN + sent);
    Header {
        pindex: 0,
        tag: 4242,
        nbytes,
    }
    .encode(&mut b);
    b.extend_from_slice(&vec![0x5a; sent]);
    b.to_vec()
}

#[test]
fn claimed_lengths_cost_nothing_until_the_bytes_come() {
    const TEST: &str = "claimed_lengths_cost_nothing_until_the_bytes_come";
    if !is_limited_child(TEST) {
        let out = rerun_under_ulimit(TEST, 1_000_000, "pmix-server, under lying peers,");
        assert!(out.contains("served after the attack"), "{out}");
        return;
    }
    let server = Server::start(Config::new(Job::new("tooljob", 1))).unwrap();
    let file = std::env::temp_dir().join(format!("pw-srv-mem-{}", std::process::id()));
    server.write_uri_file(&file).unwrap();
    let uri = ServerUri::from_file(&file).unwrap();
    let _ = std::fs::remove_file(&file);

    // Connect messages claiming 4 GiB: dropped unread.
    for _ in 0..32 {
        let mut s = std::net::TcpStream::connect(server.addr).unwrap();
        let mut hdr = bytes::BytesMut::new();
        Header {
            pindex: -1,
            tag: 0,
            nbytes: u32::MAX,
        }
        .encode_connect(&mut hdr);
        // the server may close before all of it is written
        let _ = s.write_all(&hdr);
        let _ = s.write_all(&[0u8; 4096]);
    }
    // Frames claiming 4 GiB after a good handshake: dropped.
    for n in 0..16 {
        let v = tool(&uri).send_header_and_bytes(&claim(u32::MAX, 1 << 16));
        assert!(matches!(v, Ok(Verdict::Dropped)), "lying tool {n}: {v:?}");
    }
    // Frames claiming the largest length the server accepts (16 MiB), with 64 KiB sent and
    // the rest never coming: the server waits, holding what came. 48 of them would be
    // 768 MiB if the claims were allocated.
    let mut waiting = Vec::new();
    for n in 0..48 {
        let mut t = tool(&uri);
        let v = t.send_header_and_bytes(&claim((16 << 20) - 1, 1 << 16));
        assert!(matches!(v, Ok(Verdict::Silent)), "stalled tool {n}: {v:?}");
        waiting.push(t);
    }
    assert!(server.open_connections() >= 48);
    // And a fresh tool is still served.
    tool(&uri)
        .finalize(Duration::from_secs(5))
        .expect("a tool is served after the attack");
    println!(
        "served after the attack: {} connections open",
        server.open_connections()
    );
    drop(waiting);
}
