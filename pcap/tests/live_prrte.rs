//! Captured for real: tcpdump on loopback while a `pmix-peer` v61 tool runs the acceptance
//! conversation against a real PRRTE 5.0.0rc1 DVM (OpenPMIx 7.0.0rc1; started by
//! `tools/prrte/dvm.sh` as peer/tests/prrte_dvm.rs starts it): register events, allocation
//! with `PMIX_ALLOC_INHERITANCE`, `PMIX_DVM_IS_READY`, spawn, queries, job control,
//! finalize. Every message must decode and the connection must equal the conversation the
//! peer logged. Needs tcpdump and the sid root; says so loudly without them, fails under CI.

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use pmix_codec::{BufferKind, Codec, Component};
use pmix_pcap::Event;
use pmix_peer::scenario::{self, Plan};
use pmix_peer::{Limits, ServerUri};
use support::*;

struct Dvm {
    dir: PathBuf,
}

impl Dvm {
    fn start() -> Dvm {
        let dir = std::env::temp_dir().join(format!("pmix-pcap-dvm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let t0 = Instant::now();
        let out = Command::new("timeout")
            .args(["90", "bash"])
            .arg(repo().join("tools/prrte/dvm.sh"))
            .args(["start", "--nodes", "n1,n2", "--timeout", "60", "--dir"])
            .arg(&dir)
            .output()
            .expect("run dvm.sh");
        let dvm = Dvm { dir };
        assert!(
            out.status.success(),
            "dvm.sh start failed after {:?}: {}",
            t0.elapsed(),
            String::from_utf8_lossy(&out.stderr)
        );
        dvm
    }
}

impl Drop for Dvm {
    fn drop(&mut self) {
        let _ = Command::new("timeout")
            .args(["40", "bash"])
            .arg(repo().join("tools/prrte/dvm.sh"))
            .args(["stop", "--timeout", "20", "--dir"])
            .arg(&self.dir)
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn live_capture_of_a_prrte_tool_conversation_decodes_as_the_peer_logged() {
    if !tcpdump_available() {
        return missing("tcpdump is MISSING (apt-get install tcpdump; tools/setup.sh installs it)");
    }
    match sid_root() {
        Some(r) if r.join("usr/bin/prte").exists() => {}
        _ => {
            return missing(
                "PRRTE 5.0.0rc1 sid root is MISSING: run `bash tools/peers.sh make 7.0.0rc1`",
            )
        }
    }
    let dvm = Dvm::start();
    let uri = ServerUri::from_file(&dvm.dir.join("uri")).expect("URI file");
    let dir = std::env::temp_dir().join(format!("pmix-pcap-prrte-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("prrte.pcap");
    let dump = Tcpdump::start(&file, &format!("tcp port {}", uri.addr.port())).expect("tcpdump");
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
    if let Some(keep) = std::env::var_os("PMIX_PCAP_KEEP") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(
            &file,
            std::path::Path::new(&keep).join("prrte-5.0.0rc1.pcap"),
        )
        .unwrap();
    }
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
