//! Structs: PROC, TIMEVAL, COORD, the stats, KVAL, PDATA, QUERY and APP.

use super::{err, Dec};
use crate::component::Family;
use crate::encode::MAX_ARRAY_DEPTH;
use crate::error::Result;
use crate::observe::{Observer, Seg};
use crate::quirks;
use crate::status::Status;
use crate::value::*;

impl<'a, O: Observer> Dec<'a, O> {
    #[inline]
    pub(super) fn proc_rank(&mut self) -> Result<u32> {
        if self.fam == Family::Legacy12 {
            Ok(self.int()? as u32)
        } else {
            self.u32()
        }
    }

    /// A PROC's rank. v12's unpacker maps the 1.x special ranks INT32_MAX (UNDEF) and
    /// INT32_MAX - 1 (WILDCARD) to today's (its packer writes ranks unchanged, quirk L4;
    /// read as written, the rank is the number on the wire).
    #[inline]
    fn struct_rank(&mut self) -> Result<u32> {
        let r = self.proc_rank()?;
        let map = self.fam == Family::Legacy12 && self.as_read();
        Ok(match r {
            0x7fff_ffff if map => u32::MAX,
            0x7fff_fffe if map => u32::MAX - 1,
            r => r,
        })
    }

    #[inline(always)]
    pub(super) fn proc(&mut self) -> Result<Proc> {
        self.name(Seg::Name("nspace"));
        let nspace = self.required_string("namespace", 255)?;
        self.name(Seg::Name("rank"));
        let rank = self.struct_rank()?;
        Ok(Proc { nspace, rank })
    }

    /// [`Dec::proc`] into `p`, reusing its memory.
    #[inline(never)]
    pub(super) fn proc_into(&mut self, p: &mut Proc) -> Result<()> {
        self.name(Seg::Name("nspace"));
        self.required_string_into("namespace", 255, &mut p.nspace)?;
        self.name(Seg::Name("rank"));
        p.rank = self.struct_rank()?;
        Ok(())
    }

    pub(super) fn timeval(&mut self) -> Result<Timeval> {
        // Both halves are one INT64 unpack call of two values (quirk R1 for the second).
        self.name(Seg::Name("sec"));
        let sec = self.i64()?;
        let was = std::mem::replace(&mut self.int_tail, true);
        self.name(Seg::Name("usec"));
        let usec = self.i64();
        self.int_tail = was;
        Ok(Timeval { sec, usec: usec? })
    }

    pub(super) fn coord(&mut self) -> Result<Coord> {
        self.name(Seg::Name("view"));
        let view = self.named("view").u8()?;
        self.name(Seg::Name("dims"));
        let n = self.size()?;
        // No early count check: C allocates `dims` and fails while reading (-50 at the
        // first coordinate, -63 in 4.2.x at a later one); capacity stays bounded by the input.
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let mut coord = self.with_room(n);
        for i in 0..n {
            self.int_tail = i > 0;
            self.name(Seg::Index(i));
            let c = self.u32();
            self.int_tail = false;
            self.room(&mut coord)?;
            self.put(&mut coord, c?);
        }
        Ok(Coord { view, coord })
    }

    #[inline(never)]
    pub(super) fn kval(&mut self) -> Result<Value> {
        self.name(Seg::Name("key"));
        let key = self.string()?;
        self.enter(Seg::Name("value"));
        let value = self.value()?;
        self.leave();
        Ok(Value::Kval(Box::new(Kval { key, value })))
    }

    #[inline(never)]
    pub(super) fn pdata(&mut self) -> Result<Value> {
        let proc = self.within("proc", Self::proc)?;
        self.name(Seg::Name("key"));
        let key = self.required_string("key", 511)?;
        self.enter(Seg::Name("value"));
        let vt = self.value_type()?;
        self.enter(Seg::Type(vt));
        let value = self.value_payload(vt)?;
        self.leave();
        self.leave();
        Ok(Value::Pdata(Box::new(Pdata { proc, key, value })))
    }

    #[inline(never)]
    pub(super) fn query(&mut self, at: usize) -> Result<Value> {
        self.name(Seg::Name("nkeys"));
        let n = self.i32()?;
        self.taint_limit(n, at, "QUERY nkeys")?;
        let n = if n > 0 {
            self.count_check(n as u64, at, "QUERY keys")?
        } else {
            0
        };
        self.enter(Seg::Name("keys"));
        let keys = self.texts(n)?;
        self.leave();
        let qat = self.at();
        self.name(Seg::Name("nqual"));
        let nq = self.size()?;
        let nq = self.count_check(nq, qat, "QUERY qualifiers")?;
        // OpenPMIx has no cap here either (a qualifier's VALUE may be a QUERY again, and its
        // recursion overflows the stack); we share the DATA_ARRAY cap.
        if self.nesting() >= MAX_ARRAY_DEPTH {
            return Err(err(
                Status::ERR_UNPACK_FAILURE,
                at,
                "QUERY nested deeper than 100",
            ));
        }
        self.query_depth += 1;
        let r = self.query_qualifiers(keys, nq);
        self.query_depth -= 1;
        r
    }

    fn query_qualifiers(&mut self, keys: Vec<NullableText>, nq: usize) -> Result<Value> {
        let mut qualifiers = self.with_room(nq);
        self.enter(Seg::Name("qualifiers"));
        for i in 0..nq {
            self.enter(Seg::Index(i));
            self.room(&mut qualifiers)?;
            let q = self.info()?;
            self.put(&mut qualifiers, q);
            self.leave();
        }
        self.leave();
        Ok(Value::Query(Box::new(Query { keys, qualifiers })))
    }

    pub(super) fn disk_stats(&mut self) -> Result<DiskStats> {
        let disk = self.named("disk").string()?;
        let mut counters = [0u64; 11];
        for (i, c) in counters.iter_mut().enumerate() {
            self.name(Seg::Index(i));
            *c = self.u64()?;
        }
        Ok(DiskStats { disk, counters })
    }

    pub(super) fn net_stats(&mut self) -> Result<NetStats> {
        let interface = self.named("interface").string()?;
        let mut counters = [0u64; 6];
        for (i, c) in counters.iter_mut().enumerate() {
            self.name(Seg::Index(i));
            *c = self.u64()?;
        }
        Ok(NetStats {
            interface,
            counters,
        })
    }

    pub(super) fn app(&mut self) -> Result<App> {
        let cmd = self.named("cmd").string()?;
        let at = self.at();
        let argc = self.named("argc").int()?;
        let argc = if argc > 0 {
            self.count_check(argc as u64, at, "APP argc")?
        } else {
            0
        };
        self.enter(Seg::Name("argv"));
        let argv = self.app_texts(argc, "argv")?;
        self.leave();
        let at = self.at();
        let envc = self.named("envc").i32()?;
        self.taint_limit(envc, at, "APP envc")?;
        let envc = if envc > 0 {
            self.count_check(envc as u64, at, "APP envc")?
        } else {
            0
        };
        self.enter(Seg::Name("env"));
        let env = self.app_texts(envc, "env")?;
        self.leave();
        let cwd = if self.fam == Family::Legacy12 {
            None
        } else {
            self.named("cwd").string()?
        };
        let maxprocs = self.named("maxprocs").int()?;
        let at = self.at();
        let ninfo = self.named("ninfo").size()?;
        let ninfo = self.count_check(ninfo, at, "APP ninfo")?;
        let mut info = self.with_room(ninfo);
        self.enter(Seg::Name("info"));
        for i in 0..ninfo {
            self.enter(Seg::Index(i));
            self.room(&mut info)?;
            let i = self.info()?;
            self.put(&mut info, i);
            self.leave();
        }
        self.leave();
        if self.fam == Family::Legacy12
            && self.as_read()
            && self.rel.profile().info_create_marks_end
        {
            // v12 has no flags on the wire, so the array-end marker that PMIX_INFO_CREATE
            // puts on the last element is what the receiver sees (quirk U13).
            if !info.is_empty() {
                self.note("the receiver's last info has flags 0x2 = ARRAY_END: v12 sends no flags (quirk U13)");
            }
            if let Some(last) = info.last_mut() {
                last.flags = quirks::INFO_ARRAY_END;
            }
        }
        Ok(App {
            cmd,
            argv,
            env,
            cwd,
            maxprocs,
            info,
        })
    }
}
