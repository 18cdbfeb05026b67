//! The closed list of operations a live cell runs: [`Op`], with the type classes of the
//! put/commit/fence/get round ([`TypeClass`]). The live runner's client programs print one
//! line per operation (`OP <name> <status> <status_name> <observed...>`, parsed by
//! [`super::OpObservation::parse_line`]); every other tool names operations by
//! [`Op::as_str`] and reads them back with [`Op::parse`].

use std::fmt;

/// The class of value a `put-commit-fence-get` round carries: one PMIx value of that kind is
/// put by each rank, committed, exchanged by a fence with data, and read back by another rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TypeClass {
    /// Signed integers (PMIX_INT, PMIX_INT8 ... PMIX_INT64).
    Int,
    /// Unsigned integers (PMIX_UINT, PMIX_UINT8 ... PMIX_UINT64).
    Uint,
    /// PMIX_SIZE (a flex-encoded integer from v4 on).
    FlexSize,
    /// PMIX_FLOAT and PMIX_DOUBLE.
    Float,
    /// PMIX_STRING.
    String,
    /// PMIX_BYTE_OBJECT.
    Bytes,
    /// PMIX_PROC.
    Proc,
    /// PMIX_INFO_ARRAY (the legacy array of pmix_info_t).
    InfoArray,
    /// PMIX_DATA_ARRAY (of pmix_info_t and of plain values).
    DataArray,
    /// A pmix_value_t inside another structure (PMIX_VALUE).
    Value,
}

impl TypeClass {
    /// Every class, in a fixed order.
    pub const ALL: [TypeClass; 10] = [
        TypeClass::Int,
        TypeClass::Uint,
        TypeClass::FlexSize,
        TypeClass::Float,
        TypeClass::String,
        TypeClass::Bytes,
        TypeClass::Proc,
        TypeClass::InfoArray,
        TypeClass::DataArray,
        TypeClass::Value,
    ];

    /// The name used in op names and JSON (`int`, `flex-size`, `info-array`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TypeClass::Int => "int",
            TypeClass::Uint => "uint",
            TypeClass::FlexSize => "flex-size",
            TypeClass::Float => "float",
            TypeClass::String => "string",
            TypeClass::Bytes => "bytes",
            TypeClass::Proc => "proc",
            TypeClass::InfoArray => "info-array",
            TypeClass::DataArray => "data-array",
            TypeClass::Value => "value",
        }
    }

    /// The class named `s` (as [`TypeClass::as_str`] writes it).
    pub fn parse(s: &str) -> Result<TypeClass, String> {
        TypeClass::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown type class `{s}` (known: {})",
                    TypeClass::ALL.map(TypeClass::as_str).join(", ")
                )
            })
    }
}

/// A job- or node-level key a `job-key:<key>` operation reads and checks against what the
/// launcher set (the harness gives the client the expected value, `LIVE_EXPECT_<KEY>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JobKey {
    /// PMIX_JOB_SIZE (`pmix.job.size`, rank WILDCARD).
    JobSize,
    /// PMIX_LOCAL_SIZE (`pmix.local.size`, rank WILDCARD).
    LocalSize,
    /// PMIX_LOCAL_PEERS (`pmix.lpeers`, rank WILDCARD): the ranks on this node, `0,1`.
    LocalPeers,
    /// PMIX_UNIV_SIZE (`pmix.univ.size`, rank WILDCARD).
    UnivSize,
    /// PMIX_APPNUM (`pmix.appnum`, the client's own rank).
    Appnum,
    /// PMIX_NODEID (`pmix.nodeid`, the client's own rank).
    NodeId,
    /// PMIX_LOCAL_RANK (`pmix.lrank`, the client's own rank).
    LocalRank,
}

impl JobKey {
    /// Every key, in the order the client reads them.
    pub const ALL: [JobKey; 7] = [
        JobKey::JobSize,
        JobKey::LocalSize,
        JobKey::LocalPeers,
        JobKey::UnivSize,
        JobKey::Appnum,
        JobKey::NodeId,
        JobKey::LocalRank,
    ];

    /// The name used in op names (`job-size`, `local-peers`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            JobKey::JobSize => "job-size",
            JobKey::LocalSize => "local-size",
            JobKey::LocalPeers => "local-peers",
            JobKey::UnivSize => "univ-size",
            JobKey::Appnum => "appnum",
            JobKey::NodeId => "nodeid",
            JobKey::LocalRank => "local-rank",
        }
    }

    /// The PMIx key (`pmix.job.size`, ...).
    pub fn pmix_key(self) -> &'static str {
        match self {
            JobKey::JobSize => "pmix.job.size",
            JobKey::LocalSize => "pmix.local.size",
            JobKey::LocalPeers => "pmix.lpeers",
            JobKey::UnivSize => "pmix.univ.size",
            JobKey::Appnum => "pmix.appnum",
            JobKey::NodeId => "pmix.nodeid",
            JobKey::LocalRank => "pmix.lrank",
        }
    }

    /// The key named `s` (as [`JobKey::as_str`] writes it).
    pub fn parse(s: &str) -> Result<JobKey, String> {
        JobKey::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown job key `{s}` (known: {})",
                    JobKey::ALL.map(JobKey::as_str).join(", ")
                )
            })
    }
}

/// One operation of a live cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    /// Connect and init (PMIx_Init for a client, PMIx_tool_init for a tool).
    Init,
    /// PMIx_Get of job-level information (e.g. PMIX_JOB_SIZE for the namespace).
    GetJobInfo,
    /// PMIx_Put of one value of the class, PMIx_Commit, PMIx_Fence with
    /// PMIX_COLLECT_DATA, and PMIx_Get of another rank's value.
    PutCommitFenceGet(TypeClass),
    /// PMIx_Get of a job- or node-level key, its value checked against what the launcher
    /// set (`LIVE_EXPECT_<KEY>`; a success with another value is reported as
    /// PMIX_ERR_TYPE_MISMATCH).
    JobKey(JobKey),
    /// After put, commit and a fence WITHOUT data: PMIx_Get with rank PMIX_RANK_UNDEF of a
    /// key only the other rank put (the request Slurm refused, openpmix#1484, #3320).
    GetRankUndef,
    /// After a fence without data: PMIx_Get with rank PMIX_RANK_WILDCARD of a key only the
    /// other rank put; PMIX_ERR_NOT_FOUND is the right answer (WILDCARD is job-level data).
    GetRankWildcard,
    /// After a fence without data: PMIx_Get of the other rank's key (direct modex).
    FenceNodataGet,
    /// Two PMIX_QUALIFIED_VALUE puts of one key, each read back by its qualifier
    /// (PMIX_ERR_NOT_SUPPORTED where the release's headers lack the attribute).
    QualifiedValues,
    /// PMIx_Get with PMIX_GET_REFRESH_CACHE after the other rank committed a second value
    /// of a key this rank had already read.
    GetRefreshCache,
    /// PMIx_Get without PMIX_TIMEOUT of a key the other rank commits 1 s later (within the
    /// libraries' 2 s default wait).
    GetWaitCommit,
    /// PMIx_Get with PMIX_TIMEOUT of a key the other rank commits 3 s later.
    GetWaitCommitTimeout,
    /// PMIx_Notify_event by one rank, received by the other's registered handler (payload
    /// checked, bounded wait).
    EventNotify,
    /// PMIx_Allocation_request with PMIX_ALLOC_INHERITANCE.
    AllocationInherit,
    /// PMIx_Query_info (e.g. PMIX_QUERY_NAMESPACES).
    Query,
    /// PMIx_Abort of the last rank (for itself; it ends there, without finalize) seen by
    /// the others as an event naming it within 5 s.
    AbortSeen,
    /// PMIx_Finalize (or PMIx_tool_finalize).
    Finalize,
}

/// The prefix of a put/commit/fence/get op name, before `:<type class>`.
const PUT_PREFIX: &str = "put-commit-fence-get";
/// The prefix of a job-key op name, before `:<key>`.
const JOB_KEY_PREFIX: &str = "job-key";

/// The operations without a parameter, by name.
const PLAIN: [(&str, Op); 14] = [
    ("init", Op::Init),
    ("get-job-info", Op::GetJobInfo),
    ("get-rank-undef", Op::GetRankUndef),
    ("get-rank-wildcard", Op::GetRankWildcard),
    ("fence-nodata-get", Op::FenceNodataGet),
    ("qualified-values", Op::QualifiedValues),
    ("get-refresh-cache", Op::GetRefreshCache),
    ("get-wait-commit", Op::GetWaitCommit),
    ("get-wait-commit-timeout", Op::GetWaitCommitTimeout),
    ("event-notify", Op::EventNotify),
    ("allocation-inherit", Op::AllocationInherit),
    ("query", Op::Query),
    ("abort-seen", Op::AbortSeen),
    ("finalize", Op::Finalize),
];

impl Op {
    /// Every operation, in the order a cell runs them.
    pub fn all() -> Vec<Op> {
        let mut v = vec![Op::Init, Op::GetJobInfo];
        v.extend(TypeClass::ALL.map(Op::PutCommitFenceGet));
        v.extend(Op::field());
        v.extend([
            Op::AllocationInherit,
            Op::Query,
            Op::AbortSeen,
            Op::Finalize,
        ]);
        v
    }

    /// The operations the field breaks on (issue 38 item 3), in the order a cell runs them:
    /// between the put/commit/fence/get round and the allocation request, but
    /// [`Op::AbortSeen`], which comes last before finalize.
    pub fn field() -> Vec<Op> {
        let mut v: Vec<Op> = JobKey::ALL.map(Op::JobKey).to_vec();
        v.extend([
            Op::GetRankUndef,
            Op::GetRankWildcard,
            Op::FenceNodataGet,
            Op::QualifiedValues,
            Op::GetRefreshCache,
            Op::GetWaitCommit,
            Op::GetWaitCommitTimeout,
            Op::EventNotify,
        ]);
        v
    }

    /// True for an operation the client program gained with issue 38 item 3: cells recorded
    /// before have none of them (their run order is [`Op::all`] without these), and a cell
    /// that lacks them was simply not asked them.
    pub fn is_field(self) -> bool {
        self == Op::AbortSeen || Op::field().contains(&self)
    }

    /// The op's name: `init`, `get-job-info`, `put-commit-fence-get:<class>`,
    /// `job-key:<key>`, `get-rank-undef`, `get-rank-wildcard`, `fence-nodata-get`,
    /// `qualified-values`, `get-refresh-cache`, `get-wait-commit`,
    /// `get-wait-commit-timeout`, `event-notify`, `allocation-inherit`, `query`,
    /// `abort-seen`, `finalize`.
    pub fn as_str(self) -> String {
        match self {
            Op::PutCommitFenceGet(c) => format!("{PUT_PREFIX}:{}", c.as_str()),
            Op::JobKey(k) => format!("{JOB_KEY_PREFIX}:{}", k.as_str()),
            op => PLAIN
                .iter()
                .find(|(_, o)| *o == op)
                .map(|(n, _)| (*n).to_string())
                .expect("every other op is in PLAIN"),
        }
    }

    /// The op named `s` (as [`Op::as_str`] writes it).
    pub fn parse(s: &str) -> Result<Op, String> {
        if let Some((_, op)) = PLAIN.iter().find(|(n, _)| *n == s) {
            return Ok(*op);
        }
        match s.split_once(':') {
            Some((PUT_PREFIX, class)) => Ok(Op::PutCommitFenceGet(TypeClass::parse(class)?)),
            Some((JOB_KEY_PREFIX, key)) => Ok(Op::JobKey(JobKey::parse(key)?)),
            _ => Err(format!(
                "unknown operation `{s}` (known: {}, {PUT_PREFIX}:<type class>, {JOB_KEY_PREFIX}:<key>)",
                PLAIN.map(|(n, _)| n).join(", ")
            )),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl serde::Serialize for Op {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Op {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Op, D::Error> {
        let s = String::deserialize(d)?;
        Op::parse(&s).map_err(serde::de::Error::custom)
    }
}
