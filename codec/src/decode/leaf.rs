//! The types that do not nest, one value each.

use super::{err, Dec};
use crate::component::Family;
use crate::error::Result;
use crate::float::{parse_strtod, parse_strtof};
use crate::observe::{Observer, Seg};
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;

impl<'a, O: Observer> Dec<'a, O> {
    /// Types that do not nest.
    #[inline(never)]
    pub(super) fn leaf(&mut self, ty: DataType) -> Result<Value> {
        let fam = self.fam;
        let at = self.at();
        Ok(match ty {
            DataType::BOOL => Value::Bool(self.u8()? != 0),
            DataType::BYTE => Value::Byte(self.u8()?),
            DataType::UINT8 => Value::Uint8(self.u8()?),
            DataType::INT8 => Value::Int8(self.u8()? as i8),
            DataType::STRING => Value::String(self.string()?),
            DataType::SIZE => Value::Size(self.size()?),
            DataType::PID => Value::Pid(self.pid()?),
            DataType::INT => Value::Int(self.int()?),
            DataType::UINT => Value::Uint(self.int()? as u32),
            DataType::INT16 => Value::Int16(self.i16()?),
            DataType::INT32 => Value::Int32(self.i32()?),
            DataType::INT64 => Value::Int64(self.i64()?),
            DataType::UINT16 => Value::Uint16(self.u16()?),
            DataType::UINT32 => Value::Uint32(self.u32()?),
            DataType::UINT64 => Value::Uint64(self.u64()?),
            DataType::FLOAT => Value::Float(
                self.float_text()?
                    .map(|t| parse_strtof(&t[..]))
                    .unwrap_or(0.0),
            ),
            DataType::DOUBLE => Value::Double(
                self.float_text()?
                    .map(|t| parse_strtod(&t[..]))
                    .unwrap_or(0.0),
            ),
            DataType::TIMEVAL => Value::Timeval(self.timeval()?),
            DataType::TIME => Value::Time(self.u64()?),
            DataType::STATUS => Value::Status(if fam == Family::Legacy12 {
                self.int()?
            } else {
                self.i32()?
            }),
            DataType::PROC => Value::Proc(self.proc()?),
            DataType::BUFFER => {
                let kind = if self.legacy() { 0 } else { self.u8()? };
                Value::Buffer(Buffer {
                    kind,
                    bytes: self.named("bytes").sized_bytes()?,
                })
            }
            DataType::BYTE_OBJECT => Value::ByteObject(self.sized_bytes()?),
            DataType::COMPRESSED_STRING => Value::CompressedString(self.sized_bytes()?),
            DataType::COMPRESSED_BYTE_OBJECT => Value::CompressedByteObject(self.sized_bytes()?),
            DataType::DATA_BUFFER => Value::DataBuffer(self.sized_bytes()?),
            DataType::MODEX => {
                let n = self.named("size").modex_size(DataType::MODEX)?;
                let n = self.count_check(n, at, "MODEX")?;
                let b = self.named("blob").take(n)?;
                Value::Modex(self.share(b))
            }
            DataType::PERSIST | DataType::SCOPE | DataType::DATA_RANGE => {
                let x = if fam == Family::Legacy12 {
                    self.int()? as u8
                } else {
                    self.u8()?
                };
                match ty {
                    DataType::PERSIST => Value::Persist(x),
                    DataType::SCOPE => Value::Scope(x),
                    _ => Value::DataRange(x),
                }
            }
            DataType::COMMAND => Value::Command(match fam {
                Family::Legacy12 | Family::Legacy20 => self.i32()? as u8,
                _ => self.u8()?,
            }),
            DataType::INFO_DIRECTIVES => Value::InfoDirectives(self.u32()?),
            DataType::DATA_TYPE => Value::DataType(DataType(match fam {
                Family::Legacy12 => self.be32()? as u16,
                Family::Modern if !self.datatype_as_written() => self.i16()? as u16,
                _ => self.u16()?,
            })),
            DataType::PROC_STATE => Value::ProcState(self.u8()?),
            DataType::PROC_INFO => {
                let proc = self.within("proc", Self::proc)?;
                let hostname = self.named("hostname").string()?;
                let executable = self.named("executable").string()?;
                let pid = self.named("pid").pid()?;
                let state = self.named("state").u8()?;
                Value::ProcInfo(Box::new(ProcInfo {
                    proc,
                    hostname,
                    executable,
                    pid,
                    state,
                }))
            }
            DataType::PROC_RANK => Value::ProcRank(self.proc_rank()?),
            DataType::ALLOC_DIRECTIVE => Value::AllocDirective(self.u8()?),
            DataType::IOF_CHANNEL => Value::IofChannel(self.u16()?),
            DataType::ENVAR => Value::Envar(Box::new(Envar {
                name: self.named("name").string()?,
                value: self.named("value").string()?,
                separator: self.named("separator").u8()?,
            })),
            DataType::COORD => Value::Coord(self.coord()?),
            DataType::REGATTR => {
                let name = self.named("name").string()?;
                let key = self.required_string("key", 511)?;
                self.name(Seg::Name("type"));
                let t = if self.datatype_as_written() {
                    self.u16()?
                } else {
                    self.i16()? as u16
                };
                let nat = self.at();
                let nd = self.named("ndescriptions").i32()?;
                let nd = if nd > 0 {
                    self.count_check(nd as u64, nat, "REGATTR descriptions")?
                } else {
                    0
                };
                self.enter(Seg::Name("description"));
                let description = self.texts(nd)?;
                self.leave();
                Value::Regattr(Box::new(Regattr {
                    name,
                    key,
                    ty: t,
                    description,
                }))
            }
            DataType::REGEX => Value::Regex(self.regex()?),
            DataType::JOB_STATE => Value::JobState(self.u8()?),
            DataType::LINK_STATE => Value::LinkState(self.u8()?),
            DataType::PROC_CPUSET => Value::ProcCpuset(self.string()?),
            DataType::GEOMETRY => {
                let fabric = self.named("fabric").size()?;
                let uuid = self.named("uuid").string()?;
                let osname = self.named("osname").string()?;
                let cat = self.at();
                let n = self.named("ncoords").size()?;
                let n = self.count_check(n, cat, "GEOMETRY coordinates")?;
                let mut coordinates = self.with_room(n);
                self.enter(Seg::Name("coordinates"));
                for i in 0..n {
                    self.enter(Seg::Index(i));
                    self.room(&mut coordinates)?;
                    let c = self.coord()?;
                    self.put(&mut coordinates, c);
                    self.leave();
                }
                self.leave();
                Value::Geometry(Box::new(Geometry {
                    fabric,
                    uuid,
                    osname,
                    coordinates,
                }))
            }
            DataType::DEVICE_DIST => Value::DeviceDist(Box::new(DeviceDist {
                uuid: self.named("uuid").string()?,
                osname: self.named("osname").string()?,
                devtype: self.named("devtype").u64()?,
                mindist: self.named("mindist").u16()?,
                maxdist: self.named("maxdist").u16()?,
            })),
            DataType::ENDPOINT => Value::Endpoint(Box::new(Endpoint {
                uuid: self.named("uuid").string()?,
                osname: self.named("osname").string()?,
                endpt: self.named("endpt").sized_bytes()?,
            })),
            DataType::TOPO => Value::Topo(self.string()?),
            DataType::DEVTYPE => Value::Devtype(self.u64()?),
            DataType::LOCTYPE => Value::Loctype(self.u16()?),
            // PMIX_LOAD_NSPACE zeroes the array and copies nothing for NULL (quirk U15).
            DataType::PROC_NSPACE => Value::ProcNspace(match self.string_slice()? {
                Some(b) => self.text(&b[..b.len().min(255)]),
                None => Text::default(),
            }),
            DataType::PROC_STATS => {
                let node = self.named("node").string()?;
                let proc = self.within("proc", Self::proc)?;
                let pid = self.named("pid").pid()?;
                let cmd = self.named("cmd").string()?;
                let state = self.named("state").u8()?;
                let time = self.within("time", Self::timeval)?;
                let priority = self.named("priority").i32()?;
                let num_threads = self.named("num_threads").i16()?;
                let pss = self.named("pss").f32_text()?;
                let vsize = self.named("vsize").f32_text()?;
                let rss = self.named("rss").f32_text()?;
                if self.rel.profile().proc_stats_reads_peak_vsize && self.as_read() {
                    // 4.2.x reads a peak_vsize its packer never wrote (quirk U10).
                    self.name(Seg::Name("peak_vsize (read, never written: quirk U10)"));
                    self.f32_text()?;
                }
                let processor = self.named("processor").i16()?;
                let sample_time = self.within("sample_time", Self::timeval)?;
                Value::ProcStats(Box::new(ProcStats {
                    node,
                    proc,
                    pid,
                    cmd,
                    state,
                    time,
                    priority,
                    num_threads,
                    pss,
                    vsize,
                    rss,
                    processor,
                    sample_time,
                }))
            }
            DataType::DISK_STATS => Value::DiskStats(Box::new(self.disk_stats()?)),
            DataType::NET_STATS => Value::NetStats(Box::new(self.net_stats()?)),
            DataType::NODE_STATS => {
                let node = self.named("node").string()?;
                let mut floats = [0f32; 11];
                for (i, f) in floats.iter_mut().enumerate() {
                    self.name(Seg::Name(NODE_FLOATS[i]));
                    *f = self.f32_text()?;
                }
                let sample_time = self.within("sample_time", Self::timeval)?;
                let dat = self.at();
                let nd = self.named("ndiskstats").size()?;
                let nd = self.count_check(nd, dat, "NODE_STATS disks")?;
                let mut diskstats = self.with_room(nd);
                for i in 0..nd {
                    self.enter(Seg::Index(i));
                    self.room(&mut diskstats)?;
                    let d = self.within("diskstats", Self::disk_stats)?;
                    self.put(&mut diskstats, d);
                    self.leave();
                }
                let nat = self.at();
                let nn = self.named("nnetstats").size()?;
                let nn = self.count_check(nn, nat, "NODE_STATS nets")?;
                let mut netstats = self.with_room(nn);
                for i in 0..nn {
                    self.enter(Seg::Index(i));
                    self.room(&mut netstats)?;
                    let n = self.within("netstats", Self::net_stats)?;
                    self.put(&mut netstats, n);
                    self.leave();
                }
                Value::NodeStats(Box::new(NodeStats {
                    node,
                    floats,
                    sample_time,
                    diskstats,
                    netstats,
                }))
            }
            DataType::STOR_MEDIUM => Value::StorMedium(self.u64()?),
            DataType::STOR_ACCESS => Value::StorAccess(self.u64()?),
            DataType::STOR_PERSIST => Value::StorPersist(self.u64()?),
            DataType::STOR_ACCESS_TYPE => Value::StorAccessType(self.u16()?),
            DataType::DEVICE => Value::Device(Box::new(Device {
                uuid: self.named("uuid").string()?,
                osname: self.named("osname").string()?,
                devtype: self.named("devtype").u64()?,
            })),
            DataType::RESBLOCK_DIRECTIVE => Value::ResblockDirective(self.u8()?),
            DataType::RESOURCE_UNIT => Value::ResourceUnit(ResourceUnit {
                devtype: self.named("devtype").u64()?,
                count: self.named("count").size()?,
            }),
            DataType::NODE_PID => Value::NodePid(Box::new(NodePid {
                hostname: self.named("hostname").string()?,
                nodeid: self.named("nodeid").u32()?,
                pid: self.named("pid").pid()?,
            })),
            DataType::REGEX2 => Value::Regex2(Box::new(Regex2 {
                kind: self.named("kind").string()?,
                regex: self.named("regex").sized_bytes()?,
            })),
            DataType::ALLOC_INHERIT => Value::AllocInherit(self.u8()?),
            DataType::POINTER => {
                self.u8()?;
                Value::Pointer
            }
            other => {
                return Err(err(
                    Status::ERR_UNKNOWN_DATA_TYPE,
                    at,
                    format!("no unpacker for {other}"),
                ))
            }
        })
    }

    pub(super) fn modex_size(&mut self, ty: DataType) -> Result<u64> {
        if self.rel.profile().size_tagged(ty, self.fam) {
            self.size()
        } else {
            self.be64()
        }
    }
}

/// NODE_STATS's eleven float fields, in wire order.
const NODE_FLOATS: [&str; 11] = [
    "la",
    "la5",
    "la15",
    "total_mem",
    "free_mem",
    "buffers",
    "cached",
    "swap_cached",
    "swap_total",
    "swap_free",
    "mapped",
];
