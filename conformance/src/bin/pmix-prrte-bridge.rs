//! `pmix-prrte-bridge`: a SERVER.md server backed by a real PRRTE DVM.
//!
//! `pmix-prrte-bridge --repo DIR --puppet PATH [--release 7.0.0rc1]`
//!
//! `start` runs `tools/prrte/dvm.sh start` (a real `prte` from the sid root, one logical node
//! per startup node). Every scenario tool is a real PMIx tool process (the C `puppet`,
//! `tools/prrte/puppet.c`, at PATH inside the root), driven line by line; so is the bridge's
//! own query/probe tool and, when a warning is due, a tool attached as the scheduler
//! (`PMIX_SERVER_SCHEDULER`). PRRTE's job namespaces are translated to the scenario's names
//! (responses, queries, and `PMIX_ALLOC_TARGET` values in requests). Every wait is bounded.
//!
//! Every spawned job runs the puppet too (client mode): its rank 0 serves the bridge through
//! FIFOs under `ROOT/tmp/pmix-wire-ctl/<bridge pid>` (one directory per bridge, removed when
//! the DVM stops), so an application requester is a real process of that job.
//!
//! What PRRTE does, however surprising, is reported as an observation, never as a bridge
//! error: a PMIx call that does not return within `PUPPET_TIMEOUT` (30 s) answers
//! `PMIX_ERR_TIMEOUT` with a message naming the call; a request by a job whose rank 0 PRRTE
//! already ended answers `PMIX_ERR_UNREACH` with a message; a job that is still running 10 s
//! after `PMIx_Job_control(KILL)` succeeded fails its `terminate` step the same way. A job
//! counts as ended when `PMIX_QUERY_NAMESPACES` no longer lists it or when
//! `PMIX_QUERY_PROC_TABLE` gives every one of its processes a terminated state (PRRTE keeps
//! listing the owning job of a CHILD reservation while its descendants drain). The bridge
//! answers a spawn, or kills a job, only once every process of it has connected: killing
//! earlier races PRRTE's launch bookkeeping, after which it answers `PMIX_ERR_UNREACH`.
//!
//! What PRRTE or the bridge offers no path for is answered `unsupported`: a PMIx without some
//! of the five attributes (they are compiled in); allocation requests by the scheduler (its
//! own PMIx library refuses them, `PMIX_ERR_NOT_SUPPORTED`, OpenPMIx `pmix_alloc.c`); a
//! requester rank other than 0 (a job runs one process per candidate node, and the bridge
//! drives its rank 0); REAQUIRE and REQ_CANCEL, which PRRTE answers `PMIX_ERR_NOT_SUPPORTED`
//! whatever they carry (the bridge resends without `PMIX_ALLOC_INHERITANCE` to tell); a
//! scheduler reclaim (see `RECLAIM_UNSUPPORTED`).
//!
//! The harness acts only with privileges the spec grants: a job is ended by its launcher (the
//! tool or job that spawned it) while that runs, else by itself; the bridge's own tool only
//! queries and spawns (and ends) its own probe jobs. It never relies on PRRTE letting a tool
//! that owns nothing act on a reservation (PRRTE's uid-ownership deviation).

use pmix_codec::attrs;
use pmix_codec::{Info, Value};
use pmix_conformance::bridge as harness;
use pmix_conformance::protocol::{
    EventView, Observed, ProcRef, Request, Requester, RequesterKind, Response,
};
use pmix_conformance::server::{read_frame, write_frame};
use pmix_conformance::wireinfo::{string_of, WireFormat, WireInfo};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// How long one puppet command may take (a tool's grow waits up to 5 s for
/// PMIX_DVM_IS_READY). Three such waits stay under the suite's per-request timeout.
const PUPPET_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a job may take to end after a kill, and a grow to show its daemons.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);
/// `pmix_proc_state_t`: every state from PMIX_PROC_STATE_TERMINATED (20) on is an ended process.
const PROC_STATE_TERMINATED: i32 = 20;
/// `PMIX_PROC_STATE_CONNECTED`: the process has called PMIx_Init.
const PROC_STATE_CONNECTED: i32 = 6;
/// `O_NONBLOCK` (Linux): opening a FIFO's write end fails at once when nobody reads it.
const O_NONBLOCK: i32 = 0o4000;
/// The bridge's own tool namespace (queries, probes, kills, reclaims).
const BRIDGE_TOOL: &str = "pmix-bridge";
const SCHEDULER_TOOL: &str = "pmix-bridge-sched";
/// Slots per logical node (startup and granted alike).
const SLOTS: &str = "8";

struct Puppet {
    /// The tool process (none for a job's rank 0, reached through its FIFOs).
    child: Option<Child>,
    /// A job's rank 0: its pid (same pid namespace), to tell a dead process from a slow one.
    pid: Option<u32>,
    stdin: Box<dyn Write + Send>,
    lines: Receiver<String>,
}

/// Why a puppet gave no answer.
enum PuppetErr {
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
fn line_reader<R: std::io::Read + Send + 'static>(
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
    fn cmd(&mut self, line: &str) -> Result<Vec<String>, PuppetErr> {
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

    fn alive(&mut self) -> bool {
        if let Some(c) = self.child.as_mut() {
            return matches!(c.try_wait(), Ok(None));
        }
        self.pid
            .is_none_or(|p| std::path::Path::new(&format!("/proc/{p}")).exists())
    }

    fn answer(&mut self, what: &str) -> Result<Vec<String>, PuppetErr> {
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

    fn quit(mut self) {
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
        let _ = child.kill();
        let _ = child.wait();
    }
}

struct Bridge {
    repo: PathBuf,
    puppet: String,
    release: String,
    dir: PathBuf,
    uri: Option<String>,
    format: WireFormat,
    honors_warn: bool,
    tools: BTreeMap<String, Puppet>,
    /// Rank 0 of each scenario job, by scenario namespace.
    apps: BTreeMap<String, Puppet>,
    /// The sid root on this machine.
    root: PathBuf,
    /// This bridge's control directory for job puppets, inside the root (as seen there).
    ctl: String,
    /// The startup nodes of the running DVM.
    startup: Vec<String>,
    /// Requesters blocked in a PMIx call that never returned (their puppet is unusable).
    stuck: BTreeMap<String, String>,
    own: Option<Puppet>,
    scheduler: Option<Puppet>,
    /// Scenario job namespace -> PRRTE's.
    jobs: BTreeMap<String, String>,
    /// Scenario job namespace -> the requester that spawned it (its launcher, who ends it).
    launchers: BTreeMap<String, Requester>,
    /// Allocation id -> (requester's scenario namespace, requested warning threshold).
    warn: BTreeMap<String, (String, Option<u32>)>,
}

fn status_of(w: &[String]) -> Result<i32, String> {
    w.first()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {w:?}"))
}

fn list_of(w: &[String], i: usize) -> Vec<String> {
    match w.get(i).map(String::as_str) {
        None | Some("-") | Some("") => Vec::new(),
        Some(s) => {
            let mut v: Vec<String> = s.split(',').map(str::to_string).collect();
            v.sort();
            v.dedup();
            v
        }
    }
}

/// What PRRTE did that ends a step: a status with the bridge's account of it.
fn observed(status: i32, message: String) -> Response {
    Response {
        status,
        message: Some(message),
        ..Default::default()
    }
}

/// The PMIx API call behind a puppet command, for messages.
fn call_name(cmd: &str) -> &'static str {
    match cmd {
        "alloc" => "Allocation_request",
        "spawn" => "Spawn",
        "kill" => "Job_control",
        "warn" => "Notify_event",
        _ => "Query_info",
    }
}

fn unsupported(why: &str) -> Response {
    Response {
        unsupported: Some(why.into()),
        ..Default::default()
    }
}

impl Bridge {
    fn spawn_puppet(&self, nspace: &str, scheduler: bool) -> Result<Puppet, String> {
        let uri = self.uri.clone().ok_or("the DVM is not running")?;
        let mut c = Command::new("bash");
        c.arg(self.repo.join("tools/peers.sh")).args([
            "run",
            &self.release,
            "--",
            &self.puppet,
            &uri,
            nspace,
            &self.ctl,
        ]);
        if scheduler {
            c.arg("scheduler");
        }
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the puppet: {e}"))?;
        let stdin = child.stdin.take().ok_or("no puppet stdin")?;
        let out = child.stdout.take().ok_or("no puppet stdout")?;
        let mut p = Puppet {
            child: Some(child),
            pid: None,
            stdin: Box::new(stdin),
            lines: line_reader(move || Ok(out)),
        };
        let hello = p.answer("init")?;
        if hello.get(1).map(String::as_str) != Some(nspace) {
            return Err(format!("puppet for {nspace} started as {hello:?}"));
        }
        Ok(p)
    }

    /// The control directory as seen from outside the root.
    fn ctl_dir(&self) -> PathBuf {
        self.root.join(self.ctl.trim_start_matches('/'))
    }

    /// Rank 0 of scenario job `ns`, reached through the FIFOs it made (waits, bounded).
    /// `Gone` when its process has ended (its FIFO has no reader).
    fn app(&mut self, ns: &str) -> Result<&mut Puppet, PuppetErr> {
        if !self.apps.contains_key(ns) {
            let prrte = self
                .jobs
                .get(ns)
                .cloned()
                .ok_or_else(|| PuppetErr::Broken(format!("no job {ns}")))?;
            let dir = self.ctl_dir();
            let out = dir.join(format!("{prrte}.out"));
            let start = std::time::Instant::now();
            while !out.exists() {
                if start.elapsed() > Duration::from_secs(20) {
                    return Err(PuppetErr::Gone(format!(
                        "rank 0 of {ns} ({prrte}) made no control FIFO in 20 s"
                    )));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let pid = std::fs::read_to_string(dir.join(format!("{prrte}.pid")))
                .ok()
                .and_then(|t| t.trim().parse().ok());
            // Non-blocking: fails at once (ENXIO) when rank 0 is gone and nobody reads.
            let w = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(O_NONBLOCK)
                .open(dir.join(format!("{prrte}.in")))
                .map_err(|e| PuppetErr::Gone(format!("rank 0 of {ns} ({prrte}): {e}")))?;
            let lines = line_reader(move || std::fs::File::open(&out));
            self.apps.insert(
                ns.to_string(),
                Puppet {
                    child: None,
                    pid,
                    stdin: Box::new(w),
                    lines,
                },
            );
        }
        Ok(self.apps.get_mut(ns).expect("inserted above"))
    }

    /// Send `line` to a scenario requester. `Ok(Err(response))` is what PRRTE did that
    /// ends the step (the call never returned, or PRRTE already ended the requesting job);
    /// `Err` is a bridge fault.
    fn request(
        &mut self,
        requester: &Requester,
        line: &str,
    ) -> Result<Result<Vec<String>, Response>, String> {
        let ns = requester.nspace.clone();
        let call = line.split(' ').next().unwrap_or_default();
        if let Some(why) = self.stuck.get(&ns) {
            return Ok(Err(observed(
                pmix_codec::Status::ERR_TIMEOUT.0,
                format!("{ns} is still blocked in an earlier call ({why})"),
            )));
        }
        let r = match requester.kind {
            RequesterKind::App => match self.app(&ns) {
                Ok(p) => p.cmd(line),
                Err(e) => Err(e),
            },
            _ => self
                .tools
                .get_mut(&ns)
                .ok_or_else(|| format!("no tool {ns}"))?
                .cmd(line),
        };
        match r {
            Ok(w) => Ok(Ok(w)),
            Err(PuppetErr::Timeout(m)) => {
                // The puppet is blocked in the call: never reuse it (a late answer would be
                // read as the answer to the next command).
                self.apps.remove(&ns);
                if let Some(p) = self.tools.remove(&ns) {
                    p.quit();
                }
                self.stuck.insert(ns.clone(), m.clone());
                Ok(Err(observed(
                    pmix_codec::Status::ERR_TIMEOUT.0,
                    format!("PMIx_{} by {ns}: {m}", call_name(call)),
                )))
            }
            Err(PuppetErr::Gone(m)) if requester.kind == RequesterKind::App => {
                self.apps.remove(&ns);
                // Only an observation when PRRTE itself reports the job ended.
                let prrte = self.prrte_ns(&ns).to_string();
                if self.job_ended(&prrte)? {
                    Ok(Err(observed(
                        pmix_codec::Status::ERR_UNREACH.0,
                        format!("{ns} cannot make the request: PRRTE already ended it ({m})"),
                    )))
                } else {
                    Err(m)
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// PRRTE reports job `prrte` ended: not listed by PMIX_QUERY_NAMESPACES, or every
    /// process in PMIX_QUERY_PROC_TABLE in a terminated state.
    fn job_ended(&mut self, prrte: &str) -> Result<bool, String> {
        let w = self.own()?.cmd("namespaces")?;
        if !list_of(&w, 1).iter().any(|n| n == prrte) {
            return Ok(true);
        }
        let w = self.own()?.cmd(&format!("states {prrte}"))?;
        let states = list_of(&w, 1);
        Ok(!states.is_empty()
            && states.iter().all(|hs| {
                hs.rsplit_once(':')
                    .and_then(|(_, st)| st.parse::<i32>().ok())
                    .is_some_and(|st| st >= PROC_STATE_TERMINATED)
            }))
    }

    /// Wait (bounded) until every process of job `prrte` has connected (or ended): killing a
    /// job whose processes have not all registered yet races PRRTE's launch bookkeeping
    /// (`plm_base_receive.c`: "Not found"), after which it answers PMIX_ERR_UNREACH.
    fn wait_started(&mut self, prrte: &str) -> Result<(), String> {
        let start = std::time::Instant::now();
        while start.elapsed() < SETTLE_LIMIT {
            let w = self.own()?.cmd(&format!("states {prrte}"))?;
            let states: Vec<i32> = list_of(&w, 1)
                .iter()
                .filter_map(|hs| hs.rsplit_once(':').and_then(|(_, st)| st.parse().ok()))
                .collect();
            if !states.is_empty() && states.iter().all(|&st| st >= PROC_STATE_CONNECTED) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// After a grant by a job's process (which never receives PMIX_DVM_IS_READY): wait,
    /// bounded, until the DVM's daemon job lists a daemon on every newly granted node, then
    /// a moment for the launch fence. A spawn sent before the grow completes hangs.
    fn wait_grown(&mut self, grant: &[String]) -> Result<(), String> {
        let new: Vec<&String> = grant.iter().filter(|g| !self.startup.contains(g)).collect();
        let daemons = self
            .uri
            .as_deref()
            .and_then(|u| u.split(';').next())
            .map(|u| u.trim_end_matches(".0").to_string())
            .ok_or("the DVM is not running")?;
        let start = std::time::Instant::now();
        while !new.is_empty() && start.elapsed() < SETTLE_LIMIT {
            let hosts = list_of(&self.own()?.cmd(&format!("procs {daemons}"))?, 1);
            if new.iter().all(|n| hosts.contains(n)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(Duration::from_millis(500));
        Ok(())
    }

    /// End scenario job `nspace` (PRRTE's `prrte`) with the privileges the spec grants: its
    /// launcher (the tool or job that spawned it) kills it when that still runs; otherwise
    /// the job ends itself (its rank 0 kills its own namespace). Never through a tool that
    /// owns nothing. Returns the kill's status (0 when the job ended itself).
    fn end_job(&mut self, nspace: &str, prrte: &str) -> Result<i32, String> {
        let line = format!("kill {prrte}");
        let launcher = self.launchers.get(nspace).cloned();
        let mut alive = BTreeMap::new();
        if let Some(l) = &launcher {
            let up = match l.kind {
                RequesterKind::Tool => self.tools.contains_key(&l.nspace),
                RequesterKind::Scheduler => self.scheduler.is_some(),
                RequesterKind::App => {
                    let p = self.prrte_ns(&l.nspace).to_string();
                    !self.stuck.contains_key(&l.nspace)
                        && self.jobs.contains_key(&l.nspace)
                        && !self.job_ended(&p)?
                }
            };
            alive.insert(l.nspace.clone(), up);
        }
        let by = harness::job_ender(nspace, launcher.as_ref(), |r| {
            alive.get(&r.nspace).copied().unwrap_or(false)
        });
        if by.nspace != nspace {
            let w = match by.kind {
                RequesterKind::Scheduler => self
                    .scheduler
                    .as_mut()
                    .ok_or("no scheduler tool")?
                    .cmd(&line)
                    .map_err(String::from)?,
                _ => match self.request(&by, &line)? {
                    Ok(w) => w,
                    Err(r) => return Ok(r.status),
                },
            };
            self.apps.remove(nspace);
            return status_of(&w);
        }
        // The job ends itself: its answer may never come (the kill takes its rank 0 too).
        let r = match self.app(nspace) {
            Ok(p) => p.cmd(&line),
            Err(e) => Err(e),
        };
        self.apps.remove(nspace);
        match r {
            Ok(w) => status_of(&w),
            Err(PuppetErr::Gone(_)) | Err(PuppetErr::Broken(_)) => Ok(0),
            Err(PuppetErr::Timeout(m)) => {
                self.stuck.insert(nspace.to_string(), m);
                Ok(0)
            }
        }
    }

    fn own(&mut self) -> Result<&mut Puppet, String> {
        if self.own.is_none() {
            self.own = Some(self.spawn_puppet(BRIDGE_TOOL, false)?);
        }
        Ok(self.own.as_mut().expect("set above"))
    }

    fn prrte_ns<'a>(&'a self, ns: &'a str) -> &'a str {
        self.jobs.get(ns).map_or(ns, String::as_str)
    }

    fn scenario_ns(&self, prrte: &str) -> Option<String> {
        if self.tools.contains_key(prrte) {
            return Some(prrte.to_string());
        }
        self.jobs
            .iter()
            .find(|(_, p)| p.as_str() == prrte)
            .map(|(s, _)| s.clone())
    }

    /// Rewrite scenario namespaces in `PMIX_ALLOC_TARGET` to PRRTE's.
    fn translate(&self, info: &WireInfo) -> Result<(String, Vec<Info>), String> {
        let mut infos = info.decode()?;
        for i in infos.iter_mut() {
            if i.key.as_bytes() == attrs::ALLOC_TARGET.as_bytes() {
                if let Some(ns) = string_of(&i.value) {
                    i.value = Value::string(self.prrte_ns(&ns));
                }
            }
        }
        let hex = if infos.is_empty() {
            "-".to_string()
        } else {
            self.format.encode(&infos)?.hex
        };
        Ok((hex, infos))
    }

    fn stop_dvm(&mut self) {
        for (_, p) in std::mem::take(&mut self.tools) {
            p.quit();
        }
        self.apps.clear();
        self.stuck.clear();
        // The control FIFOs of this DVM's jobs (scenario jobs and probes).
        if let Ok(rd) = std::fs::read_dir(self.ctl_dir()) {
            for e in rd.flatten() {
                let _ = std::fs::remove_file(e.path());
            }
        }
        for p in [self.own.take(), self.scheduler.take()]
            .into_iter()
            .flatten()
        {
            p.quit();
        }
        if self.uri.take().is_some() {
            // PMIX_PRRTE_BRIDGE_LOGS=DIR keeps each DVM's prte.log (for triage).
            if let Some(keep) = std::env::var_os("PMIX_PRRTE_BRIDGE_LOGS") {
                let to = PathBuf::from(keep).join(format!("prte-{}.log", std::process::id()));
                let _ = std::fs::copy(self.dir.join("prte.log"), to);
            }
            let _ = Command::new("bash")
                .arg(self.repo.join("tools/prrte/dvm.sh"))
                .args(["stop", "--dir"])
                .arg(&self.dir)
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .status();
        }
        self.jobs.clear();
        self.warn.clear();
    }

    /// A detached watcher that stops this DVM if the bridge dies without stopping it (for
    /// instance when the suite kills it after a timeout).
    fn start_reaper(&self) -> Result<(), String> {
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; \
             [ -f '{dir}/pid' ] && bash '{dvm}' stop --dir '{dir}' >/dev/null 2>&1; rm -rf '{dir}' '{ctl}'",
            pid = std::process::id(),
            dir = self.dir.display(),
            dvm = self.repo.join("tools/prrte/dvm.sh").display(),
            ctl = self.ctl_dir().display(),
        );
        Command::new("setsid")
            .args(["sh", "-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map(|_| ())
            .map_err(|e| format!("cannot start the DVM reaper: {e}"))
    }

    /// Wait (bounded) until PRRTE reports job `prrte` ended (`Bridge::job_ended`);
    /// false when it still runs after `SETTLE_LIMIT`.
    fn wait_ended(&mut self, prrte: &str) -> Result<bool, String> {
        let start = std::time::Instant::now();
        while start.elapsed() < SETTLE_LIMIT {
            if self.job_ended(prrte)? {
                // Give PRRTE's termination processing (inheritance) a moment to settle.
                std::thread::sleep(Duration::from_millis(500));
                return Ok(true);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(false)
    }

    fn handle(&mut self, req: &Request) -> Result<Response, String> {
        let ok = Response::status(0);
        match req {
            Request::Hello { .. } => Ok(Response {
                server: Some("PRRTE 5.0.0rc1 on OpenPMIx 7.0.0rc1 (pmix-prrte-bridge)".into()),
                ..ok
            }),
            Request::Start {
                nodes,
                unavailable,
                scheduler_honors_warn_timeout,
                component,
            } => {
                if !unavailable.is_empty() {
                    return Ok(unsupported(
                        "PRRTE 5.0.0rc1 is built against a PMIx that defines all five attributes",
                    ));
                }
                self.format = WireFormat::parse(component, "non-described")?;
                self.honors_warn = *scheduler_honors_warn_timeout;
                self.stop_dvm();
                let out = Command::new("bash")
                    .arg(self.repo.join("tools/prrte/dvm.sh"))
                    .args([
                        "start",
                        "--slots",
                        SLOTS,
                        "--nodes",
                        &nodes.join(","),
                        "--dir",
                    ])
                    .arg(&self.dir)
                    .stderr(Stdio::inherit())
                    .output()
                    .map_err(|e| format!("dvm.sh: {e}"))?;
                if !out.status.success() {
                    return Err("dvm.sh start failed".into());
                }
                self.uri = Some(String::from_utf8_lossy(&out.stdout).trim().to_string());
                self.startup = nodes.clone();
                self.start_reaper()?;
                self.own()?;
                Ok(ok)
            }
            Request::ToolConnect { tool } => {
                let p = self.spawn_puppet(tool, false)?;
                self.tools.insert(tool.clone(), p);
                Ok(ok)
            }
            Request::Alloc {
                requester,
                directive,
                info,
                grant,
            } => {
                match requester.kind {
                    RequesterKind::Tool | RequesterKind::App => {}
                    RequesterKind::Scheduler => {
                        return Ok(unsupported(
                            "a tool attached as the scheduler cannot send allocation requests (its own PMIx library refuses)",
                        ))
                    }
                }
                if requester.kind == RequesterKind::App && requester.rank != 0 {
                    return Ok(unsupported(harness::RANK_UNSUPPORTED));
                }
                let (hex, infos) = self.translate(info)?;
                // Granted nodes get as many slots as startup nodes, so that slot counts never
                // decide a mapping the scenarios are not about.
                let nodes = if grant.is_empty() {
                    "-".to_string()
                } else {
                    grant
                        .iter()
                        .map(|g| format!("{g}:{SLOTS}"))
                        .collect::<Vec<_>>()
                        .join(",")
                };
                let w =
                    match self.request(requester, &format!("alloc {directive} {hex} {nodes}"))? {
                        Ok(w) => w,
                        Err(r) => return Ok(r),
                    };
                let status = status_of(&w)?;
                // REAQUIRE and REQ_CANCEL: PRRTE answers PMIX_ERR_NOT_SUPPORTED to the
                // directive itself. Resend without PMIX_ALLOC_INHERITANCE to tell that apart
                // from a rejected inheritance value (neither directive changes anything).
                if (*directive == 4 || *directive == 5)
                    && status == pmix_codec::Status::ERR_NOT_SUPPORTED.0
                {
                    let bare: Vec<Info> = infos
                        .iter()
                        .filter(|i| i.key.as_bytes() != attrs::ALLOC_INHERITANCE.as_bytes())
                        .cloned()
                        .collect();
                    let bare_hex = if bare.is_empty() {
                        "-".to_string()
                    } else {
                        self.format.encode(&bare)?.hex
                    };
                    let again = match self
                        .request(requester, &format!("alloc {directive} {bare_hex} -"))?
                    {
                        Ok(w) => status_of(&w)?,
                        Err(r) => return Ok(r),
                    };
                    if again == status {
                        return Ok(unsupported(&format!(
                            "PRRTE 5.0.0rc1 answers PMIX_ERR_NOT_SUPPORTED to directive {directive} whatever it carries (also without PMIX_ALLOC_INHERITANCE): the directive itself is unsupported"
                        )));
                    }
                }
                // A job's process never gets PMIX_DVM_IS_READY, nor does a tool for a shared
                // grant: then wait for the grown daemons.
                if status == 0
                    && (*directive == 1 || *directive == 2)
                    && w.get(2).map(String::as_str) != Some("1")
                {
                    self.wait_grown(grant)?;
                }
                let out = match w.get(1).map(String::as_str) {
                    None | Some("-") => None,
                    Some(h) => Some(WireInfo {
                        component: "v61".into(),
                        kind: "non-described".into(),
                        hex: h.into(),
                    }),
                };
                if status == 0 && (*directive == 1 || *directive == 2) {
                    let id = out.as_ref().and_then(|o| o.decode().ok()).and_then(|v| {
                        v.iter()
                            .find(|i| i.key.as_bytes() == attrs::ALLOC_ID.as_bytes())
                            .and_then(|i| string_of(&i.value))
                    });
                    let warn = infos.iter().find_map(|i| {
                        (i.key.as_bytes() == attrs::ALLOC_WARN_TIMEOUT.as_bytes())
                            .then_some(&i.value)
                            .and_then(|v| match v {
                                Value::Uint32(x) => Some(*x),
                                _ => None,
                            })
                    });
                    if let Some(id) = id {
                        let e = self
                            .warn
                            .entry(id)
                            .or_insert((requester.nspace.clone(), None));
                        if warn.is_some() {
                            e.1 = warn;
                        }
                    }
                }
                Ok(Response {
                    status,
                    info: out,
                    ..ok
                })
            }
            Request::Spawn {
                requester,
                nspace,
                info,
            } => {
                let (hex, _) = self.translate(info)?;
                let line = format!("spawn {hex}");
                let w = if requester.kind == RequesterKind::Scheduler {
                    if self.scheduler.is_none() {
                        self.scheduler = Some(self.spawn_puppet(SCHEDULER_TOOL, true)?);
                    }
                    match self.scheduler.as_mut().expect("set above").cmd(&line) {
                        Ok(w) => w,
                        Err(PuppetErr::Timeout(m)) => {
                            if let Some(p) = self.scheduler.take() {
                                p.quit();
                            }
                            return Ok(observed(
                                pmix_codec::Status::ERR_TIMEOUT.0,
                                format!("PMIx_Spawn by the scheduler: {m}"),
                            ));
                        }
                        Err(e) => return Err(e.into()),
                    }
                } else {
                    match self.request(requester, &line)? {
                        Ok(w) => w,
                        Err(r) => return Ok(r),
                    }
                };
                let status = status_of(&w)?;
                if status != 0 {
                    return Ok(Response::status(status));
                }
                let prrte = w.get(1).cloned().ok_or("spawn gave no namespace")?;
                self.jobs.insert(nspace.clone(), prrte.clone());
                self.launchers.insert(nspace.clone(), requester.clone());
                self.wait_started(&prrte)?;
                let w = self.own()?.cmd(&format!("procs {prrte}"))?;
                Ok(Response {
                    candidates: Some(list_of(&w, 1)),
                    ..ok
                })
            }
            Request::Terminate { nspace } => {
                if !self.jobs.contains_key(nspace) && self.stuck.contains_key(nspace) {
                    // A tool blocked in a call that never returned was already ended.
                    return Ok(Response {
                        message: Some(format!("{nspace} was ended when its call timed out")),
                        ..ok
                    });
                }
                if let Some(p) = self.tools.remove(nspace) {
                    p.quit();
                    // PRRTE runs the inheritance rules when the tool's departure is processed.
                    std::thread::sleep(Duration::from_millis(1000));
                    return Ok(ok);
                }
                let prrte = self
                    .jobs
                    .get(nspace)
                    .cloned()
                    .ok_or_else(|| format!("no namespace {nspace}"))?;
                let status = self.end_job(nspace, &prrte)?;
                if status == 0 && !self.wait_ended(&prrte)? {
                    return Ok(observed(
                        pmix_codec::Status::ERR_TIMEOUT.0,
                        format!(
                            "PMIx_Job_control(KILL) of {nspace} succeeded, but PRRTE still \
                             runs it {SETTLE_LIMIT:?} later (PMIX_QUERY_NAMESPACES lists it and \
                             PMIX_QUERY_PROC_TABLE has a process not terminated)"
                        ),
                    ));
                }
                Ok(Response::status(status))
            }
            Request::Reclaim { .. } => Ok(unsupported(harness::RECLAIM_UNSUPPORTED)),
            Request::TimeoutWarning { alloc, remaining } => {
                let Some((_, threshold)) = self.warn.get(alloc).cloned() else {
                    return Ok(Response::status(-46));
                };
                // The bridge plays a scheduler that honors WARN_TIMEOUT unless told not to.
                let (Some(t), true) = (threshold, self.honors_warn) else {
                    return Ok(ok);
                };
                if self.scheduler.is_none() {
                    self.scheduler = Some(self.spawn_puppet(SCHEDULER_TOOL, true)?);
                }
                let s = self.scheduler.as_mut().expect("set above");
                let w = s.cmd(&format!("warn {alloc} {}", remaining.unwrap_or(t)))?;
                std::thread::sleep(Duration::from_millis(1000));
                Ok(Response::status(status_of(&w)?))
            }
            Request::Teardown => {
                self.stop_dvm();
                Ok(ok)
            }
            Request::Probe => {
                if self.uri.is_none() {
                    return Ok(Response {
                        candidates: Some(Vec::new()),
                        ..ok
                    });
                }
                let w = self.own()?.cmd("spawn -")?;
                if status_of(&w)? != 0 {
                    return Ok(Response {
                        candidates: Some(Vec::new()),
                        ..ok
                    });
                }
                let prrte = w.get(1).cloned().ok_or("probe spawn gave no namespace")?;
                self.wait_started(&prrte)?;
                let hosts = list_of(&self.own()?.cmd(&format!("procs {prrte}"))?, 1);
                self.own()?.cmd(&format!("kill {prrte}"))?;
                if !self.wait_ended(&prrte)? {
                    return Err(format!("the probe job {prrte} still runs after a kill"));
                }
                Ok(Response {
                    candidates: Some(hosts),
                    ..ok
                })
            }
            Request::Query => self.query().map(|o| Response {
                observed: Some(o),
                ..ok
            }),
            Request::Observe => Ok(unsupported(
                "PRRTE exposes no owner sets, sessions or dispositions",
            )),
            Request::Shutdown => {
                self.stop_dvm();
                Ok(ok)
            }
        }
    }

    fn query(&mut self) -> Result<Observed, String> {
        let mut o = Observed::default();
        if self.uri.is_none() {
            return Ok(o);
        }
        let ids = list_of(&self.own()?.cmd("ids")?, 1);
        for id in &ids {
            let nodes = list_of(&self.own()?.cmd(&format!("alloc_nodes {id}"))?, 1);
            o.allocations.insert(id.clone(), nodes);
        }
        o.alloc_ids = ids;
        let running = list_of(&self.own()?.cmd("namespaces")?, 1);
        for prrte in &running {
            let Some(ns) = self.scenario_ns(prrte) else {
                continue;
            };
            if self.jobs.contains_key(&ns) {
                // Listed, but every process terminated: ended (see the module comment).
                if self.job_ended(prrte)? {
                    continue;
                }
                let hosts = list_of(&self.own()?.cmd(&format!("procs {prrte}"))?, 1);
                o.proc_table.insert(ns.clone(), hosts);
            }
            o.namespaces.push(ns);
        }
        o.namespaces.sort();
        // Only PMIX_ALLOC_TIMEOUT_WARNING is governed by the spec; DVM_IS_READY, job-end and
        // other events PRRTE also delivers are outside it.
        let mut names: Vec<(String, bool)> =
            self.tools.keys().map(|n| (n.clone(), false)).collect();
        for ns in self.jobs.keys() {
            if o.namespaces.contains(ns) {
                names.push((ns.clone(), true));
            }
        }
        for (name, is_app) in names {
            let w = if is_app {
                // A job whose processes were just killed (its nodes left) can report nothing.
                if self.stuck.contains_key(&name) {
                    continue;
                }
                match self.app(&name).and_then(|p| p.cmd("events")) {
                    Ok(w) => w,
                    Err(_) => {
                        self.apps.remove(&name);
                        continue;
                    }
                }
            } else {
                self.tools.get_mut(&name).expect("listed").cmd("events")?
            };
            for ev in w.iter().filter(|e| e.as_str() != "-") {
                let Some((code, hex)) = ev.split_once(':') else {
                    continue;
                };
                let code: i32 = code.parse().map_err(|_| format!("bad event {ev}"))?;
                if code != pmix_codec::Status::ALLOC_TIMEOUT_WARNING.0 {
                    continue;
                }
                o.events.push(EventView {
                    to: ProcRef {
                        nspace: name.clone(),
                        rank: 0,
                    },
                    code,
                    info: WireInfo {
                        component: "v61".into(),
                        kind: "non-described".into(),
                        hex: hex.into(),
                    },
                });
            }
        }
        Ok(o)
    }
}

fn main() -> ExitCode {
    let mut repo = None;
    let mut puppet = None;
    let mut release = "7.0.0rc1".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repo" => repo = args.next().map(PathBuf::from),
            "--puppet" => puppet = args.next(),
            "--release" => release = args.next().unwrap_or_default(),
            "-h" | "--help" => {
                println!("usage: pmix-prrte-bridge --repo DIR --puppet PATH-IN-ROOT [--release 7.0.0rc1]\nServes a real PRRTE DVM over SERVER.md (stdin/stdout).");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("pmix-prrte-bridge: unknown argument {other:?} (valid: --repo --puppet --release)");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(repo), Some(puppet)) = (repo, puppet) else {
        eprintln!("pmix-prrte-bridge: --repo and --puppet are required");
        return ExitCode::from(2);
    };
    let root = match Command::new("bash")
        .arg(repo.join("tools/peers.sh"))
        .args(["root", &release])
        .stderr(Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
        _ => {
            eprintln!("pmix-prrte-bridge: no {release} root (bash tools/peers.sh make {release})");
            return ExitCode::from(1);
        }
    };
    // One control directory per bridge: FIFO names are PRRTE job namespaces, which a later
    // DVM with a recycled pid could repeat.
    let ctl = format!("/tmp/pmix-wire-ctl/{}", std::process::id());
    if let Err(e) = std::fs::create_dir_all(root.join(ctl.trim_start_matches('/'))) {
        eprintln!("pmix-prrte-bridge: {e}");
        return ExitCode::from(1);
    }
    let dir = std::env::temp_dir().join(format!("pmix-prrte-bridge-{}", std::process::id()));
    let mut b = Bridge {
        repo,
        puppet,
        release,
        dir,
        uri: None,
        format: WireFormat::default(),
        honors_warn: true,
        tools: BTreeMap::new(),
        apps: BTreeMap::new(),
        root,
        ctl,
        startup: Vec::new(),
        stuck: BTreeMap::new(),
        own: None,
        scheduler: None,
        jobs: BTreeMap::new(),
        launchers: BTreeMap::new(),
        warn: BTreeMap::new(),
    };
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    while let Ok(Some(frame)) = read_frame(&mut input) {
        let (resp, stop) = match serde_json::from_slice::<Request>(&frame) {
            Ok(req) => {
                let stop = matches!(req, Request::Shutdown);
                let resp = match b.handle(&req) {
                    Ok(r) => r,
                    Err(e) => {
                        // A bridge failure is not a finding about PRRTE: end the process so
                        // the suite reports an error, never a pass or a failure.
                        eprintln!("pmix-prrte-bridge: {e}");
                        b.stop_dvm();
                        let _ = std::fs::remove_dir_all(&b.dir);
                        let _ = std::fs::remove_dir_all(b.ctl_dir());
                        return ExitCode::from(1);
                    }
                };
                (resp, stop)
            }
            Err(e) => (
                Response {
                    status: pmix_codec::Status::ERR_BAD_PARAM.0,
                    message: Some(format!("invalid request: {e}")),
                    ..Default::default()
                },
                false,
            ),
        };
        let body = serde_json::to_vec(&resp).unwrap_or_default();
        if write_frame(&mut output, &body).is_err() || output.flush().is_err() || stop {
            break;
        }
    }
    b.stop_dvm();
    let _ = std::fs::remove_dir_all(&b.dir);
    let _ = std::fs::remove_dir_all(b.ctl_dir());
    ExitCode::SUCCESS
}
