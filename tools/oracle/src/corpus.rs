//! A deterministic corpus of pack calls covering every type a component registers, with
//! edge values (0, max, negative, NULL vs empty strings, empty and nested arrays, special ranks).
//!
//! Used by the differential suite against libpmix and by vector generation.

use pmix_codec::quirks;
use pmix_codec::*;

/// One corpus case: a named sequence of pack calls.
#[derive(Clone, Debug)]
pub struct Case {
    /// Stable, readable name (unique within a component).
    pub name: String,
    /// The pack calls.
    pub items: Vec<Item>,
}

fn t(s: &str) -> NullableText {
    Some(s.into())
}

/// Rank constants.
pub const RANK_WILDCARD: u32 = 0xffff_fffe;
/// `PMIX_RANK_UNDEF`.
pub const RANK_UNDEF: u32 = 0xffff_ffff;

fn sample_info(comp: Component) -> Vec<Info> {
    let mut v = vec![
        Info::new("pmix.alloc.nnodes", Value::Uint64(16)),
        Info {
            key: "pmix.alloc.reqid".into(),
            flags: 2,
            value: Value::string("req-1"),
        },
        Info::new("k", Value::Int(-1)),
        Info::new("flag", Value::Bool(true)),
    ];
    if comp != Component::V12 {
        v.push(Info {
            key: "pmix.undef".into(),
            flags: 1,
            value: Value::Undef,
        });
    }
    v
}

/// Edge values of `ty` (each valid for `comp` in `rel`).
// The pi-like samples are frozen in the golden vectors; they are test data, not constants.
#[allow(clippy::approx_constant)]
pub fn samples(ty: DataType, comp: Component, rel: Release) -> Vec<Value> {
    let fam = comp.family();
    let many_u8 = |f: fn(u8) -> Value| vec![f(0), f(1), f(7), f(255)];
    match ty {
        DataType::BOOL => vec![Value::Bool(false), Value::Bool(true)],
        DataType::BYTE => many_u8(Value::Byte),
        DataType::UINT8 => many_u8(Value::Uint8),
        DataType::INT8 => vec![
            Value::Int8(0),
            Value::Int8(-1),
            Value::Int8(127),
            Value::Int8(-128),
        ],
        DataType::STRING => vec![
            Value::string("hello"),
            Value::String(None),
            Value::string(""),
            Value::string("pmix.alloc.inhrt"),
            Value::string(&"x".repeat(200)),
        ],
        DataType::SIZE => vec![
            Value::Size(0),
            Value::Size(1),
            Value::Size(300),
            Value::Size(u64::MAX),
        ],
        DataType::PID => vec![Value::Pid(0), Value::Pid(4242), Value::Pid(i32::MAX)],
        DataType::INT => vec![
            Value::Int(0),
            Value::Int(-1),
            Value::Int(i32::MIN),
            Value::Int(i32::MAX),
            Value::Int(64),
        ],
        DataType::UINT => vec![
            Value::Uint(0),
            Value::Uint(1),
            Value::Uint(u32::MAX),
            Value::Uint(1 << 31),
        ],
        DataType::INT16 => vec![
            Value::Int16(0),
            Value::Int16(-300),
            Value::Int16(i16::MIN),
            Value::Int16(i16::MAX),
        ],
        DataType::INT32 => vec![
            Value::Int32(0),
            Value::Int32(-46),
            Value::Int32(i32::MIN),
            Value::Int32(i32::MAX),
        ],
        DataType::INT64 => vec![
            Value::Int64(0),
            Value::Int64(-65),
            Value::Int64(i64::MIN),
            Value::Int64(i64::MAX),
        ],
        DataType::UINT16 => vec![
            Value::Uint16(0),
            Value::Uint16(128),
            Value::Uint16(u16::MAX),
        ],
        DataType::UINT32 => vec![
            Value::Uint32(0),
            Value::Uint32(42),
            Value::Uint32(RANK_WILDCARD),
            Value::Uint32(u32::MAX),
        ],
        DataType::UINT64 => vec![
            Value::Uint64(0),
            Value::Uint64(127),
            Value::Uint64(16384),
            Value::Uint64(1 << 56),
            Value::Uint64(1 << 63),
            Value::Uint64(u64::MAX),
        ],
        DataType::FLOAT => vec![
            Value::Float(1.5),
            Value::Float(0.0),
            Value::Float(-2.25),
            Value::Float(3.141_592_7),
            Value::Float(1e10),
        ],
        DataType::DOUBLE => vec![
            Value::Double(1.5),
            Value::Double(-0.0),
            Value::Double(3.14159265358979),
            Value::Double(1e-9),
            Value::Double(0.0078125),
            Value::Double(1e300),
        ],
        DataType::TIMEVAL => vec![
            Value::Timeval(Timeval {
                sec: 1_700_000_000,
                usec: 123_456,
            }),
            Value::Timeval(Timeval { sec: 0, usec: 0 }),
            Value::Timeval(Timeval {
                sec: -1,
                usec: 999_999,
            }),
        ],
        DataType::TIME => vec![
            Value::Time(0),
            Value::Time(1_700_000_000),
            Value::Time(u64::MAX),
        ],
        DataType::STATUS => vec![
            Value::Status(0),
            Value::Status(-46),
            Value::Status(-194),
            Value::Status(i32::MIN),
        ],
        DataType::VALUE => value_samples(comp, rel)
            .into_iter()
            .map(|v| Value::Value(Box::new(v)))
            .collect(),
        DataType::PROC => vec![
            Value::proc("ns", RANK_WILDCARD),
            Value::proc("prterun-host-12345@1", 0),
            Value::proc("", RANK_UNDEF),
            Value::proc("job", 7),
        ],
        DataType::APP => vec![
            Value::App(Box::new(App {
                cmd: t("cmd"),
                argv: vec![t("a"), t("b")],
                env: vec![t("X=1")],
                cwd: t("/tmp"),
                maxprocs: 4,
                info: vec![Info::new("k", Value::Int(1))],
            })),
            Value::App(Box::new(App {
                cmd: None,
                argv: vec![],
                env: vec![],
                cwd: None,
                maxprocs: 0,
                info: vec![],
            })),
        ],
        DataType::INFO => sample_info(comp)
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect(),
        DataType::PDATA => vec![
            Value::Pdata(Box::new(Pdata {
                proc: Proc {
                    nspace: "ns".into(),
                    rank: 3,
                },
                key: "key".into(),
                value: Value::Uint32(5),
            })),
            Value::Pdata(Box::new(Pdata {
                proc: Proc {
                    nspace: "".into(),
                    rank: RANK_WILDCARD,
                },
                key: "s".into(),
                value: Value::string("v"),
            })),
        ],
        DataType::BUFFER => vec![
            Value::Buffer(Buffer {
                kind: 1,
                bytes: vec![0, 0, 0, 1].into(),
            }),
            Value::Buffer(Buffer {
                kind: 2,
                bytes: vec![].into(),
            }),
        ],
        DataType::BYTE_OBJECT => vec![
            Value::ByteObject(vec![1, 2, 3].into()),
            Value::ByteObject(vec![].into()),
            Value::ByteObject(vec![0xff; 176].into()),
        ],
        DataType::KVAL => vec![
            Value::Kval(Box::new(Kval {
                key: t("key"),
                value: Value::Uint64(9),
            })),
            Value::Kval(Box::new(Kval {
                key: t("s"),
                value: Value::string("abc"),
            })),
        ],
        DataType::MODEX => vec![
            Value::Modex(vec![1, 2, 3, 4].into()),
            Value::Modex(vec![].into()),
        ],
        DataType::PERSIST => vec![Value::Persist(0), Value::Persist(4)],
        DataType::POINTER => vec![Value::Pointer],
        DataType::SCOPE => vec![Value::Scope(0), Value::Scope(3)],
        DataType::DATA_RANGE => vec![Value::DataRange(0), Value::DataRange(6)],
        DataType::COMMAND => vec![Value::Command(0), Value::Command(17), Value::Command(9)],
        DataType::INFO_DIRECTIVES => vec![
            Value::InfoDirectives(0),
            Value::InfoDirectives(3),
            Value::InfoDirectives(0xffff_0000),
        ],
        DataType::DATA_TYPE => {
            let mut v = vec![
                Value::DataType(DataType::UINT32),
                Value::DataType(DataType::STRING),
                Value::DataType(DataType::UNDEF),
            ];
            if fam != Family::Modern {
                v.push(Value::DataType(DataType(500)));
            }
            v
        }
        DataType::PROC_STATE => vec![
            Value::ProcState(0),
            Value::ProcState(3),
            Value::ProcState(255),
        ],
        DataType::PROC_INFO => vec![Value::ProcInfo(Box::new(ProcInfo {
            proc: Proc {
                nspace: "ns".into(),
                rank: 1,
            },
            hostname: t("host"),
            executable: t("exe"),
            pid: 100,
            state: 3,
        }))],
        DataType::DATA_ARRAY => darray_samples(comp, rel),
        DataType::PROC_RANK => vec![
            Value::ProcRank(0),
            Value::ProcRank(RANK_WILDCARD),
            Value::ProcRank(RANK_UNDEF),
            Value::ProcRank(12345),
        ],
        DataType::QUERY => vec![
            Value::Query(Box::new(Query {
                keys: vec![t("k1"), t("k2")],
                qualifiers: vec![Info::new("q", Value::Uint32(1))],
            })),
            Value::Query(Box::new(Query {
                keys: vec![],
                qualifiers: vec![],
            })),
        ],
        DataType::COMPRESSED_STRING => vec![
            Value::CompressedString(vec![5, 0, 0, 0, 0x78, 0x9c].into()),
            Value::CompressedString(vec![].into()),
        ],
        DataType::ALLOC_DIRECTIVE => vec![
            Value::AllocDirective(1),
            Value::AllocDirective(5),
            Value::AllocDirective(128),
        ],
        DataType::INFO_ARRAY => vec![
            Value::InfoArray(sample_info(comp)),
            Value::InfoArray(vec![]),
        ],
        DataType::IOF_CHANNEL => vec![
            Value::IofChannel(0),
            Value::IofChannel(7),
            Value::IofChannel(u16::MAX),
        ],
        DataType::ENVAR => vec![
            Value::Envar(Box::new(Envar {
                name: t("PATH"),
                value: t("/bin"),
                separator: b':',
            })),
            Value::Envar(Box::new(Envar {
                name: None,
                value: None,
                separator: 0,
            })),
        ],
        DataType::COORD => vec![
            Value::Coord(Coord {
                view: 1,
                coord: vec![1, 2, 3],
            }),
            Value::Coord(Coord {
                view: 2,
                coord: vec![],
            }),
        ],
        DataType::REGATTR => vec![Value::Regattr(Box::new(Regattr {
            name: t("PMIX_ALLOC_ID"),
            key: "pmix.alloc.id".into(),
            ty: 3,
            description: vec![t("allocation id"), t("second")],
        }))],
        DataType::REGEX => vec![Value::Regex(b"raw:node1,node2\0".to_vec().into())],
        DataType::JOB_STATE => vec![Value::JobState(0), Value::JobState(5)],
        DataType::LINK_STATE => vec![Value::LinkState(0), Value::LinkState(2)],
        DataType::PROC_CPUSET => vec![Value::ProcCpuset(None)],
        DataType::GEOMETRY => vec![Value::Geometry(Box::new(Geometry {
            fabric: 1,
            uuid: t("uuid"),
            osname: t("os"),
            coordinates: vec![Coord {
                view: 1,
                coord: vec![1, 2],
            }],
        }))],
        DataType::DEVICE_DIST => vec![Value::DeviceDist(Box::new(DeviceDist {
            uuid: t("u"),
            osname: t("mlx5_0"),
            devtype: 0x20,
            mindist: 1,
            maxdist: 300,
        }))],
        DataType::ENDPOINT => vec![Value::Endpoint(Box::new(Endpoint {
            uuid: t("u"),
            osname: t("o"),
            endpt: vec![9, 8, 7].into(),
        }))],
        DataType::TOPO => vec![Value::Topo(None)],
        DataType::DEVTYPE => vec![
            Value::Devtype(0),
            Value::Devtype(0x20),
            Value::Devtype(u64::MAX),
        ],
        DataType::LOCTYPE => vec![Value::Loctype(0), Value::Loctype(0x1ff)],
        DataType::COMPRESSED_BYTE_OBJECT => vec![
            Value::CompressedByteObject(vec![3, 0, 0, 0, 1].into()),
            Value::CompressedByteObject(vec![].into()),
        ],
        DataType::PROC_NSPACE => vec![Value::ProcNspace("ns".into()), Value::ProcNspace("".into())],
        DataType::PROC_STATS => vec![Value::ProcStats(Box::new(ProcStats {
            node: t("n"),
            proc: Proc {
                nspace: "ns".into(),
                rank: 1,
            },
            pid: 10,
            cmd: t("c"),
            state: b'R',
            time: Timeval { sec: 1, usec: 2 },
            priority: -3,
            num_threads: 4,
            pss: 1.5,
            vsize: 2.5,
            rss: 3.5,
            processor: 1,
            sample_time: Timeval { sec: 5, usec: 6 },
        }))],
        DataType::DISK_STATS => vec![Value::DiskStats(Box::new(DiskStats {
            disk: t("sda"),
            counters: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, u64::MAX],
        }))],
        DataType::NET_STATS => vec![Value::NetStats(Box::new(NetStats {
            interface: t("eth0"),
            counters: [1, 2, 3, 4, 5, 600],
        }))],
        DataType::NODE_STATS => vec![Value::NodeStats(Box::new(NodeStats {
            node: t("n"),
            floats: [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5],
            sample_time: Timeval { sec: 7, usec: 8 },
            diskstats: vec![],
            netstats: vec![],
        }))],
        DataType::DATA_BUFFER => vec![
            Value::DataBuffer(vec![1, 2].into()),
            Value::DataBuffer(vec![].into()),
        ],
        DataType::STOR_MEDIUM => vec![Value::StorMedium(0), Value::StorMedium(8)],
        DataType::STOR_ACCESS => vec![Value::StorAccess(3)],
        DataType::STOR_PERSIST => vec![Value::StorPersist(u64::MAX)],
        DataType::STOR_ACCESS_TYPE => vec![Value::StorAccessType(2)],
        DataType::DEVICE => vec![Value::Device(Box::new(Device {
            uuid: t("u"),
            osname: t("o"),
            devtype: 4,
        }))],
        DataType::RESBLOCK_DIRECTIVE => {
            vec![Value::ResblockDirective(1), Value::ResblockDirective(128)]
        }
        DataType::RESOURCE_UNIT => vec![Value::ResourceUnit(ResourceUnit {
            devtype: 2,
            count: 4,
        })],
        DataType::NODE_PID => vec![Value::NodePid(Box::new(NodePid {
            hostname: t("n1"),
            nodeid: 5,
            pid: 77,
        }))],
        DataType::REGEX2 => vec![Value::Regex2(Box::new(Regex2 {
            kind: t("raw"),
            regex: b"a,b\0".to_vec().into(),
        }))],
        DataType::ALLOC_INHERIT => (0..=5).map(Value::AllocInherit).collect(),
        _ => vec![],
    }
}

/// Values a `pmix_value_t` of this component can carry, one or two per type.
pub fn value_samples(comp: Component, rel: Release) -> Vec<Value> {
    let mut out = vec![];
    if comp.family() != Family::Legacy12 {
        out.push(Value::Undef);
    }
    for ty in comp.registered_types(rel) {
        let allowed = match comp.family() {
            Family::Legacy12 => quirks::V12_VALUE_TYPES.contains(&ty),
            Family::Legacy20 => quirks::V20_VALUE_TYPES.contains(&ty),
            _ => !quirks::VALUE_REFUSED_TYPES.contains(&ty) && ty != DataType::DATA_BUFFER,
        };
        if !allowed || ty == DataType::VALUE {
            continue;
        }
        let s = if ty == DataType::DATA_ARRAY {
            match comp.family() {
                Family::Legacy12 => vec![Value::array(
                    DataType::INFO,
                    sample_info(comp)
                        .into_iter()
                        .map(|i| Value::Info(Box::new(i)))
                        .collect(),
                )],
                _ => vec![Value::array(
                    DataType::UINT32,
                    vec![Value::Uint32(1), Value::Uint32(2)],
                )],
            }
        } else {
            samples(ty, comp, rel)
        };
        out.extend(s.into_iter().take(2));
    }
    out
}

/// DATA_ARRAY samples: one array per registered element type, empty, typeless, nested.
pub fn darray_samples(comp: Component, rel: Release) -> Vec<Value> {
    let mut out = vec![
        Value::array(DataType::UINT32, vec![]),
        Value::array(DataType::UNDEF, vec![]),
    ];
    for ty in comp.registered_types(rel) {
        if matches!(
            ty,
            DataType::DATA_ARRAY | DataType::REGEX | DataType::POINTER
        ) {
            continue;
        }
        let s = samples(ty, comp, rel);
        if !s.is_empty() {
            out.push(Value::array(ty, s));
        }
    }
    let inner = Value::array(DataType::INT16, vec![Value::Int16(-1), Value::Int16(2)]);
    let mid = Value::array(
        DataType::DATA_ARRAY,
        vec![
            inner.clone(),
            Value::array(DataType::STRING, vec![Value::string("x")]),
        ],
    );
    out.push(Value::array(DataType::DATA_ARRAY, vec![mid]));
    out
}

/// Types whose multi-value pack calls are garbage in this component (quirk U2): compare count 1 only.
pub fn single_value_only(ty: DataType, comp: Component) -> bool {
    match comp.family() {
        Family::Legacy12 => matches!(
            ty,
            DataType::COMMAND
                | DataType::SCOPE
                | DataType::DATA_RANGE
                | DataType::PERSIST
                | DataType::PROC_RANK
        ),
        Family::Legacy20 => ty == DataType::COMMAND,
        _ => false,
    }
}

/// Every case for a component in a release: each sample alone, all samples in one call,
/// an empty call, and a few multi-call sequences.
pub fn cases(comp: Component, rel: Release) -> Vec<Case> {
    let mut out = Vec::new();
    for ty in comp.registered_types(rel) {
        let s = samples(ty, comp, rel);
        for (i, v) in s.iter().enumerate() {
            out.push(Case {
                name: format!("{ty}.{i}"),
                items: vec![Item::new(ty, vec![v.clone()])],
            });
        }
        if s.len() > 1 && !single_value_only(ty, comp) {
            out.push(Case {
                name: format!("{ty}.all"),
                items: vec![Item::new(ty, s.clone())],
            });
        }
        if ty != DataType::POINTER {
            out.push(Case {
                name: format!("{ty}.empty"),
                items: vec![Item::new(ty, vec![]), Item::one(Value::Uint8(1))],
            });
        }
    }
    // A request-like sequence: COMMAND, directive, SIZE, INFO array.
    let mut alloc = vec![Item::one(Value::Command(17))];
    if comp.registers(DataType::ALLOC_DIRECTIVE, rel) {
        alloc.push(Item::one(Value::AllocDirective(1)));
    }
    let infos = sample_info(comp);
    alloc.push(Item::one(Value::Size(infos.len() as u64)));
    alloc.push(Item::new(
        DataType::INFO,
        infos
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect(),
    ));
    out.push(Case {
        name: "sequence.alloc-request".into(),
        items: alloc,
    });
    out
}
