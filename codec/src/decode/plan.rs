//! The plan and element steps: how the values of a call (or DATA_ARRAY payload) are read,
//! with the integer quirk state (R1, D2) and POINTER budget (P1) they carry, and the
//! per-value loops that reuse memory.

use super::room::room_for_one;
use super::{err, Dec, Plan};
use crate::component::Family;
use crate::error::Result;
use crate::observe::{Observer, Seg};
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;

impl<'a, O: Observer> Dec<'a, O> {
    /// Take `n` POINTER values from the per-decode budget, if it still has them.
    fn spend_pointers(&mut self, n: u64) -> bool {
        if n > self.pointer_budget {
            return false;
        }
        self.pointer_budget -= n;
        true
    }

    /// [`Dec::values`] into `out`, reusing the memory of the values already there for the
    /// types worth it; the others are decoded afresh.
    pub(super) fn values_into(
        &mut self,
        ty: DataType,
        n: usize,
        out: &mut Vec<Value>,
    ) -> Result<()> {
        let in_place = matches!(
            ty,
            DataType::INFO
                | DataType::PROC
                | DataType::STRING
                | DataType::BYTE_OBJECT
                | DataType::DATA_ARRAY
        ) && self.fam != Family::Legacy12
            && quirks::self_tagged_int(self.fam, ty).is_none()
            && !(self.fam == Family::Modern && quirks::modern_int_array(ty));
        if !in_place || !self.keep_values {
            *out = self.values(ty, n)?;
            return Ok(());
        }
        // `values`' general loop, one value at a time. This frame is on the recursion path
        // of nested arrays: what is big stays in the functions called.
        out.truncate(n);
        let reuse = out.len();
        if ty == DataType::BYTE_OBJECT {
            self.byte_objects_into(out)?;
        } else if !O::ACTIVE && ty == DataType::PROC {
            // built in registers and assigned in place (see `fill`)
            for slot in out.iter_mut() {
                match slot {
                    Value::Proc(p) => *p = self.proc()?,
                    slot => self.one_into(ty, slot)?,
                }
            }
        } else {
            for (i, slot) in out.iter_mut().enumerate() {
                self.enter(Seg::Index(i));
                self.one_into(ty, slot)?;
                self.leave();
            }
        }
        self.push_fresh(ty, n - reuse, out)
    }

    /// `one_into(BYTE_OBJECT, slot)` for every slot of `out`, the common case inline.
    #[inline(never)]
    fn byte_objects_into(&mut self, out: &mut [Value]) -> Result<()> {
        for (i, slot) in out.iter_mut().enumerate() {
            self.name(Seg::Index(i));
            match slot {
                Value::ByteObject(b) => {
                    // `sized_slice`, its fast path inline
                    let s = match self.short_sized_quiet() {
                        Some((h, n)) => &self.r.take(h + n)?[h..],
                        None => self.sized_slice_general()?,
                    };
                    *b = self.share(s);
                }
                slot => self.one_into(DataType::BYTE_OBJECT, slot)?,
            }
        }
        Ok(())
    }

    /// Decode `n` more values of `ty` onto `out`.
    #[inline(never)]
    fn push_fresh(&mut self, ty: DataType, n: usize, out: &mut Vec<Value>) -> Result<()> {
        let first = out.len();
        self.make_room(out, n);
        if !O::ACTIVE {
            // The common element types, each value built where it goes (see `fill`).
            match ty {
                DataType::PROC => return self.fill(out, n, |d| Ok(Value::Proc(d.proc()?))),
                DataType::BYTE_OBJECT => {
                    return self.fill(out, n, |d| Ok(Value::ByteObject(d.sized_bytes()?)))
                }
                DataType::INFO => return self.fill(out, n, Self::boxed_info_quiet),
                _ => {}
            }
        }
        for i in 0..n {
            self.enter(Seg::Index(first + i));
            let v = self.one_hot(ty)?;
            self.leave();
            room_for_one(out, self.at())?;
            out.push(v);
        }
        Ok(())
    }

    /// `n` values read by `read`, pushed onto `out`. The slot is found before the value is
    /// read, so the value is written straight into it: a value built on the stack and then
    /// copied is read back in wider words than its tag was written in, which stalls the
    /// CPU's store forwarding (measured: a quarter of a PROC's or an INFO's decode).
    #[inline(always)]
    fn fill(
        &mut self,
        out: &mut Vec<Value>,
        n: usize,
        mut read: impl FnMut(&mut Self) -> Result<Value>,
    ) -> Result<()> {
        for _ in 0..n {
            room_for_one(out, self.at())?;
            let len = out.len();
            // Checked where debug assertions are on (the mutation runs build the codec so):
            // without it, a broken `room_for_one` is a silent write past the allocation.
            debug_assert!(len < out.capacity(), "no room made for value {len}");
            // SAFETY: there is room for one more value (made above).
            let slot = unsafe { out.as_mut_ptr().add(len) };
            let v = read(self)?;
            // SAFETY: `slot` is the spare slot just past the length, written before the
            // length covers it.
            unsafe {
                slot.write(v);
                out.set_len(len + 1);
            }
        }
        Ok(())
    }

    /// [`Dec::one`] with the common element types first.
    #[inline]
    pub(super) fn one_hot(&mut self, ty: DataType) -> Result<Value> {
        Ok(match ty {
            DataType::PROC => Value::Proc(self.proc()?),
            DataType::STRING => Value::String(self.string()?),
            DataType::BYTE_OBJECT => Value::ByteObject(self.sized_bytes()?),
            DataType::INFO => Value::Info(Box::new(self.info()?)),
            // the common INFO value types, as `leaf` reads them, without its frame
            DataType::BOOL => Value::Bool(self.u8()? != 0),
            DataType::UINT32 => Value::Uint32(self.u32()?),
            DataType::UINT64 => Value::Uint64(self.u64()?),
            _ => self.one(ty)?,
        })
    }

    /// [`Dec::one`] into `slot`, reusing its memory when it holds a value of the same kind.
    /// On the recursion path of nested arrays: keep its frame small.
    pub(super) fn one_into(&mut self, ty: DataType, slot: &mut Value) -> Result<()> {
        match (ty, slot) {
            (DataType::PROC, Value::Proc(p)) => self.proc_into(p),
            (DataType::STRING, Value::String(s)) => self.string_into(s),
            (DataType::BYTE_OBJECT, Value::ByteObject(b)) => self.sized_into(b),
            (DataType::INFO, Value::Info(i)) => self.info_into(i),
            // `leaf` for these is one primitive read.
            (DataType::BOOL, Value::Bool(x)) => {
                *x = self.u8()? != 0;
                Ok(())
            }
            (DataType::UINT8, Value::Uint8(x)) => {
                *x = self.u8()?;
                Ok(())
            }
            (DataType::UINT16, Value::Uint16(x)) => {
                *x = self.u16()?;
                Ok(())
            }
            (DataType::UINT32, Value::Uint32(x)) => {
                *x = self.u32()?;
                Ok(())
            }
            (DataType::UINT64, Value::Uint64(x)) => {
                *x = self.u64()?;
                Ok(())
            }
            (DataType::INT32, Value::Int32(x)) => {
                *x = self.i32()?;
                Ok(())
            }
            (DataType::DATA_ARRAY, Value::DataArray(d)) => self.darray_into(d),
            (_, slot) => self.replace(ty, slot),
        }
    }

    /// `*slot = one(ty)`.
    #[inline(never)]
    fn replace(&mut self, ty: DataType, slot: &mut Value) -> Result<()> {
        *slot = self.one_hot(ty)?;
        Ok(())
    }

    #[inline(never)]
    pub(super) fn values(&mut self, ty: DataType, n: usize) -> Result<Vec<Value>> {
        let plan = self.plan(ty, n)?;
        if plan == Plan::Pointers {
            // Bounded: the pointer budget was spent for them (quirk P1).
            return Ok(if self.keep_values {
                vec![Value::Pointer; n]
            } else {
                Vec::new()
            });
        }
        let mut out = self.with_room(n);
        for i in 0..n {
            let v = self.element(ty, i, plan)?;
            self.room(&mut out)?;
            self.put(&mut out, v);
        }
        Ok(out)
    }

    /// What a call (or a DATA_ARRAY payload) of `n` values of `ty` reads before its first
    /// value, and how each value is then read (see [`Dec::element`]).
    pub fn plan(&mut self, ty: DataType, n: usize) -> Result<Plan> {
        match (self.fam, ty) {
            (
                Family::Legacy12,
                DataType::POINTER | DataType::INFO_DIRECTIVES | DataType::PROC_STATE,
            ) => {
                return Err(err(
                    Status::ERR_NOT_SUPPORTED,
                    self.at(),
                    format!("v12 cannot unpack {ty}"),
                ));
            }
            (Family::Legacy12, DataType::DATA_ARRAY | DataType::PROC_INFO | DataType::QUERY) => {
                return Err(err(
                    Status::ERR_NOT_SUPPORTED,
                    self.at(),
                    format!("v12 cannot unpack {ty}"),
                ));
            }
            (_, DataType::POINTER) => {
                self.name(Seg::Name("sentinel"));
                self.u8()?;
                // Bounded: one sentinel byte stands for the whole call (quirk P1).
                if !self.spend_pointers(n as u64) {
                    return Err(err(
                        Status::ERR_NOMEM,
                        self.at(),
                        format!("{n} pointers for one sentinel byte"),
                    ));
                }
                return Ok(Plan::Pointers);
            }
            _ => {}
        }
        if quirks::self_tagged_int(self.fam, ty).is_some() {
            // One always-tag for the whole array, read even for an empty one (quirk D2).
            return Ok(Plan::SelfTagged(self.int_tag(ty)?));
        }
        if self.fam == Family::Modern && quirks::modern_int_array(ty) {
            return Ok(Plan::ModernInt);
        }
        Ok(Plan::General)
    }

    /// Value `i` of a call (or DATA_ARRAY payload) of `ty` read under `plan`: the integer
    /// state of quirks R1 and D2 is set from `i` alone, so a value can be read again from
    /// its offset (a view's element) exactly as the call's loop read it.
    #[inline]
    pub fn element(&mut self, ty: DataType, i: usize, plan: Plan) -> Result<Value> {
        self.enter(Seg::Index(i));
        let v = match plan {
            Plan::General => self.one(ty),
            Plan::SelfTagged(remote) => {
                self.array_int = Some(remote);
                self.int_tail = i > 0 && self.fam == Family::Modern;
                let v = self.leaf(ty);
                self.int_tail = false;
                self.array_int = None;
                v
            }
            Plan::ModernInt => {
                self.int_tail = i > 0;
                let v = self.leaf(ty);
                self.int_tail = false;
                v
            }
            Plan::Pointers => Ok(Value::Pointer),
        }?;
        self.leave();
        Ok(v)
    }

    /// Move forward to `offset` of the input without reading what lies between (to a view's
    /// value).
    pub fn seek(&mut self, offset: usize) -> Result<()> {
        let at = self.r.offset();
        if offset < at {
            return Err(err(Status::ERR_BAD_PARAM, at, "cannot seek backwards"));
        }
        self.r.take(offset - at).map(|_| ())
    }

    /// Keep no values: check the input and drop what is read (see `keep_values`).
    pub fn discarding(mut self) -> Self {
        self.keep_values = false;
        self
    }

    /// One value of `ty`. Types that can nest are handled here, in a small frame, so the
    /// recursion through DATA_ARRAY/VALUE/INFO stays shallow on the stack even in debug builds.
    pub(super) fn one(&mut self, ty: DataType) -> Result<Value> {
        let at = self.at();
        Ok(match ty {
            DataType::VALUE => Value::Value(Box::new(self.value()?)),
            DataType::APP => Value::App(Box::new(self.app()?)),
            DataType::INFO => Value::Info(Box::new(self.info()?)),
            DataType::PDATA => self.pdata()?,
            DataType::KVAL => self.kval()?,
            DataType::DATA_ARRAY => Value::DataArray(Box::new(self.darray()?)),
            DataType::QUERY => self.query(at)?,
            DataType::INFO_ARRAY => self.info_array(at)?,
            _ => self.leaf(ty)?,
        })
    }
}
