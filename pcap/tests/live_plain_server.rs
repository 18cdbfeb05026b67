//! Captured for real: tcpdump on loopback while `pmix-peer` tools (v61, v51, v41) talk to
//! the plain OpenPMIx 7.0.0rc1 server, and a v51 tool sends the type-75 allocation its
//! component cannot carry. Every message of every connection must decode, each connection
//! must equal the conversation the peer logged, and the type-75 failure must be named at
//! its byte. Needs tcpdump and the sid root (`bash tools/peers.sh make 7.0.0rc1`); says so
//! loudly without them, and fails under CI.
//!
//! `PMIX_PCAP_KEEP=DIR` keeps the capture (that is how tests/captures/ was recorded).

mod support;

use std::time::Duration;

use pmix_codec::{attrs, BufferKind, Codec, Component, Info, Query, Value};
use pmix_pcap::{Event, Severity, Side};
use pmix_peer::scenario::{probe_type75, Plan};
use pmix_peer::{AllocDirective, ConnectRequest, Identity, Limits, Peer};
use support::*;

fn limits() -> Limits {
    Limits {
        connect: Duration::from_secs(5),
        handshake: Duration::from_secs(10),
        reply: Duration::from_secs(10),
        max_payload: 16 << 20,
        ..Limits::default()
    }
}

fn key(name: &str) -> &'static str {
    attrs::attribute(name).unwrap().key
}

/// One tool conversation; the peer's own log of it as a conversation vector.
fn converse(server: &PlainServer, component: Component) -> serde_json::Value {
    let name = format!("pcap-{}", component.name());
    let req = ConnectRequest::tool(
        Identity::ToolGivenId {
            nspace: name.clone(),
            rank: 0,
        },
        component,
    );
    let mut peer = Peer::connect(&server.uri, &req, limits()).expect("handshake");
    assert_eq!(peer.register_events(vec![-195], vec![]).unwrap(), 0);
    let a = peer
        .alloc(
            AllocDirective::New,
            vec![
                Info::new(key("PMIX_ALLOC_NODE_LIST"), Value::string("n1")),
                Info::new(
                    key("PMIX_ALLOC_REQ_ID"),
                    Value::string(&format!("rq-{name}")),
                ),
            ],
        )
        .unwrap();
    assert_eq!(a.status, 0, "{a:?}");
    let q = peer
        .query(vec![Query {
            keys: vec![Some("pmix.query.alloc.ids".into())],
            qualifiers: vec![],
        }])
        .unwrap();
    assert_eq!(q.status, -25, "{q:?}");
    let (_, transcript) = peer.finalize(Duration::from_secs(5)).expect("finalize");
    let codec = Codec::new(component, BufferKind::NonDescribed);
    pmix_peer::conversation::to_vector_file(&codec, "plain-server", &transcript).unwrap()
}

#[test]
fn live_capture_of_plain_server_conversations_decodes_as_the_peer_logged() {
    if !Tcpdump::available() {
        return missing("tcpdump is MISSING (apt-get install tcpdump; tools/setup.sh installs it)");
    }
    if sid_root().is_none() {
        return missing(
            "OpenPMIx 7.0.0rc1 sid root is MISSING: run `bash tools/peers.sh make 7.0.0rc1`",
        );
    }
    let server = PlainServer::start();
    let port = server.uri.addr.port();
    eprintln!("server {:?}", server.uri.addr);
    let dir = std::env::temp_dir().join(format!("pmix-pcap-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("plain.pcap");
    let dump = Tcpdump::start(&file, &format!("tcp port {port}"), None).expect("tcpdump starts");
    let mut vectors = Vec::new();
    for c in [Component::V61, Component::V51, Component::V41] {
        vectors.push(converse(&server, c));
    }
    let plan = Plan {
        component: Component::V51,
        nspace: "pcap-v51".into(),
        node: "n1".into(),
        req_id: "rq-pcap".into(),
        argv: vec!["/bin/true".into()],
        limits: limits(),
        ready_wait: Duration::from_secs(1),
    };
    let probe = probe_type75(&server.uri, &plan);
    assert!(probe.contains("status -16"), "{probe}");
    let bytes = dump.stop();
    keep_capture("plain-server-7.0.0rc1.pcap", &std::fs::read(&file).unwrap());
    let _ = std::fs::remove_dir_all(&dir);

    let (events, conns) = dissect(&bytes);
    assert_eq!(conns.len(), 4, "three conversations and the probe");
    for (i, c) in [Component::V61, Component::V51, Component::V41]
        .into_iter()
        .enumerate()
    {
        let info = events
            .iter()
            .find_map(|e| match e {
                Event::Connection(ci) if ci.id == conns[i][0].conn => Some(ci.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(info.component, Some(c));
        assert_eq!(info.buffer, Some(BufferKind::NonDescribed));
        assert_eq!(info.server.port(), port);
        for m in &conns[i] {
            assert!(
                m.problems.iter().all(|p| p.severity == Severity::Note),
                "{}: {:?}",
                m.what,
                m.problems
            );
        }
        assert_same_conversation(&conns[i], &vectors[i]);
    }
    // the probe: the v51 connection's alloc carries type 75, which v51 does not register
    let probe_conn = &conns[3];
    let alloc = probe_conn
        .iter()
        .find(|m| m.what == "alloc")
        .expect("the probe's alloc");
    let p = alloc
        .problems
        .iter()
        .find(|p| p.severity == Severity::Error)
        .expect("flagged");
    let off = p.offset.unwrap();
    let wire: Vec<u8> = alloc.header.iter().chain(&alloc.payload).copied().collect();
    assert_eq!(
        &wire[off..off + 2],
        &[0x00, 0x4b],
        "points at the type field"
    );
    assert!(p.explanation.as_deref().unwrap().contains("ALLOC_INHERIT"));
    let reply = probe_conn.iter().find(|m| m.what == "reply:alloc").unwrap();
    assert_eq!(reply.from, Side::Server);
    assert_eq!(reply.status, Some(-16));
    assert_eq!(reply.reply_to, Some(alloc.number));
    assert!(reply.problems.iter().any(|p| p.severity == Severity::Error
        && p.explanation
            .as_deref()
            .unwrap_or("")
            .contains("UNKNOWN_DATA_TYPE")));
    assert_eq!(
        errors(&events).len(),
        2,
        "only the probe's two messages: {:?}",
        errors(&events)
    );
}
