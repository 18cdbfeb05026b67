//! The puppets: real PMIx processes (`tools/prrte/puppet.c`) driven one command line at a
//! time, tools through their stdin/stdout and a job's processes through their FIFOs; every answer
//! is awaited with a bound.

#[allow(unused_imports)]
use super::*;

pub(super) struct Puppet {
    /// The tool process (none for a job's process, reached through its FIFOs).
    pub(super) child: Option<Child>,
    /// A job's process: its pid (same pid namespace), to tell a dead process from a slow one.
    pub(super) pid: Option<u32>,
    pub(super) stdin: Box<dyn Write + Send>,
    pub(super) lines: Receiver<String>,
}

/// Why a puppet gave no answer.
pub(super) enum PuppetErr {
    /// The process is gone (or never read the command).
    Gone(String),
    /// The PMIx call it is making did not return in time: the puppet is blocked in it.
    Timeout(String),
    /// Anything else (a malformed answer): a bridge fault.
    Broken(String),
}

impl From<PuppetErr> for String {
    fn from(e: PuppetErr) -> String {
        match e {
            PuppetErr::Gone(m) | PuppetErr::Timeout(m) | PuppetErr::Broken(m) => m,
        }
    }
}

/// Lines read from `open()` by a thread; the open itself happens there, so a FIFO whose
/// writer never comes blocks only that thread (the reader then times out, bounded).
pub(super) fn line_reader<R: std::io::Read + Send + 'static>(
    open: impl FnOnce() -> std::io::Result<R> + Send + 'static,
) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let Ok(out) = open() else { return };
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

impl Puppet {
    pub(super) fn cmd(&mut self, line: &str) -> Result<Vec<String>, PuppetErr> {
        let word = line.split(' ').next().unwrap_or_default().to_string();
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| {
                PuppetErr::Gone(format!(
                    "the puppet{} does not read {word:?}: {e}",
                    self.pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
                ))
            })?;
        self.answer(&word)
    }

    pub(super) fn alive(&mut self) -> bool {
        if let Some(c) = self.child.as_mut() {
            return matches!(c.try_wait(), Ok(None));
        }
        self.pid
            .is_none_or(|p| std::path::Path::new(&format!("/proc/{p}")).exists())
    }

    pub(super) fn answer(&mut self, what: &str) -> Result<Vec<String>, PuppetErr> {
        let start = std::time::Instant::now();
        let l = loop {
            match self.lines.recv_timeout(Duration::from_millis(250)) {
                Ok(l) => break l,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PuppetErr::Gone(format!(
                        "the puppet ended without answering {what:?}"
                    )))
                }
                Err(_) if !self.alive() => {
                    return Err(PuppetErr::Gone(format!(
                        "the puppet ended without answering {what:?}"
                    )))
                }
                Err(_) if start.elapsed() > PUPPET_TIMEOUT => {
                    return Err(PuppetErr::Timeout(format!(
                        "{what}: the PMIx call did not return within {PUPPET_TIMEOUT:?}"
                    )))
                }
                Err(_) => {}
            }
        };
        let mut w: Vec<String> = l.split(' ').map(str::to_string).collect();
        if w.first().map(String::as_str) != Some("ok") {
            return Err(PuppetErr::Broken(format!(
                "puppet answered {what:?} with {l:?}"
            )));
        }
        w.remove(0);
        Ok(w)
    }

    pub(super) fn quit(mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        for _ in 0..100 {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        kill_group(&mut child);
    }

    /// Kill a tool puppet that does not answer, with everything it started (`peers.sh run`
    /// leaves a shell, `unshare` and the puppet itself: one process group, see
    /// [`tool_command`]).
    pub(super) fn kill(mut self) {
        if let Some(mut child) = self.child.take() {
            kill_group(&mut child);
        }
    }
}

/// A tool puppet's command gets a process group of its own, so that the whole chain it runs
/// (shell, `unshare`, the puppet) can be killed at once.
pub(super) fn tool_command(c: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    c.process_group(0)
}

/// SIGKILL to `child`'s process group (its id is the child's pid), then reap the child.
fn kill_group(child: &mut Child) {
    crate::process::sigkill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}
