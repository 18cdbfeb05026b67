//! A child process spoken to in length-prefixed frames over its stdin/stdout.
//!
//! Both external adapters use it: [`crate::server::ExternalServer`] (spec scenarios) and
//! [`crate::testee::ProcessTestee`] (wire vectors). A frame is a 4-byte little-endian length
//! followed by that many bytes; frames larger than [`MAX_FRAME`] are refused without
//! reading them. The child's stderr is drained in the background and its tail kept for
//! crash reports.
//!
//! The child runs in its own process group, and it is killed as a group (on a timeout, a
//! bad frame, and when it is dropped), so what it started goes with it: a grandchild
//! holding the pipes is killed too, and a child that exits is noticed at once even when
//! such a grandchild keeps its stdout open.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The largest frame either side may send (64 MiB).
pub const MAX_FRAME: usize = 64 << 20;

/// The largest reply the runner reads from a testee or server by default (4 MiB): the
/// largest answer a golden vector asks for is about 40 KB of JSON, and a parsed reply
/// weighs about 35 times its text, so a reply near [`MAX_FRAME`] would cost gigabytes.
pub const DEFAULT_MAX_REPLY: usize = 4 << 20;

static MAX_REPLY: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_REPLY);

/// Set the largest reply read from a child from now on (`--max-reply-bytes`; at most
/// [`MAX_FRAME`]). A longer reply is refused from its length prefix, without reading it,
/// and the child is killed as for any bad frame.
pub fn set_max_reply(bytes: usize) {
    MAX_REPLY.store(bytes.min(MAX_FRAME), Ordering::Relaxed);
}

/// The largest reply read from a child (see [`set_max_reply`]).
pub fn max_reply() -> usize {
    MAX_REPLY.load(Ordering::Relaxed)
}

/// Write one frame: 4-byte little-endian length, then the bytes.
pub fn write_frame(w: &mut impl Write, body: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(body.len()).map_err(|_| std::io::Error::other("frame too large"))?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(body)?;
    w.flush()
}

/// Read one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    read_frame_within(r, MAX_FRAME)
}

/// [`read_frame`] refusing, from its length prefix and without reading it, a frame longer
/// than `max` bytes.
pub fn read_frame_within(r: &mut impl Read, max: usize) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..])? {
            0 if got == 0 => return Ok(None),
            0 => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "truncated frame length",
                ))
            }
            n => got += n,
        }
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > max && len <= MAX_FRAME {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "a {len}-byte reply, over the {max}-byte limit (refused unread; \
                 --max-reply-bytes raises it, up to {MAX_FRAME})"
            ),
        ));
    }
    if len > MAX_FRAME {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "frame length {len} (bytes {}) exceeds the {MAX_FRAME}-byte limit: not a frame",
                hex4(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes())
            ),
        ));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    Ok(Some(body))
}

fn hex4(b: &[u8; 4]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Why an exchange with the child failed. After any of these the process is dead (killed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExchangeError {
    /// No answer before the deadline.
    Timeout,
    /// The child exited, closed its stdout, or could not be written to; with detail.
    Ended(String),
    /// The child wrote something that is not a frame (detail says what).
    BadFrame(String),
}

/// A running child process with framed stdin/stdout.
pub struct FramedProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<std::io::Result<Option<Vec<u8>>>>,
    stderr_tail: Arc<Mutex<String>>,
    dead: bool,
}

impl FramedProcess {
    /// Start `argv[0]` with the remaining arguments.
    pub fn spawn(argv: &[String]) -> Result<Self, String> {
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| "empty command line".to_string())?;
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("{prog}: {e}"))?;
        let mut stdout = child
            .stdout
            .take()
            .ok_or_else(|| "no stdout pipe".to_string())?;
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        let max = max_reply();
        std::thread::spawn(move || loop {
            let f = read_frame_within(&mut stdout, max);
            let stop = !matches!(f, Ok(Some(_)));
            if tx.send(f).is_err() || stop {
                break;
            }
        });
        let tail = Arc::new(Mutex::new(String::new()));
        if let Some(mut err) = child.stderr.take() {
            let tail = Arc::clone(&tail);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut t) = tail.lock() {
                        t.push_str(&String::from_utf8_lossy(&buf[..n]));
                        if t.len() > 4000 {
                            let cut = t.len() - 2000;
                            let cut = (cut..t.len())
                                .find(|i| t.is_char_boundary(*i))
                                .unwrap_or(t.len());
                            t.drain(..cut);
                        }
                    }
                }
            });
        }
        Ok(FramedProcess {
            child,
            stdin,
            frames: rx,
            stderr_tail: tail,
            dead: false,
        })
    }

    /// Whether the process has been killed or found dead.
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    /// Send one frame and wait until `deadline` for one frame back. On any error the child
    /// is killed (its stream can no longer be trusted).
    pub fn exchange(&mut self, body: &[u8], deadline: Instant) -> Result<Vec<u8>, ExchangeError> {
        if self.dead {
            return Err(ExchangeError::Ended("the process already failed".into()));
        }
        let written = match self.stdin.as_mut() {
            Some(w) => write_frame(w, body),
            None => Err(std::io::Error::other("stdin closed")),
        };
        if let Err(e) = written {
            let detail = format!("{} (write failed: {e})", self.end_detail());
            self.kill();
            return Err(ExchangeError::Ended(detail));
        }
        match self.receive(deadline) {
            Ok(Ok(Some(frame))) => Ok(frame),
            Ok(Ok(None)) | Err(RecvTimeoutError::Disconnected) => {
                let detail = self.end_detail();
                self.kill();
                Err(ExchangeError::Ended(detail))
            }
            Ok(Err(e)) => {
                // A short read at the end of the stream is a death; anything else is garbage.
                let ended = e.kind() == std::io::ErrorKind::UnexpectedEof;
                let detail = if ended {
                    format!("{} (mid-frame: {e})", self.end_detail())
                } else {
                    e.to_string()
                };
                self.kill();
                Err(if ended {
                    ExchangeError::Ended(detail)
                } else {
                    ExchangeError::BadFrame(detail)
                })
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(ExchangeError::Timeout)
            }
        }
    }

    /// Wait for the next frame until `deadline`, looking every 50 ms whether the child has
    /// exited: a child that exits without answering ends the wait at once, even when a
    /// process it started still holds its stdout (no end of stream would come then). A
    /// frame it wrote before exiting is still taken.
    fn receive(
        &mut self,
        deadline: Instant,
    ) -> Result<std::io::Result<Option<Vec<u8>>>, RecvTimeoutError> {
        const SLICE: Duration = Duration::from_millis(50);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.frames.recv_timeout(left.min(SLICE)) {
                Err(RecvTimeoutError::Timeout) if !left.is_zero() => {}
                other => return other,
            }
            if let Ok(Some(_)) = self.child.try_wait() {
                // Exited: what it wrote is in the pipe; take it if it comes promptly.
                return match self.frames.recv_timeout(SLICE) {
                    Err(RecvTimeoutError::Timeout) => Err(RecvTimeoutError::Disconnected),
                    other => other,
                };
            }
        }
    }

    /// How the process ended (exit status or signal) and the tail of its stderr.
    pub fn end_detail(&mut self) -> String {
        let mut status = None;
        for _ in 0..20 {
            match self.child.try_wait() {
                Ok(Some(s)) => {
                    status = Some(format!("exited with {s}"));
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => {
                    status = Some(format!("unknown state ({e})"));
                    break;
                }
            }
        }
        let status = status.unwrap_or_else(|| "closed its stdout".to_string());
        let tail = self.stderr_tail();
        if tail.is_empty() {
            status
        } else {
            format!("{status}; stderr: {tail}")
        }
    }

    /// The last lines the process wrote to stderr (at most about 2000 bytes).
    pub fn stderr_tail(&self) -> String {
        self.stderr_tail
            .lock()
            .map(|t| t.trim().to_string())
            .unwrap_or_default()
    }

    /// Kill the process and every process in its group (idempotent).
    pub fn kill(&mut self) {
        self.stdin = None;
        self.kill_group();
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.dead = true;
    }

    /// SIGKILL to the child's process group (its id is the child's pid: `process_group(0)`).
    /// Descendants that left the group on purpose (`setsid`, `setpgid`) are out of reach.
    fn kill_group(&self) {
        sigkill_group(self.child.id());
    }

    /// Close stdin (optionally after a last frame), give the process `grace` to exit on its
    /// own, then kill it.
    pub fn finish(&mut self, last: Option<&[u8]>, grace: Duration) {
        if self.dead {
            return;
        }
        if let (Some(w), Some(body)) = (self.stdin.as_mut(), last) {
            let _ = write_frame(w, body);
        }
        self.stdin = None;
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                // It ended; what it started does not outlive it.
                self.kill_group();
                self.dead = true;
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

impl Drop for FramedProcess {
    fn drop(&mut self) {
        if !self.dead {
            self.kill();
        }
    }
}

/// SIGKILL to the process group whose id is `pgid` (a child started with
/// `process_group(0)`: its pid); nothing for an id that is not a valid group.
pub(crate) fn sigkill_group(pgid: u32) {
    if let Ok(pgid) = libc::pid_t::try_from(pgid) {
        if pgid > 0 {
            // SAFETY: kill(2) with a negative pid signals that process group; no memory is
            // shared with it.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_refuse_oversize() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"{\"a\":1}").unwrap();
        assert_eq!(&buf[..4], &[7, 0, 0, 0]);
        let got = read_frame(&mut &buf[..]).unwrap().unwrap();
        assert_eq!(got, b"{\"a\":1}");
        assert!(read_frame(&mut &b""[..]).unwrap().is_none());
        let err = read_frame(&mut &b"garbage!"[..]).unwrap_err();
        assert!(err.to_string().contains("not a frame"), "{err}");
        let err = read_frame(&mut &[1u8, 0][..]).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
