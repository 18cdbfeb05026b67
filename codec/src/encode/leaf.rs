//! The types that do not nest, one value each.

use super::{fail, Enc};
use crate::component::Family;
use crate::error::Result;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;

impl Enc {
    /// Types that do not nest.
    #[inline(never)]
    pub(super) fn leaf(&mut self, v: &Value) -> Result<()> {
        let fam = self.fam;
        match v {
            Value::Undef => return Err(fail(Status::ERR_UNKNOWN_DATA_TYPE, "UNDEF has no packer")),
            Value::Bool(b) => self.u8(*b as u8),
            Value::Byte(x) | Value::Uint8(x) => self.u8(*x),
            Value::Int8(x) => self.u8(*x as u8),
            Value::String(s) => self.text(s)?,
            Value::Size(x) => self.size(*x),
            Value::Pid(x) => self.pid(*x),
            Value::Int(x) => self.int(*x),
            Value::Uint(x) => self.int(*x as i32),
            Value::Int16(x) => self.i16(*x),
            Value::Int32(x) => self.i32(*x),
            Value::Int64(x) => self.i64(*x),
            Value::Uint16(x) => self.u16(*x),
            Value::Uint32(x) => self.u32(*x),
            Value::Uint64(x) => self.u64(*x),
            Value::Float(x) => self.float_text(*x as f64)?,
            Value::Double(x) => self.float_text(*x)?,
            Value::Timeval(t) => self.timeval(t),
            Value::Time(t) => self.u64(*t),
            Value::Status(s) => {
                if fam == Family::Legacy12 {
                    self.int(*s)
                } else {
                    self.i32(*s)
                }
            }
            Value::Proc(p) => self.proc(p)?,
            Value::Buffer(b) => {
                if !self.legacy() {
                    self.u8(b.kind);
                }
                self.bytes_sized(&b.bytes);
            }
            Value::ByteObject(b) | Value::CompressedString(b) | Value::CompressedByteObject(b) => {
                self.bytes_sized(b)
            }
            Value::DataBuffer(b) => self.bytes_sized(b),
            Value::Modex(b) => {
                self.modex_size(DataType::MODEX, b.len() as u64);
                self.out.extend_from_slice(b);
            }
            Value::Persist(x) | Value::Scope(x) | Value::DataRange(x) => {
                if fam == Family::Legacy12 {
                    self.int(*x as i32)
                } else {
                    self.u8(*x)
                }
            }
            Value::Command(x) => match fam {
                Family::Legacy12 | Family::Legacy20 => self.i32(*x as i32),
                _ => self.u8(*x),
            },
            Value::Pointer => self.u8(1),
            Value::Value(_)
            | Value::App(_)
            | Value::Info(_)
            | Value::Pdata(_)
            | Value::Kval(_)
            | Value::DataArray(_)
            | Value::Query(_)
            | Value::InfoArray(_) => return self.one(v),
            Value::InfoDirectives(x) => {
                if fam != Family::Legacy12 {
                    self.u32(*x)
                }
            }
            Value::DataType(t) => match fam {
                Family::Legacy12 => self.out.extend_from_slice(&(t.0 as u32).to_be_bytes()),
                _ => self.u16(t.0),
            },
            Value::ProcState(x) => {
                if fam != Family::Legacy12 {
                    self.u8(*x)
                }
            }
            Value::ProcInfo(p) => {
                self.proc(&p.proc)?;
                self.text(&p.hostname)?;
                self.text(&p.executable)?;
                self.pid(p.pid);
                self.u8(p.state);
            }
            Value::ProcRank(r) => self.proc_rank(*r),
            Value::AllocDirective(x)
            | Value::JobState(x)
            | Value::LinkState(x)
            | Value::ResblockDirective(x)
            | Value::AllocInherit(x) => self.u8(*x),
            Value::IofChannel(x) | Value::Loctype(x) | Value::StorAccessType(x) => self.u16(*x),
            Value::Envar(e) => {
                self.text(&e.name)?;
                self.text(&e.value)?;
                self.u8(e.separator);
            }
            Value::Coord(c) => self.coord(c),
            Value::Regattr(r) => {
                self.text(&r.name)?;
                self.string(Some(&r.key[..]))?;
                self.u16(r.ty);
                // The description is a C argv: the library counts it up to its first NULL
                // (PMIx_Argv_count) and packs that many strings.
                let n = r
                    .description
                    .iter()
                    .position(|d| d.is_none())
                    .unwrap_or(r.description.len());
                self.i32(n as i32);
                for d in &r.description[..n] {
                    self.text(d)?;
                }
            }
            Value::Regex(b) => {
                use crate::preg::{claim, Claim};
                let p = self.rel.profile();
                match claim(b, p.preg, p.regex_pmix_framing) {
                    // The module copies what it claims: up to 6.0 a `blob` is cut to its
                    // header plus 5 bytes (quirk R11).
                    Claim::Takes(n) => self.out.extend_from_slice(&b[..n]),
                    Claim::Malformed => {
                        return Err(fail(
                            Status::ERR_BAD_PARAM,
                            "a `blob:` regex malformed behind its tag: the packer refuses it (quirk R11)",
                        ))
                    }
                    Claim::PastEnd => {
                        return Err(fail(
                            Status::ERR_BAD_PARAM,
                            "the preg module would read past the regex's bytes (quirk C3)",
                        ))
                    }
                    // The fallback packs a STRING through the library's own default module,
                    // which refuses a described buffer: PACK_MISMATCH, as every release does.
                    Claim::Unclaimed if self.desc => {
                        return Err(fail(
                            Status::ERR_PACK_MISMATCH,
                            "an unframed REGEX in a described buffer: the plain-string fallback refuses it (quirk U4)",
                        ))
                    }
                    // In a non-described buffer OpenPMIx crashes packing it (quirk U4).
                    Claim::Unclaimed => {
                        return Err(fail(
                            Status::ERR_BAD_PARAM,
                            "a REGEX must be framed as a preg module knows it (raw:, blob:, up to 6.1 pmix: quirk R11)",
                        ))
                    }
                }
            }
            Value::ProcCpuset(s) | Value::Topo(s) => self.text(s)?,
            Value::Geometry(g) => {
                self.size(g.fabric);
                self.text(&g.uuid)?;
                self.text(&g.osname)?;
                self.size(g.coordinates.len() as u64);
                for c in &g.coordinates {
                    self.coord(c);
                }
            }
            Value::DeviceDist(d) => {
                self.text(&d.uuid)?;
                self.text(&d.osname)?;
                self.u64(d.devtype);
                self.u16(d.mindist);
                self.u16(d.maxdist);
            }
            Value::Endpoint(e) => {
                self.text(&e.uuid)?;
                self.text(&e.osname)?;
                self.bytes_sized(&e.endpt);
            }
            Value::Devtype(x)
            | Value::StorMedium(x)
            | Value::StorAccess(x)
            | Value::StorPersist(x) => self.u64(*x),
            Value::ProcNspace(n) => self.string(Some(&n[..]))?,
            Value::ProcStats(p) => {
                self.text(&p.node)?;
                self.proc(&p.proc)?;
                self.pid(p.pid);
                self.text(&p.cmd)?;
                self.u8(p.state);
                self.timeval(&p.time);
                self.i32(p.priority);
                self.i16(p.num_threads);
                self.float_text(p.pss as f64)?;
                self.float_text(p.vsize as f64)?;
                self.float_text(p.rss as f64)?;
                self.i16(p.processor);
                self.timeval(&p.sample_time);
            }
            Value::DiskStats(d) => {
                self.text(&d.disk)?;
                for c in d.counters {
                    self.u64(c);
                }
            }
            Value::NetStats(n) => {
                self.text(&n.interface)?;
                for c in n.counters {
                    self.u64(c);
                }
            }
            Value::NodeStats(n) => {
                self.text(&n.node)?;
                for f in n.floats {
                    self.float_text(f as f64)?;
                }
                self.timeval(&n.sample_time);
                self.size(n.diskstats.len() as u64);
                for d in &n.diskstats {
                    self.one(&Value::DiskStats(Box::new(d.clone())))?;
                }
                self.size(n.netstats.len() as u64);
                for d in &n.netstats {
                    self.one(&Value::NetStats(Box::new(d.clone())))?;
                }
            }
            Value::Device(d) => {
                self.text(&d.uuid)?;
                self.text(&d.osname)?;
                self.u64(d.devtype);
            }
            Value::ResourceUnit(r) => {
                self.u64(r.devtype);
                self.size(r.count);
            }
            Value::NodePid(n) => {
                self.text(&n.hostname)?;
                self.u32(n.nodeid);
                self.pid(n.pid);
            }
            Value::Regex2(r) => {
                self.text(&r.kind)?;
                self.bytes_sized(&r.regex);
            }
        }
        Ok(())
    }

    /// MODEX and INFO_ARRAY sizes: tagged SIZE in 4.2.x, bare be64 in master (quirk R3),
    /// except v12, whose own packers always tag.
    pub(super) fn modex_size(&mut self, ty: DataType, n: u64) {
        if self.rel.profile().size_tagged(ty, self.fam) {
            self.size(n);
        } else {
            self.out.extend_from_slice(&n.to_be_bytes());
        }
    }
}
