//! Acceptance of issue 15 against a real PRRTE 5.0.0rc1 DVM (OpenPMIx 7.0.0rc1), started by
//! `tools/prrte/dvm.sh` inside the sid root that `bash tools/peers.sh make 7.0.0rc1` makes.
//!
//! For each client component (v61, v51, v41), on its own 4-node DVM: connect as a tool, NEW
//! allocation of one node with a request id (and `PMIX_ALLOC_INHERITANCE=CHILD` where the
//! component has type 75), `PMIX_ALLOC_ID` and the echoed request id, the
//! `PMIX_DVM_IS_READY` event, a spawn with `PMIX_SPAWN_TARGET`, the job's process on the
//! reserved node in the proc table, finalize. For v41/v51 the expected result of carrying
//! type 75 anyway is the server's `PMIX_ERR_UNKNOWN_DATA_TYPE` (-16), recorded here.
//!
//! If the root is missing the test says so loudly, and fails when `CI` is set.

use std::process::Command;
use std::time::Duration;

use pmix_codec::Component;
use pmix_peer::scenario::{self, Plan, DVM_IS_READY};
use pmix_peer::Limits;
use pmix_testsupport::{missing, repo, Dvm};

/// Whether the sid root with PRRTE exists; otherwise say so (and fail under CI).
fn prrte_available() -> bool {
    let ok = Dvm::available();
    if !ok {
        missing(
            "PRRTE 5.0.0rc1 / OpenPMIx 7.0.0rc1 sid root is MISSING: \
             run `bash tools/peers.sh make 7.0.0rc1` (needs root); the native-peer acceptance test",
        );
    }
    ok
}

fn plan(component: Component, node: &str) -> Plan {
    let pid = std::process::id();
    Plan {
        component,
        nspace: format!("acc{}-{pid}", component.name()),
        node: node.to_string(),
        req_id: format!("req-{}-{pid}", component.name()),
        argv: vec!["/bin/sleep".into(), "30".into()],
        limits: Limits {
            connect: Duration::from_secs(5),
            handshake: Duration::from_secs(10),
            reply: Duration::from_secs(30),
            max_payload: 16 << 20,
            ..Limits::default()
        },
        ready_wait: Duration::from_secs(30),
    }
}

fn acceptance(component: Component, node: &str) {
    if !prrte_available() {
        return;
    }
    let dvm = Dvm::start("n1,n2,n3,n4", component.name());
    let uri = dvm.uri();
    let p = plan(component, node);
    let r = scenario::run(&uri, &p);
    let summary = serde_json::to_string_pretty(&r.to_json()).unwrap();
    eprintln!("{summary}");

    let (server_ns, _) = r.server.clone().expect("handshake accepted");
    assert_eq!(server_ns, uri.nspace, "server nspace from the handshake");
    assert_eq!(r.alloc_status, Some(0), "{summary}");
    let id = r.alloc_id.clone().expect("PMIX_ALLOC_ID returned");
    // PRRTE mints "<owner nspace>.<n>"
    assert!(id.starts_with(&format!("{}.", p.nspace)), "alloc id {id}");
    assert_eq!(
        r.req_id_echo.as_deref(),
        Some(p.req_id.as_str()),
        "echoed request id"
    );
    let ev = r.ready_event.clone().expect("PMIX_DVM_IS_READY received");
    assert_eq!(ev.status, DVM_IS_READY);
    let (st, job) = r.spawn.clone().expect("spawn answered");
    assert_eq!(st, 0, "{summary}");
    assert!(job.is_some(), "spawn returned the job nspace");
    assert!(!r.procs.is_empty(), "proc table lists the job's processes");
    for (_, host) in &r.procs {
        assert_eq!(host, node, "process on the reserved node");
    }
    assert!(r.finalized, "finalize acknowledged");
    assert!(r.accepted(&p));
    if component == Component::V61 {
        assert!(r.inheritance_sent, "v61 carries PMIX_ALLOC_INHERITANCE");
    } else {
        // Expected result recorded: the component cannot express type 75; carried anyway,
        // the server refuses it with PMIX_ERR_UNKNOWN_DATA_TYPE.
        assert!(!r.inheritance_sent);
        assert!(r.inheritance_refusal.is_some());
        let probe = r.type75_probe.clone().unwrap_or_default();
        assert!(
            probe.contains("status -16"),
            "server's answer to type 75 in {}: {probe}",
            component.name()
        );
    }
}

#[test]
fn prrte_tool_v61_alloc_inheritance_spawn_target_proc_table() {
    acceptance(Component::V61, "n3");
}

#[test]
fn prrte_tool_v51_alloc_spawn_target_proc_table() {
    acceptance(Component::V51, "n2");
}

#[test]
fn prrte_tool_v41_alloc_spawn_target_proc_table() {
    acceptance(Component::V41, "n4");
}

/// Hostile mode, bounded: PRRTE must answer or drop every truncated or lying message and
/// survive (a death is a finding for peer/FINDINGS.md).
#[test]
fn prrte_survives_hostile_messages() {
    if !prrte_available() {
        return;
    }
    let dvm = Dvm::start("n1,n2,n3,n4", "hostile");
    let uri = dvm.uri();
    let text =
        std::fs::read_to_string(repo().join("vectors/openpmix-7.0.0rc1/v61-non-described.json"))
            .unwrap();
    let file = pmix_codec::vectors::VectorFile::from_json(&text).unwrap();
    let budget = pmix_peer::hostile::Budget {
        max_cases: 40,
        total: Duration::from_secs(60),
        per_case: Duration::from_secs(1),
    };
    let cases = pmix_peer::hostile::run(&uri, Component::V61, &file, budget).unwrap();
    for c in &cases {
        eprintln!("{}", c.to_json());
    }
    assert!(cases.len() >= 30, "only {} cases ran", cases.len());
    for c in &cases {
        assert!(
            !matches!(c.verdict, pmix_peer::hostile::Verdict::Died(_)),
            "PRRTE died: {}",
            c.to_json()
        );
    }
    // the lying-length connect messages are dropped, the truncated arguments answered
    assert!(cases
        .iter()
        .any(|c| c.verdict == pmix_peer::hostile::Verdict::Dropped));
    assert!(cases.iter().any(
        |c| matches!(&c.verdict, pmix_peer::hostile::Verdict::Answered(s) if s.contains("-50"))
    ));
}

/// The stored v61 conversation vector still describes what PRRTE says (the `--check` of
/// tools/prrte/conversations.sh, for one component).
#[test]
fn prrte_conversation_v61_matches_the_stored_vector() {
    if !prrte_available() {
        return;
    }
    let dvm = Dvm::start("n1,n2,n3,n4", "conv");
    let uri = dvm.uri();
    let mut p = plan(Component::V61, "n4");
    p.nspace = "conv-v61".into();
    p.req_id = "conv-req-v61".into();
    p.argv = vec!["/bin/sleep".into(), "5".into()];
    let r = scenario::run(&uri, &p);
    assert!(r.accepted(&p), "{}", r.to_json());
    let codec = pmix_codec::Codec::new(Component::V61, pmix_codec::BufferKind::NonDescribed);
    let fresh = pmix_peer::conversation::to_vector_file(&codec, "check", &r.transcript).unwrap();
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            repo().join("vectors/conversations/prrte-5.0.0rc1/v61-non-described.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let diffs = pmix_peer::conversation::compare(&stored, &fresh);
    assert!(
        diffs.is_empty(),
        "conversation changed:\n{}",
        diffs.join("\n")
    );
}

/// The `pmix-peer connect` command prints what the server said, as JSON and as text.
#[test]
fn pmix_peer_connect_prints_the_servers_answer() {
    if !prrte_available() {
        return;
    }
    let dvm = Dvm::start("n1,n2,n3,n4", "cli");
    let uri = dvm.uri();
    let bin = env!("CARGO_BIN_EXE_pmix-peer");
    for component in ["v61", "v51", "v41"] {
        let out = Command::new("timeout")
            .args(["30", bin, "connect", "--json", "-c", component, "--uri"])
            .arg(dvm.dir.join("uri"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["accepted"], true, "{j}");
        assert_eq!(j["component"], component);
        assert_eq!(j["server_nspace"], uri.nspace.as_str());
        assert_eq!(j["security"], 0);
        // the connect message starts with the host-order header: pindex -1, tag u32::MAX
        assert!(j["connect_message"]
            .as_str()
            .unwrap()
            .starts_with("ffffffffffffffff"));
    }
    let out = Command::new("timeout")
        .args(["30", bin, "connect", "--needs-id", "--uri"])
        .arg(dvm.dir.join("uri"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("server {}:0", uri.nspace)), "{text}");
    // an unknown component is refused with the valid choices named
    let out = Command::new(bin)
        .args(["connect", "-c", "v99", "--uri"])
        .arg(dvm.dir.join("uri"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("valid: v12 v20 v21 v3 v4 v41 v51 v61"));
}

/// Event notification between two tools through PRRTE: B registers for a user code, A
/// notifies it with range GLOBAL and an info; B receives it on tag 0 with A as the source.
#[test]
fn prrte_relays_a_tool_event_to_another_tool() {
    if !prrte_available() {
        return;
    }
    let dvm = Dvm::start("n1,n2,n3,n4", "notify");
    let uri = dvm.uri();
    let pid = std::process::id();
    let tool = |name: &str| {
        let req = pmix_peer::ConnectRequest::tool(
            pmix_peer::Identity::ToolGivenId {
                nspace: format!("{name}-{pid}"),
                rank: 0,
            },
            Component::V61,
        );
        pmix_peer::Peer::connect(&uri, &req, plan(Component::V61, "n1").limits).unwrap()
    };
    const CODE: i32 = -3101; // below PMIX_EXTERNAL_ERR_BASE: a user-defined event
    let mut b = tool("evb");
    assert_eq!(b.register_events(vec![CODE], vec![]).unwrap(), 0);
    let mut a = tool("eva");
    let st = a
        .notify(
            CODE,
            5, // PMIX_RANGE_GLOBAL
            vec![pmix_codec::Info::new(
                "pw.test.note",
                pmix_codec::Value::string("hello"),
            )],
        )
        .unwrap();
    eprintln!("notify status {st}");
    assert_eq!(st, 0);
    let ev = b.wait_event(CODE, Duration::from_secs(15)).unwrap();
    eprintln!("{ev:?}");
    assert_eq!(ev.source.nspace.to_string(), format!("eva-{pid}"));
    assert!(ev
        .infos
        .iter()
        .any(|i| i.key.to_string() == "pw.test.note"
            && i.value == pmix_codec::Value::string("hello")));
    a.finalize(Duration::from_secs(5)).unwrap();
    b.finalize(Duration::from_secs(5)).unwrap();
}

/// All five allocation directives go out and each gets a status from PRRTE: NEW (n2),
/// EXTEND of that reservation by n3, RELEASE of it by id, then REACQUIRE and CANCEL.
#[test]
fn prrte_answers_every_alloc_directive() {
    use pmix_codec::{Info, Value};
    use pmix_peer::AllocDirective as D;
    if !prrte_available() {
        return;
    }
    let dvm = Dvm::start("n1,n2,n3,n4", "directives");
    let uri = dvm.uri();
    let p = plan(Component::V61, "n2");
    let req = pmix_peer::ConnectRequest::tool(
        pmix_peer::Identity::ToolGivenId {
            nspace: p.nspace.clone(),
            rank: 0,
        },
        Component::V61,
    );
    let mut t = pmix_peer::Peer::connect(&uri, &req, p.limits).unwrap();
    assert_eq!(
        t.register_events(vec![DVM_IS_READY, -196], vec![]).unwrap(),
        0
    );
    let new = t
        .alloc(
            D::New,
            vec![Info::new("pmix.alloc.nlist", Value::string("n2"))],
        )
        .unwrap();
    assert_eq!(new.status, 0, "{new:?}");
    let id = match new.get("pmix.alloc.id") {
        Some(Value::String(Some(s))) => s.to_string(),
        other => panic!("no alloc id: {other:?}"),
    };
    t.wait_event(DVM_IS_READY, Duration::from_secs(30)).unwrap();
    let ext = t
        .alloc(
            D::Extend,
            vec![
                Info::new("pmix.alloc.id", Value::string(&id)),
                Info::new("pmix.alloc.nlist", Value::string("n3")),
            ],
        )
        .unwrap();
    eprintln!("EXTEND {id} n3: {ext:?}");
    assert_eq!(ext.status, 0, "{ext:?}");
    t.wait_event(DVM_IS_READY, Duration::from_secs(30)).unwrap();
    let ext_bad = t
        .alloc(
            D::Extend,
            vec![Info::new("pmix.alloc.nlist", Value::string("n4"))],
        )
        .unwrap();
    eprintln!("EXTEND without id: {ext_bad:?}");
    assert_eq!(
        ext_bad.status, -27,
        "EXTEND without an id is PMIX_ERR_BAD_PARAM"
    );
    let rel = t
        .alloc(
            D::Release,
            vec![Info::new("pmix.alloc.id", Value::string(&id))],
        )
        .unwrap();
    eprintln!("RELEASE {id}: {rel:?}");
    assert_eq!(rel.status, 0, "{rel:?}");
    for d in [D::Reacquire, D::Cancel] {
        let r = t
            .alloc(d, vec![Info::new("pmix.alloc.id", Value::string(&id))])
            .unwrap();
        eprintln!("{d:?} {id}: {r:?}");
        // PRRTE's schedulerless allocator (ras/hosts) claims only NEW, EXTEND and RELEASE
        assert_eq!(
            r.status, -47,
            "{d:?}: PMIX_ERR_NOT_SUPPORTED expected, got {r:?}"
        );
    }
    t.finalize(Duration::from_secs(5)).unwrap();
}
