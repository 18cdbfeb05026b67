//! Captured for real: tcpdump on loopback while a `pmix-peer` v61 tool runs the acceptance
//! conversation against a real PRRTE 5.0.0rc1 DVM (OpenPMIx 7.0.0rc1; started by
//! `tools/prrte/dvm.sh` through pmix-testsupport): register events, allocation
//! with `PMIX_ALLOC_INHERITANCE`, `PMIX_DVM_IS_READY`, spawn, queries, job control,
//! finalize. Every message must decode and the connection must equal the conversation the
//! peer logged. Needs tcpdump and the sid root; says so loudly without them, fails under CI.

mod support;

use std::time::Duration;

use pmix_codec::{BufferKind, Codec, Component};
use pmix_pcap::Event;
use pmix_peer::scenario::{self, Plan};
use pmix_peer::Limits;
use support::*;

#[test]
fn live_capture_of_a_prrte_tool_conversation_decodes_as_the_peer_logged() {
    if !Tcpdump::available() {
        return missing("tcpdump is MISSING (apt-get install tcpdump; tools/setup.sh installs it)");
    }
    if !Dvm::available() {
        return missing(
            "PRRTE 5.0.0rc1 sid root is MISSING: run `bash tools/peers.sh make 7.0.0rc1`",
        );
    }
    let dvm = Dvm::start("n1,n2", "pcap");
    let uri = dvm.uri();
    let dir = std::env::temp_dir().join(format!("pmix-pcap-prrte-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("prrte.pcap");
    let dump =
        Tcpdump::start(&file, &format!("tcp port {}", uri.addr.port()), None).expect("tcpdump");
    let plan = Plan {
        component: Component::V61,
        nspace: format!("pcap-prrte-{}", std::process::id()),
        node: "n2".into(),
        req_id: "pcap-req".into(),
        argv: vec!["/bin/sleep".into(), "2".into()],
        limits: Limits {
            connect: Duration::from_secs(5),
            handshake: Duration::from_secs(10),
            reply: Duration::from_secs(30),
            max_payload: 16 << 20,
            ..Limits::default()
        },
        ready_wait: Duration::from_secs(30),
    };
    let r = scenario::run(&uri, &plan);
    let bytes = dump.stop();
    keep_capture("prrte-5.0.0rc1.pcap", &std::fs::read(&file).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    assert!(r.accepted(&plan), "{}", r.to_json());
    let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
    let vector = pmix_peer::conversation::to_vector_file(&codec, "prrte", &r.transcript).unwrap();

    let (events, conns) = dissect(&bytes);
    let errs = errors(&events);
    assert!(errs.is_empty(), "{errs:?}");
    let id = events
        .iter()
        .find_map(|e| match e {
            Event::Connection(c) if c.proc.as_ref().is_some_and(|(ns, _)| *ns == plan.nspace) => {
                Some(c.id)
            }
            _ => None,
        })
        .expect("the tool's connection");
    let conn = conns.iter().find(|c| c[0].conn == id).unwrap();
    assert!(conn.len() > 10, "{} messages", conn.len());
    assert_same_conversation(conn, &vector);
}
