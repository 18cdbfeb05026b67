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
    /// PMIx_Allocation_request with PMIX_ALLOC_INHERITANCE.
    AllocationInherit,
    /// PMIx_Query_info (e.g. PMIX_QUERY_NAMESPACES).
    Query,
    /// PMIx_Finalize (or PMIx_tool_finalize).
    Finalize,
}

/// The prefix of a put/commit/fence/get op name, before `:<type class>`.
const PUT_PREFIX: &str = "put-commit-fence-get";

impl Op {
    /// Every operation, in the order a cell runs them.
    pub fn all() -> Vec<Op> {
        let mut v = vec![Op::Init, Op::GetJobInfo];
        v.extend(TypeClass::ALL.map(Op::PutCommitFenceGet));
        v.extend([Op::AllocationInherit, Op::Query, Op::Finalize]);
        v
    }

    /// The op's name: `init`, `get-job-info`, `put-commit-fence-get:<class>`,
    /// `allocation-inherit`, `query`, `finalize`.
    pub fn as_str(self) -> String {
        match self {
            Op::Init => "init".into(),
            Op::GetJobInfo => "get-job-info".into(),
            Op::PutCommitFenceGet(c) => format!("{PUT_PREFIX}:{}", c.as_str()),
            Op::AllocationInherit => "allocation-inherit".into(),
            Op::Query => "query".into(),
            Op::Finalize => "finalize".into(),
        }
    }

    /// The op named `s` (as [`Op::as_str`] writes it).
    pub fn parse(s: &str) -> Result<Op, String> {
        Ok(match s {
            "init" => Op::Init,
            "get-job-info" => Op::GetJobInfo,
            "allocation-inherit" => Op::AllocationInherit,
            "query" => Op::Query,
            "finalize" => Op::Finalize,
            _ => match s.split_once(':') {
                Some((PUT_PREFIX, class)) => Op::PutCommitFenceGet(TypeClass::parse(class)?),
                _ => {
                    return Err(format!(
                        "unknown operation `{s}` (known: init, get-job-info, {PUT_PREFIX}:<type class>, allocation-inherit, query, finalize)"
                    ))
                }
            },
        })
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
