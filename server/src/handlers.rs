//! One function per command a client sends, each reading its arguments in the order the
//! OpenPMIx client packs them (`src/client/pmix_client*.c`) and answering as an OpenPMIx
//! server with gds `hash` does. Every count is checked against the bytes left before an
//! unpack is sized by it; a request that does not decode is answered with
//! `PMIX_ERR_BAD_PARAM`, never a panic.
//!
//! | command | code | arguments after `pmix_cmd_t` | answer |
//! |---|---|---|---|
//! | REQ | 0 | — | nspace, then KVALs (see [`crate::job`]) |
//! | ABORT | 1 | status, message (STRING), `size_t n`, PROC\[n\] | STATUS |
//! | COMMIT | 2 | (SCOPE, BUFFER of KVALs)* | STATUS (REMOTE-scoped values are not served: every rank is local) |
//! | FENCENB | 3 | `size_t n`, PROC\[n\], `size_t ninfo`, INFO\[ninfo\] | STATUS, once all have entered |
//! | GETNB | 4 | nspace, rank (PROC_RANK), `size_t ninfo`, INFO\[ninfo\], key | STATUS \[, BYTE_OBJECT{PROC, KVAL*}\] |
//! | FINALIZE | 5 | — | STATUS |
//! | REGEVENTS | 13 | `size_t n`, STATUS\[n\], `size_t ninfo`, INFO\[ninfo\] | STATUS 0 (no event is ever raised yet) |
//! | DEREGEVENTS | 14 | (not read) | none, as OpenPMIx |
//! | SPAWNNB, NOTIFY, QUERY, ALLOC, JOB_CONTROL | 9, 12, 15, 17, 18 | see [`crate::requests`] | what the host decides |
//! | anything else | | | STATUS `PMIX_ERR_NOT_SUPPORTED` |
//!
//! A tool (or scheduler) may send REQ (answered with its nspace and no data), REGEVENTS, DEREGEVENTS, the host's commands and FINALIZE;
//! anything else from a tool is answered `PMIX_ERR_NOT_SUPPORTED`.

use std::sync::Arc;

use pmix_codec::{Codec, DataType, Info, Kval, Status, Unpacker, Value};

use crate::host::CallerKind;
use crate::job::{RANK_UNDEF, RANK_WILDCARD};
pub use crate::peer::{cmd, Peer};
use crate::peer::{count, infos, one, procs, R};
use crate::requests::{host_request, is_host_command};
use crate::shared::Shared;
use crate::spawn::settle;
use crate::state::{status_payload, AbortRecord, Outbox, ReplyTo};

/// `PMIX_REMOTE` (`pmix_scope_t`).
const SCOPE_REMOTE: u8 = 2;

fn text(v: Value) -> R<String> {
    match v {
        Value::String(Some(t)) => Ok(t.as_str().unwrap_or_default().to_string()),
        Value::String(None) => Ok(String::new()),
        v => Err(format!("expected a string, got {v:?}")),
    }
}

/// What a COMMIT carries: per scope (`pmix_scope_t`) a BUFFER of KVALs. Returns the
/// KVALs to serve, in order, and the status of the unpacking: as OpenPMIx's
/// `pmix_server_commit` does, the KVALs read before one that fails to unpack are kept, the
/// rest of the message is not read, and the reply carries that unpack's status (a 4.2.2
/// client speaking v20 commits a DATA_ARRAY of VALUE that its v20 unpacker refuses with
/// PMIX_ERR_NOT_SUPPORTED: the keys put before it are still served).
pub(crate) fn commit_contents(codec: &Codec, u: &mut Unpacker<'_>) -> (Vec<Kval>, i32) {
    let mut kvs = Vec::new();
    let status = |e: pmix_codec::Error| e.status.0;
    while u.remaining() > 0 {
        let scope = match u.unpack(DataType::SCOPE, 1).map(|mut c| c.values.pop()) {
            Ok(Some(Value::Scope(s))) => s,
            Ok(_) => return (kvs, Status::ERR_BAD_PARAM.0),
            Err(e) => return (kvs, status(e)),
        };
        let inner = match u.unpack(DataType::BUFFER, 1).map(|mut c| c.values.pop()) {
            Ok(Some(Value::Buffer(b))) => b.bytes,
            Ok(_) => return (kvs, Status::ERR_BAD_PARAM.0),
            Err(e) => return (kvs, status(e)),
        };
        let mut iu = codec.unpacker(&inner[..]);
        while iu.remaining() > 0 {
            match iu.unpack(DataType::KVAL, 1).map(|mut c| c.values.pop()) {
                // every rank is on this node: PMIX_REMOTE data is for processes on other
                // nodes only, so it is read and not served (as OpenPMIx does)
                Ok(Some(Value::Kval(k))) if scope != SCOPE_REMOTE => kvs.push(*k),
                Ok(Some(Value::Kval(_))) => {}
                Ok(_) => return (kvs, Status::ERR_BAD_PARAM.0),
                Err(e) => return (kvs, status(e)),
            }
        }
    }
    (kvs, 0)
}

fn flag(infos: &[Info], key: &str) -> bool {
    infos
        .iter()
        .any(|i| i.key.as_str() == Some(key) && matches!(i.value, Value::Bool(true) | Value::Undef))
}

/// Answer one request; returns the replies to send.
pub fn handle(sh: &Arc<Shared>, peer: &Peer, tag: u32, payload: &[u8]) -> Outbox {
    let to = peer.to(tag);
    match dispatch(sh, peer, to.clone(), payload) {
        Ok(out) => out,
        Err(_) => vec![(to, status_payload(&peer.codec, Status::ERR_BAD_PARAM.0))],
    }
}

fn dispatch(sh: &Arc<Shared>, peer: &Peer, to: ReplyTo, payload: &[u8]) -> R<Outbox> {
    let codec = &peer.codec;
    let mut u = codec.unpacker(payload);
    let command = match one(&mut u, DataType::COMMAND)? {
        Value::Command(c) => c,
        v => return Err(format!("command: {v:?}")),
    };
    let status = |s: Status| Ok(vec![(to.clone(), status_payload(codec, s.0))]);
    match command {
        cmd::REGEVENTS => {
            // the arguments are read (and bounded) but this server raises no events yet, so
            // a registered handler is never called: registration itself succeeds
            let n = count(&mut u)?;
            if n > 0 {
                u.unpack(DataType::STATUS, n).map_err(|e| e.to_string())?;
            }
            infos(&mut u)?;
            return status(Status(0));
        }
        cmd::DEREGEVENTS => return Ok(Vec::new()), // OpenPMIx sends no answer
        c if is_host_command(c) => return host_request(sh, peer, c, &mut u, to),
        _ => {}
    }
    let (Some(rank), Some(state)) = (peer.rank, peer.state.as_ref()) else {
        // tools: finalize is acknowledged (the host sees the tool leave), the rest is not served
        return match command {
            // a tool's library asks for its own job info as a client does; OpenPMIx
            // registers a tool's namespace with no job data: the nspace alone
            cmd::REQ => Ok(vec![(
                to.clone(),
                codec
                    .encode(&[pmix_codec::Item::one(Value::string(&peer.caller.nspace))])
                    .map_err(|e| e.to_string())?,
            )]),
            cmd::FINALIZE => {
                if !peer.finalize() {
                    tool_left(sh, peer);
                }
                status(Status(0))
            }
            _ => status(Status::ERR_NOT_SUPPORTED),
        };
    };
    match command {
        cmd::REQ => {
            let st = state.lock().unwrap_or_else(|e| e.into_inner());
            let version = st.first_version.clone().unwrap_or(peer.version.clone());
            let bytes = st
                .job
                .req_reply(codec, &version)
                .map_err(|e| e.to_string())?;
            Ok(vec![(to, bytes)])
        }
        cmd::ABORT => {
            let st_code = match one(&mut u, DataType::STATUS)? {
                Value::Status(s) => s,
                v => return Err(format!("abort status: {v:?}")),
            };
            let message = text(one(&mut u, DataType::STRING)?)?;
            let targets = procs(&mut u)?;
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            let all: Vec<u32> = (0..st.job.size).collect();
            let targets = match st.participants(&targets) {
                Some(set) if !targets.is_empty() => set.into_iter().collect(),
                _ => all,
            };
            st.aborts.push(AbortRecord {
                rank,
                status: st_code,
                message,
                targets,
            });
            drop(st);
            sh.changed.notify_all();
            status(Status(0))
        }
        cmd::COMMIT => {
            let (kvs, unpacked) = commit_contents(codec, &mut u);
            let mut out = {
                let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
                st.commit(rank, kvs)
            };
            out.push((to.clone(), status_payload(codec, unpacked)));
            Ok(out)
        }
        cmd::FENCENB => {
            let ps = procs(&mut u)?;
            let _infos = infos(&mut u)?; // collect-data or not: gds hash answers a status
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            match st.participants(&ps) {
                Some(set) => Ok(st.fence(rank, set, to)),
                None => status(Status::ERR_BAD_PARAM),
            }
        }
        cmd::GETNB => {
            let nspace = text(one(&mut u, DataType::STRING)?)?;
            let target = match one(&mut u, DataType::PROC_RANK)? {
                Value::ProcRank(r) => r,
                v => return Err(format!("get rank: {v:?}")),
            };
            let infos = infos(&mut u)?;
            // the key asked for (a NULL or empty string: all of the rank's data)
            let key = match u.remaining() {
                0 => None,
                _ => Some(text(one(&mut u, DataType::STRING)?)?).filter(|k| !k.is_empty()),
            };
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            let level = [RANK_WILDCARD, RANK_UNDEF].contains(&target);
            if nspace == st.job.nspace && level {
                if let Some(k) = key.as_deref() {
                    return Ok(vec![(to.clone(), st.level_get(codec, target, k))]);
                }
            }
            if nspace != st.job.nspace || target == RANK_WILDCARD {
                // all of the job-level data went out with the REQ reply
                return status(Status::ERR_NOT_FOUND);
            }
            Ok(st.get(target, key, flag(&infos, "pmix.immediate"), to))
        }
        cmd::FINALIZE => {
            peer.finalize();
            {
                let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
                st.ranks.entry(rank).or_default().finalized = true;
            }
            sh.changed.notify_all();
            status(Status(0))
        }
        _ => status(Status::ERR_NOT_SUPPORTED),
    }
}

/// A tool or scheduler is gone: the host hears it once, then settles.
pub fn tool_left(sh: &Shared, peer: &Peer) {
    if peer.caller.kind == CallerKind::Client {
        return;
    }
    sh.host
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .tool_left(&peer.caller);
    settle(sh);
}
