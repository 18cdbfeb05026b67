//! Running scenarios against a server.

use super::values::{build_info, parse_directive, parse_requester, parse_status, Vars};
use super::{Expect, Scenario, Step};
use crate::model::Mutant;
use crate::protocol::{Request, Response, Snapshot};
use crate::report::{CaseResult, Coverage, Outcome, Report};
use crate::server::{Server, ServerSpec};
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
            Step::Observe { .. } => Request::Observe,
        })
    }

    fn step(&mut self, step: &Step) -> Result<(), StepErr> {
        let e = step.expect();
        let before = if e.unchanged == Some(true) {
            Some(self.observe()?)
        } else {
            None
        };
        let req = self.request(step)?;
        let resp = self.call(&req)?;

        // Status: explicit, excluded, or success by default.
        match (&e.status, &e.status_not) {
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
        if needs_state(e) {
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

    fn check_state(&self, e: &Expect, s: &Snapshot) -> Result<(), StepErr> {
        if let Some(m) = &e.sessions {
            for (node, want) in m {
                let want_v = match want.as_str() {
                    "default" => Some(String::new()),
                    "absent" => None,
                    w => Some(self.res(w)?),
                };
                let got = s.nodes.get(node).cloned();
                if got != want_v {
                    let show = |v: &Option<String>| match v {
                        None => "absent (not in the DVM)".to_string(),
                        Some(x) if x.is_empty() => "default".to_string(),
                        Some(x) => self.vars.show(x),
                    };
                    return Err(fail(
                        &format!("session of {node}"),
                        show(&want_v),
                        show(&got),
                    ));
                }
            }
        }
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
        if let Some(want) = &e.allocations {
            let want = self.res_all(want)?;
            let got = sorted(s.allocations.keys().cloned());
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
                if s.allocations.contains_key(&id) {
                    return Err(fail(
                        &format!("allocation {}", self.vars.show(&id)),
                        "gone",
                        "still live",
                    ));
                }
            }
        }
        let exact =
            |what: &str, want: &Option<Vec<String>>, got: Vec<String>| -> Result<(), StepErr> {
                if let Some(w) = want {
                    let w = sorted(w.clone());
                    let got = sorted(got);
                    if w != got {
                        return Err(fail(what, list(&w), list(&got)));
                    }
                }
                Ok(())
            };
        exact("DVM nodes", &e.dvm_nodes, s.nodes.keys().cloned().collect())?;
        exact(
            "nodes returned to the scheduler",
            &e.returned,
            s.returned.clone(),
        )?;
        exact("jobs killed", &e.killed, s.killed.clone())?;
        exact(
            "running jobs",
            &e.running,
            s.jobs
                .iter()
                .filter(|(_, j)| j.kind == "app" && j.state == "running")
                .map(|(n, _)| n.clone())
                .collect(),
        )?;
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
}

fn msg(r: &Response) -> String {
    r.message
        .as_deref()
        .map(|m| format!(" ({m})"))
        .unwrap_or_default()
}

fn needs_state(e: &Expect) -> bool {
    e.sessions.is_some()
        || e.owners.is_some()
        || e.owning.is_some()
        || e.reserved.is_some()
        || e.allocations.is_some()
        || e.gone.is_some()
        || e.dvm_nodes.is_some()
        || e.returned.is_some()
        || e.killed.is_some()
        || e.running.is_some()
        || e.events.is_some()
        || e.unchanged == Some(true)
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
    let mut ctx = Ctx {
        server,
        format,
        vars: Vars::default(),
    };
    let mut outcome = Outcome::Pass;
    let mut detail = None;
    for (i, step) in sc.steps.iter().enumerate() {
        if let Err(e) = ctx.step(step) {
            detail = Some(format!("step {} ({})", i + 1, step.op()));
            outcome = match e {
                StepErr::Fail { expected, actual } => Outcome::Fail { expected, actual },
                StepErr::Unsupported(reason) => Outcome::Unsupported { reason },
                StepErr::Error(message) => Outcome::Error { message },
            };
            break;
        }
    }
    CaseResult {
        id: sc.id.clone(),
        requirement: sc.requirement.clone(),
        group: sc.section().to_string(),
        outcome,
        detail,
        diff: None,
        duration: t0.elapsed(),
    }
}

/// Per-section clause coverage of `scenarios`.
pub fn coverage(scenarios: &[Scenario]) -> Vec<Coverage> {
    let covered: BTreeSet<&str> = scenarios
        .iter()
        .flat_map(|s| s.clauses.iter().map(String::as_str))
        .collect();
    crate::spec::SECTIONS
        .iter()
        .map(|sec| {
            let in_sec: Vec<&crate::spec::Clause> = crate::spec::CLAUSES
                .iter()
                .filter(|c| c.section == *sec)
                .collect();
            let uncovered: Vec<String> = in_sec
                .iter()
                .filter(|c| !covered.contains(c.id))
                .map(|c| c.id.to_string())
                .collect();
            Coverage {
                section: sec.to_string(),
                covered: in_sec.len() - uncovered.len(),
                total: in_sec.len(),
                uncovered,
            }
        })
        .collect()
}

/// Run every scenario, each against a fresh server from `spec`.
pub fn run_all(scenarios: &[Scenario], spec: &ServerSpec, format: WireFormat) -> Report {
    let mut report = Report::new(
        "scenarios",
        format!(
            "{}, {}/{}",
            spec.describe(),
            format.component.name(),
            format.kind.name()
        ),
    );
    for sc in scenarios {
        let result = match spec.create() {
            Ok(mut server) => run_scenario(sc, server.as_mut(), format),
            Err(e) => CaseResult {
                id: sc.id.clone(),
                requirement: sc.requirement.clone(),
                group: sc.section().to_string(),
                outcome: Outcome::Error {
                    message: e.to_string(),
                },
                detail: None,
                diff: None,
                duration: Default::default(),
            },
        };
        report.push(result);
    }
    report.coverage = coverage(scenarios);
    report
}

/// What the suite did to one mutant.
#[derive(Clone, Debug)]
pub struct MutantResult {
    /// The mutant.
    pub mutant: Mutant,
    /// Scenarios that failed against it (it is killed when this is non-empty).
    pub killed_by: Vec<String>,
}

/// Run the suite against every mutant; each must be killed by at least one scenario.
pub fn run_mutants(scenarios: &[Scenario], format: WireFormat) -> (Vec<MutantResult>, Report) {
    let mut report = Report::new(
        "mutants",
        format!("reference model mutants, {}", format.component.name()),
    );
    let mut results = Vec::new();
    for m in Mutant::ALL {
        let t0 = Instant::now();
        let r = run_all(scenarios, &ServerSpec::Model(Some(m)), format);
        let killed_by: Vec<String> = r
            .cases
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Fail { .. } | Outcome::Error { .. }))
            .map(|c| c.id.clone())
            .collect();
        let outcome = if killed_by.is_empty() {
            Outcome::Fail {
                expected: "at least one scenario fails".into(),
                actual: "every scenario passed: the mutant survived".into(),
            }
        } else {
            Outcome::Pass
        };
        report.push(CaseResult {
            id: format!("mutant:{m}"),
            requirement: format!("the suite detects a model where {}", m.description()),
            group: "mutants".into(),
            outcome,
            detail: (!killed_by.is_empty()).then(|| format!("killed by {}", killed_by.join(", "))),
            diff: None,
            duration: t0.elapsed(),
        });
        results.push(MutantResult {
            mutant: m,
            killed_by,
        });
    }
    (results, report)
}
