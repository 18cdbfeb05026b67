//! The typed data model: one Rust value per PMIx data type.
//!
//! Strings, keys and byte payloads are [`Bytes`]: a value decoded from a `Bytes` input
//! shares the input's memory (no copy, no allocation per string). The common variants of
//! [`Value`] (integers, strings, PROC, INFO) are at most 40 bytes; the rare large ones are
//! boxed, so `size_of::<Value>()` is 48.

use crate::types::DataType;
use bytes::Bytes;
use std::fmt;

/// A C string's bytes, without the terminating NUL (and so without interior NULs once decoded).
///
/// PMIx strings are byte strings; they are usually ASCII, but nothing on the wire says so.
///
/// Short texts (up to [`Text::INLINE`] bytes: most keys and namespaces) are stored inline;
/// longer ones are [`Bytes`]. Decoded from a [`Bytes`] input, a long text is a slice of
/// that input (no copy, no allocation). A short one is copied into the `Text` itself: that
/// costs less than sharing (a shared slice takes an atomic reference-count update when it
/// is made and another when it is dropped, about 12 ns, more than the whole decode of a
/// PROC should take), allocates nothing either, and does not keep a large input alive.
/// Equality, ordering and hashing are by the bytes, whichever way they are stored.
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Inline(Inline),
    Shared(Bytes),
}

/// An inline text: 24 bytes, 8-aligned, the length last, so that it is built and moved as
/// whole words (a text assembled from narrower stores and then moved as wider ones stalls
/// the CPU's store forwarding, which cost more than the rest of a PROC's decode).
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct Inline {
    buf: [u8; Text::INLINE],
    len: u8,
}

impl Text {
    /// The longest text stored inline.
    pub const INLINE: usize = 23;

    /// The bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline(i) => &i.buf[..i.len as usize],
            Repr::Shared(b) => b,
        }
    }
    /// The text if it is UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(self.as_bytes()).ok()
    }
    /// A copy of `b`.
    #[inline]
    pub fn copy_from(b: &[u8]) -> Self {
        if b.len() <= Self::INLINE {
            let mut buf = [0u8; Self::INLINE];
            buf[..b.len()].copy_from_slice(b);
            Text(Repr::Inline(Inline {
                buf,
                len: b.len() as u8,
            }))
        } else {
            Text(Repr::Shared(Bytes::copy_from_slice(b)))
        }
    }
    /// The first `len` bytes of `chunk` (`len <= INLINE`), copied with one fixed-size
    /// copy: faster than a copy of exactly `len` bytes. The bytes after `len` are kept but
    /// never read (the last byte of `chunk` is not used).
    #[inline(always)]
    pub(crate) fn inline_prefix(chunk: &[u8; Self::INLINE + 1], len: usize) -> Self {
        debug_assert!(len <= Self::INLINE);
        // Built as three words in registers, the length or-ed into the last one: a byte
        // store of the length followed by word loads of the same memory stalls the CPU's
        // store forwarding (measured: a quarter of an INFO's decode).
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&chunk[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        let last = (word(2) & !(0xff << 56)) | ((len as u64) << 56);
        let words = [word(0), word(1), last].map(|w| u64::from_ne_bytes(w.to_le_bytes()));
        // SAFETY: `Inline` is `repr(C, align(8))`: 23 bytes of `buf` then `len`, 24 bytes
        // with no padding, and every bit pattern is valid for both fields; the words are
        // laid out in memory as the little-endian bytes of the chunk with its last byte
        // replaced by `len`.
        Text(Repr::Inline(unsafe {
            std::mem::transmute::<[u64; 3], Inline>(words)
        }))
    }
    /// The inline storage (the bytes, padding, and the length last) when the text is
    /// stored inline: the encoder copies it as one fixed-size block.
    #[inline(always)]
    pub(crate) fn inline_block(&self) -> Option<&[u8; Self::INLINE + 1]> {
        match &self.0 {
            // SAFETY: `Inline` is `repr(C)`, 24 bytes of plain bytes with no padding.
            Repr::Inline(i) => Some(unsafe { &*(i as *const Inline).cast::<[u8; 24]>() }),
            Repr::Shared(_) => None,
        }
    }
    /// `b` itself if it is longer than [`Text::INLINE`], else an inline copy of it.
    #[inline]
    pub fn from_shared(b: Bytes) -> Self {
        if b.len() <= Self::INLINE {
            Text::copy_from(&b)
        } else {
            Text(Repr::Shared(b))
        }
    }
    /// The bytes as [`Bytes`]: the shared slice itself for a long text, a copy for a short one.
    pub fn to_bytes(&self) -> Bytes {
        match &self.0 {
            Repr::Inline(_) => Bytes::copy_from_slice(self.as_bytes()),
            Repr::Shared(b) => b.clone(),
        }
    }
    /// Whether the text is a shared [`Bytes`] (a long text), not an inline copy.
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Repr::Shared(_))
    }
    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }
    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::copy_from(b"")
    }
}
impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}
impl Eq for Text {}
impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Text {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}
impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state)
    }
}

impl std::ops::Deref for Text {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text::copy_from(s.as_bytes())
    }
}
impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::from(s.into_bytes())
    }
}
impl From<Vec<u8>> for Text {
    fn from(b: Vec<u8>) -> Self {
        if b.len() <= Text::INLINE {
            Text::copy_from(&b)
        } else {
            Text(Repr::Shared(Bytes::from(b)))
        }
    }
}
impl From<&[u8]> for Text {
    fn from(b: &[u8]) -> Self {
        Text::copy_from(b)
    }
}
impl From<Bytes> for Text {
    fn from(b: Bytes) -> Self {
        Text::from_shared(b)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.as_bytes()))
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(self.as_bytes()))
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
    pub bytes: Bytes,
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
    pub endpt: Bytes,
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
    pub regex: Bytes,
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
    ByteObject(Bytes),
    Kval(Box<Kval>),
    /// Deprecated (v12 ... v3): only the blob is packed.
    Modex(Bytes),
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
    CompressedString(Bytes),
    AllocDirective(u8),
    /// Deprecated `pmix_info_array_t` (v12 ... v3).
    InfoArray(Vec<Info>),
    IofChannel(u16),
    Envar(Box<Envar>),
    Coord(Coord),
    Regattr(Box<Regattr>),
    /// The preg-framed bytes as they go on the wire (e.g. `raw:a,b\0`).
    Regex(Bytes),
    JobState(u8),
    LinkState(u8),
    ProcCpuset(NullableText),
    Geometry(Box<Geometry>),
    DeviceDist(Box<DeviceDist>),
    Endpoint(Box<Endpoint>),
    /// hwloc XML, carried opaquely; NULL = no topology.
    Topo(NullableText),
    Devtype(u64),
    Loctype(u16),
    CompressedByteObject(Bytes),
    ProcNspace(Text),
    ProcStats(Box<ProcStats>),
    DiskStats(Box<DiskStats>),
    NetStats(Box<NetStats>),
    NodeStats(Box<NodeStats>),
    DataBuffer(Bytes),
    StorMedium(u64),
    StorAccess(u64),
    StorPersist(u64),
    StorAccessType(u16),
    Device(Box<Device>),
    ResblockDirective(u8),
    ResourceUnit(ResourceUnit),
    NodePid(Box<NodePid>),
    Regex2(Box<Regex2>),
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
    /// The payloads of a BYTE_OBJECT call whose values are all byte objects (what
    /// [`crate::Packer::pack_byte_objects`] takes); `None` for any other call.
    pub fn byte_object_payloads(&self) -> Option<Vec<&[u8]>> {
        if self.ty != DataType::BYTE_OBJECT {
            return None;
        }
        self.values
            .iter()
            .map(|v| match v {
                Value::ByteObject(b) => Some(&b[..]),
                _ => None,
            })
            .collect()
    }
}
