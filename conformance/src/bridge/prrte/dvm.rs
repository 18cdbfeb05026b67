//! DVM control and observation: the bridge's state, starting and stopping `prte`, reaching
//! requesters, waiting on observed state (never on sleeps alone), ending jobs with granted
//! privileges, and translating PRRTE's namespaces.

#[allow(unused_imports)]
use super::puppet::*;
#[allow(unused_imports)]
use super::*;

pub(super) struct Bridge {
    pub(super) repo: PathBuf,
    pub(super) puppet: String,
    pub(super) release: String,
    pub(super) dir: PathBuf,
    pub(super) uri: Option<String>,
    pub(super) format: WireFormat,
    pub(super) honors_warn: bool,
    pub(super) tools: BTreeMap<String, Puppet>,
    /// The processes of scenario jobs the bridge reached, by (scenario namespace, rank).
    pub(super) apps: BTreeMap<(String, u32), Puppet>,
    /// Scenario job namespace -> processes per node (one more than the highest rank the
    /// scenario names for it).
    pub(super) ranks: BTreeMap<String, u32>,
    /// The sid root on this machine.
    pub(super) root: PathBuf,
    /// This bridge's control directory for job puppets, inside the root (as seen there).
    pub(super) ctl: String,
    /// The startup nodes of the running DVM.
    pub(super) startup: Vec<String>,
    /// Requesters blocked in a PMIx call that never returned (their puppet is unusable).
    pub(super) stuck: BTreeMap<String, String>,
    pub(super) own: Option<Puppet>,
    pub(super) scheduler: Option<Puppet>,
    /// Scenario job namespace -> PRRTE's.
    pub(super) jobs: BTreeMap<String, String>,
    /// Scenario job namespace -> the requester that spawned it (its launcher, who ends it).
    pub(super) launchers: BTreeMap<String, Requester>,
    /// Allocation id -> (requester's scenario namespace, requested warning threshold).
    pub(super) warn: BTreeMap<String, (String, Option<u32>)>,
    /// The native target: the pmix-server binary to run in place of a DVM
    /// ([`crate::bridge::native`]).
    pub(super) native: Option<PathBuf>,
    /// The running native server.
    pub(super) native_server: Option<crate::bridge::native::NativeServer>,
}

pub(super) fn status_of(w: &[String]) -> Result<i32, String> {
    w.first()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {w:?}"))
}

pub(super) fn list_of(w: &[String], i: usize) -> Vec<String> {
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
pub(super) fn observed(status: i32, message: String) -> Response {
    Response {
        status,
        message: Some(message),
        ..Default::default()
    }
}

/// The PMIx API call behind a puppet command, for messages.
pub(super) fn call_name(cmd: &str) -> &'static str {
    match cmd {
        "alloc" => "Allocation_request",
        "spawn" => "Spawn",
        "kill" => "Job_control",
        "warn" => "Notify_event",
        _ => "Query_info",
    }
}

pub(super) fn unsupported(why: &str) -> Response {
    Response {
        unsupported: Some(why.into()),
        ..Default::default()
    }
}

impl Bridge {
    pub(super) fn spawn_puppet(&self, nspace: &str, scheduler: bool) -> Result<Puppet, String> {
        // A 7.0.0rc1 tool's PMIx_tool_init has been seen, about once in ten full runs on a
        // loaded machine, to get its connect reply and then never return (nothing more on
        // the wire). That is the harness failing to attach its tool, before any request of
        // the scenario: the stuck tool is killed and started once more, and stderr says so.
        match self.start_puppet(nspace, scheduler) {
            Err(PuppetErr::Timeout(m)) => {
                eprintln!(
                    "pmix-prrte-bridge: the {nspace} tool did not finish PMIx_tool_init ({m}); \
                     killed it, starting it once more"
                );
                self.start_puppet(nspace, scheduler).map_err(String::from)
            }
            r => r.map_err(String::from),
        }
    }

    /// Start one tool puppet and wait for its `init` answer; a puppet that times out is
    /// killed before the error returns.
    fn start_puppet(&self, nspace: &str, scheduler: bool) -> Result<Puppet, PuppetErr> {
        let uri = self
            .uri
            .clone()
            .ok_or_else(|| PuppetErr::Broken("the DVM is not running".into()))?;
        let mut c = Command::new("bash");
        puppet::tool_command(&mut c);
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
            .map_err(|e| PuppetErr::Broken(format!("cannot start the puppet: {e}")))?;
        let stdin = child.stdin.take();
        let out = child.stdout.take();
        let (Some(stdin), Some(out)) = (stdin, out) else {
            return Err(PuppetErr::Broken("no puppet stdin or stdout".into()));
        };
        let mut p = Puppet {
            child: Some(child),
            pid: None,
            stdin: Box::new(stdin),
            lines: line_reader(move || Ok(out)),
        };
        let hello = match p.answer("init") {
            Ok(h) => h,
            Err(e) => {
                p.kill();
                return Err(e);
            }
        };
        if hello.get(1).map(String::as_str) != Some(nspace) {
            return Err(PuppetErr::Broken(format!(
                "puppet for {nspace} started as {hello:?}"
            )));
        }
        Ok(p)
    }

    /// The control directory as seen from outside the root.
    pub(super) fn ctl_dir(&self) -> PathBuf {
        self.root.join(self.ctl.trim_start_matches('/'))
    }

    /// Rank `rank` of scenario job `ns`, reached through the FIFOs it made (waits, bounded).
    /// `Gone` when its process has ended (its FIFO has no reader).
    pub(super) fn app(&mut self, ns: &str, rank: u32) -> Result<&mut Puppet, PuppetErr> {
        let key = (ns.to_string(), rank);
        if !self.apps.contains_key(&key) {
            let prrte = self
                .jobs
                .get(ns)
                .cloned()
                .ok_or_else(|| PuppetErr::Broken(format!("no job {ns}")))?;
            let dir = self.ctl_dir();
            let name = format!("{prrte}.{rank}");
            let out = dir.join(format!("{name}.out"));
            let start = std::time::Instant::now();
            while !out.exists() {
                if start.elapsed() > Duration::from_secs(20) {
                    return Err(PuppetErr::Gone(format!(
                        "rank {rank} of {ns} ({prrte}) made no control FIFO in 20 s"
                    )));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let pid = std::fs::read_to_string(dir.join(format!("{name}.pid")))
                .ok()
                .and_then(|t| t.trim().parse().ok());
            // Non-blocking: fails at once (ENXIO) when the process is gone and nobody reads.
            let w = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(O_NONBLOCK)
                .open(dir.join(format!("{name}.in")))
                .map_err(|e| PuppetErr::Gone(format!("rank {rank} of {ns} ({prrte}): {e}")))?;
            let lines = line_reader(move || std::fs::File::open(&out));
            self.apps.insert(
                key.clone(),
                Puppet {
                    child: None,
                    pid,
                    stdin: Box::new(w),
                    lines,
                },
            );
        }
        Ok(self.apps.get_mut(&key).expect("inserted above"))
    }

    /// Drop every reached process of scenario job `ns` (it was killed or ended).
    pub(super) fn forget_processes(&mut self, ns: &str) {
        self.apps.retain(|(n, _), _| n != ns);
    }

    /// Send `line` to a scenario requester. `Ok(Err(response))` is what PRRTE did that
    /// ends the step (the call never returned, or PRRTE already ended the requesting job);
    /// `Err` is a bridge fault.
    pub(super) fn request(
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
            RequesterKind::App => match self.app(&ns, requester.rank) {
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
                self.apps.remove(&(ns.clone(), requester.rank));
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
                self.apps.remove(&(ns.clone(), requester.rank));
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
    pub(super) fn job_ended(&mut self, prrte: &str) -> Result<bool, String> {
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
    pub(super) fn wait_started(&mut self, prrte: &str) -> Result<(), String> {
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
    pub(super) fn wait_grown(&mut self, grant: &[String]) -> Result<(), String> {
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
        self.pause(500);
        Ok(())
    }

    /// End scenario job `nspace` with the privileges the spec grants (the harness layer's
    /// [`harness::end_job`]: its launcher while that runs, else the job itself; never a tool
    /// that owns nothing). Returns the kill's status (0 when the job ended itself).
    pub(super) fn end_job(&mut self, nspace: &str) -> Result<i32, String> {
        let launcher = self.launchers.get(nspace).cloned();
        harness::end_job(self, nspace, launcher.as_ref()).map(|(_, status)| status)
    }

    /// A pause PRRTE needs to settle (inheritance after a departure, a grow's launch fence,
    /// an event in flight); none for the native server, which settles before it answers
    /// (`pmix_server::requests::settle`).
    pub(super) fn pause(&self, ms: u64) {
        if self.native.is_none() {
            std::thread::sleep(Duration::from_millis(ms));
        }
    }

    pub(super) fn own(&mut self) -> Result<&mut Puppet, String> {
        if self.own.is_none() {
            self.own = Some(self.spawn_puppet(BRIDGE_TOOL, false)?);
        }
        Ok(self.own.as_mut().expect("set above"))
    }

    pub(super) fn prrte_ns<'a>(&'a self, ns: &'a str) -> &'a str {
        self.jobs.get(ns).map_or(ns, String::as_str)
    }

    pub(super) fn scenario_ns(&self, prrte: &str) -> Option<String> {
        if self.tools.contains_key(prrte) {
            return Some(prrte.to_string());
        }
        self.jobs
            .iter()
            .find(|(_, p)| p.as_str() == prrte)
            .map(|(s, _)| s.clone())
    }

    /// Rewrite scenario namespaces in `PMIX_ALLOC_TARGET` to PRRTE's.
    pub(super) fn translate(&self, info: &WireInfo) -> Result<(String, Vec<Info>), String> {
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

    pub(super) fn stop_dvm(&mut self) {
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
        if let Some(mut n) = self.native_server.take() {
            n.stop();
            self.uri = None;
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
        self.ranks.clear();
        self.warn.clear();
    }

    /// A detached watcher that stops this DVM if the bridge dies without stopping it (for
    /// instance when the suite kills it after a timeout).
    pub(super) fn start_reaper(&self) -> Result<(), String> {
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
    pub(super) fn wait_ended(&mut self, prrte: &str) -> Result<bool, String> {
        let start = std::time::Instant::now();
        while start.elapsed() < SETTLE_LIMIT {
            if self.job_ended(prrte)? {
                // Give PRRTE's termination processing (inheritance) a moment to settle.
                self.pause(500);
                return Ok(true);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(false)
    }
}

impl harness::JobControl for Bridge {
    fn running(&mut self, who: &Requester) -> Result<bool, String> {
        Ok(match who.kind {
            RequesterKind::Tool => self.tools.contains_key(&who.nspace),
            RequesterKind::Scheduler => self.scheduler.is_some(),
            RequesterKind::App => {
                let p = self.prrte_ns(&who.nspace).to_string();
                !self.stuck.contains_key(&who.nspace)
                    && self.jobs.contains_key(&who.nspace)
                    && !self.job_ended(&p)?
            }
        })
    }

    /// The kill is sent by `by`'s own process. A job that kills itself may never answer (the
    /// kill takes the process that sent it too): that counts as success.
    fn kill(&mut self, by: &Requester, job: &str) -> Result<i32, String> {
        let line = format!("kill {}", self.prrte_ns(job));
        if by.nspace != job {
            let w = match by.kind {
                RequesterKind::Scheduler => self
                    .scheduler
                    .as_mut()
                    .ok_or("no scheduler tool")?
                    .cmd(&line)
                    .map_err(String::from)?,
                _ => match self.request(by, &line)? {
                    Ok(w) => w,
                    Err(r) => return Ok(r.status),
                },
            };
            self.forget_processes(job);
            return status_of(&w);
        }
        let r = match self.app(job, by.rank) {
            Ok(p) => p.cmd(&line),
            Err(e) => Err(e),
        };
        self.forget_processes(job);
        match r {
            Ok(w) => status_of(&w),
            Err(PuppetErr::Gone(_)) | Err(PuppetErr::Broken(_)) => Ok(0),
            Err(PuppetErr::Timeout(m)) => {
                self.stuck.insert(job.to_string(), m);
                Ok(0)
            }
        }
    }
}

impl Bridge {
    /// A request by a process the job does not have is a fault of the harness (the suite
    /// spawns every job with as many ranks as its scenario names), never a finding.
    pub(super) fn rank_exists(&self, r: &Requester) -> Result<(), String> {
        if harness::rank_exists(r, self.ranks.get(&r.nspace).copied()) {
            Ok(())
        } else {
            Err(format!(
                "{}:{} is not a process the bridge spawned ({} per node)",
                r.nspace,
                r.rank,
                self.ranks.get(&r.nspace).copied().unwrap_or(1)
            ))
        }
    }
}
