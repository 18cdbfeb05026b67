//! The native peer against a second real server: a plain OpenPMIx 7.0.0rc1 server with no
//! resource manager (`peer/servers/plain-server.c`, built inside the sid root of
//! `bash tools/peers.sh make 7.0.0rc1`). It grants allocations itself and logs what its
//! library delivered to it, so the test sees both sides: what the server answered and how
//! libpmix unpacked our bytes (type 75 arriving as type 75).
//!
//! If the root is missing the test says so loudly, and fails when `CI` is set.

use std::time::Duration;

use pmix_codec::{attrs, App, Component, Info, Query, Value};
use pmix_peer::scenario::{probe_type75, Plan};
use pmix_peer::{AllocDirective, ConnectRequest, Identity, Limits, Peer};
use pmix_testsupport::{missing, sid_root, PlainServer};

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

#[test]
fn plain_openpmix_7_server_as_v61_v51_v41_tool() {
    let Some(root) = sid_root() else {
        return missing(
            "OpenPMIx 7.0.0rc1 sid root is MISSING: run `bash tools/peers.sh make 7.0.0rc1` \
             (needs root); the plain-server test",
        );
    };
    let server = PlainServer::start();
    assert_eq!(server.uri.nspace, "plain-server");
    for (i, component) in [Component::V61, Component::V51, Component::V41]
        .into_iter()
        .enumerate()
    {
        let name = format!("plain-{}", component.name());
        let req = ConnectRequest::tool(
            Identity::ToolGivenId {
                nspace: name.clone(),
                rank: 0,
            },
            component,
        );
        let mut peer = Peer::connect(&server.uri, &req, limits()).expect("handshake");
        assert_eq!(peer.reply.server_nspace, "plain-server");
        assert_eq!(peer.register_events(vec![-195], vec![]).unwrap(), 0);

        let mut infos = vec![Info::new(key("PMIX_ALLOC_NODE_LIST"), Value::string("n1"))];
        if component == Component::V61 {
            infos.push(Info::new(
                key("PMIX_ALLOC_INHERITANCE"),
                Value::AllocInherit(attrs::AllocInherit::Child as u8),
            ));
        }
        let reqid = format!("rq-{name}");
        infos.push(Info::new(key("PMIX_ALLOC_REQ_ID"), Value::string(&reqid)));
        let a = peer.alloc(AllocDirective::New, infos).unwrap();
        assert_eq!(a.status, 0, "{a:?}");
        let want_id = format!("plain.{}", i + 1);
        assert!(
            matches!(a.get(key("PMIX_ALLOC_ID")), Some(Value::String(Some(t))) if t.to_string() == want_id),
            "{a:?}"
        );
        assert!(
            matches!(a.get(key("PMIX_ALLOC_REQ_ID")), Some(Value::String(Some(t))) if t.to_string() == reqid),
            "{a:?}"
        );

        // No host spawn or query upcall: the library itself answers, spawn with
        // PMIX_ERR_NOT_SUPPORTED (-47), an unresolved query with PMIX_ERR_UNREACH (-25).
        let sp = peer
            .spawn(
                vec![Info::new(key("PMIX_SPAWN_TARGET"), Value::string(&want_id))],
                vec![App {
                    cmd: Some("/bin/true".into()),
                    argv: vec![Some("/bin/true".into())],
                    maxprocs: 1,
                    ..App::default()
                }],
            )
            .unwrap();
        assert_eq!(sp.status, -47, "{sp:?}");
        let q = peer
            .query(vec![Query {
                keys: vec![Some("pmix.query.alloc.ids".into())],
                qualifiers: vec![],
            }])
            .unwrap();
        assert_eq!(q.status, -25, "{q:?}");
        peer.finalize(Duration::from_secs(5)).expect("finalize");

        if component != Component::V61 {
            let plan = Plan {
                component,
                nspace: name.clone(),
                node: "n1".into(),
                req_id: reqid.clone(),
                argv: vec!["/bin/true".into()],
                limits: limits(),
                ready_wait: Duration::from_secs(1),
            };
            let probe = probe_type75(&server.uri, &plan);
            assert!(probe.contains("status -16"), "{probe}");
        }
    }
    // The tool rendezvous files the server left in its tmpdir lead to the same server.
    let mut found = None;
    for dir in std::fs::read_dir(root.join("tmp")).unwrap().flatten() {
        if dir
            .file_name()
            .to_string_lossy()
            .starts_with("plain-server.")
        {
            for (path, parsed) in pmix_peer::rendezvous::scan_rendezvous_dir(&dir.path()).unwrap() {
                if let Ok(u) = parsed {
                    if u.uri == server.uri.uri {
                        found = Some((path, u));
                    }
                }
            }
        }
    }
    let (path, rv) = found.expect("a pmix.*.tool.* rendezvous file naming this server");
    eprintln!("rendezvous file {}", path.display());
    assert_eq!(rv.version.as_deref(), Some("7.0.0rc1"));
    let given = ConnectRequest::tool(
        Identity::ToolGivenId {
            nspace: "plain-rv".into(),
            rank: 0,
        },
        Component::V61,
    );
    let p =
        Peer::connect(&rv, &given, limits()).expect("given-id tool through the rendezvous file");
    p.finalize(Duration::from_secs(5)).unwrap();
    // A needs-id tool needs the host's tool_connected upcall, which this server lacks: the
    // library decides PMIX_ERR_NOT_SUPPORTED internally (ptl_base_connection_hdlr.c) but
    // the tool only sees the socket closed, without a status.
    let needs = ConnectRequest::tool(Identity::ToolNeedsId, Component::V61);
    match Peer::connect(&rv, &needs, limits()) {
        Err(e) => assert!(matches!(e, pmix_peer::PeerError::Closed { .. }), "{e}"),
        Ok(p) => panic!("needs-id accepted without tool_connected: {:?}", p.reply),
    }

    let log = server.log_text();
    eprintln!("{log}");
    // what libpmix handed its host for our v61 request: type 75, value CHILD (2)
    assert!(log.contains("pmix.alloc.inhrt type 75 byte 2"), "{log}");
    assert!(
        log.contains("alloc from plain-v41:0 directive 1 ninfo 2"),
        "{log}"
    );
}

#[test]
fn pmix_peer_live_runs_the_live_matrix_tool_operations_against_the_plain_server() {
    if sid_root().is_none() {
        return missing(
            "OpenPMIx 7.0.0rc1 sid root is MISSING: run `bash tools/peers.sh make 7.0.0rc1` \
             (needs root); the live tool operations test",
        );
    }
    let server = PlainServer::start();
    for (component, how) in [
        (Component::V61, "as ALLOC_INHERIT (type 75)"),
        (Component::V41, "as UINT8"),
    ] {
        let lines = pmix_peer::live::tool_ops(
            &server.uri,
            component,
            &format!("plain-live-{}", component.name()),
        );
        let ops: Vec<&str> = lines.iter().map(|l| l.op).collect();
        assert_eq!(
            ops,
            ["init", "query", "allocation-inherit", "finalize"],
            "{lines:?}"
        );
        assert_eq!(lines[0].status, 0, "{lines:?}");
        // no host query upcall: the library answers an unresolved query with UNREACH
        assert_eq!(lines[1].status, -25, "{lines:?}");
        assert_eq!(lines[2].status, 0, "{lines:?}");
        assert!(lines[2].observed.contains(how), "{lines:?}");
        assert!(
            lines[2].observed.contains("pmix.alloc.id=plain."),
            "{lines:?}"
        );
        assert_eq!(lines[3].status, 0, "{lines:?}");
        assert!(lines[2]
            .to_string()
            .starts_with("OP allocation-inherit 0 PMIX_SUCCESS "));
    }
}
