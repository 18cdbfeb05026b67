//! The psec modules pmix-server offers (`--psec`, `Config::psec`): a peer naming one it
//! does not offer is refused as OpenPMIx refuses it, its connection closed without a
//! reply (`pmix_ptl_base_connection_handler`: no module of that name, `CLOSE_THE_SOCKET`);
//! one it offers is served. And the gds a peer names does not matter: it is served with
//! hash, as by an OpenPMIx server whose only gds is hash. Checked with this workspace's
//! tool handshake and with real libpmix clients told `PMIX_SECURITY_MODE=none`, which the
//! plain OpenPMIx servers refuse the same way (vectors/live/explanations.json).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use pmix_codec::Component;
use pmix_peer::{ConnectRequest, Identity};
use pmix_server::launch::{command, environment};
use pmix_server::{Config, Job, Launch, Psec, Server};
use pmix_testsupport::{build, reap, release_available, repo};

fn server(psec: &str, ranks: u32) -> Server {
    let mut config = Config::new(Job::new("psecjob", ranks));
    config.psec = psec.parse().unwrap();
    Server::start(config).unwrap()
}

/// Send a tool's connect message naming `psec` and `gds`; the bytes the server answers
/// with until it closes the connection or 5 s pass (`None`: still open, a reply given).
fn handshake(server: &Server, psec: &str, gds: &str) -> (Vec<u8>, bool) {
    let mut req = ConnectRequest::tool(Identity::ToolNeedsId, Component::V41);
    req.psec = psec.into();
    req.gds = gds.into();
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(&req.encode().unwrap()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 512];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return (got, true),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            // a reply was given and the connection stays open
            Err(_) => return (got, false),
        }
    }
}

#[test]
fn a_psec_module_not_offered_is_refused_without_a_reply() {
    let s = server("native", 1);
    let (bytes, closed) = handshake(&s, "none", "hash");
    assert!(closed, "the connection was left open");
    assert!(bytes.is_empty(), "a reply was written: {bytes:02x?}");
    let (bytes, closed) = handshake(&s, "munge", "hash");
    assert!(closed && bytes.is_empty(), "munge: {bytes:02x?}");
    // the server goes on serving
    let (bytes, closed) = handshake(&s, "native", "hash");
    assert!(!closed, "native refused");
    assert_eq!(
        &bytes[..4],
        &[0, 0, 0, 0],
        "status of the reply: {bytes:02x?}"
    );
}

#[test]
fn a_server_offering_none_admits_it_and_advertises_it() {
    let s = server("none,native", 1);
    let (bytes, closed) = handshake(&s, "none", "hash");
    assert!(!closed && bytes[..4] == [0, 0, 0, 0], "{bytes:02x?}");
    let env = environment(&s, 0, &Launch::default());
    let mode = env.iter().find(|(k, _)| k == "PMIX_SECURITY_MODE");
    assert_eq!(mode.map(|(_, v)| v.as_str()), Some("native,none"));
    let plain = server("native", 1);
    let env = environment(&plain, 0, &Launch::default());
    assert!(env.contains(&("PMIX_SECURITY_MODE".into(), "native".into())));
    assert_eq!(Psec::default().to_string(), "native");
}

#[test]
fn any_gds_is_served_with_hash() {
    let s = server("native", 1);
    for gds in ["shmem2", "shmem3", "ds21,ds12", "hash"] {
        let (bytes, closed) = handshake(&s, "native", gds);
        assert!(!closed && bytes[..4] == [0, 0, 0, 0], "{gds}: {bytes:02x?}");
    }
}

/// A real client of `release` (5.0.7 and later ship psec none) told
/// `PMIX_SECURITY_MODE=none`, against a server offering `psec`: its output and exit code.
fn none_client(release: &str, psec: &str) -> (i32, String) {
    let b = build(
        release,
        "client",
        &repo().join("server/clients/client.c"),
        None,
    );
    let s = server(psec, 1);
    let mut env = environment(&s, 0, &Launch::default());
    env.retain(|(k, _)| k != "PMIX_SECURITY_MODE");
    env.push(("PMIX_SECURITY_MODE".into(), "none".into()));
    let wrapper: Vec<String> = b
        .wrapper
        .iter()
        .flat_map(|w| w.split_whitespace().map(str::to_string))
        .collect();
    let mut child = command(&b.program, &[], env, &wrapper)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    reap(&mut child, 60);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn real_clients_told_none_fail_init_unless_the_server_offers_it() {
    for (release, refused) in [
        ("6.1.0", "PMIx_Init -> PMIX_ERR_UNREACH"),
        ("7.0.0rc1", "PMIx_Init -> PMIX_ERR_COMM_FAILURE"),
    ] {
        if !release_available(release, "pmix-server's psec refusal was NOT tested") {
            continue;
        }
        let (code, text) = none_client(release, "native");
        assert_ne!(code, 0, "{release}: {text}");
        assert!(text.contains(refused), "{release}: {text}");
        let (code, text) = none_client(release, "native,none");
        assert_eq!(code, 0, "{release} with none offered: {text}");
        assert!(text.contains("init ok"), "{release}: {text}");
    }
}
