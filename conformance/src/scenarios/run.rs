//! Running scenarios against a server.

use super::values::{build_info, parse_directive, parse_requester, parse_status, Vars};
use super::{Expect, Scenario, Step};
use crate::protocol::{Observed, Request, Response, Snapshot};
use crate::report::{CaseResult, Outcome};
use crate::server::Server;
use crate::wireinfo::{string_of, WireFormat};
use pmix_codec::attrs;
use pmix_codec::{Status, Value};
use std::collections::BTreeSet;
use std::time::Instant;

enum StepErr {
    Fail { expected: String, actual: String },
    Unsupported(String),
    Error(String),
}

fn fail(what: &str, expected: impl std::fmt::Display, actual: impl std::fmt::Display) -> StepErr {
    StepErr::Fail {
        expected: format!("{what} = {expected}"),
        actual: format!("{what} = {actual}"),
    }
}

fn status_text(code: i32) -> String {
    Status(code).to_string()
}

fn sorted(v: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = v.into_iter().collect();
    v.sort();
    v
}

fn list(v: &[String]) -> String {
    format!("[{}]", v.join(", "))
}

struct Ctx<'a> {
    server: &'a mut dyn Server,
    format: WireFormat,
    vars: Vars,
    /// The server declared the `introspection` capability (it answers `observe`).
    introspection: bool,
    /// Application namespaces this scenario spawned successfully.
    spawned: BTreeSet<String>,
    /// Expectations not checked because they need introspection the server lacks.
    skipped: Vec<String>,
    /// `can_spawn` probes made so far.
    probes: u32,
    /// Namespaces a `terminate` step ended.
    terminated: BTreeSet<String>,
    /// The startup nodes, and every node a scheduler grant named.
    startup: BTreeSet<String>,
    granted: BTreeSet<String>,
    /// The DVM was torn down.
    torn_down: bool,
    /// Processes per node of each job that needs more than one ([`Scenario::ranks_named`]).
    ranks: std::collections::BTreeMap<String, u32>,
}

impl Ctx<'_> {
    fn call(&mut self, req: &Request) -> Result<Response, StepErr> {
        let r = self
            .server
            .call(req)
            .map_err(|e| StepErr::Error(e.to_string()))?;
        if let Some(u) = &r.unsupported {
            return Err(StepErr::Unsupported(u.clone()));
        }
        Ok(r)
    }

    fn query(&mut self) -> Result<Observed, StepErr> {
        let r = self.call(&Request::Query)?;
        if r.status != 0 {
            return Err(StepErr::Error(format!(
                "query returned {}",
                status_text(r.status)
            )));
        }
        r.observed
            .ok_or_else(|| StepErr::Error("query returned no observations".into()))
    }

    fn observe(&mut self) -> Result<Snapshot, StepErr> {
        let r = self.call(&Request::Observe)?;
        if r.status != 0 {
            return Err(StepErr::Error(format!(
                "observe returned {}",
                status_text(r.status)
            )));
        }
        r.state
            .ok_or_else(|| StepErr::Error("observe returned no state".into()))
    }

    fn res(&self, s: &str) -> Result<String, StepErr> {
        self.vars.resolve(s).map_err(StepErr::Error)
    }

    fn res_all(&self, v: &[String]) -> Result<Vec<String>, StepErr> {
        Ok(sorted(
            v.iter()
                .map(|s| self.res(s))
                .collect::<Result<Vec<_>, _>>()?,
        ))
    }

    fn show_list(&self, v: &[String]) -> String {
        list(&v.iter().map(|x| self.vars.show(x)).collect::<Vec<_>>())
    }

    fn encode(&self, info: &[super::InfoSpec]) -> Result<crate::wireinfo::WireInfo, StepErr> {
        let infos = info
            .iter()
            .map(|i| build_info(i, &self.vars))
            .collect::<Result<Vec<_>, _>>()
            .map_err(StepErr::Error)?;
        self.format.encode(&infos).map_err(StepErr::Unsupported)
    }

    fn request(&self, step: &Step) -> Result<Request, StepErr> {
        Ok(match step {
            Step::DvmStart {
                nodes,
                unavailable,
                scheduler_honors_warn_timeout,
                ..
            } => Request::Start {
                nodes: nodes.clone(),
                unavailable: unavailable.clone(),
                scheduler_honors_warn_timeout: *scheduler_honors_warn_timeout,
                component: self.format.component.name().into(),
            },
            Step::ToolConnect { tool, .. } => Request::ToolConnect { tool: tool.clone() },
            Step::Alloc {
                by,
                directive,
                info,
                grant,
                ..
            } => Request::Alloc {
                requester: parse_requester(by).map_err(StepErr::Error)?,
                directive: parse_directive(directive).map_err(StepErr::Error)?,
                info: self.encode(info)?,
                grant: grant.clone(),
            },
            Step::Spawn {
                by, nspace, info, ..
            } => Request::Spawn {
                requester: parse_requester(by).map_err(StepErr::Error)?,
                nspace: nspace.clone(),
                info: self.encode(info)?,
                ranks: self.ranks.get(nspace).copied().unwrap_or(1),
            },
            Step::Terminate { nspace, .. } => Request::Terminate {
                nspace: nspace.clone(),
            },
            Step::Reclaim { alloc, reason, .. } => Request::Reclaim {
                alloc: self.res(alloc)?,
                reason: reason.clone(),
            },
            Step::TimeoutWarning {
                alloc, remaining, ..
            } => Request::TimeoutWarning {
                alloc: self.res(alloc)?,
                remaining: *remaining,
            },
            Step::DvmTeardown { .. } => Request::Teardown,
            Step::CanSpawn { by, target, .. } => Request::Spawn {
                requester: parse_requester(by).map_err(StepErr::Error)?,
                nspace: self.probe_nspace(),
                info: self.encode(&[super::InfoSpec {
                    key: "PMIX_SPAWN_TARGET".into(),
                    ty: Some("STRING".into()),
                    elem: None,
                    value: toml::Value::String(target.clone()),
                    flags: 0,
                }])?,
                ranks: 1,
            },
            Step::Observe { .. } => Request::Query,
        })
    }

    /// The namespace of the next `can_spawn` probe job.
    fn probe_nspace(&self) -> String {
        format!("probe-job-{}", self.probes)
    }

    fn step(&mut self, n: usize, step: &Step) -> Result<(), StepErr> {
        let e = step.expect();
        let intro = introspective_fields(e);
        let check_intro = !intro.is_empty() && self.introspection;
        if !intro.is_empty() && !self.introspection {
            self.skipped
                .push(format!("step {n} ({}): {}", step.op(), intro.join(", ")));
        }
        let unchanged = e.unchanged == Some(true);
        let before_obs = if unchanged { Some(self.query()?) } else { None };
        // With introspection, "unchanged" compares the whole snapshot too (SCENARIOS.md).
        let before = if unchanged && self.introspection {
            Some(self.observe()?)
        } else {
            None
        };
        let req = self.request(step)?;
        let resp = self.call(&req)?;

        // Status: explicit, excluded, or success by default.
        match (&e.status, &e.status_not) {
            (None, None) if e.status_in.is_some() => {
                let allowed = e
                    .status_in
                    .iter()
                    .flatten()
                    .map(parse_status)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(StepErr::Error)?;
                if !allowed.iter().any(|a| a.0 == resp.status) {
                    let names: Vec<String> = allowed.iter().map(|a| a.to_string()).collect();
                    return Err(fail(
                        "status",
                        format!("one of {}", list(&names)),
                        status_text(resp.status) + &msg(&resp),
                    ));
                }
            }
            (Some(s), _) => {
                let want = parse_status(s).map_err(StepErr::Error)?;
                if want.0 != resp.status {
                    return Err(fail("status", want, status_text(resp.status) + &msg(&resp)));
                }
            }
            (None, Some(s)) => {
                let not = parse_status(s).map_err(StepErr::Error)?;
                if not.0 == resp.status {
                    return Err(fail(
                        "status",
                        format!("anything but {not}"),
                        status_text(resp.status) + &msg(&resp),
                    ));
                }
            }
            (None, None) if resp.status != 0 => {
                return Err(fail(
                    "status",
                    Status::SUCCESS,
                    status_text(resp.status) + &msg(&resp),
                ))
            }
            _ => {}
        }

        // Returned info: PMIX_ALLOC_ID / PMIX_ALLOC_REQ_ID.
        let infos = match &resp.info {
            Some(w) => w
                .decode()
                .map_err(|m| StepErr::Error(format!("response info: {m}")))?,
            None => Vec::new(),
        };
        let get = |key: &str| {
            infos
                .iter()
                .find(|i| i.key.as_bytes() == key.as_bytes())
                .map(|i| {
                    string_of(&i.value).unwrap_or_else(|| format!("<{}>", i.value.data_type()))
                })
        };
        let alloc_id = get(attrs::ALLOC_ID);
        if let Step::Alloc { bind: Some(b), .. } = step {
            match &alloc_id {
                Some(id) if !id.is_empty() => self.vars.bind(b, id.clone()),
                _ => {
                    return Err(fail(
                        "PMIX_ALLOC_ID",
                        format!("an id to bind to ${b}"),
                        "none returned",
                    ))
                }
            }
        }
        if let Some(want) = &e.alloc_id {
            let want = self.res(want)?;
            if alloc_id.as_deref() != Some(want.as_str()) {
                return Err(fail(
                    "PMIX_ALLOC_ID",
                    self.vars.show(&want),
                    alloc_id.map_or("absent".into(), |a| self.vars.show(&a)),
                ));
            }
        }
        if let Some(want) = &e.req_id {
            let got = get(attrs::ALLOC_REQ_ID);
            let ok = if want.is_empty() {
                got.is_none()
            } else {
                got.as_deref() == Some(want.as_str())
            };
            if !ok {
                return Err(fail(
                    "echoed PMIX_ALLOC_REQ_ID",
                    if want.is_empty() { "absent" } else { want },
                    got.as_deref().unwrap_or("absent"),
                ));
            }
        }
        if let Some(want) = &e.candidates {
            let got = sorted(resp.candidates.clone().unwrap_or_default());
            let want = sorted(want.clone());
            if got != want {
                return Err(fail("candidates", list(&want), list(&got)));
            }
        }
        if let Some(sets) = &e.candidates_in {
            let got = sorted(resp.candidates.clone().unwrap_or_default());
            if !sets.iter().any(|w| sorted(w.clone()) == got) {
                let shown: Vec<String> = sets.iter().map(|w| list(&sorted(w.clone()))).collect();
                return Err(fail(
                    "candidates",
                    format!("one of {}", shown.join(" or ")),
                    list(&got),
                ));
            }
        }
        if let Step::CanSpawn { .. } = step {
            // The probe job is not part of the scenario: end it at once when it started.
            let nspace = self.probe_nspace();
            self.probes += 1;
            if resp.status == 0 {
                let r = self.call(&Request::Terminate { nspace })?;
                if r.status != 0 {
                    return Err(StepErr::Error(format!(
                        "ending the can_spawn probe job returned {}{}",
                        status_text(r.status),
                        msg(&r)
                    )));
                }
            }
        }
        if resp.status == 0 {
            match step {
                Step::Spawn { nspace, .. } => {
                    self.spawned.insert(nspace.clone());
                }
                Step::Terminate { nspace, .. } => {
                    self.terminated.insert(nspace.clone());
                }
                Step::DvmStart { nodes, .. } => {
                    self.startup = nodes.iter().cloned().collect();
                    self.torn_down = false;
                }
                Step::Alloc { grant, .. } => {
                    self.granted
                        .extend(grant.iter().filter(|g| !self.startup.contains(*g)).cloned());
                }
                Step::DvmTeardown { .. } => self.torn_down = true,
                _ => {}
            }
        }
        if needs_observed(e) {
            let obs = self.query()?;
            if let Some(b) = before_obs {
                if b != obs {
                    return Err(StepErr::Fail {
                        expected: "no observable change (rejections have no partial effect)".into(),
                        actual: describe_observed_diff(&b, &obs),
                    });
                }
            }
            self.check_observed(e, &obs)?;
            if needs_probe(e) {
                let r = self.call(&Request::Probe)?;
                if r.status != 0 {
                    return Err(StepErr::Error(format!(
                        "probe returned {}{}",
                        status_text(r.status),
                        msg(&r)
                    )));
                }
                let default: BTreeSet<String> =
                    r.candidates.unwrap_or_default().into_iter().collect();
                self.check_sessions(e, &obs, &default)?;
            }
        }
        if check_intro || before.is_some() {
            let snap = self.observe()?;
            if let Some(b) = before {
                if b != snap {
                    return Err(StepErr::Fail {
                        expected: "no observable change (rejections have no partial effect)".into(),
                        actual: describe_diff(&b, &snap),
                    });
                }
            }
            self.check_state(e, &snap)?;
        }
        Ok(())
    }

    /// Expectations a PMIx peer can check: query answers and delivered events.
    fn check_observed(&self, e: &Expect, s: &Observed) -> Result<(), StepErr> {
        if let Some(want) = &e.allocations {
            let want = self.res_all(want)?;
            let got = sorted(s.alloc_ids.iter().cloned());
            if want != got {
                return Err(fail(
                    "live allocations",
                    self.show_list(&want),
                    self.show_list(&got),
                ));
            }
        }
        if let Some(gone) = &e.gone {
            for a in gone {
                let id = self.res(a)?;
                if s.alloc_ids.contains(&id) {
                    return Err(fail(
                        &format!("allocation {}", self.vars.show(&id)),
                        "gone",
                        "still live",
                    ));
                }
            }
        }
        if let Some(m) = &e.alloc_nodes {
            for (a, want) in m {
                let id = self.res(a)?;
                let want = sorted(want.clone());
                let got = s.allocations.get(&id).map(|v| sorted(v.clone()));
                if got.as_ref() != Some(&want) {
                    return Err(fail(
                        &format!("PMIX_QUERY_ALLOCATION of {}", self.vars.show(&id)),
                        list(&want),
                        got.map_or("no such allocation".into(), |g| list(&g)),
                    ));
                }
            }
        }
        if let Some(m) = &e.ran_on {
            for (ns, want) in m {
                let want = sorted(want.clone());
                let got = s.proc_table.get(ns).map(|v| sorted(v.clone()));
                if got.as_ref() != Some(&want) {
                    return Err(fail(
                        &format!("PMIX_QUERY_PROC_TABLE nodes of {ns}"),
                        list(&want),
                        got.map_or("not running".into(), |g| list(&g)),
                    ));
                }
            }
        }
        if let Some(w) = &e.killed {
            // Killed: spawned, not ended by a `terminate` step, and no longer running.
            let w = sorted(w.clone());
            let got = sorted(
                self.spawned
                    .iter()
                    .filter(|n| !self.terminated.contains(*n) && !s.namespaces.contains(n))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
            if w != got {
                return Err(fail(
                    "jobs killed (spawned, never terminated, absent from PMIX_QUERY_NAMESPACES)",
                    list(&w),
                    list(&got),
                ));
            }
        }
        if let Some(w) = &e.running {
            let w = sorted(w.clone());
            let got: Vec<String> = s
                .namespaces
                .iter()
                .filter(|n| self.spawned.contains(*n))
                .cloned()
                .collect();
            let got = sorted(got);
            if w != got {
                return Err(fail(
                    "running jobs (PMIX_QUERY_NAMESPACES)",
                    list(&w),
                    list(&got),
                ));
            }
        }
        if let Some(want) = &e.events {
            let show_got = || -> String {
                let v: Vec<String> = s
                    .events
                    .iter()
                    .map(|ev| {
                        format!(
                            "{} to {}:{}",
                            status_text(ev.code),
                            ev.to.nspace,
                            ev.to.rank
                        )
                    })
                    .collect();
                list(&v)
            };
            if want.len() != s.events.len() {
                return Err(fail(
                    "events delivered",
                    format!("{} event(s)", want.len()),
                    format!("{} event(s): {}", s.events.len(), show_got()),
                ));
            }
            for (i, (w, g)) in want.iter().zip(&s.events).enumerate() {
                let (ns, rank) = match w.to.split_once(':') {
                    Some((n, r)) => (
                        n.to_string(),
                        r.parse::<u32>()
                            .map_err(|_| StepErr::Error(format!("bad rank in {:?}", w.to)))?,
                    ),
                    None => (w.to.clone(), 0),
                };
                let code = parse_status(&w.code).map_err(StepErr::Error)?;
                if g.to.nspace != ns || g.to.rank != rank || g.code != code.0 {
                    return Err(fail(
                        &format!("event {}", i + 1),
                        format!("{code} to {ns}:{rank}"),
                        format!("{} to {}:{}", status_text(g.code), g.to.nspace, g.to.rank),
                    ));
                }
                let infos = g
                    .info
                    .decode()
                    .map_err(|m| StepErr::Error(format!("event {} info: {m}", i + 1)))?;
                let val = |key: &str| {
                    infos
                        .iter()
                        .find(|x| x.key.as_bytes() == key.as_bytes())
                        .map(|x| x.value.clone())
                };
                if let Some(a) = &w.alloc_id {
                    let a = self.res(a)?;
                    let got = val(attrs::ALLOC_ID).and_then(|v| string_of(&v));
                    if got.as_deref() != Some(a.as_str()) {
                        return Err(fail(
                            &format!("event {} PMIX_ALLOC_ID", i + 1),
                            self.vars.show(&a),
                            got.unwrap_or_else(|| "absent".into()),
                        ));
                    }
                }
                if let Some(r) = &w.req_id {
                    let got = val(attrs::ALLOC_REQ_ID).and_then(|v| string_of(&v));
                    let ok = if r.is_empty() {
                        got.is_none()
                    } else {
                        got.as_deref() == Some(r.as_str())
                    };
                    if !ok {
                        return Err(fail(
                            &format!("event {} PMIX_ALLOC_REQ_ID", i + 1),
                            if r.is_empty() { "absent" } else { r },
                            got.as_deref().unwrap_or("absent"),
                        ));
                    }
                }
                if let Some(t) = w.time_remaining {
                    let got = val(attrs::TIME_REMAINING);
                    if got != Some(Value::Uint32(t)) {
                        return Err(fail(
                            &format!("event {} PMIX_TIME_REMAINING", i + 1),
                            format!("UINT32 {t}"),
                            got.map_or("absent".into(), |g| format!("{g:?}")),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Node sessions and DVM membership, by behaviour: a node is in the default session when
    /// an untargeted probe job lands on it, in reservation A when `PMIX_QUERY_ALLOCATION`
    /// lists it for A and the probe does not land on it, and out of the DVM when neither.
    fn check_sessions(
        &self,
        e: &Expect,
        s: &Observed,
        default: &BTreeSet<String>,
    ) -> Result<(), StepErr> {
        let reserved_in = |node: &str| -> Vec<String> {
            s.allocations
                .iter()
                .filter(|(_, ns)| ns.iter().any(|n| n == node))
                .map(|(id, _)| id.clone())
                .collect()
        };
        let show = |v: &Option<String>| match v {
            None => "absent (not in the DVM)".to_string(),
            Some(x) if x.is_empty() => "default".to_string(),
            Some(x) => self.vars.show(x),
        };
        if let Some(m) = &e.sessions {
            for (node, want) in m {
                let want_v = match want.as_str() {
                    "default" => Some(String::new()),
                    "absent" => None,
                    w => Some(self.res(w)?),
                };
                let got = if default.contains(node) {
                    Some(String::new())
                } else {
                    let r = reserved_in(node);
                    match (&want_v, r.len()) {
                        (_, 0) => None,
                        (Some(w), _) if r.contains(w) => Some(w.clone()),
                        _ => Some(r[0].clone()),
                    }
                };
                if got != want_v {
                    return Err(fail(
                        &format!("session of {node} (probe + PMIX_QUERY_ALLOCATION)"),
                        show(&want_v),
                        show(&got),
                    ));
                }
            }
        }
        if let Some(w) = &e.dvm_nodes {
            let mut got: BTreeSet<String> = default.clone();
            for ns in s.allocations.values() {
                got.extend(ns.iter().cloned());
            }
            let w = sorted(w.clone());
            let got = sorted(got);
            if w != got {
                return Err(fail(
                    "DVM nodes (probe + PMIX_QUERY_ALLOCATION)",
                    list(&w),
                    list(&got),
                ));
            }
        }
        if let Some(w) = &e.returned {
            // Returned to the scheduler, as the spec defines it: a node the scheduler added
            // leaves the DVM; a startup node reverts to the default session (and after DVM
            // teardown every node is gone). Granted nodes not returned are still in the DVM.
            let mut in_dvm: BTreeSet<String> = default.clone();
            for ns in s.allocations.values() {
                in_dvm.extend(ns.iter().cloned());
            }
            let returned: BTreeSet<&String> = w.iter().collect();
            for n in &returned {
                let ok = if self.torn_down || !self.startup.contains(*n) {
                    !in_dvm.contains(*n)
                } else {
                    default.contains(*n)
                };
                if !ok {
                    let want = if self.torn_down || !self.startup.contains(*n) {
                        "returned (out of the DVM)"
                    } else {
                        "returned (a startup node: back in the default session)"
                    };
                    return Err(fail(&format!("node {n}"), want, "still held"));
                }
            }
            for n in &self.granted {
                if !returned.contains(n) && !self.torn_down && !in_dvm.contains(n) {
                    return Err(fail(
                        &format!("node {n}"),
                        "not returned (still in the DVM)",
                        "gone from the DVM",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Expectations on the internal state (the `introspection` capability).
    fn check_state(&self, e: &Expect, s: &Snapshot) -> Result<(), StepErr> {
        if let Some(m) = &e.owners {
            for (a, want) in m {
                let id = self.res(a)?;
                let want = sorted(want.clone());
                let got = s.allocations.get(&id).map(|x| sorted(x.owners.clone()));
                if got.as_ref() != Some(&want) {
                    return Err(fail(
                        &format!("owners of {}", self.vars.show(&id)),
                        list(&want),
                        got.map_or("no such allocation".into(), |g| list(&g)),
                    ));
                }
            }
        }
        if let Some(m) = &e.owning {
            for (a, want) in m {
                let id = self.res(a)?;
                let got = s.allocations.get(&id).map(|x| x.owning.clone());
                if got.as_deref() != Some(want.as_str()) {
                    return Err(fail(
                        &format!("owning namespace of {}", self.vars.show(&id)),
                        want,
                        got.unwrap_or_else(|| "no such allocation".into()),
                    ));
                }
            }
        }
        if let Some(m) = &e.reserved {
            for (a, want) in m {
                let id = self.res(a)?;
                let got = s.allocations.get(&id).map(|x| x.reserved);
                if got != Some(*want) {
                    return Err(fail(
                        &format!("reserved({})", self.vars.show(&id)),
                        want,
                        got.map_or("no such allocation".into(), |g| g.to_string()),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn msg(r: &Response) -> String {
    r.message
        .as_deref()
        .map(|m| format!(" ({m})"))
        .unwrap_or_default()
}

/// Whether the step's expectations read what a peer can observe.
fn needs_observed(e: &Expect) -> bool {
    e.allocations.is_some()
        || e.gone.is_some()
        || e.alloc_nodes.is_some()
        || e.ran_on.is_some()
        || e.running.is_some()
        || e.events.is_some()
        || e.killed.is_some()
        || e.unchanged == Some(true)
        || needs_probe(e)
}

/// Whether the step's expectations need the default-session probe.
fn needs_probe(e: &Expect) -> bool {
    e.sessions.is_some() || e.dvm_nodes.is_some() || e.returned.is_some()
}

/// The step's expectations that read the internal state (need `introspection`).
pub(crate) fn introspective_fields(e: &Expect) -> Vec<&'static str> {
    let mut v = Vec::new();
    let mut add = |on: bool, name: &'static str| {
        if on {
            v.push(name)
        }
    };
    add(e.owners.is_some(), "owners");
    add(e.owning.is_some(), "owning");
    add(e.reserved.is_some(), "reserved");
    v
}

fn describe_observed_diff(a: &Observed, b: &Observed) -> String {
    let mut d = Vec::new();
    if a.alloc_ids != b.alloc_ids {
        d.push(format!(
            "PMIX_QUERY_ALLOC_IDS {:?} -> {:?}",
            a.alloc_ids, b.alloc_ids
        ));
    }
    if a.allocations != b.allocations {
        d.push(format!(
            "PMIX_QUERY_ALLOCATION {:?} -> {:?}",
            a.allocations, b.allocations
        ));
    }
    if a.namespaces != b.namespaces {
        d.push(format!(
            "PMIX_QUERY_NAMESPACES {:?} -> {:?}",
            a.namespaces, b.namespaces
        ));
    }
    if a.proc_table != b.proc_table {
        d.push(format!(
            "PMIX_QUERY_PROC_TABLE {:?} -> {:?}",
            a.proc_table, b.proc_table
        ));
    }
    if a.events != b.events {
        d.push(format!("events: {} -> {}", a.events.len(), b.events.len()));
    }
    format!("observed change: {}", d.join("; "))
}

fn describe_diff(a: &Snapshot, b: &Snapshot) -> String {
    let mut d = Vec::new();
    if a.nodes != b.nodes {
        d.push(format!("nodes {:?} -> {:?}", a.nodes, b.nodes));
    }
    if a.allocations != b.allocations {
        d.push(format!(
            "allocations {:?} -> {:?}",
            a.allocations.keys().collect::<Vec<_>>(),
            b.allocations.keys().collect::<Vec<_>>()
        ));
    }
    if a.jobs != b.jobs {
        d.push(format!(
            "jobs {:?} -> {:?}",
            a.jobs.keys().collect::<Vec<_>>(),
            b.jobs.keys().collect::<Vec<_>>()
        ));
    }
    if a.returned != b.returned || a.killed != b.killed || a.events != b.events {
        d.push("returned/killed/events changed".into());
    }
    format!("state changed: {}", d.join("; "))
}

/// Run one scenario against `server`, packing info arrays in `format`.
pub fn run_scenario(sc: &Scenario, server: &mut dyn Server, format: WireFormat) -> CaseResult {
    let t0 = Instant::now();
    let introspection = server
        .capabilities()
        .iter()
        .any(|c| c == crate::protocol::INTROSPECTION);
    let mut ctx = Ctx {
        server,
        format,
        vars: Vars::default(),
        introspection,
        spawned: BTreeSet::new(),
        skipped: Vec::new(),
        probes: 0,
        terminated: BTreeSet::new(),
        startup: BTreeSet::new(),
        granted: BTreeSet::new(),
        torn_down: false,
        ranks: sc.ranks_named(),
    };
    let mut outcome = Outcome::Pass;
    let mut detail = None;
    for (i, step) in sc.steps.iter().enumerate() {
        if let Err(e) = ctx.step(i + 1, step) {
            let subject = step.expect().subject;
            detail = Some(if subject {
                format!("step {} ({}, subject)", i + 1, step.op())
            } else {
                format!("step {} ({}, before the subject)", i + 1, step.op())
            });
            outcome = match e {
                StepErr::Fail { expected, actual } => {
                    judge(subject, step.expect().reading.as_deref(), expected, actual)
                }
                StepErr::Unsupported(reason) => Outcome::Unsupported { reason },
                StepErr::Error(message) => Outcome::Error { message },
            };
            if !subject && sc.subject_steps().first().is_some_and(|f| i + 1 > *f) {
                detail = Some(format!(
                    "step {} ({}, not a subject step)",
                    i + 1,
                    step.op()
                ));
            }
            break;
        }
    }
    // Checks that could not be made are never passed silently.
    if outcome == Outcome::Pass && !ctx.skipped.is_empty() {
        outcome = Outcome::Unsupported {
            reason: format!(
                "needs the {} capability: {}",
                crate::protocol::INTROSPECTION,
                ctx.skipped.join("; ")
            ),
        };
    }
    let readings = sc.all_readings();
    let requirement = if readings.is_empty() {
        sc.requirement.clone()
    } else {
        format!("{} [reading: {}]", sc.requirement, readings.join(", "))
    };
    CaseResult {
        id: sc.id.clone(),
        requirement,
        group: sc.section().to_string(),
        outcome,
        detail,
        diff: None,
        duration: t0.elapsed(),
    }
}

/// The outcome of an expectation that did not hold: a deviation only at a subject step and
/// where the expectation is reading-free; reading-dependent where it is tagged with a
/// reading; inconclusive before (or outside) the subject.
fn judge(subject: bool, reading: Option<&str>, expected: String, actual: String) -> Outcome {
    if !subject {
        return Outcome::Inconclusive { expected, actual };
    }
    match reading.and_then(super::reading) {
        Some(r) => Outcome::ReadingDependent {
            reading: r.id.to_string(),
            follows: r.other.to_string(),
            expected,
            actual,
        },
        None => Outcome::Fail { expected, actual },
    }
}
