//! The requests a server hands up to its host ([`crate::host::Host`]), from tools and clients
//! alike: each is read in the order the OpenPMIx client library packs it (the same layout
//! `pmix_ptl::command` writes for the native tool), and answered with what the host decides:
//! the events the host raised are delivered before the answer, and after it [`settle`]
//! kills the processes of the jobs the host ended.
//!
//! | command | code | arguments after `pmix_cmd_t` | answer |
//! |---|---|---|---|
//! | SPAWNNB | 9 | `size_t ninfo`, INFO\[ninfo\], `size_t napps`, APP\[napps\] | STATUS, nspace (STRING) |
//! | NOTIFY | 12 | STATUS, DATA_RANGE, `size_t ninfo`, INFO\[ninfo\] | STATUS |
//! | QUERY | 15 | `size_t n`, QUERY\[n\] | STATUS, `size_t ninfo`, INFO\[ninfo\] |
//! | ALLOC | 17 | ALLOC_DIRECTIVE, `size_t ninfo`, INFO\[ninfo\] | STATUS, `size_t ninfo`, INFO\[ninfo\] |
//! | JOB_CONTROL | 18 | `size_t n`, PROC\[n\], `size_t ninfo`, INFO\[ninfo\] | STATUS, `size_t ninfo`, INFO\[ninfo\] |
//!
//! A spawn asking for more than [`crate::Config::max_spawn_procs`] processes in all (the
//! sum of its apps' `maxprocs`) is answered `PMIX_ERR_OUT_OF_RESOURCE` before the host
//! sees it; so is a grant of more (the host placing N per node).
//!
//! An event goes to its process on tag 0 as `pmix_client_notify_recv` reads it: the NOTIFY
//! command, STATUS, the source PROC, `size_t ninfo`, INFO\[ninfo\].

use std::sync::Arc;

use pmix_codec::{App, Codec, DataType, Info, Item, Query, Status, Unpacker, Value};
use pmix_ptl::command::cmd;

use crate::handlers::{count, infos, one, procs, Peer};
use crate::host::{Answer, Notice};
use crate::job::RANK_WILDCARD;
use crate::shared::Shared;
use crate::spawn;
use crate::state::{status_payload, Outbox, ReplyTo};

type R<T> = Result<T, String>;

/// `PMIX_ERR_JOB_FAILED_TO_LAUNCH`: a process of a granted spawn could not be started.
const ERR_JOB_FAILED_TO_LAUNCH: i32 = -181;

/// Whether `command` is one the host answers.
pub fn is_host_command(command: u8) -> bool {
    matches!(
        command,
        cmd::SPAWN | cmd::NOTIFY | cmd::QUERY | cmd::ALLOC | cmd::JOB_CONTROL
    )
}

fn counted(u: &mut Unpacker<'_>, ty: DataType) -> R<Vec<Value>> {
    let n = count(u)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    Ok(u.unpack(ty, n).map_err(|e| e.to_string())?.values)
}

fn answer_payload(codec: &Codec, a: &Answer) -> Vec<u8> {
    if a.no_entry {
        return status_payload(codec, a.status);
    }
    let mut items = vec![
        Item::one(Value::Status(a.status)),
        Item::one(Value::Size(a.infos.len() as u64)),
    ];
    if !a.infos.is_empty() {
        items.push(Item::new(
            DataType::INFO,
            a.infos
                .iter()
                .map(|i| Value::Info(Box::new(i.clone())))
                .collect(),
        ));
    }
    // the host's values encode in every component the peer may speak; if one does not
    // (a type its component lacks), the peer is told so rather than sent half a reply
    codec
        .encode(&items)
        .unwrap_or_else(|_| status_payload(codec, Status::ERR_PACK_FAILURE.0))
}

/// Answer host command `command` (its arguments follow in `u`).
pub fn host_request(
    sh: &Arc<Shared>,
    peer: &Peer,
    command: u8,
    u: &mut Unpacker<'_>,
    to: ReplyTo,
) -> R<Outbox> {
    let codec = peer.codec;
    let caller = peer.caller.clone();
    let payload = match command {
        cmd::QUERY => {
            let queries: Vec<Query> = counted(u, DataType::QUERY)?
                .into_iter()
                .filter_map(|v| match v {
                    Value::Query(q) => Some(*q),
                    _ => None,
                })
                .collect();
            let table = spawn::proc_table(sh);
            let a = host(sh).query(&caller, &queries, &table);
            answer_payload(&codec, &a)
        }
        cmd::ALLOC => {
            let directive = match one(u, DataType::ALLOC_DIRECTIVE)? {
                Value::AllocDirective(d) => d,
                v => return Err(format!("alloc directive: {v:?}")),
            };
            let infos = infos(u)?;
            let a = host(sh).alloc(&caller, directive, &infos);
            answer_payload(&codec, &a)
        }
        cmd::JOB_CONTROL => {
            let targets = procs(u)?;
            let directives = infos(u)?;
            let a = host(sh).job_control(&caller, &targets, &directives);
            answer_payload(&codec, &a)
        }
        cmd::NOTIFY => {
            let status = match one(u, DataType::STATUS)? {
                Value::Status(s) => s,
                v => return Err(format!("notify status: {v:?}")),
            };
            let range = match one(u, DataType::DATA_RANGE)? {
                Value::DataRange(r) => r,
                v => return Err(format!("notify range: {v:?}")),
            };
            let infos = infos(u)?;
            let st = host(sh).notify(&caller, status, range, &infos);
            status_payload(&codec, st)
        }
        cmd::SPAWN => {
            let job_infos: Vec<Info> = infos(u)?;
            let apps: Vec<App> = counted(u, DataType::APP)?
                .into_iter()
                .filter_map(|v| match v {
                    Value::App(a) => Some(*a),
                    _ => None,
                })
                .collect();
            // what the apps ask for, checked before the host sizes anything by it
            let asked: u64 = apps.iter().map(|a| a.maxprocs.max(0) as u64).sum();
            let max = u64::from(sh.config.max_spawn_procs);
            if apps.is_empty() {
                status_payload(&codec, Status::ERR_BAD_PARAM.0)
            } else if asked > max {
                status_payload(&codec, Status::ERR_OUT_OF_RESOURCE.0)
            } else {
                let granted = host(sh).spawn(&caller, &job_infos, &apps);
                match granted {
                    Ok(grant) if grant.ranks.len() as u64 > max => {
                        // the host placed more than the bound (N per node): nothing starts
                        host(sh).job_ended(&grant.nspace);
                        status_payload(&codec, Status::ERR_OUT_OF_RESOURCE.0)
                    }
                    Ok(grant) => {
                        let started = spawn::launch(sh, &grant, &apps);
                        let status = if started { 0 } else { ERR_JOB_FAILED_TO_LAUNCH };
                        codec
                            .encode(&[
                                Item::one(Value::Status(status)),
                                Item::one(Value::string(&grant.nspace)),
                            ])
                            .map_err(|e| e.to_string())?
                    }
                    Err(status) => status_payload(&codec, status),
                }
            }
        }
        c => return Err(format!("command {c} is not a host command")),
    };
    // the host's events go out before the answer (a requester that reads its events next
    // finds them); the jobs it ended are killed after it (a job may end itself by its
    // request, and still hears the answer, as from PRRTE)
    let notices = host(sh).take_notices();
    deliver_all(sh, &notices);
    sh.flush(vec![(to, payload)]);
    settle_sparing(sh, Some((sh, &caller.nspace)));
    Ok(Vec::new())
}

/// How long a job that ended itself by its own request keeps running after its answer went
/// out: killed at once, its process could die before it has read the answer from its socket
/// (a race the scenario runs hit), where PRRTE's answer always arrives first.
const REQUESTER_GRACE: std::time::Duration = std::time::Duration::from_millis(1500);

fn host(sh: &Shared) -> std::sync::MutexGuard<'_, Box<dyn crate::host::Host>> {
    sh.host.lock().unwrap_or_else(|e| e.into_inner())
}

/// After the host decided something: kill the processes of every spawned job it no longer
/// runs, and deliver the events it raised.
pub fn settle(sh: &Shared) {
    settle_sparing(sh, None)
}

/// [`settle`], except that the requester's own job, if the host ended it, is killed only
/// after [`REQUESTER_GRACE`], and only if the host still does not run it then.
fn settle_sparing(sh: &Shared, requester: Option<(&Arc<Shared>, &str)>) {
    let (running, notices) = {
        let mut h = host(sh);
        (h.running_jobs(), h.take_notices())
    };
    if let Some(running) = running {
        for ns in spawn::live_jobs(sh) {
            if running.contains(&ns) {
                continue;
            }
            match requester {
                Some((shared, r)) if r == ns => {
                    let shared = Arc::clone(shared);
                    std::thread::spawn(move || {
                        std::thread::sleep(REQUESTER_GRACE);
                        let still = host(&shared).running_jobs();
                        if still.is_some_and(|r| !r.contains(&ns)) {
                            spawn::kill(&shared, &ns);
                        }
                    });
                }
                _ => spawn::kill(sh, &ns),
            }
        }
    }
    deliver_all(sh, &notices);
}

fn deliver_all(sh: &Shared, notices: &[Notice]) {
    for n in notices {
        deliver(sh, n);
    }
}

/// Send `n` to its process (every connected rank of its namespace for the wildcard); a
/// process not connected misses it.
fn deliver(sh: &Shared, n: &Notice) {
    let targets: Vec<ReplyTo> = sh
        .peers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|((ns, r), _)| *ns == n.to.0 && (n.to.1 == RANK_WILDCARD || *r == n.to.1))
        .map(|(_, to)| to.clone())
        .collect();
    let mut out = Outbox::new();
    for to in targets {
        let mut items = vec![
            Item::one(Value::Command(cmd::NOTIFY)),
            Item::one(Value::Status(n.status)),
            Item::one(Value::proc(&n.source.0, n.source.1)),
            Item::one(Value::Size(n.infos.len() as u64)),
        ];
        if !n.infos.is_empty() {
            items.push(Item::new(
                DataType::INFO,
                n.infos
                    .iter()
                    .map(|i| Value::Info(Box::new(i.clone())))
                    .collect(),
            ));
        }
        if let Ok(p) = to.codec.encode(&items) {
            out.push((to, p));
        }
    }
    sh.flush(out);
}
