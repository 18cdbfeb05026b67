//! The benchmark workloads, shared by the criterion benches (`codec/benches/codec.rs`) and
//! the side-by-side harness against libpmix (`pmix-bench`, `tools/bench/src/main.rs`,
//! which includes this file with `#[path]`).
//!
//! Every workload is one pack call. The C side (`tools/bench/pmix_bench.c`) builds the
//! same values with the same formulas; the harness checks that libpmix packs them to
//! exactly our bytes before it times anything, so a change here must be mirrored there.

#![allow(dead_code)]

use pmix_codec::{DataType, Info, Item, Proc, Text, Value};

/// A benchmark workload: one pack call of many values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// 10,000 INFO: keys `pmix.job.key.NNNNN`, values cycling UINT32, a 32-character
    /// STRING, PROC, BOOL, UINT64.
    Info,
    /// 100,000 PROC: namespace `prterun-host-12345@1`, rank i.
    Proc,
    /// 4,096 BYTE_OBJECT of 176 bytes each (a modex-like payload).
    Bytes,
    /// A job map: 256 INFO `pmix.node.info`, each a DATA_ARRAY of 5 INFO (hostname,
    /// node id, local peers, local size, and a DATA_ARRAY of the node's 16 PROC).
    JobMap,
}

/// Number of INFO in [`Workload::Info`].
pub const INFO_N: usize = 10_000;
/// Number of PROC in [`Workload::Proc`].
pub const PROC_N: usize = 100_000;
/// Number of BYTE_OBJECT in [`Workload::Bytes`].
pub const BYTES_N: usize = 4_096;
/// Size of each BYTE_OBJECT in [`Workload::Bytes`].
pub const BYTES_LEN: usize = 176;
/// Nodes in [`Workload::JobMap`].
pub const JOBMAP_NODES: usize = 256;
/// Processes per node in [`Workload::JobMap`].
pub const JOBMAP_PPN: usize = 16;
/// The namespace used by every PROC.
pub const NSPACE: &str = "prterun-host-12345@1";

impl Workload {
    /// Every workload, in table order.
    pub const ALL: [Workload; 4] = [
        Workload::Info,
        Workload::Proc,
        Workload::Bytes,
        Workload::JobMap,
    ];

    /// The name used on command lines (and by the C bench program).
    pub fn name(self) -> &'static str {
        match self {
            Workload::Info => "info",
            Workload::Proc => "proc",
            Workload::Bytes => "bytes",
            Workload::JobMap => "jobmap",
        }
    }

    /// Look a workload up by [`Workload::name`].
    pub fn from_name(s: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == s)
    }

    /// The type of the pack call.
    pub fn ty(self) -> DataType {
        match self {
            Workload::Info | Workload::JobMap => DataType::INFO,
            Workload::Proc => DataType::PROC,
            Workload::Bytes => DataType::BYTE_OBJECT,
        }
    }

    /// The pack call.
    pub fn item(self) -> Item {
        let values = match self {
            Workload::Info => (0..INFO_N).map(info_entry).collect(),
            Workload::Proc => (0..PROC_N).map(|i| Value::proc(NSPACE, i as u32)).collect(),
            Workload::Bytes => (0..BYTES_N)
                .map(|i| Value::ByteObject(blob(i).into()))
                .collect(),
            Workload::JobMap => (0..JOBMAP_NODES).map(node_entry).collect(),
        };
        Item::new(self.ty(), values)
    }
}

/// The 32-character string value of info entry `i`: `'a' + (i + 7j) % 26` for j in 0..32.
pub fn info_string(i: usize) -> String {
    (0..32)
        .map(|j| (b'a' + ((i + 7 * j) % 26) as u8) as char)
        .collect()
}

/// Info entry `i` of [`Workload::Info`].
pub fn info_entry(i: usize) -> Value {
    let key = format!("pmix.job.key.{i:05}");
    let value = match i % 5 {
        0 => Value::Uint32((i as u32).wrapping_mul(7919)),
        1 => Value::string(&info_string(i)),
        2 => Value::proc(NSPACE, i as u32),
        3 => Value::Bool((i / 5).is_multiple_of(2)),
        _ => Value::Uint64((i as u64).wrapping_mul(1_000_003)),
    };
    Value::info(&key, value)
}

/// Byte object `i` of [`Workload::Bytes`]: byte j is `(31i + 7j) mod 256`.
pub fn blob(i: usize) -> Vec<u8> {
    (0..BYTES_LEN)
        .map(|j| (i.wrapping_mul(31).wrapping_add(j * 7) & 0xff) as u8)
        .collect()
}

/// Node `n` of [`Workload::JobMap`].
pub fn node_entry(n: usize) -> Value {
    let first = n * JOBMAP_PPN;
    let peers: Vec<String> = (first..first + JOBMAP_PPN).map(|r| r.to_string()).collect();
    let procs: Vec<Value> = (first..first + JOBMAP_PPN)
        .map(|r| {
            Value::Proc(Proc {
                nspace: Text::from(NSPACE),
                rank: r as u32,
            })
        })
        .collect();
    let fields = vec![
        Value::info("pmix.hname", Value::string(&format!("node{n:05}"))),
        Value::info("pmix.nodeid", Value::Uint32(n as u32)),
        Value::info("pmix.lpeers", Value::string(&peers.join(","))),
        Value::info("pmix.local.size", Value::Uint32(JOBMAP_PPN as u32)),
        Value::info("pmix.node.procs", Value::array(DataType::PROC, procs)),
    ];
    Value::Info(Box::new(Info::new(
        "pmix.node.info",
        Value::array(DataType::INFO, fields),
    )))
}
