//! Unmodified libpmix clients of every release against pmix-server, through
//! `pmix-server launch`: our client (`server/clients/client.c`: init, job-info gets, put of
//! seven value classes, commit, fence with and without collected data, get of every rank's
//! values, allocation request, finalize) in every component each release offers and both
//! buffer kinds, 8 ranks once per release, abort and lost-connection cleanup; and
//! OpenPMIx's own example client (written independently of this project) under
//! `pmix-server launch -n 2`.
//!
//! The libraries come from `tools/peers.sh` (4.2.2 on the host, 5.0.7 and 7.0.0rc1 in
//! debootstrap roots, 6.0.0 and 6.1.0 built from source). A release that is not made is
//! reported loudly, and fails the test when `CI` is set.

use std::path::PathBuf;
use std::process::Command;

use pmix_codec::{BufferKind, Component, Release, Status};
use pmix_testsupport::{build, peers, release_available, repo, Built};
use serde_json::Value as J;

/// Whether `release` is made; if not, say so loudly (and fail under CI).
fn available(release: &str) -> bool {
    release_available(release, "pmix-server was NOT tested against its clients")
}

struct Run {
    code: i32,
    report: J,
    output: String,
}

fn launch(
    b: &Built,
    n: u32,
    component: Option<Component>,
    kind: Option<BufferKind>,
    args: &[&str],
) -> Run {
    let report = std::env::temp_dir().join(format!(
        "pw-srv-report-{}-{}.json",
        std::process::id(),
        std::thread::current()
            .name()
            .unwrap_or("t")
            .replace("::", "-")
    ));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmix-server"));
    cmd.args([
        "launch",
        "-n",
        &n.to_string(),
        "--timeout",
        "120",
        "--report",
    ])
    .arg(&report);
    if let Some(c) = component {
        cmd.args(["-c", c.name()]);
    }
    if let Some(k) = kind {
        cmd.args(["-b", k.name()]);
    }
    if let Some(w) = &b.wrapper {
        cmd.args(["--wrapper", w]);
    }
    cmd.arg("--").arg(&b.program).args(args);
    let out = cmd.output().unwrap();
    let text = std::fs::read_to_string(&report).unwrap_or_else(|_| "{}".into());
    let _ = std::fs::remove_file(&report);
    Run {
        code: out.status.code().unwrap_or(-1),
        report: serde_json::from_str(&text).unwrap(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

fn client_c() -> PathBuf {
    repo().join("server/clients/client.c")
}

/// Every rank connected in `component`/`kind` (when forced), finalized, and was counted.
fn check_ranks(
    r: &Run,
    n: u32,
    component: Option<Component>,
    kind: Option<BufferKind>,
    what: &str,
) {
    let ranks = r.report["ranks"].as_array().expect("a report");
    assert_eq!(ranks.len(), n as usize, "{what}: {}", r.output);
    for x in ranks {
        assert_eq!(x["finalized"], true, "{what}: {x}\n{}", r.output);
        if let Some(c) = component {
            assert_eq!(x["component"], c.name(), "{what}: {x}");
        }
        if let Some(k) = kind {
            assert_eq!(x["buffer"], k.name(), "{what}: {x}");
        }
    }
}

/// The whole matrix for one release. `offered`: the components its client connects with
/// (measured: a 6.1.0 client cannot reach a server through `PMIX_SERVER_URI2`, the same
/// against the plain OpenPMIx servers of 4.2.2, 5.0.7 and 6.0.0 that offer it; 7.0.0rc1
/// has no v20). For every other component of the release's profile the test checks that
/// the client itself refuses, before any byte reaches the server. In v20 the client's
/// data array of VALUEs is refused by the server's unpacker (as by OpenPMIx's), which
/// `client.c` checks.
fn release_matrix(release: &str, profile: Release, offered: &[Component]) {
    if !available(release) {
        return;
    }
    let b = build(release, "client", &client_c(), None);
    for c in profile.components().iter().copied() {
        if c == Component::V12 || offered.contains(&c) {
            continue;
        }
        let r = launch(&b, 1, Some(c), None, &["collect"]);
        assert_ne!(r.code, 0, "{release} {c}: {}", r.output);
        assert!(
            r.report["ranks"].as_array().unwrap().is_empty(),
            "{release} {c}: a client connected: {}",
            r.report
        );
    }
    let mut versions = std::collections::BTreeSet::new();
    for c in offered.iter().copied() {
        for k in [BufferKind::NonDescribed, BufferKind::FullyDescribed] {
            let what = format!("{release} {c} {}", k.name());
            let r = launch(&b, 2, Some(c), Some(k), &["collect"]);
            assert_eq!(r.code, 0, "{what}:\n{}", r.output);
            check_ranks(&r, 2, Some(c), Some(k), &what);
            assert_eq!(
                r.output.matches(", 0 failures").count(),
                2,
                "{what}: {}",
                r.output
            );
            for x in r.report["ranks"].as_array().unwrap() {
                versions.insert(x["version"].as_str().unwrap_or("").to_string());
            }
        }
    }
    // the library really is the release asked for
    let major_minor: String = release.split('.').take(2).collect::<Vec<_>>().join(".");
    assert!(
        versions.iter().all(|v| v.starts_with(&major_minor)),
        "{release}: clients said {versions:?}"
    );
    // 8 ranks, in the client's own choice of component, with and without collected data
    for mode in ["collect", "nocollect"] {
        let r = launch(&b, 8, None, None, &[mode]);
        assert_eq!(r.code, 0, "{release} 8 ranks {mode}:\n{}", r.output);
        check_ranks(&r, 8, None, None, mode);
        assert_eq!(r.output.matches("got the values of 8 ranks").count(), 8);
    }
}

#[test]
fn clients_of_4_2_2_every_component() {
    use Component::*;
    release_matrix("4.2.2", Release::OpenPmix4_2, &[V20, V21, V3, V4, V41]);
}

#[test]
fn clients_of_5_0_7_every_component() {
    use Component::*;
    release_matrix("5.0.7", Release::OpenPmix5_0, &[V20, V21, V3, V4, V41]);
}

#[test]
fn clients_of_6_0_0_every_component() {
    use Component::*;
    release_matrix("6.0.0", Release::OpenPmix6_0, &[V20, V21, V3, V4, V41, V51]);
}

#[test]
fn clients_of_6_1_0_every_component() {
    use Component::*;
    release_matrix("6.1.0", Release::OpenPmix6_1, &[V21, V3, V4, V41, V51, V61]);
}

#[test]
fn clients_of_7_0_0rc1_every_component() {
    use Component::*;
    // v21 and v3 too: a 7.0.0rc1 client refused them (PMIX_ERR_OUTDATED) while
    // pmix-server's environment had no PMIX_VERSION
    release_matrix(
        "7.0.0rc1",
        Release::OpenPmix7_0,
        &[V21, V3, V4, V41, V51, V61],
    );
}

/// The live matrix's client program in its classic mode (`tools/live/live-client.c
/// client-classic`, without the field operations of issue 38, whose results against
/// pmix-server the live matrix records): init, job-info
/// get, put/commit/fence/get of ten type classes, an allocation request with
/// `PMIX_ALLOC_INHERITANCE`, a query, finalize) under `pmix-server launch -n 2`, in every
/// component each release's client offers: the cells of the live matrix's pmix-server row,
/// as tests. Every operation succeeds but what the server refuses or the library cannot
/// do, the same against the plain OpenPMIx servers: the query and the allocation request
/// (no host: `PMIX_ERR_NOT_SUPPORTED`; a 7.0.0rc1 client fails to pack type 75 itself
/// before v61: `PMIX_ERROR`) and, in v20, the data array of VALUEs (refused by the v20
/// unpacker: the other rank finds no key, `PMIX_ERR_NOT_FOUND`; the v20 cells hung before).
#[test]
fn live_client_cells_of_every_release_and_component() {
    use Component::*;
    let live = repo().join("tools/live/live-client.c");
    let mut ran = 0;
    for (release, offered) in [
        ("4.2.2", &[V20, V21, V3, V4, V41][..]),
        ("5.0.7", &[V20, V21, V3, V4, V41][..]),
        ("6.0.0", &[V20, V21, V3, V4, V41, V51][..]),
        ("6.1.0", &[V21, V3, V4, V41, V51, V61][..]),
        ("7.0.0rc1", &[V21, V3, V4, V41, V51, V61][..]),
    ] {
        if !available(release) {
            continue;
        }
        let b = build(release, "live-client", &live, None);
        for c in offered.iter().copied() {
            let r = launch(&b, 2, Some(c), None, &["client-classic"]);
            let what = format!("{release} {c}");
            assert_eq!(r.code, 0, "{what}: {}", r.output);
            check_ranks(&r, 2, Some(c), None, &what);
            let mut ops = 0;
            for line in r.output.lines().filter_map(|l| l.strip_prefix("OP ")) {
                let mut w = line.split_whitespace();
                let (op, status) = (w.next().unwrap_or(""), w.next().unwrap_or(""));
                let want = match op {
                    "query" => Status::ERR_NOT_SUPPORTED.0,
                    "allocation-inherit" if release == "7.0.0rc1" && c != V61 => -1,
                    "allocation-inherit" => Status::ERR_NOT_SUPPORTED.0,
                    "put-commit-fence-get:value" if c == V20 => Status::ERR_NOT_FOUND.0,
                    _ => 0,
                };
                assert_eq!(status, want.to_string(), "{what}: {line}\n{}", r.output);
                ops += 1;
            }
            assert_eq!(ops, 30, "{what}: 15 operations per rank\n{}", r.output);
            ran += 1;
        }
    }
    assert!(ran > 0 || std::env::var_os("CI").is_none());
}

/// An abort is recorded and ends the job; a client that dies without finalizing fails
/// the fence the others are in (instead of hanging it), and the launcher's status is the
/// worst client's.
#[test]
fn abort_and_lost_connection_with_4_2_2() {
    if !available("4.2.2") {
        return;
    }
    let b = build("4.2.2", "client", &client_c(), None);
    let r = launch(&b, 3, None, None, &["abort"]);
    assert_ne!(r.code, 0, "{}", r.output);
    let aborts = r.report["aborts"].as_array().unwrap();
    assert_eq!(aborts.len(), 1, "{}", r.output);
    assert_eq!(aborts[0]["status"], 3);
    assert_eq!(aborts[0]["message"], "client test abort");
    assert_eq!(aborts[0]["targets"].as_array().unwrap().len(), 3);

    let r = launch(&b, 3, None, None, &["die"]);
    assert_eq!(
        r.code, 5,
        "the dead rank's status is the worst: {}",
        r.output
    );
    assert_eq!(
        r.output
            .matches("fence with a lost peer -> LOST_CONNECTION")
            .count(),
        2,
        "{}",
        r.output
    );
}

/// OpenPMIx's example client (`examples/client.c`, shipped by each release's
/// libpmix-dev): init, event registration, job keys, store/put/commit, a fence collecting
/// data, get of every peer's values, finalize. It includes an `examples.h` the package
/// does not ship; `server/clients/shim/examples.h` is ours.
#[test]
fn openpmix_example_client_under_launch_n_2() {
    let mut ran = 0;
    for release in ["4.2.2", "5.0.7", "7.0.0rc1"] {
        if !available(release) {
            continue;
        }
        let root = if release == "4.2.2" {
            PathBuf::from("/")
        } else {
            PathBuf::from(String::from_utf8_lossy(&peers(&["root", release]).stdout).trim())
        };
        let example = root.join("usr/share/doc/libpmix-dev/examples/client.c");
        if !example.exists() {
            let msg = format!(
                "{release}: {} is MISSING (libpmix-dev's examples)",
                example.display()
            );
            if std::env::var_os("CI").is_some() {
                panic!("{msg}");
            }
            eprintln!("\n*** {msg} ***\n");
            continue;
        }
        let shim = repo().join("server/clients/shim");
        let b = build(release, "example", &example, Some(&shim));
        let r = launch(&b, 2, None, None, &[]);
        assert_eq!(r.code, 0, "{release}: {}", r.output);
        check_ranks(&r, 2, None, None, release);
        // each rank reads both ranks' local and remote values after the fence
        assert_eq!(
            r.output.matches("returned correct").count(),
            4,
            "{release}: {}",
            r.output
        );
        assert!(!r.output.contains("failed"), "{release}: {}", r.output);
        ran += 1;
    }
    assert!(ran > 0 || std::env::var_os("CI").is_none());
}

/// `--env-only`: the server prints each rank's environment and serves clients started by
/// someone else; it exits 0 once every rank has finalized.
#[test]
fn env_only_serves_clients_started_elsewhere() {
    use std::io::{BufRead, BufReader};
    if !available("4.2.2") {
        return;
    }
    let b = build("4.2.2", "client", &client_c(), None);
    let mut server = Command::new(env!("CARGO_BIN_EXE_pmix-server"))
        .args(["launch", "-n", "2", "--env-only", "--timeout", "60"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let mut envs: Vec<Vec<(String, String)>> = Vec::new();
    while envs.len() < 2 || envs[1].len() < 4 {
        let line = lines.next().expect("the environment").unwrap();
        if line.starts_with("# rank") {
            envs.push(Vec::new());
        } else if let Some((k, v)) = line.split_once('=') {
            envs.last_mut().unwrap().push((k.into(), v.into()));
        }
        if line.starts_with("PMIX_SYSTEM_TMPDIR") && envs.len() == 2 {
            break;
        }
    }
    // the two ranks must run at the same time (they fence): spawn both, then wait
    let children: Vec<_> = envs
        .iter()
        .map(|env| {
            Command::new(&b.program)
                .arg("nocollect")
                .env_clear()
                .envs(env.iter().cloned())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let status = server.wait().unwrap();
    assert!(
        status.success(),
        "the server did not see every rank finalize"
    );
}

/// The witness: the same client, against a plain OpenPMIx 4.2.2 server
/// (`server/bench/openpmix-launcher.c`), passes the same checks, so what the client
/// expects of pmix-server (a REMOTE-scoped value invisible on its own node, NOT_FOUND for a
/// key nobody put, ...) is what the real library does.
#[test]
fn the_same_client_passes_against_a_plain_openpmix_server() {
    if !available("4.2.2") {
        return;
    }
    let client = build("4.2.2", "client", &client_c(), None);
    let launcher = build_launcher("4.2.2");
    // v20 (the one URI variable kept): the real server refuses the data array of VALUEs
    // in the commit and still serves the keys before it, as pmix-server does
    for (n, mode, uri) in [
        (3u32, "collect", ""),
        (8, "nocollect", ""),
        (2, "collect", "PMIX_SERVER_URI2"),
    ] {
        let (ok, text) = plain_server(
            &launcher,
            n,
            &client,
            mode,
            &[("OPENPMIX_LAUNCHER_URI", uri)],
        );
        assert!(ok, "{text}");
        assert_eq!(text.matches(", 0 failures").count(), n as usize, "{text}");
        if !uri.is_empty() {
            // the library's own log line: its v20 unpacker refused the commit
            assert!(
                text.contains("NOT-SUPPORTED in file"),
                "the real server accepted the v20 commit: {text}"
            );
        }
    }
}

/// The plain OpenPMIx server of `release` (`server/bench/openpmix-launcher.c`).
fn build_launcher(release: &str) -> Built {
    build(
        release,
        "launcher",
        &repo().join("server/bench/openpmix-launcher.c"),
        None,
    )
}

/// Run `n` ranks of `client` (`mode`) under the plain server `launcher` with `env` added
/// to the launcher's environment; whether it exited 0, and everything it and the clients
/// printed.
fn plain_server(
    launcher: &Built,
    n: u32,
    client: &Built,
    mode: &str,
    env: &[(&str, &str)],
) -> (bool, String) {
    let mut cmd = Command::new("timeout");
    cmd.arg("120");
    match &launcher.wrapper {
        // a root's wrapper clears the environment: pass it with `env`
        Some(w) => {
            cmd.args(w.split_whitespace()).arg("env");
            cmd.args(env.iter().map(|(k, v)| format!("{k}={v}")));
        }
        None => {
            cmd.envs(env.iter().copied());
        }
    }
    let out = cmd
        .args([&launcher.program, &n.to_string(), &client.program, mode])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The client library's own limits, witnessed by the plain OpenPMIx servers: a 6.1.0
/// client told `PMIX_SERVER_URI2` alone fails `PMIx_Init` with `PMIX_ERR_UNREACH` against
/// a 4.2.2 server that offers v20 (as against pmix-server, `release_matrix`); a 7.0.0rc1
/// client forced to v21 or v3 completes everything against the plain 7.0.0rc1 server
/// with gds hash (as against pmix-server, which offers only hash) and fails
/// `PMIx_Init` reading past the end of the server's answer when the server also offers
/// shmem3 (the live matrix's -50 against plain 7.0.0rc1 and PRRTE). A release that is
/// not made is reported loudly, and fails under CI.
#[test]
fn client_limits_witnessed_by_plain_openpmix_servers() {
    if available("4.2.2") && available("6.1.0") {
        let launcher = build_launcher("4.2.2");
        let client = build("6.1.0", "client", &client_c(), None);
        let (_, text) = plain_server(
            &launcher,
            2,
            &client,
            "collect",
            &[("OPENPMIX_LAUNCHER_URI", "PMIX_SERVER_URI2")],
        );
        assert_eq!(
            text.matches("PMIx_Init -> PMIX_ERR_UNREACH").count(),
            2,
            "{text}"
        );
    }
    if available("7.0.0rc1") {
        let launcher = build_launcher("7.0.0rc1");
        let client = build("7.0.0rc1", "client", &client_c(), None);
        for uri in ["PMIX_SERVER_URI21", "PMIX_SERVER_URI3"] {
            let (ok, text) = plain_server(
                &launcher,
                2,
                &client,
                "collect",
                &[("OPENPMIX_LAUNCHER_URI", uri), ("PMIX_MCA_gds", "hash")],
            );
            assert!(ok, "{uri} hash: {text}");
            assert_eq!(
                text.matches(", 0 failures").count(),
                2,
                "{uri} hash: {text}"
            );
            let (_, text) = plain_server(
                &launcher,
                2,
                &client,
                "collect",
                &[
                    ("OPENPMIX_LAUNCHER_URI", uri),
                    ("PMIX_MCA_gds", "shmem3,hash"),
                ],
            );
            assert_eq!(
                text.matches("PMIx_Init -> PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER")
                    .count(),
                2,
                "{uri} shmem3: {text}"
            );
        }
    }
}

/// `--record`: every message of every connection as conversation vectors, which the
/// codec reproduces byte for byte: the requests were packed by the client's libpmix
/// (4.2.2 here, and 7.0.0rc1 when made), so each one judges pmix-codec's encoder against
/// the real library.
#[test]
fn recorded_conversations_replay_as_vectors() {
    let mut checked = 0;
    for (release, component, kind) in [
        ("4.2.2", Component::V41, BufferKind::NonDescribed),
        ("4.2.2", Component::V41, BufferKind::FullyDescribed),
        ("7.0.0rc1", Component::V61, BufferKind::NonDescribed),
        // not v20: a 4.2.2 client's v20 fence request carries bytes no encoder can
        // reproduce (the COMMAND went out as 00 00 01 03 and an INFO's value bytes as
        // ae 2e 00 01 where pmix-codec writes zeros: uninitialized memory packed by the
        // library, it seems; recorded once, not yet explained)
    ] {
        if !available(release) {
            continue;
        }
        let b = build(release, "client", &client_c(), None);
        let dir = std::env::temp_dir().join(format!(
            "pw-srv-rec-{}-{release}-{component}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmix-server"));
        cmd.args([
            "launch",
            "-n",
            "2",
            "-c",
            component.name(),
            "-b",
            kind.name(),
        ])
        .arg("--record")
        .arg(&dir);
        if let Some(w) = &b.wrapper {
            cmd.args(["--wrapper", w]);
        }
        let out = cmd.arg("--").arg(&b.program).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let mut whats = std::collections::BTreeSet::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            let raw: J = serde_json::from_str(&text).unwrap();
            assert!(
                raw["notes"].get("not included").is_none(),
                "{}",
                raw["notes"]
            );
            let file = pmix_codec::vectors::VectorFile::from_json(&text).unwrap();
            assert_eq!(file.component, component.name());
            let codec = file.codec().unwrap();
            for (v, t) in file.tests.iter().zip(raw["tests"].as_array().unwrap()) {
                pmix_codec::vectors::check_vector(&codec, v)
                    .unwrap_or_else(|e| panic!("{release} {component} {}: {e}", v.comment));
                whats.insert(t["what"].as_str().unwrap().to_string());
                checked += 1;
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        for w in [
            "req",
            "reply:req",
            "commit",
            "fence",
            "get",
            "reply:get",
            "finalize",
        ] {
            assert!(
                whats.contains(w),
                "{release} {component}: no {w} in {whats:?}"
            );
        }
    }
    assert!(checked > 0 || std::env::var_os("CI").is_none());
}
