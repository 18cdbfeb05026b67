//! Client for `pmix-oracle`, our C program linked against the installed OpenPMIx.
//!
//! The oracle is built on demand from `tools/oracle/pmix_oracle.c` with
//! `tools/oracle/build.sh` (which uses `pkg-config pmix`). A crashed or hung oracle is
//! restarted and the request reported as [`Reply::Crashed`].

use crate::hex;
use crate::tokens::{write_item, Tokens};
use pmix_codec::{BufferKind, Component, DataType, Item};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

/// What the oracle answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply<T> {
    /// The library succeeded.
    Ok(T),
    /// The library returned `status` at call `index`; `partial` is what it produced before.
    Err {
        /// The PMIx status.
        status: i32,
        /// 0-based index of the failing call.
        index: usize,
        /// Bytes in the buffer (pack) or items decoded (unpack) before the failure.
        partial: T,
    },
    /// The oracle process died or hung on this request (the library crashed).
    Crashed(String),
    /// The oracle could not express the request (`bad ...`).
    Bad(String),
}

/// A running oracle.
pub struct Oracle {
    path: PathBuf,
    child: Option<(Child, ChildStdin, Receiver<String>)>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Library version reported by `hello`.
    pub version: String,
}

/// The workspace root (two levels above this crate, `tools/oracle`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("workspace root")
        .to_path_buf()
}

/// Find the oracle binary, building it if it is missing or older than its source.
/// `PMIX_ORACLE` overrides the path (no build then).
pub fn ensure_built() -> Result<PathBuf, String> {
    if let Ok(p) = std::env::var("PMIX_ORACLE") {
        return Ok(PathBuf::from(p));
    }
    let root = workspace_root();
    let src = root.join("tools/oracle/pmix_oracle.c");
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("target"));
    let out = target.join("pmix-oracle");
    // Tests of one binary start oracles on several threads at once: one builds, the others
    // wait for it (they share the process id that names the temporary file).
    static BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let stale = match (std::fs::metadata(&out), std::fs::metadata(&src)) {
        // Older than its source, or not executable (a build that was cut short).
        (Ok(o), Ok(s)) => {
            use std::os::unix::fs::PermissionsExt;
            o.modified().ok() < s.modified().ok() || o.permissions().mode() & 0o111 == 0
        }
        _ => true,
    };
    if stale {
        let _ = std::fs::create_dir_all(&target);
        // Several test binaries may race to build; build to a temp name and rename.
        let tmp = target.join(format!("pmix-oracle.{}.tmp", std::process::id()));
        let o = Command::new("bash")
            .arg(root.join("tools/oracle/build.sh"))
            .arg(&tmp)
            .output()
            .map_err(|e| format!("cannot run tools/oracle/build.sh: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "building the libpmix oracle failed (is libpmix-dev installed? `apt-get install -y libpmix-dev`):\n{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        std::fs::rename(&tmp, &out).map_err(|e| format!("rename oracle: {e}"))?;
    }
    Ok(out)
}

/// The real OpenPMIx releases an oracle can be built against, oldest first
/// (`tools/peers.sh list` says which are available on this machine).
pub const LIBRARIES: [&str; 5] = ["4.2.2", "5.0.7", "6.0.0", "6.1.0", "7.0.0rc1"];

/// The command that makes a library release available (for messages).
pub fn make_command(library: &str) -> String {
    match library {
        "6.0.0" | "6.1.0" => format!(
            "bash tools/peers.sh make {library} --openpmix-src DIR   (DIR holds openpmix-v{library}.tar.xz and its oac archive)"
        ),
        _ => format!("bash tools/peers.sh make {library}"),
    }
}

/// The oracle built against library release `library` by `tools/peers.sh oracle`
/// (rebuilt when its source changed). `Err` says why it is not available and how to make
/// it so.
pub fn ensure_built_for(library: &str) -> Result<PathBuf, String> {
    let root = workspace_root();
    let o = Command::new("bash")
        .arg(root.join("tools/peers.sh"))
        .args(["-q", "oracle", library])
        .output()
        .map_err(|e| format!("cannot run tools/peers.sh: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "OpenPMIx {library} is not available here: {}make it with `{}`",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .filter(|l| l.contains("error"))
                .map(|l| format!("{}; ", l.trim()))
                .collect::<String>(),
            make_command(library)
        ));
    }
    let path = String::from_utf8_lossy(&o.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .to_string();
    Ok(PathBuf::from(path))
}

impl Oracle {
    /// Build (if needed) and start the oracle against the installed libpmix (pkg-config).
    pub fn start() -> Result<Oracle, String> {
        Self::start_at(ensure_built()?)
    }

    /// Start the oracle for a library release made available by `tools/peers.sh`.
    pub fn start_for(library: &str) -> Result<Oracle, String> {
        Self::start_at(ensure_built_for(library)?)
    }

    /// Start an oracle binary (or launcher) at `path`.
    pub fn start_at(path: PathBuf) -> Result<Oracle, String> {
        let mut o = Oracle {
            path,
            child: None,
            timeout: Duration::from_secs(20),
            version: String::new(),
        };
        let hello = o.raw("hello")?;
        o.version = hello
            .strip_prefix("hello ok ")
            .ok_or_else(|| format!("oracle did not greet: {hello:?}"))?
            .trim()
            .to_string();
        Ok(o)
    }

    fn spawn(&mut self) -> Result<(), String> {
        let mut child = Command::new(&self.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.path.display()))?;
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        self.child = Some((child, stdin, rx));
        Ok(())
    }

    /// Stop the oracle process; the next request starts a fresh one.
    pub fn restart(&mut self) {
        self.kill();
    }

    fn kill(&mut self) {
        if let Some((mut c, _, _)) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Send one raw request line; `Err` only if the oracle cannot be (re)started.
    /// A crash or hang is reported as `Ok("crashed ...")`.
    pub fn raw(&mut self, line: &str) -> Result<String, String> {
        if self.child.is_none() {
            self.spawn()?;
        }
        let (_, stdin, rx) = self.child.as_mut().expect("child");
        let sent = writeln!(stdin, "{line}").and_then(|_| stdin.flush());
        if sent.is_err() {
            self.kill();
            return Ok("crashed write failed".into());
        }
        match rx.recv_timeout(self.timeout) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Ok("crashed timeout".into())
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.as_mut().and_then(|(c, _, _)| c.wait().ok());
                self.child = None;
                Ok(format!("crashed {status:?}"))
            }
        }
    }

    /// Pack `items` with the real library.
    pub fn pack(
        &mut self,
        comp: Component,
        kind: BufferKind,
        items: &[Item],
    ) -> Result<Reply<Vec<u8>>, String> {
        let mut toks = vec![
            "pack".to_string(),
            comp.name().to_string(),
            kind_token(kind).into(),
        ];
        for it in items {
            write_item(&mut toks, it);
        }
        let line = self.raw(&toks.join(" "))?;
        Ok(parse_pack_reply(&line))
    }

    /// Unpack `bytes` with the real library, one call per (type, capacity).
    pub fn unpack(
        &mut self,
        comp: Component,
        kind: BufferKind,
        bytes: &[u8],
        calls: &[(DataType, usize)],
    ) -> Result<Reply<Vec<Item>>, String> {
        let mut toks = vec![
            "unpack".to_string(),
            comp.name().to_string(),
            kind_token(kind).into(),
            if bytes.is_empty() {
                "-".into()
            } else {
                hex::encode(bytes)
            },
        ];
        for (t, c) in calls {
            toks.push(t.to_string());
            toks.push(c.to_string());
        }
        let line = self.raw(&toks.join(" "))?;
        Ok(parse_unpack_reply(&line))
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        self.kill();
    }
}

fn kind_token(k: BufferKind) -> &'static str {
    match k {
        BufferKind::NonDescribed => "nd",
        BufferKind::FullyDescribed => "fd",
    }
}

fn hex_or_dash(s: &str) -> Option<Vec<u8>> {
    if s == "-" {
        Some(Vec::new())
    } else {
        hex::decode(s)
    }
}

fn parse_pack_reply(line: &str) -> Reply<Vec<u8>> {
    let mut it = line.split_ascii_whitespace();
    match it.next() {
        Some("ok") => match it.next().map(hex_or_dash) {
            Some(Some(b)) => Reply::Ok(b),
            None => Reply::Ok(Vec::new()),
            _ => Reply::Bad(format!("unparsable reply {line:?}")),
        },
        Some("err") => {
            let status = it.next().and_then(|s| s.parse().ok());
            let index = it.next().and_then(|s| s.parse().ok());
            let partial = it.next().map(hex_or_dash).unwrap_or(Some(Vec::new()));
            match (status, index, partial) {
                (Some(status), Some(index), Some(partial)) => Reply::Err {
                    status,
                    index,
                    partial,
                },
                _ => Reply::Bad(format!("unparsable reply {line:?}")),
            }
        }
        Some("crashed") => Reply::Crashed(line.to_string()),
        _ => Reply::Bad(line.to_string()),
    }
}

/// Every call of a reply. In an error reply's partial results (`partial`) a call may carry
/// a negative count: the library's unpacker loop read no value for it (quirk U5).
fn parse_items(toks: &mut Tokens, partial: bool) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    while !toks.is_empty() {
        items.push(if partial {
            toks.partial_item()?
        } else {
            toks.item()?
        });
    }
    Ok(items)
}

fn parse_unpack_reply(line: &str) -> Reply<Vec<Item>> {
    let (head, rest) = line.split_once(' ').unwrap_or((line, ""));
    match head {
        "ok" => match parse_items(&mut Tokens::new(rest), false) {
            Ok(items) => Reply::Ok(items),
            Err(e) => Reply::Bad(format!("unparsable reply ({e}): {line:?}")),
        },
        "err" => {
            let mut t = Tokens::new(rest);
            let status = t.next_tok().ok().and_then(|s| s.parse().ok());
            let index = t.next_tok().ok().and_then(|s| s.parse().ok());
            match (status, index, parse_items(&mut t, true)) {
                (Some(status), Some(index), Ok(partial)) => Reply::Err {
                    status,
                    index,
                    partial,
                },
                _ => Reply::Bad(format!("unparsable reply {line:?}")),
            }
        }
        "crashed" => Reply::Crashed(line.to_string()),
        _ => Reply::Bad(line.to_string()),
    }
}
