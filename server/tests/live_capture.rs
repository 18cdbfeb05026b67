//! pmix-server as the dissector sees it: unmodified libpmix clients of every release
//! (`server/clients/client.c`: init, job-info gets, put, commit, fence collecting data,
//! gets, allocation request, finalize) under `pmix-server launch -n 2 --record DIR`, with
//! tcpdump on the loopback of a private network namespace. Two independent readers of the
//! same conversation must agree message for message: what pmix-server recorded (its
//! conversation vectors, written from the bytes it read and wrote) and what `pmix-pcap`
//! decodes off the wire (handshake bytes, then per direction every message's what, tag,
//! header, payload and pack calls). Every message of the capture must decode without a
//! problem and re-encode byte for byte.
//!
//! Needs tcpdump, `unshare --net` (root) and the releases of `bash tools/peers.sh list`;
//! says so loudly for whatever is missing, and fails under CI.

use pmix_pcap::conversation::{by_connection, check_reencodes, compare, connections};
use pmix_pcap::{ConnInfo, Options, Side};
use pmix_testsupport::{
    build, capture_run, clients_passed, isolated_capture_unavailable, keep_capture, missing,
    release_available, repo,
};
use serde_json::Value as J;

/// Launch two ranks of the client under a recording pmix-server inside a captured
/// namespace; compare each captured connection with its recorded conversation. Returns
/// the number of framed messages compared.
fn capture_release(release: &str, forced: &[&str]) -> usize {
    let client = build(
        release,
        "client",
        &repo().join("server/clients/client.c"),
        None,
    );
    let record = client.dir.join("record");
    let file = client.dir.join("capture.pcap");
    let mut argv: Vec<String> = vec![
        env!("CARGO_BIN_EXE_pmix-server").into(),
        "launch".into(),
        "-n".into(),
        "2".into(),
        "--timeout".into(),
        "100".into(),
        "--record".into(),
        record.display().to_string(),
    ];
    argv.extend(forced.iter().map(|s| s.to_string()));
    if let Some(w) = &client.wrapper {
        argv.extend(["--wrapper".to_string(), w.clone()]);
    }
    argv.extend(["--".into(), client.program.clone(), "collect".into()]);
    let (out, bytes) = capture_run(&file, &argv, 120).expect("the capture runs");
    let what = format!("{release} {forced:?}");
    clients_passed(&out, 2, &what);
    keep_capture(&format!("pmix-server-{release}-clients.pcap"), &bytes);

    let recorded: Vec<J> = std::fs::read_dir(&record)
        .expect("the recorded conversations")
        .map(|e| {
            serde_json::from_str(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap()
        })
        .collect();
    assert_eq!(
        recorded.len(),
        2,
        "{what}: one recorded conversation per rank"
    );

    let (events, r) = pmix_pcap::dissect_bytes(&bytes, Options::default());
    r.expect("the capture reads to its end");
    let infos: Vec<ConnInfo> = connections(&events);
    let conns = by_connection(&events);
    assert_eq!(infos.len(), 2, "{what}: two ranks, two connections");
    assert_eq!(conns.len(), 2, "{what}");
    let mut compared = 0;
    for (info, msgs) in infos.iter().zip(&conns) {
        assert_eq!(msgs[0].conn, info.id);
        // the recorded conversation of this connection: the one whose connect bytes match
        let connect: String = msgs[0]
            .header
            .iter()
            .chain(&msgs[0].payload)
            .map(|b| format!("{b:02x}"))
            .collect();
        let vector = recorded
            .iter()
            .find(|v| {
                v["conversation"]["handshake"]
                    .as_array()
                    .is_some_and(|h| h.iter().any(|x| x["hex"] == connect.as_str()))
            })
            .unwrap_or_else(|| panic!("{what}: no recorded conversation has this connect"));
        assert_eq!(
            info.component.map(|c| c.name()),
            vector["component"].as_str(),
            "{what}"
        );
        assert_eq!(
            info.buffer.map(|b| b.name()),
            vector["buffer"].as_str(),
            "{what}"
        );
        let n = compare(msgs, vector, Side::Server)
            .unwrap_or_else(|e| panic!("{what}: the capture differs from the record: {e}"));
        assert_eq!(
            n,
            vector["tests"].as_array().unwrap().len(),
            "{what}: every recorded message compared"
        );
        assert_eq!(
            n + 2,
            msgs.len(),
            "{what}: the capture has no message the server did not record"
        );
        check_reencodes(info, msgs).unwrap_or_else(|e| panic!("{what}: {e}"));
        compared += n;
    }
    compared
}

#[test]
fn live_capture_of_real_clients_against_pmix_server_equals_its_record() {
    if let Some(why) = isolated_capture_unavailable() {
        return missing(&why);
    }
    let mut ran = 0;
    for (release, forced) in [
        ("4.2.2", &[][..]),
        ("4.2.2", &["-c", "v41", "-b", "fully-described"][..]),
        ("5.0.7", &[][..]),
        ("6.0.0", &[][..]),
        ("6.1.0", &[][..]),
        ("7.0.0rc1", &[][..]),
    ] {
        if !release_available(release, "its clients were NOT captured against pmix-server") {
            continue;
        }
        let n = capture_release(release, forced);
        eprintln!("{release} {forced:?}: {n} messages, capture and record agree");
        ran += 1;
    }
    assert!(ran > 0 || std::env::var_os("CI").is_none());
}
