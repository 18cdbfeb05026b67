//! The SERVER.md requests, each acted out on the DVM, and the peer-observable query.

#[allow(unused_imports)]
use super::dvm::*;
#[allow(unused_imports)]
use super::puppet::*;
#[allow(unused_imports)]
use super::*;

impl Bridge {
    pub(super) fn handle(&mut self, req: &Request) -> Result<Response, String> {
        let ok = Response::status(0);
        match req {
            Request::Hello { .. } if self.native.is_some() => Ok(Response {
                server: Some(crate::bridge::native::NAME.into()),
                ..ok
            }),
            Request::Start {
                nodes,
                unavailable,
                scheduler_honors_warn_timeout,
                component,
            } if self.native.is_some() => {
                self.format = WireFormat::parse(component, "non-described")?;
                self.honors_warn = *scheduler_honors_warn_timeout;
                self.stop_dvm();
                let server = self.native.clone().expect("guarded");
                let (s, uri) = crate::bridge::native::NativeServer::start(
                    &server,
                    &self.repo,
                    &self.release,
                    nodes,
                    unavailable,
                )?;
                self.native_server = Some(s);
                self.uri = Some(uri);
                self.startup = nodes.clone();
                self.own()?;
                Ok(ok)
            }
            Request::Reclaim { .. } if self.native.is_some() => {
                Ok(unsupported(crate::bridge::native::RECLAIM_UNSUPPORTED))
            }
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
                        &SLOTS.to_string(),
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
                self.rank_exists(requester)?;
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
                ranks,
            } => {
                self.rank_exists(requester)?;
                let (hex, _) = self.translate(info)?;
                let ranks = (*ranks).max(1);
                if ranks > SLOTS {
                    return Ok(unsupported(&format!(
                        "a job with {ranks} processes per node: the bridge gives each node {SLOTS} slots"
                    )));
                }
                let line = format!("spawn {hex} {ranks}");
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
                self.ranks.insert(nspace.clone(), ranks);
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
                    self.pause(1000);
                    return Ok(ok);
                }
                let prrte = self
                    .jobs
                    .get(nspace)
                    .cloned()
                    .ok_or_else(|| format!("no namespace {nspace}"))?;
                let status = self.end_job(nspace)?;
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
            Request::Kill { requester, nspace } => {
                if !self.jobs.contains_key(nspace) {
                    return Ok(Response::status(pmix_codec::Status::ERR_NOT_FOUND.0));
                }
                self.rank_exists(requester)?;
                let status = harness::JobControl::kill(self, requester, nspace)?;
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
                // The event reaches the requester's process asynchronously (its handler runs
                // in its own progress thread), from PRRTE and from the native server alike.
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
                let w = self.own()?.cmd("spawn - 1")?;
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

    pub(super) fn query(&mut self) -> Result<Observed, String> {
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
        // Every process the scenario can name: each tool, and ranks 0..ranks of each running job.
        let mut names: Vec<(String, Option<u32>)> =
            self.tools.keys().map(|n| (n.clone(), None)).collect();
        for (ns, ranks) in &self.ranks {
            if o.namespaces.contains(ns) {
                names.extend((0..*ranks).map(|r| (ns.clone(), Some(r))));
            }
        }
        for (name, rank) in names {
            let w = if let Some(rank) = rank {
                // A job whose processes were just killed (its nodes left) can report nothing.
                if self.stuck.contains_key(&name) {
                    continue;
                }
                match self.app(&name, rank).and_then(|p| p.cmd("events")) {
                    Ok(w) => w,
                    Err(_) => {
                        self.apps.remove(&(name.clone(), rank));
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
                        rank: rank.unwrap_or(0),
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
