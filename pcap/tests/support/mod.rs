//! Shared by the live-capture tests: tcpdump on loopback, the real servers (the plain
//! OpenPMIx 7.0.0rc1 server and a PRRTE DVM, launched as peer/tests launch them), and the
//! comparison of a dissected connection with the conversation the peer logged.
#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pmix_pcap::{Event, Message, Options, Severity};
use pmix_peer::ServerUri;
use serde_json::Value as J;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Say loudly that a live test did not run; fail under CI.
pub fn missing(what: &str) {
    let msg = format!("{what}: the live-capture test did NOT run");
    eprintln!("\n!!!!!!!!!! {msg}\n");
    if std::env::var_os("CI").is_some() {
        panic!("{msg}");
    }
}

pub fn sid_root() -> Option<PathBuf> {
    let out = Command::new("bash")
        .arg(repo().join("tools/peers.sh"))
        .args(["root", "7.0.0rc1"])
        .output()
        .ok()?;
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && root.join("usr/bin/gcc").exists()).then_some(root)
}

/// tcpdump writing loopback TCP to a file until dropped (or [`Tcpdump::stop`]).
pub struct Tcpdump {
    child: Option<Child>,
    pub file: PathBuf,
}

impl Tcpdump {
    /// `None` when tcpdump is not installed.
    pub fn start(file: &Path, filter: &str) -> Option<Tcpdump> {
        let mut child = Command::new("tcpdump")
            .args([
                "-i",
                "lo",
                "--immediate-mode",
                "-B",
                "65536",
                "-U",
                "-s",
                "0",
                "-n",
                "-w",
            ])
            .arg(file)
            .arg(filter)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .ok()?;
        // ready when it says it is listening (on stderr)
        let mut err = child.stderr.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::Read;
            let mut buf = [0u8; 256];
            let mut seen = Vec::new();
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.extend_from_slice(&buf[..n]);
                if String::from_utf8_lossy(&seen).contains("listening on") {
                    let _ = tx.send(());
                }
            }
            eprintln!("tcpdump: {}", String::from_utf8_lossy(&seen).trim());
        });
        let ready = rx.recv_timeout(Duration::from_secs(10)).is_ok();
        let t = Tcpdump {
            child: Some(child),
            file: file.to_path_buf(),
        };
        assert!(ready, "tcpdump did not start listening within 10 s");
        Some(t)
    }

    /// Stop (SIGINT, so that it flushes) and wait.
    pub fn stop(mut self) -> Vec<u8> {
        self.end();
        std::fs::read(&self.file).expect("the capture file")
    }

    fn end(&mut self) {
        if let Some(mut c) = self.child.take() {
            // let the last segments reach the capture
            std::thread::sleep(Duration::from_millis(1500));
            let _ = Command::new("kill")
                .args(["-INT", &c.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Tcpdump {
    fn drop(&mut self) {
        self.end();
    }
}

pub fn tcpdump_available() -> bool {
    Command::new("tcpdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The plain OpenPMIx 7.0.0rc1 server (peer/servers/plain-server.c) in the sid root, as
/// peer/tests/plain_server.rs starts it.
pub struct PlainServer {
    child: Child,
    pub uri: ServerUri,
    inner: PathBuf,
}

impl PlainServer {
    pub fn start(root: &Path) -> PlainServer {
        let rel = format!("/tmp/pw-pcap-plain-{}", std::process::id());
        let inner = root.join(rel.trim_start_matches('/'));
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::copy(
            repo().join("peer/servers/plain-server.c"),
            inner.join("plain-server.c"),
        )
        .unwrap();
        let build = Command::new("timeout")
            .args(["120", "bash"])
            .arg(repo().join("tools/peers.sh"))
            .args(["run", "7.0.0rc1", "--", "sh", "-c"])
            .arg(format!(
                "gcc -Wall -Werror -o {rel}/plain-server {rel}/plain-server.c $(pkg-config --cflags --libs pmix)"
            ))
            .output()
            .unwrap();
        assert!(
            build.status.success(),
            "building plain-server: {}",
            String::from_utf8_lossy(&build.stderr)
        );
        let child = Command::new("timeout")
            .args(["90", "bash"])
            .arg(repo().join("tools/peers.sh"))
            .args(["run", "7.0.0rc1", "--"])
            .arg(format!("{rel}/plain-server"))
            .arg(format!("{rel}/uri"))
            .arg("60")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let uri_file = inner.join("uri");
        let uri = loop {
            if let Ok(u) = ServerUri::from_file(&uri_file) {
                break u;
            }
            if Instant::now() > deadline {
                let _ = Command::new("kill")
                    .args(["-TERM", "--", &format!("-{}", child.id())])
                    .status();
                panic!("plain-server wrote no URI in 20 s");
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        PlainServer { child, uri, inner }
    }
}

impl Drop for PlainServer {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.child.id())])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.inner);
    }
}

/// Dissect a capture: the events, and the messages grouped by connection in order.
pub fn dissect(bytes: &[u8]) -> (Vec<Event>, Vec<Vec<Message>>) {
    let (events, r) = pmix_pcap::dissect_bytes(bytes, Options::default());
    r.expect("the capture reads to its end");
    let mut conns: Vec<(u64, Vec<Message>)> = Vec::new();
    for e in &events {
        if let Event::Message(m) = e {
            match conns.iter_mut().find(|(id, _)| *id == m.conn) {
                Some((_, v)) => v.push(m.clone()),
                None => conns.push((m.conn, vec![m.clone()])),
            }
        }
    }
    (events, conns.into_iter().map(|(_, v)| v).collect())
}

/// Problems of error level anywhere in the events, as text.
pub fn errors(events: &[Event]) -> Vec<String> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::Message(m) => {
                for p in m.problems.iter().filter(|p| p.severity == Severity::Error) {
                    out.push(format!(
                        "conn {} #{} {}: {}",
                        m.conn, m.number, m.what, p.text
                    ));
                }
            }
            Event::Problem { problem, conn, .. } if problem.severity == Severity::Error => {
                out.push(format!("conn {conn:?}: {}", problem.text))
            }
            _ => {}
        }
    }
    out
}

/// Check that a dissected connection is the conversation the peer logged: the handshake
/// bytes, then per direction every logged message in the same order with the same tag,
/// header, payload and decoded pack calls. The capture may hold events the peer never read
/// after its last read; nothing else may differ.
pub fn assert_same_conversation(msgs: &[Message], vector: &J) {
    let hs = vector["conversation"]["handshake"].as_array().unwrap();
    let hex = |m: &Message| -> String {
        m.header
            .iter()
            .chain(&m.payload)
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert_eq!(msgs[0].what, "connect");
    assert_eq!(msgs[1].what, "connect-reply");
    assert_eq!(
        hs[0]["hex"].as_str().unwrap(),
        hex(&msgs[0]),
        "connect bytes"
    );
    assert_eq!(
        hs[1]["hex"].as_str().unwrap(),
        hex(&msgs[1]),
        "connect reply bytes"
    );
    let tests = vector["tests"].as_array().unwrap();
    assert!(
        vector["notes"].get("not included").is_none(),
        "the peer could not decode some of its own messages: {}",
        vector["notes"]
    );
    for dir in ["sent", "received"] {
        let logged: Vec<&J> = tests.iter().filter(|t| t["direction"] == dir).collect();
        let seen: Vec<J> = msgs[2..]
            .iter()
            .map(Message::to_json)
            .filter(|j| j["direction"] == dir)
            .collect();
        assert!(
            seen.len() >= logged.len(),
            "{dir}: the peer logged {} messages, the capture has {}",
            logged.len(),
            seen.len()
        );
        for (i, (l, s)) in logged.iter().zip(&seen).enumerate() {
            for field in ["what", "tag", "header", "wire", "items"] {
                assert_eq!(l[field], s[field], "{dir} message {i}: {field}");
            }
        }
        for extra in &seen[logged.len()..] {
            assert!(
                dir == "received" && extra["what"] == "event",
                "{dir}: a message the peer did not log: {extra}"
            );
        }
    }
}
