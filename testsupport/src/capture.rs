//! tcpdump on loopback, writing a capture file; optionally inside a private network
//! namespace ([`Netns`]) so that the capture holds only the traffic of the processes the
//! test runs there, not that of everything else on the machine.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A private network namespace with its loopback up, held open by a sleeping process;
/// [`Netns::command`] runs a program inside it. Needs root (or user namespaces).
pub struct Netns {
    holder: Child,
}

impl Netns {
    /// A new namespace, or why there is none.
    pub fn create() -> Result<Netns, String> {
        let mut holder = Command::new("unshare")
            .args(["--net", "--", "sh", "-c"])
            // a non-loopback address too: with loopback alone, getaddrinfo's AI_ADDRCONFIG
            // finds no IPv4 and daemons such as slurmctld cannot listen
            .arg("ip link set lo up && ip addr add 10.254.0.1/32 dev lo && echo up && exec sleep 3600")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("unshare: {e}"))?;
        let mut line = String::new();
        let _ = BufReader::new(holder.stdout.take().expect("piped")).read_line(&mut line);
        if line.trim() != "up" {
            let _ = holder.kill();
            let out = holder.wait_with_output().map_err(|e| e.to_string())?;
            return Err(format!(
                "unshare --net failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Netns { holder })
    }

    /// `program` to be run inside the namespace (through `nsenter`).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new("nsenter");
        c.arg(format!("--net=/proc/{}/ns/net", self.holder.id()))
            .arg("--")
            .arg(program);
        c
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

/// tcpdump writing loopback TCP to a file until stopped ([`Tcpdump::stop`]) or dropped.
pub struct Tcpdump {
    child: Option<Child>,
    /// The capture file.
    pub file: PathBuf,
}

impl Tcpdump {
    /// Whether tcpdump is installed.
    pub fn available() -> bool {
        Command::new("tcpdump")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// Start capturing `filter` on `lo` (of `netns`, when given) into `file`; returns once
    /// tcpdump says it is listening. `None` when tcpdump is not installed.
    pub fn start(file: &Path, filter: &str, netns: Option<&Netns>) -> Option<Tcpdump> {
        let mut cmd = match netns {
            Some(ns) => ns.command("tcpdump"),
            None => Command::new("tcpdump"),
        };
        let mut child = cmd
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

    /// Stop (SIGINT, so that it flushes), wait, and return the capture's bytes.
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

/// Run `argv` (under `timeout SECS`) in a fresh private network namespace while tcpdump
/// captures all TCP on its loopback into `file`; returns the program's output and the
/// capture's bytes. Everything in the capture is the program's own traffic.
pub fn capture_run(
    file: &Path,
    argv: &[String],
    secs: u32,
) -> Result<(std::process::Output, Vec<u8>), String> {
    let ns = Netns::create()?;
    let dump = Tcpdump::start(file, "tcp", Some(&ns)).ok_or("tcpdump is not installed")?;
    let out = ns
        .command("timeout")
        .arg(secs.to_string())
        .args(argv)
        .output()
        .map_err(|e| format!("running {argv:?}: {e}"))?;
    Ok((out, dump.stop()))
}

/// Why an isolated live capture cannot run here (tcpdump missing, or no private network
/// namespace, without which the capture would mix in other traffic), or `None` when it can.
pub fn isolated_capture_unavailable() -> Option<String> {
    if !Tcpdump::available() {
        return Some(
            "tcpdump is MISSING (apt-get install tcpdump; tools/setup.sh installs it)".into(),
        );
    }
    Netns::create().err().map(|e| {
        format!("no private network namespace ({e}): the capture would mix in other traffic")
    })
}

/// A client program's stdout then stderr, asserted to have exited 0 with `ranks` lines
/// `, 0 failures` (one per rank of the test clients); returns the text. `what` names the run.
pub fn clients_passed(out: &std::process::Output, ranks: usize, what: &str) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what}: {text}");
    assert_eq!(
        text.matches(", 0 failures").count(),
        ranks,
        "{what}: {text}"
    );
    text
}

/// Keep a capture as `$PMIX_PCAP_KEEP/NAME` when that variable is set (how the fixtures of
/// `pcap/tests/captures/` are recorded).
pub fn keep_capture(name: &str, bytes: &[u8]) {
    if let Some(keep) = std::env::var_os("PMIX_PCAP_KEEP") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::write(Path::new(&keep).join(name), bytes).unwrap();
    }
}
