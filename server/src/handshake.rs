//! The server side of the handshake: a connection's connect message is checked and
//! answered here (or the peer refused), and the peer it admits is counted and reachable
//! for events.

use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use pmix_codec::{Codec, Component, Release, Status};
use pmix_ptl::accept::{client_reply, tool_reply, ConnectMessage, PeerFlag};
use pmix_ptl::transcript::Direction;

use crate::host::{Caller, CallerKind};
use crate::outgoing::Outgoing;
use crate::peer::Peer;
use crate::shared::Shared;
use crate::spawn::state_of;
use crate::state::Writer;

/// The release profile to answer a peer in, from the version string it sent.
pub fn release_of(version: &str) -> Release {
    let mut parts = version.split('.');
    let major = parts.next().unwrap_or("");
    let minor: String = parts
        .next()
        .unwrap_or("")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    match (major, minor.as_str()) {
        ("4", _) => Release::OpenPmix4_2,
        ("5", _) => Release::OpenPmix5_0,
        ("6", "0") => Release::OpenPmix6_0,
        ("6", _) => Release::OpenPmix6_1,
        ("7", _) => Release::OpenPmix7_0,
        _ => Release::Master,
    }
}

fn refuse(sh: &Shared, stream: &TcpStream, conn: u32, status: Status) {
    let bytes = status.0.to_be_bytes();
    sh.log(conn, None, Direction::Sent, "connect-reply", bytes.to_vec());
    let _ = std::io::Write::write_all(&mut &*stream, &bytes);
}

/// Answer the connect message (`hdr`, whose length the caller checked, and `body`) of
/// connection `conn`; `None` if the peer was refused or dropped.
pub(crate) fn admit(
    sh: &Arc<Shared>,
    stream: &Arc<TcpStream>,
    conn: u32,
    hdr: &[u8],
    body: &[u8],
) -> Option<Peer> {
    let mut wire = hdr.to_vec();
    wire.extend_from_slice(body);
    sh.log(conn, None, Direction::Received, "connect", wire);
    let msg = match ConnectMessage::parse(body) {
        Ok(m) => m,
        Err(_) => {
            refuse(sh, stream, conn, Status::ERR_BAD_PARAM);
            return None;
        }
    };
    if !sh.config.psec.accepts(&msg.psec) {
        // a psec module this server does not offer: OpenPMIx finds no module of that name
        // among its own and closes the socket without a reply (crate::psec); so do we
        sh.log(conn, None, Direction::Sent, "connect-closed", Vec::new());
        return None;
    }
    let component = msg.component().filter(|c| *c != Component::V12);
    let (Some(component), Some(kind)) = (component, msg.kind()) else {
        refuse(sh, stream, conn, Status::ERR_NOT_SUPPORTED);
        return None;
    };
    // Whatever gds modules the peer names, it is served with hash's layout: an OpenPMIx
    // server whose only gds is hash does the same, since hash's assign_module accepts every
    // request (`hash_assign_module` in `src/mca/gds/hash/gds_hash.c`: priority 10, or 100
    // when named). A client that chose a shared-memory module then reads hash's job data
    // with it, as against that server.
    // the release the peer's version names, unless that release does not ship the
    // component it asked for (a peer's claim we cannot reproduce): then master, which ships all
    let release = Some(release_of(&msg.version))
        .filter(|r| r.ships(component))
        .unwrap_or(Release::Master);
    let codec = Codec::new(component, kind).with_release(release);
    let (caller, state, reply) = if msg.flag.is_client() {
        let Some((ns, rank)) = msg.proc.clone() else {
            refuse(sh, stream, conn, Status::ERR_BAD_PARAM);
            return None;
        };
        let state = if ns == sh.config.job.nspace {
            Some(sh.state.clone())
        } else {
            state_of(sh, &ns)
        };
        let Some(state) =
            state.filter(|s| rank < s.lock().unwrap_or_else(|e| e.into_inner()).job.size)
        else {
            refuse(sh, stream, conn, Status::ERR_NOT_FOUND);
            return None;
        };
        if sh.clients.load(Ordering::SeqCst) >= sh.config.max_clients {
            refuse(sh, stream, conn, Status::ERR_OUT_OF_RESOURCE);
            return None;
        }
        {
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            if st.conn_rank.values().any(|r| *r == rank) {
                drop(st);
                refuse(sh, stream, conn, Status::ERR_BAD_PARAM);
                return None;
            }
            st.conn_rank.insert(conn, rank);
            let rec = st.ranks.entry(rank).or_default();
            rec.connected = true;
            rec.component = Some(component.name().to_string());
            rec.buffer = Some(kind.name().to_string());
            rec.version = Some(msg.version.clone());
            if st.first_version.is_none() {
                st.first_version = Some(msg.version.clone());
            }
        }
        let caller = Caller {
            nspace: ns,
            rank,
            kind: CallerKind::Client,
        };
        (caller, Some(state), client_reply(0, conn))
    } else {
        if sh.tools.load(Ordering::SeqCst) >= sh.config.max_tools {
            // counted apart from the clients: idle tools never lock a job's processes out
            refuse(sh, stream, conn, Status::ERR_OUT_OF_RESOURCE);
            return None;
        }
        let assigned = if msg.flag.needs_id() {
            let n = sh.next_tool.fetch_add(1, Ordering::SeqCst);
            Some((format!("{}.tool.{n}", sh.config.server_nspace), 0))
        } else {
            None
        };
        let (nspace, rank) = assigned
            .clone()
            .or(msg.proc.clone())
            .unwrap_or_else(|| (format!("{}.tool.conn{conn}", sh.config.server_nspace), 0));
        let caller = Caller {
            nspace,
            rank,
            kind: if msg.flag == PeerFlag::SchedulerWithId {
                CallerKind::Scheduler
            } else {
                CallerKind::Tool
            },
        };
        let admitted = sh
            .host
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .tool_connected(&caller);
        if let Err(status) = admitted {
            refuse(sh, stream, conn, Status(status));
            return None;
        }
        let reply = tool_reply(
            0,
            assigned.as_ref().map(|(n, r)| (n.as_str(), *r)),
            (&sh.config.server_nspace, 0),
            0,
        )
        .ok()?;
        (caller, None, reply)
    };
    sh.log(
        conn,
        Some(codec),
        Direction::Sent,
        "connect-reply",
        reply.clone(),
    );
    let sent = std::io::Write::write_all(&mut &**stream, &reply);
    let writer: Writer = Arc::new(Outgoing::new(stream.clone(), sh.event_loop.waker.clone()));
    let Ok(()) = sent else {
        if state.is_none() {
            // a tool the host admitted leaves at once
            sh.host
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .tool_left(&caller);
        }
        return None;
    };
    let peer = match state {
        Some(state) => Peer::client(conn, caller, state, codec, msg.version, writer),
        None => Peer::tool(conn, caller, codec, msg.version, writer),
    };
    // admit and the loop's end of a connection run on the one event-loop thread
    match peer.state {
        Some(_) => sh.clients.fetch_add(1, Ordering::SeqCst),
        None => sh.tools.fetch_add(1, Ordering::SeqCst),
    };
    sh.peers.lock().unwrap_or_else(|e| e.into_inner()).insert(
        (peer.caller.nspace.clone(), peer.caller.rank),
        peer.events_to(),
    );
    Some(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_their_release_profiles() {
        assert_eq!(release_of("4.2.2rc2"), Release::OpenPmix4_2);
        assert_eq!(release_of("5.0.7a1"), Release::OpenPmix5_0);
        assert_eq!(release_of("6.0.0"), Release::OpenPmix6_0);
        assert_eq!(release_of("6.1.0"), Release::OpenPmix6_1);
        assert_eq!(release_of("7.0.0rc1"), Release::OpenPmix7_0);
        assert_eq!(release_of("junk"), Release::Master);
    }
}
