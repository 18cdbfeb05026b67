//! The argument grammars of the PTL messages: what follows `pmix_cmd_t` in each request a
//! client or tool sends, what the server answers to it, and what an event notification
//! carries, as data (a list of [`Step`]s), so that a reader of any message (the capture
//! dissector, a recorder) walks it pack call by pack call with the connection's codec.
//!
//! | command | code | request after `pmix_cmd_t` | reply |
//! |---|---|---|---|
//! | req | 0 | — | nspace (STRING), then one KVAL per call (gds `hash`) |
//! | abort | 1 | status, message (STRING), `size_t n`, PROC\[n\] | STATUS |
//! | commit | 2 | (SCOPE, BUFFER of KVALs)* | STATUS |
//! | fence | 3 | `size_t n`, PROC\[n\], `size_t ninfo`, INFO\[ninfo\] | STATUS |
//! | get | 4 | nspace (STRING), rank (PROC_RANK), `size_t ninfo`, INFO\[ninfo\] \[, key (STRING)\] | STATUS, then one BYTE_OBJECT per call (a proc and its KVALs) |
//! | finalize | 5 | — | STATUS (a tool's library ignores what follows) |
//! | publish | 6 | uid (UINT32), `size_t ninfo`, INFO\[ninfo\] | STATUS |
//! | lookup | 7 | uid (UINT32), `size_t nkeys`, one STRING per call, `size_t ninfo`, INFO\[ninfo\] | STATUS \[, `size_t n`, PDATA\[n\]\] |
//! | unpublish | 8 | uid (UINT32), `size_t nkeys`, one STRING per call, `size_t ninfo`, INFO\[ninfo\] | STATUS |
//! | spawn | 9 | `size_t ninfo`, INFO, `size_t napps`, APP | STATUS \[, nspace (STRING), one KVAL per call\] |
//! | connect | 10 | `size_t n`, PROC\[n\], `size_t ninfo`, INFO\[ninfo\], then one INFO per call (endpoint data, 6.x) | STATUS, then one BYTE_OBJECT per call |
//! | disconnect | 11 | `size_t n`, PROC\[n\], `size_t ninfo`, INFO\[ninfo\] | STATUS |
//! | notify | 12 | status, range (DATA_RANGE), `size_t ninfo`, INFO\[ninfo\] | STATUS \[, `size_t ninfo`, INFO\[ninfo\]\] |
//! | register events | 13 | `size_t n`, STATUS\[n\], `size_t ninfo`, INFO\[ninfo\] | STATUS \[, `size_t ninfo`, INFO\[ninfo\]\] |
//! | deregister events | 14 | one STATUS per call | (none) |
//! | query | 15 | `size_t n`, QUERY\[n\] | STATUS \[, `size_t ninfo`, INFO\[ninfo\]\] |
//! | log | 16 | TIME (to servers from v3 on), `size_t ndata`, INFO\[ndata\], `size_t ndirs`, INFO\[ndirs\] | STATUS |
//! | alloc | 17 | directive (ALLOC_DIRECTIVE), `size_t ninfo`, INFO\[ninfo\] | STATUS \[, `size_t ninfo`, INFO\[ninfo\]\] |
//! | job control | 18 | `size_t n`, PROC\[n\], `size_t ndirs`, INFO\[ndirs\] | STATUS \[, `size_t ninfo`, INFO\[ninfo\]\] |
//!
//! Arrays of length 0 are not packed at all (only their count). Sources (OpenPMIx, client
//! side, which packs them): `src/client/pmix_client.c` (init, finalize, abort, commit),
//! `pmix_client_fence.c`, `pmix_client_get.c`, `pmix_client_pub.c`,
//! `pmix_client_connect.c`, `pmix_client_spawn.c`, `src/common/pmix_log.c`,
//! `pmix_query.c`, `pmix_alloc.c`, `pmix_control.c`, `src/event/`; the server's answers in
//! `src/server/pmix_server.c` and `src/mca/gds/hash/gds_hash.c` (`register_job_info`,
//! `accept_kvs_resp`). A command not in this table has no grammar here: a reader shows its
//! bytes rather than guess.

use pmix_codec::DataType;

use crate::command::cmd;

/// `pmix_cmd_t` values of the client commands (`src/include/pmix_globals.h`) that
/// [`crate::command::cmd`] does not name.
pub mod client_cmd {
    /// `PMIX_ABORT_CMD`.
    pub const ABORT: u8 = 1;
    /// `PMIX_COMMIT_CMD`.
    pub const COMMIT: u8 = 2;
    /// `PMIX_FENCENB_CMD`.
    pub const FENCENB: u8 = 3;
    /// `PMIX_GETNB_CMD`.
    pub const GETNB: u8 = 4;
    /// `PMIX_PUBLISHNB_CMD`.
    pub const PUBLISHNB: u8 = 6;
    /// `PMIX_LOOKUPNB_CMD`.
    pub const LOOKUPNB: u8 = 7;
    /// `PMIX_UNPUBLISHNB_CMD`.
    pub const UNPUBLISHNB: u8 = 8;
    /// `PMIX_CONNECTNB_CMD`.
    pub const CONNECTNB: u8 = 10;
    /// `PMIX_DISCONNECTNB_CMD`.
    pub const DISCONNECTNB: u8 = 11;
    /// `PMIX_DEREGEVENTS_CMD` (no answer).
    pub const DEREGEVENTS: u8 = 14;
    /// `PMIX_LOG_CMD`.
    pub const LOG: u8 = 16;
}

use client_cmd::*;

/// One step of an argument grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// One value of the type.
    One(DataType),
    /// `size_t n`, then `n` values of the type in one call (none packed when `n` is 0).
    Counted(DataType),
    /// `size_t n`, then `n` calls of one value each.
    CountedEach(DataType),
    /// The rest of the steps only if bytes remain.
    IfMore,
    /// Values of the type, one call each, to the end.
    Rest(DataType),
    /// Pairs of values, one call each (the first type, then the second), to the end.
    RestPairs(DataType, DataType),
}

use Step::*;

const INFO: DataType = DataType::INFO;

/// The arguments after `pmix_cmd_t` of a request with command `c`, if known.
pub fn request(c: u8) -> Option<&'static [Step]> {
    Some(match c {
        cmd::REQ | cmd::FINALIZE => &[],
        ABORT => &[
            One(DataType::STATUS),
            One(DataType::STRING),
            Counted(DataType::PROC),
        ],
        COMMIT => &[RestPairs(DataType::SCOPE, DataType::BUFFER)],
        FENCENB | DISCONNECTNB => &[Counted(DataType::PROC), Counted(INFO)],
        GETNB => &[
            One(DataType::STRING),
            One(DataType::PROC_RANK),
            Counted(INFO),
            IfMore,
            One(DataType::STRING),
        ],
        PUBLISHNB => &[One(DataType::UINT32), Counted(INFO)],
        LOOKUPNB | UNPUBLISHNB => &[
            One(DataType::UINT32),
            CountedEach(DataType::STRING),
            Counted(INFO),
        ],
        CONNECTNB => &[Counted(DataType::PROC), Counted(INFO), Rest(INFO)],
        DEREGEVENTS => &[Rest(DataType::STATUS)],
        // the timestamp goes to servers from v3 on: every server of a supported release
        LOG => &[One(DataType::TIME), Counted(INFO), Counted(INFO)],
        cmd::SPAWN => &[Counted(INFO), Counted(DataType::APP)],
        cmd::NOTIFY => &[
            One(DataType::STATUS),
            One(DataType::DATA_RANGE),
            Counted(INFO),
        ],
        cmd::REGEVENTS => &[Counted(DataType::STATUS), Counted(INFO)],
        cmd::QUERY => &[Counted(DataType::QUERY)],
        cmd::ALLOC => &[One(DataType::ALLOC_DIRECTIVE), Counted(INFO)],
        cmd::JOB_CONTROL => &[Counted(DataType::PROC), Counted(INFO)],
        _ => return None,
    })
}

/// The reply to a request with command `c` (`None`: the request was not seen; the
/// common shape, a status and optional infos, is assumed, as for the tool commands whose
/// servers may add infos).
pub fn reply(c: Option<u8>) -> &'static [Step] {
    match c {
        Some(cmd::REQ) => &[One(DataType::STRING), Rest(DataType::KVAL)],
        // status, the job's nspace, then one KVAL per call for the tool's gds
        Some(cmd::SPAWN) => &[
            One(DataType::STATUS),
            IfMore,
            One(DataType::STRING),
            Rest(DataType::KVAL),
        ],
        // gds hash: each proc's blob (PROC, then KVALs) as its own byte object
        Some(GETNB) | Some(CONNECTNB) => &[One(DataType::STATUS), Rest(DataType::BYTE_OBJECT)],
        Some(LOOKUPNB) => &[One(DataType::STATUS), IfMore, Counted(DataType::PDATA)],
        Some(ABORT) | Some(COMMIT) | Some(FENCENB) | Some(PUBLISHNB) | Some(UNPUBLISHNB)
        | Some(DISCONNECTNB) | Some(LOG) => &[One(DataType::STATUS)],
        _ => &[One(DataType::STATUS), IfMore, Counted(INFO)],
    }
}

/// Whether the server answers a request with command `c` (deregistration has no answer).
pub fn answered(c: u8) -> bool {
    c != DEREGEVENTS
}

/// An event notification on tag 0 (`pmix_client_notify_recv`, `pmix_tool_notify_recv`):
/// cmd, status, source, ninfo, infos, \[range\].
pub const EVENT: &[Step] = &[
    One(DataType::COMMAND),
    One(DataType::STATUS),
    One(DataType::PROC),
    Counted(INFO),
    IfMore,
    One(DataType::DATA_RANGE),
];
