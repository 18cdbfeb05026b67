//! pmix-peer as a row of the live interop matrix (`tools/live-matrix.sh`): the tool
//! operations `tools/live/live-client.c` runs for a real library's tool (init, query,
//! allocation request with `PMIX_ALLOC_INHERITANCE`, finalize), spoken by this crate in one
//! chosen bfrops component, each reported as the C program reports it:
//! `OP <name> <status> <status_name> <observed...>` (see `vectors/live/README.md`).

use std::time::Duration;

use pmix_codec::{attrs, DataType, Info, Query, Release, Status, Value};

use crate::scenario::{key, text};
use crate::{AllocDirective, ConnectRequest, Identity, Limits, Peer, PeerError, ServerUri};

/// How long one answer may take.
const ANSWER: Duration = Duration::from_secs(10);

/// One operation's outcome, as a live cell records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpLine {
    /// The operation (`init`, `query`, `allocation-inherit`, `finalize`).
    pub op: &'static str,
    /// The PMIx status.
    pub status: i32,
    /// What came back, in a few words.
    pub observed: String,
}

impl std::fmt::Display for OpLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = Status(self.status)
            .name()
            .map(|n| format!("PMIX_{n}"))
            .unwrap_or_else(|| format!("PMIX_STATUS_{}", self.status));
        // one line: the observed text has its newlines flattened
        let observed = self.observed.replace(['\n', '\r'], " ");
        write!(f, "OP {} {} {name} {observed}", self.op, self.status)
    }
}

fn failed(op: &'static str, e: &PeerError) -> OpLine {
    OpLine {
        op,
        status: e.status().0,
        observed: e.to_string(),
    }
}

fn infos_text(infos: &[Info]) -> String {
    infos
        .iter()
        .map(|i| format!("{}={}", i.key, text(&i.value)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Run the live matrix's tool operations against `uri` as the tool `nspace`.0 speaking
/// `component`; stops after a failed init (the rest are absent, as for a real tool).
pub fn tool_ops(uri: &ServerUri, component: pmix_codec::Component, nspace: &str) -> Vec<OpLine> {
    let mut out = Vec::new();
    let req = ConnectRequest::tool(
        Identity::ToolGivenId {
            nspace: nspace.to_string(),
            rank: 0,
        },
        component,
    );
    let mut peer = match Peer::connect(uri, &req, Limits::default()) {
        Ok(p) => p,
        Err(e) => {
            out.push(failed("init", &e));
            return out;
        }
    };
    out.push(OpLine {
        op: "init",
        status: 0,
        observed: format!(
            "tool {nspace}.0 (pmix-peer {} {}), server {}:{}",
            component.name(),
            req.version,
            peer.reply.server_nspace,
            peer.reply.server_rank
        ),
    });
    let q = Query {
        keys: vec![Some(key("PMIX_QUERY_NAMESPACES").into())],
        qualifiers: vec![],
    };
    out.push(match peer.query(vec![q]) {
        Ok(r) => OpLine {
            op: "query",
            status: r.status,
            observed: format!("{} results {}", r.infos.len(), infos_text(&r.infos)),
        },
        Err(e) => failed("query", &e),
    });
    out.push(allocate(&mut peer, component, nspace));
    out.push(match peer.finalize(ANSWER) {
        Ok(_) => OpLine {
            op: "finalize",
            status: 0,
            observed: "tool finalized".into(),
        },
        Err(e) => failed("finalize", &e),
    });
    out
}

/// The allocation request live-client.c sends: one node, a request id, and the inheritance
/// CHILD as type 75 where the component has it, else as a UINT8 under the same key.
fn allocate(peer: &mut Peer, component: pmix_codec::Component, nspace: &str) -> OpLine {
    let inherit_key = key("PMIX_ALLOC_INHERITANCE");
    let child = attrs::AllocInherit::Child as u8;
    let (inherit, how) = if component.registers(DataType::ALLOC_INHERIT, Release::Master) {
        (
            Value::AllocInherit(child),
            "inheritance CHILD as ALLOC_INHERIT (type 75)",
        )
    } else {
        (
            Value::Uint8(child),
            "inheritance CHILD as UINT8 (this component has no type 75)",
        )
    };
    let infos = vec![
        Info::new(key("PMIX_ALLOC_NUM_NODES"), Value::Uint64(1)),
        Info::new(
            key("PMIX_ALLOC_REQ_ID"),
            Value::string(&format!("live-{nspace}-0")),
        ),
        Info::new(inherit_key, inherit),
    ];
    match peer.alloc(AllocDirective::New, infos) {
        Ok(r) => OpLine {
            op: "allocation-inherit",
            status: r.status,
            observed: format!("{how}; {} results {}", r.infos.len(), infos_text(&r.infos)),
        },
        Err(e) => failed("allocation-inherit", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_op_line_reads_as_the_c_program_writes_it() {
        let l = OpLine {
            op: "query",
            status: -46,
            observed: "two\nlines".into(),
        };
        assert_eq!(l.to_string(), "OP query -46 PMIX_ERR_NOT_FOUND two lines");
        let unknown = OpLine {
            op: "init",
            status: -9999,
            observed: String::new(),
        };
        assert_eq!(unknown.to_string(), "OP init -9999 PMIX_STATUS_-9999 ");
    }
}
