//! The typed data model: one Rust value per PMIx data type.

use crate::types::DataType;
use std::fmt;

/// A C string's bytes, without the terminating NUL (and so without interior NULs once decoded).
///
/// PMIx strings are byte strings; they are usually ASCII, but nothing on the wire says so.
#[derive(Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Text(pub Vec<u8>);

impl Text {
    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
    /// The text if it is UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(s.as_bytes().to_vec())
    }
}
impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(s.into_bytes())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
    }
}

/// A nullable C string (`char *`): `None` is NULL, `Some("")` is the empty string.
pub type NullableText = Option<Text>;

/// `struct timeval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Timeval {
    /// `tv_sec`.
    pub sec: i64,
    /// `tv_usec`.
    pub usec: i64,
}

/// `pmix_proc_t`: a namespace (at most 255 bytes) and a rank.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Proc {
    /// `nspace`.
    pub nspace: Text,
    /// `rank` (`PMIX_RANK_WILDCARD` = 0xfffffffe, `PMIX_RANK_UNDEF` = 0xffffffff).
    pub rank: u32,
}

/// `pmix_info_t`: key, directive flags and a value.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// `key` (at most 511 bytes).
    pub key: Text,
    /// `flags` (`PMIX_INFO_REQD` 0x1, `PMIX_INFO_ARRAY_END` 0x2, ...). Not sent by v12.
    pub flags: u32,
    /// `value`.
    pub value: Value,
}

impl Info {
    /// An info with no flags.
    pub fn new(key: &str, value: Value) -> Self {
        Info {
            key: key.into(),
            flags: 0,
            value,
        }
    }
}

/// `pmix_pdata_t`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pdata {
    /// `proc`.
    pub proc: Proc,
    /// `key`.
    pub key: Text,
    /// `value`.
    pub value: Value,
}

/// `pmix_kval_t`.
#[derive(Clone, Debug, PartialEq)]
pub struct Kval {
    /// `key`.
    pub key: NullableText,
    /// `value` (a NULL value pointer is sent as UNDEF by master).
    pub value: Value,
}

/// `pmix_app_t`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct App {
    /// `cmd`.
    pub cmd: NullableText,
    /// `argv` (argc is its length).
    pub argv: Vec<NullableText>,
    /// `env`.
    pub env: Vec<NullableText>,
    /// `cwd` (not sent by v12).
    pub cwd: NullableText,
    /// `maxprocs`.
    pub maxprocs: i32,
    /// `info`.
    pub info: Vec<Info>,
}

/// `pmix_buffer_t` carried as a value (BUFFER, 26).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Buffer {
    /// The buffer-type byte (not sent by v12/v20).
    pub kind: u8,
    /// The bytes used.
    pub bytes: Vec<u8>,
}

/// `pmix_proc_info_t` (`exit_code` is not transmitted).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ProcInfo {
    /// `proc`.
    pub proc: Proc,
    /// `hostname`.
    pub hostname: NullableText,
    /// `executable_name`.
    pub executable: NullableText,
    /// `pid`.
    pub pid: i32,
    /// `state`.
    pub state: u8,
}

/// `pmix_data_array_t`: an element type and the elements, each of that type.
#[derive(Clone, Debug, PartialEq)]
pub struct DataArray {
    /// The element type (`UNDEF` for the typeless "no array" marker).
    pub ty: DataType,
    /// The elements; each has `data_type() == ty`.
    pub values: Vec<Value>,
}

/// `pmix_query_t`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Query {
    /// `keys`.
    pub keys: Vec<NullableText>,
    /// `qualifiers`.
    pub qualifiers: Vec<Info>,
}

/// `pmix_envar_t`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Envar {
    /// `envar`.
    pub name: NullableText,
    /// `value`.
    pub value: NullableText,
    /// `separator`.
    pub separator: u8,
}

/// `pmix_coord_t`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Coord {
    /// `view`.
    pub view: u8,
    /// `coord` (dims is its length).
    pub coord: Vec<u32>,
}

/// `pmix_regattr_t`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Regattr {
    /// `name`.
    pub name: NullableText,
    /// `string` (the attribute key).
    pub key: Text,
    /// `type`.
    pub ty: u16,
    /// `description`.
    pub description: Vec<NullableText>,
}

/// `pmix_geometry_t`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Geometry {
    /// `fabric`.
    pub fabric: u64,
    /// `uuid`.
    pub uuid: NullableText,
    /// `osname`.
    pub osname: NullableText,
    /// `coordinates`.
    pub coordinates: Vec<Coord>,
}

/// `pmix_device_distance_t`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DeviceDist {
    /// `uuid`.
    pub uuid: NullableText,
    /// `osname`.
    pub osname: NullableText,
    /// `type` (a DEVTYPE bit mask).
    pub devtype: u64,
    /// `mindist`.
    pub mindist: u16,
    /// `maxdist`.
    pub maxdist: u16,
}

/// `pmix_endpoint_t`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Endpoint {
    /// `uuid`.
    pub uuid: NullableText,
    /// `osname`.
    pub osname: NullableText,
    /// `endpt` bytes.
    pub endpt: Vec<u8>,
}

/// `pmix_device_t` (v51+).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Device {
    /// `uuid`.
    pub uuid: NullableText,
    /// `osname`.
    pub osname: NullableText,
    /// `type`.
    pub devtype: u64,
}

/// `pmix_resource_unit_t` (v51+).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ResourceUnit {
    /// `type`.
    pub devtype: u64,
    /// `count`.
    pub count: u64,
}

/// `pmix_node_pid_t` (v61).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NodePid {
    /// `hostname`.
    pub hostname: NullableText,
    /// `nodeid`.
    pub nodeid: u32,
    /// `pid`.
    pub pid: i32,
}

/// `pmix_regex_t` (REGEX2, v61 master): a type name and opaque bytes.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Regex2 {
    /// `type`.
    pub kind: NullableText,
    /// `regex` bytes.
    pub regex: Vec<u8>,
}

/// `pmix_disk_stats_t` (4.2.x v41 only).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DiskStats {
    /// `disk`.
    pub disk: NullableText,
    /// The eleven UINT64 counters in struct order.
    pub counters: [u64; 11],
}

/// `pmix_net_stats_t` (4.2.x v41 only).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NetStats {
    /// `net_interface`.
    pub interface: NullableText,
    /// The six UINT64 counters in struct order.
    pub counters: [u64; 6],
}

/// `pmix_proc_stats_t` (4.2.x v41 only; `percent_cpu`/`peak_vsize` are not packed).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ProcStats {
    /// `node`.
    pub node: NullableText,
    /// `proc`.
    pub proc: Proc,
    /// `pid`.
    pub pid: i32,
    /// `cmd`.
    pub cmd: NullableText,
    /// `state`.
    pub state: u8,
    /// `time`.
    pub time: Timeval,
    /// `priority`.
    pub priority: i32,
    /// `num_threads`.
    pub num_threads: i16,
    /// `pss`.
    pub pss: f32,
    /// `vsize`.
    pub vsize: f32,
    /// `rss`.
    pub rss: f32,
    /// `processor`.
    pub processor: i16,
    /// `sample_time`.
    pub sample_time: Timeval,
}

/// `pmix_node_stats_t` (4.2.x v41 only).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct NodeStats {
    /// `node`.
    pub node: NullableText,
    /// la, la5, la15, total_mem, free_mem, buffers, cached, swap_cached, swap_total, swap_free, mapped.
    pub floats: [f32; 11],
    /// `sample_time`.
    pub sample_time: Timeval,
    /// `diskstats`.
    pub diskstats: Vec<DiskStats>,
    /// `netstats`.
    pub netstats: Vec<NetStats>,
}

/// One value of a PMIx data type; also `pmix_value_t` (its type is [`Value::data_type`]).
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)] // each variant is the PMIx type of the same name
pub enum Value {
    /// `PMIX_UNDEF`: only as a VALUE/INFO value (empty payload).
    Undef,
    Bool(bool),
    Byte(u8),
    String(NullableText),
    Size(u64),
    Pid(i32),
    Int(i32),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Uint(u32),
    Uint8(u8),
    Uint16(u16),
    Uint32(u32),
    Uint64(u64),
    /// Sent as `"%f"` text.
    Float(f32),
    /// Sent as `"%f"` text.
    Double(f64),
    Timeval(Timeval),
    Time(u64),
    Status(i32),
    /// A `pmix_value_t` as an element of a VALUE pack call or a DATA_ARRAY of VALUE.
    Value(Box<Value>),
    Proc(Proc),
    App(Box<App>),
    Info(Box<Info>),
    Pdata(Box<Pdata>),
    Buffer(Buffer),
    ByteObject(Vec<u8>),
    Kval(Box<Kval>),
    /// Deprecated (v12 ... v3): only the blob is packed.
    Modex(Vec<u8>),
    Persist(u8),
    /// Only a sentinel crosses the wire.
    Pointer,
    Scope(u8),
    DataRange(u8),
    Command(u8),
    InfoDirectives(u32),
    DataType(DataType),
    ProcState(u8),
    ProcInfo(Box<ProcInfo>),
    DataArray(Box<DataArray>),
    ProcRank(u32),
    Query(Box<Query>),
    /// The compressed blob, opaque.
    CompressedString(Vec<u8>),
    AllocDirective(u8),
    /// Deprecated `pmix_info_array_t` (v12 ... v3).
    InfoArray(Vec<Info>),
    IofChannel(u16),
    Envar(Envar),
    Coord(Coord),
    Regattr(Box<Regattr>),
    /// The preg-framed bytes as they go on the wire (e.g. `raw:a,b\0`).
    Regex(Vec<u8>),
    JobState(u8),
    LinkState(u8),
    ProcCpuset(NullableText),
    Geometry(Box<Geometry>),
    DeviceDist(DeviceDist),
    Endpoint(Endpoint),
    /// hwloc XML, carried opaquely; NULL = no topology.
    Topo(NullableText),
    Devtype(u64),
    Loctype(u16),
    CompressedByteObject(Vec<u8>),
    ProcNspace(Text),
    ProcStats(Box<ProcStats>),
    DiskStats(DiskStats),
    NetStats(NetStats),
    NodeStats(Box<NodeStats>),
    DataBuffer(Vec<u8>),
    StorMedium(u64),
    StorAccess(u64),
    StorPersist(u64),
    StorAccessType(u16),
    Device(Device),
    ResblockDirective(u8),
    ResourceUnit(ResourceUnit),
    NodePid(NodePid),
    Regex2(Regex2),
    /// `pmix_alloc_inheritance_t` (75): see [`crate::attrs::AllocInherit`].
    AllocInherit(u8),
}

impl Value {
    /// The PMIx data type of this value.
    pub fn data_type(&self) -> DataType {
        use crate::types::DataType as T;
        use Value as V;
        match self {
            V::Undef => T::UNDEF,
            V::Bool(_) => T::BOOL,
            V::Byte(_) => T::BYTE,
            V::String(_) => T::STRING,
            V::Size(_) => T::SIZE,
            V::Pid(_) => T::PID,
            V::Int(_) => T::INT,
            V::Int8(_) => T::INT8,
            V::Int16(_) => T::INT16,
            V::Int32(_) => T::INT32,
            V::Int64(_) => T::INT64,
            V::Uint(_) => T::UINT,
            V::Uint8(_) => T::UINT8,
            V::Uint16(_) => T::UINT16,
            V::Uint32(_) => T::UINT32,
            V::Uint64(_) => T::UINT64,
            V::Float(_) => T::FLOAT,
            V::Double(_) => T::DOUBLE,
            V::Timeval(_) => T::TIMEVAL,
            V::Time(_) => T::TIME,
            V::Status(_) => T::STATUS,
            V::Value(_) => T::VALUE,
            V::Proc(_) => T::PROC,
            V::App(_) => T::APP,
            V::Info(_) => T::INFO,
            V::Pdata(_) => T::PDATA,
            V::Buffer(_) => T::BUFFER,
            V::ByteObject(_) => T::BYTE_OBJECT,
            V::Kval(_) => T::KVAL,
            V::Modex(_) => T::MODEX,
            V::Persist(_) => T::PERSIST,
            V::Pointer => T::POINTER,
            V::Scope(_) => T::SCOPE,
            V::DataRange(_) => T::DATA_RANGE,
            V::Command(_) => T::COMMAND,
            V::InfoDirectives(_) => T::INFO_DIRECTIVES,
            V::DataType(_) => T::DATA_TYPE,
            V::ProcState(_) => T::PROC_STATE,
            V::ProcInfo(_) => T::PROC_INFO,
            V::DataArray(_) => T::DATA_ARRAY,
            V::ProcRank(_) => T::PROC_RANK,
            V::Query(_) => T::QUERY,
            V::CompressedString(_) => T::COMPRESSED_STRING,
            V::AllocDirective(_) => T::ALLOC_DIRECTIVE,
            V::InfoArray(_) => T::INFO_ARRAY,
            V::IofChannel(_) => T::IOF_CHANNEL,
            V::Envar(_) => T::ENVAR,
            V::Coord(_) => T::COORD,
            V::Regattr(_) => T::REGATTR,
            V::Regex(_) => T::REGEX,
            V::JobState(_) => T::JOB_STATE,
            V::LinkState(_) => T::LINK_STATE,
            V::ProcCpuset(_) => T::PROC_CPUSET,
            V::Geometry(_) => T::GEOMETRY,
            V::DeviceDist(_) => T::DEVICE_DIST,
            V::Endpoint(_) => T::ENDPOINT,
            V::Topo(_) => T::TOPO,
            V::Devtype(_) => T::DEVTYPE,
            V::Loctype(_) => T::LOCTYPE,
            V::CompressedByteObject(_) => T::COMPRESSED_BYTE_OBJECT,
            V::ProcNspace(_) => T::PROC_NSPACE,
            V::ProcStats(_) => T::PROC_STATS,
            V::DiskStats(_) => T::DISK_STATS,
            V::NetStats(_) => T::NET_STATS,
            V::NodeStats(_) => T::NODE_STATS,
            V::DataBuffer(_) => T::DATA_BUFFER,
            V::StorMedium(_) => T::STOR_MEDIUM,
            V::StorAccess(_) => T::STOR_ACCESS,
            V::StorPersist(_) => T::STOR_PERSIST,
            V::StorAccessType(_) => T::STOR_ACCESS_TYPE,
            V::Device(_) => T::DEVICE,
            V::ResblockDirective(_) => T::RESBLOCK_DIRECTIVE,
            V::ResourceUnit(_) => T::RESOURCE_UNIT,
            V::NodePid(_) => T::NODE_PID,
            V::Regex2(_) => T::REGEX2,
            V::AllocInherit(_) => T::ALLOC_INHERIT,
        }
    }

    /// A STRING value.
    pub fn string(s: &str) -> Value {
        Value::String(Some(s.into()))
    }

    /// A PROC value.
    pub fn proc(nspace: &str, rank: u32) -> Value {
        Value::Proc(Proc {
            nspace: nspace.into(),
            rank,
        })
    }

    /// An INFO value with no flags.
    pub fn info(key: &str, value: Value) -> Value {
        Value::Info(Box::new(Info::new(key, value)))
    }

    /// A DATA_ARRAY value.
    pub fn array(ty: DataType, values: Vec<Value>) -> Value {
        Value::DataArray(Box::new(DataArray { ty, values }))
    }
}

/// One pack call: a data type and the values packed with it (`PMIx_Data_pack(buf, values, n, ty)`).
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The type passed to pack.
    pub ty: DataType,
    /// The values; each has `data_type() == ty`.
    pub values: Vec<Value>,
}

impl Item {
    /// A pack call of `values`, all of type `ty`.
    pub fn new(ty: DataType, values: Vec<Value>) -> Self {
        Item { ty, values }
    }
    /// A pack call of one value.
    pub fn one(value: Value) -> Self {
        Item {
            ty: value.data_type(),
            values: vec![value],
        }
    }
}
