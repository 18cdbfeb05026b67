//! The issue-15 acceptance conversation, as one bounded sequence of steps that the
//! integration test, the `pmix-peer run` command and the runtime matrix share:
//!
//! connect as a tool (given id) → register for `PMIX_DVM_IS_READY` / `PMIX_ERR_DVM_MOD` →
//! `PMIx_Allocation_request(NEW, node list = one node, PMIX_ALLOC_INHERITANCE = CHILD,
//! request id)` → wait for `PMIX_DVM_IS_READY` (a spawn sent before it hangs PRRTE) →
//! spawn with `PMIX_SPAWN_TARGET = <PMIX_ALLOC_ID>` → proc-table query of the new job →
//! allocation queries → job control (kill the job) → finalize.
//!
//! A component without type 75 (everything before v61) cannot carry
//! `PMIX_ALLOC_INHERITANCE`; the codec refuses it exactly as such a libpmix would, and the
//! request is then sent without it. Both facts are recorded in the report.

use std::time::{Duration, Instant};

use pmix_codec::{attrs, App, Component, DataType, Info, Proc, Query, Release, Value};
use serde_json::{json, Value as J};

use crate::command::{find, AllocDirective, Event};
use crate::conn::{Exchange, Limits, Peer};
use crate::error::PeerError;
use crate::handshake::{ConnectRequest, Identity};
use crate::rendezvous::ServerUri;

/// `PMIX_DVM_IS_READY`.
pub const DVM_IS_READY: i32 = -195;
/// `PMIX_ERR_DVM_MOD`.
pub const ERR_DVM_MOD: i32 = -196;
/// `PMIX_EVENT_JOB_END`.
pub const EVENT_JOB_END: i32 = -145;

/// What to run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The client component.
    pub component: Component,
    /// The tool's nspace.
    pub nspace: String,
    /// The node to reserve (with no scheduler, the node list is the grant).
    pub node: String,
    /// The request id.
    pub req_id: String,
    /// The program spawned (a path inside the server's root) and its arguments.
    pub argv: Vec<String>,
    /// Bounds.
    pub limits: Limits,
    /// Bound on the `PMIX_DVM_IS_READY` wait.
    pub ready_wait: Duration,
}

/// One step's outcome.
#[derive(Clone, Debug)]
pub struct Step {
    /// Step name.
    pub name: &'static str,
    /// `Ok(detail)` or `Err(detail)`.
    pub outcome: Result<String, String>,
    /// Milliseconds it took.
    pub ms: u128,
}

/// Everything the server said.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Client component.
    pub component: String,
    /// Steps in order.
    pub steps: Vec<Step>,
    /// Server identity from the handshake.
    pub server: Option<(String, u32)>,
    /// Whether `PMIX_ALLOC_INHERITANCE` was carried (false: the component lacks type 75).
    pub inheritance_sent: bool,
    /// The codec's refusal of type 75, when it refused.
    pub inheritance_refusal: Option<String>,
    /// For a component without type 75: what the server did when, on a separate connection
    /// of that component, the allocation request carried the type-75 value anyway (the
    /// bytes a v61 packer writes; v41/v51/v61 share the modern encoding otherwise).
    pub type75_probe: Option<String>,
    /// Allocation status.
    pub alloc_status: Option<i32>,
    /// `PMIX_ALLOC_ID` from the answer.
    pub alloc_id: Option<String>,
    /// `PMIX_ALLOC_REQ_ID` echoed.
    pub req_id_echo: Option<String>,
    /// The `PMIX_DVM_IS_READY` event, if it came.
    pub ready_event: Option<Event>,
    /// Spawn status and namespace.
    pub spawn: Option<(i32, Option<String>)>,
    /// (rank, hostname) of each process from the proc table.
    pub procs: Vec<(u32, String)>,
    /// `PMIX_QUERY_ALLOC_IDS` answer (string form).
    pub alloc_ids: Option<String>,
    /// Finalize acknowledged.
    pub finalized: bool,
    /// The conversation.
    pub transcript: Vec<Exchange>,
}

impl Report {
    /// Whether every acceptance item held.
    pub fn accepted(&self, plan: &Plan) -> bool {
        self.alloc_status == Some(0)
            && self.alloc_id.is_some()
            && self.req_id_echo.as_deref() == Some(plan.req_id.as_str())
            && self.ready_event.is_some()
            && matches!(self.spawn, Some((0, Some(_))))
            && !self.procs.is_empty()
            && self.procs.iter().all(|(_, h)| *h == plan.node)
            && self.finalized
    }

    /// The report as JSON.
    pub fn to_json(&self) -> J {
        json!({
            "component": self.component,
            "server": self.server.as_ref().map(|(n, r)| json!({"nspace": n, "rank": r})),
            "inheritance_sent": self.inheritance_sent,
            "inheritance_refusal": self.inheritance_refusal,
            "type75_probe": self.type75_probe,
            "alloc_status": self.alloc_status,
            "alloc_id": self.alloc_id,
            "req_id_echo": self.req_id_echo,
            "dvm_is_ready": self.ready_event.as_ref().map(|e| json!({
                "status": e.status,
                "source": format!("{}:{}", e.source.nspace, e.source.rank),
                "keys": e.infos.iter().map(|i| i.key.to_string()).collect::<Vec<_>>(),
            })),
            "spawn": self.spawn.as_ref().map(|(s, ns)| json!({"status": s, "nspace": ns})),
            "procs": self.procs.iter().map(|(r, h)| json!({"rank": r, "host": h})).collect::<Vec<_>>(),
            "alloc_ids": self.alloc_ids,
            "finalized": self.finalized,
            "steps": self.steps.iter().map(|s| json!({
                "step": s.name,
                "ok": s.outcome.is_ok(),
                "detail": match &s.outcome { Ok(d) | Err(d) => d },
                "ms": s.ms,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The key strings used here (OpenPMIx `include/pmix_common.h`).
pub(crate) fn key(name: &str) -> &'static str {
    match name {
        "PMIX_QUERY_PROC_TABLE" => "pmix.qry.ptable",
        "PMIX_QUERY_NAMESPACES" => "pmix.qry.ns",
        "PMIX_QUERY_ALLOCATION" => "pmix.query.allc",
        "PMIX_QUERY_ALLOC_IDS" => "pmix.query.alloc.ids",
        "PMIX_NSPACE" => "pmix.nspace",
        // the allocation and spawn keys come from the codec's attribute table
        other => attrs::attribute(other)
            .map(|a| a.key)
            .expect("attribute known to the codec"),
    }
}

pub(crate) fn text(v: &Value) -> String {
    match v {
        Value::String(Some(t)) => t.to_string(),
        Value::DataArray(a) => a.values.iter().map(text).collect::<Vec<_>>().join(","),
        Value::Info(i) => format!("{}={}", i.key, text(&i.value)),
        other => format!("{other:?}"),
    }
}

/// Collect (rank, hostname) from a proc-table answer (DATA_ARRAY of PROC_INFO).
fn proc_table(v: &Value, out: &mut Vec<(u32, String)>) {
    match v {
        Value::DataArray(a) => a.values.iter().for_each(|x| proc_table(x, out)),
        Value::ProcInfo(p) => out.push((
            p.proc.rank,
            p.hostname
                .as_ref()
                .map(|h| h.to_string())
                .unwrap_or_default(),
        )),
        Value::Info(i) => proc_table(&i.value, out),
        _ => {}
    }
}

struct Run<'a> {
    report: &'a mut Report,
}

impl Run<'_> {
    fn step<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> Result<(T, String), PeerError>,
    ) -> Option<T> {
        let t0 = Instant::now();
        let r = f();
        let ms = t0.elapsed().as_millis();
        match r {
            Ok((v, detail)) => {
                self.report.steps.push(Step {
                    name,
                    outcome: Ok(detail),
                    ms,
                });
                Some(v)
            }
            Err(e) => {
                self.report.steps.push(Step {
                    name,
                    outcome: Err(format!("{e} [status {}]", e.status().0)),
                    ms,
                });
                None
            }
        }
    }
}

/// Connect with `plan`'s component and report what the server said.
pub fn connect(uri: &ServerUri, plan: &Plan) -> (Option<Peer>, Report) {
    let mut report = Report {
        component: plan.component.name().to_string(),
        ..Report::default()
    };
    let req = ConnectRequest::tool(
        Identity::ToolGivenId {
            nspace: plan.nspace.clone(),
            rank: 0,
        },
        plan.component,
    );
    let peer = Run {
        report: &mut report,
    }
    .step("connect", || {
        let p = Peer::connect(uri, &req, plan.limits)?;
        let d = format!(
            "accepted by {}:{} ({} {})",
            p.reply.server_nspace,
            p.reply.server_rank,
            plan.component.name(),
            req.version
        );
        Ok((p, d))
    });
    if let Some(p) = &peer {
        report.server = Some((p.reply.server_nspace.clone(), p.reply.server_rank));
    }
    (peer, report)
}

/// On its own connection of `plan.component`, send an allocation request whose
/// `PMIX_ALLOC_INHERITANCE` is the type-75 value the component does not have, and say what
/// the server did: answered (with which status), dropped the connection, or stayed silent.
pub fn probe_type75(uri: &ServerUri, plan: &Plan) -> String {
    let req = ConnectRequest::tool(
        Identity::ToolGivenId {
            nspace: format!("{}-t75", plan.nspace),
            rank: 0,
        },
        plan.component,
    );
    let mut peer = match Peer::connect(uri, &req, plan.limits) {
        Ok(p) => p,
        Err(e) => return format!("connect failed: {e}"),
    };
    let v61 = pmix_codec::Codec::new(Component::V61, peer.codec.kind);
    let alloc = crate::command::Request::Alloc {
        directive: AllocDirective::New,
        infos: vec![
            Info::new(key("PMIX_ALLOC_NODE_LIST"), Value::string(&plan.node)),
            Info::new(
                key("PMIX_ALLOC_INHERITANCE"),
                Value::AllocInherit(attrs::AllocInherit::Child as u8),
            ),
            Info::new(
                key("PMIX_ALLOC_REQ_ID"),
                Value::string(&format!("{}-t75", plan.req_id)),
            ),
        ],
    };
    let payload = match alloc.encode(&v61) {
        Ok(p) => p,
        Err(e) => return format!("cannot build the probe: {e}"),
    };
    let tag = match peer.send_raw(&payload, "alloc-type75") {
        Ok(t) => t,
        Err(e) => return format!("send failed: {e}"),
    };
    let out = match peer.recv_reply(tag, "alloc-type75", Duration::from_secs(10)) {
        Ok(p) => match crate::command::decode_info_reply(&peer.codec, &p, "alloc reply") {
            Ok(r) => format!(
                "answered status {} ({}) infos [{}]",
                r.status,
                pmix_codec::Status(r.status).name().unwrap_or("?"),
                r.infos
                    .iter()
                    .map(|i| format!("{}={}", i.key, text(&i.value)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(e) => format!("answered with an undecodable reply: {e}"),
        },
        Err(PeerError::Closed { .. }) => "dropped the connection".to_string(),
        Err(PeerError::Timeout { ms, .. }) => format!("no answer within {ms} ms"),
        Err(e) => format!("failed: {e}"),
    };
    let _ = peer.finalize(Duration::from_secs(5));
    out
}

/// Run the whole acceptance conversation.
pub fn run(uri: &ServerUri, plan: &Plan) -> Report {
    let (peer, mut report) = connect(uri, plan);
    let Some(mut peer) = peer else {
        return report;
    };
    let mut run = Run {
        report: &mut report,
    };
    run.step("register-events", || {
        let st = peer.register_events(vec![DVM_IS_READY, ERR_DVM_MOD, EVENT_JOB_END], vec![])?;
        if st != 0 {
            return Err(PeerError::refused(st));
        }
        Ok(((), "status 0".into()))
    });

    // The allocation request.
    let mut infos = vec![Info::new(
        key("PMIX_ALLOC_NODE_LIST"),
        Value::string(&plan.node),
    )];
    if plan
        .component
        .registers(DataType::ALLOC_INHERIT, Release::Master)
    {
        infos.push(Info::new(
            key("PMIX_ALLOC_INHERITANCE"),
            Value::AllocInherit(attrs::AllocInherit::Child as u8),
        ));
        run.report.inheritance_sent = true;
    } else {
        let probe = crate::command::Request::Alloc {
            directive: AllocDirective::New,
            infos: vec![Info::new(
                key("PMIX_ALLOC_INHERITANCE"),
                Value::AllocInherit(attrs::AllocInherit::Child as u8),
            )],
        };
        run.report.inheritance_refusal = probe
            .encode(&peer.codec)
            .err()
            .map(|e| format!("{e} [status {}]", e.status().0));
        // The v61 bytes stand for "this component, carrying type 75" only where the
        // component shares the modern encoding (v41, v51).
        run.report.type75_probe = Some(if plan.component.family() == pmix_codec::Family::Modern {
            probe_type75(uri, plan)
        } else {
            "not probed (legacy encoding)".to_string()
        });
    }
    infos.push(Info::new(
        key("PMIX_ALLOC_REQ_ID"),
        Value::string(&plan.req_id),
    ));
    let alloc = run.step("alloc", || {
        let r = peer.alloc(AllocDirective::New, infos)?;
        let d = format!(
            "status {} infos [{}]",
            r.status,
            r.infos
                .iter()
                .map(|i| format!("{}={}", i.key, text(&i.value)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok((r, d))
    });
    if let Some(a) = &alloc {
        run.report.alloc_status = Some(a.status);
        run.report.alloc_id = a.get(key("PMIX_ALLOC_ID")).map(text);
        run.report.req_id_echo = a.get(key("PMIX_ALLOC_REQ_ID")).map(text);
    }
    let alloc_ok = alloc.as_ref().map(|a| a.status == 0).unwrap_or(false);
    if alloc_ok {
        let ready = run.step("dvm-is-ready", || {
            let ev = peer.wait_event(DVM_IS_READY, plan.ready_wait)?;
            let d = format!(
                "event {} from {}:{} keys [{}]",
                ev.status,
                ev.source.nspace,
                ev.source.rank,
                ev.infos
                    .iter()
                    .map(|i| i.key.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            Ok((ev, d))
        });
        run.report.ready_event = ready;
    }
    let mut job: Option<String> = None;
    if let (true, Some(id)) = (
        run.report.ready_event.is_some(),
        run.report.alloc_id.clone(),
    ) {
        let app = App {
            cmd: Some(plan.argv[0].as_str().into()),
            argv: plan.argv.iter().map(|a| Some(a.as_str().into())).collect(),
            env: vec![],
            cwd: Some("/".into()),
            maxprocs: 1,
            info: vec![],
        };
        let sp = run.step("spawn", || {
            let r = peer.spawn(
                vec![Info::new(key("PMIX_SPAWN_TARGET"), Value::string(&id))],
                vec![app],
            )?;
            let d = format!(
                "status {} nspace {:?} ({} job-info keys)",
                r.status,
                r.nspace,
                r.job_info.len()
            );
            Ok((r, d))
        });
        if let Some(s) = sp {
            run.report.spawn = Some((s.status, s.nspace.clone()));
            if s.status == 0 {
                job = s.nspace;
            }
        }
    }
    if let Some(ns) = &job {
        let q = Query {
            keys: vec![Some(key("PMIX_QUERY_PROC_TABLE").into())],
            qualifiers: vec![Info::new(key("PMIX_NSPACE"), Value::string(ns))],
        };
        let procs = run.step("query-proc-table", || {
            let r = peer.query(vec![q])?;
            if r.status != 0 {
                return Err(PeerError::refused(r.status));
            }
            let mut procs = Vec::new();
            for i in &r.infos {
                proc_table(&i.value, &mut procs);
            }
            let d = format!("{procs:?}");
            Ok((procs, d))
        });
        run.report.procs = procs.unwrap_or_default();
    }
    // Allocation and namespace queries, for the record.
    let ids = run.step("query-alloc-ids", || {
        let q = Query {
            keys: vec![
                Some(key("PMIX_QUERY_ALLOC_IDS").into()),
                Some(key("PMIX_QUERY_NAMESPACES").into()),
            ],
            qualifiers: vec![],
        };
        let r = peer.query(vec![q])?;
        let ids = find(&r.infos, key("PMIX_QUERY_ALLOC_IDS")).map(text);
        let d = format!(
            "status {} [{}]",
            r.status,
            r.infos
                .iter()
                .map(|i| format!("{}={}", i.key, text(&i.value)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok((ids, d))
    });
    run.report.alloc_ids = ids.flatten();
    if let Some(id) = run.report.alloc_id.clone() {
        run.step("query-allocation", || {
            let q = Query {
                keys: vec![Some(key("PMIX_QUERY_ALLOCATION").into())],
                qualifiers: vec![Info::new(key("PMIX_ALLOC_ID"), Value::string(&id))],
            };
            let r = peer.query(vec![q])?;
            let d = format!("status {} ({} infos)", r.status, r.infos.len());
            Ok(((), d))
        });
    }
    if let Some(ns) = &job {
        run.step("job-control-kill", || {
            let r = peer.job_control(
                vec![Proc {
                    nspace: ns.as_str().into(),
                    rank: 0xffff_fffe,
                }],
                vec![Info::new("pmix.jctrl.kill", Value::Bool(true))],
            )?;
            Ok(((), format!("status {}", r.status)))
        });
    }
    let mut transcript = Vec::new();
    let fin = Run {
        report: &mut report,
    }
    .step("finalize", || {
        let (n, t) = peer.finalize(plan.limits.reply)?;
        transcript = t;
        Ok(((), format!("acknowledged ({n}-byte reply)")))
    });
    report.finalized = fin.is_some();
    report.transcript = transcript;
    report
}
