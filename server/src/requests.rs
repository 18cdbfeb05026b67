//! The requests a server hands up to its host ([`crate::host::Host`]), from tools and clients
//! alike: each is read in the order the OpenPMIx client library packs it (the same layout
//! `pmix_ptl::command` writes for the native tool), and answered with what the host decides:
//! the events the host raised are delivered before the answer, and after it [`settle`]
//! kills the processes of the jobs the host ended ([`crate::spawn`]).
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

use crate::host::Answer;
use crate::notify::deliver_all;
use crate::peer::{count, infos, one, procs, Peer};
use crate::shared::Shared;
pub use crate::spawn::settle;
use crate::spawn::{self, host, settle_sparing};
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
