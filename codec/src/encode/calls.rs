//! Top-level pack calls: the count, the described buffer's tags, the values of a call.

use super::{converged_size_into, fail, type_mismatch, Enc};
use crate::component::Family;
use crate::error::Result;
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;
use crate::wire::{flex_into, put_sized_run};

impl Enc {
    /// One top-level pack call: [tag INT32] count [tag T] payload.
    ///
    /// A value of another type than the call's fails the call before anything is written.
    /// A component the release does not register packs nothing (PMIX_ERR_NOT_SUPPORTED).
    fn refuse_unshipped(&self) -> Result<()> {
        match self.rel.refusal(self.comp) {
            Some(reason) => Err(fail(Status::ERR_NOT_SUPPORTED, reason)),
            None => Ok(()),
        }
    }

    /// The element types that [`Enc::values`] checks as it goes are not scanned first:
    /// when the call fails, the scan runs then, and a mismatch found rolls the call back.
    pub fn pack_call(&mut self, item: &Item) -> Result<()> {
        self.refuse_unshipped()?;
        let start = self.out.len();
        if !self.checks_as_it_goes(item.ty) {
            if let Some(e) = type_mismatch(item) {
                return Err(e);
            }
        }
        let r = self.pack_call_values(item);
        if r.is_err() {
            if let Some(e) = type_mismatch(item) {
                self.out.truncate(start);
                return Err(e);
            }
        }
        r
    }

    /// Whether [`Enc::values`] checks each value's type for a call of `ty` (its fast loops).
    fn checks_as_it_goes(&self, ty: DataType) -> bool {
        matches!(self.fam, Family::Converged | Family::Modern)
            && matches!(
                ty,
                DataType::PROC | DataType::STRING | DataType::BYTE_OBJECT | DataType::INFO
            )
            && quirks::self_tagged_int(self.fam, ty).is_none()
    }

    fn pack_call_values(&mut self, item: &Item) -> Result<()> {
        self.call_count(item.values.len())?;
        self.pack_buffer(item.ty, &item.values)
    }

    /// A pack call's count of values: INT32, with its tag in a described buffer.
    fn call_count(&mut self, n: usize) -> Result<()> {
        if n > i32::MAX as usize {
            return Err(fail(
                Status::ERR_BAD_PARAM,
                "too many values for one pack call",
            ));
        }
        if self.desc {
            self.tag(DataType::INT32);
        }
        self.i32(n as i32);
        Ok(())
    }

    /// The component's `pack_buffer`: a described-mode tag, then the type's packer.
    pub(super) fn pack_buffer(&mut self, ty: DataType, vals: &[Value]) -> Result<()> {
        self.buffer_prologue(ty)?;
        self.values(ty, vals)
    }

    /// One BYTE_OBJECT pack call of `objects`: the bytes [`Enc::pack_call`] writes for an
    /// item of as many [`Value::ByteObject`]s, from the caller's slices.
    pub fn pack_byte_objects<B: AsRef<[u8]>>(&mut self, objects: &[B]) -> Result<()> {
        self.refuse_unshipped()?;
        self.call_count(objects.len())?;
        self.buffer_prologue(DataType::BYTE_OBJECT)?;
        self.byte_objects(objects.iter().map(|b| Some(b.as_ref())));
        Ok(())
    }

    /// The BYTE_OBJECT packer over a run of payloads (`bytes_sized` for each; in the
    /// converged and modern families as one `put_sized_run`). A `None` payload (a value of
    /// another type) stops it and gives `false`.
    fn byte_objects<'v>(&mut self, payloads: impl Iterator<Item = Option<&'v [u8]>>) -> bool {
        match self.fam {
            // the modern SIZE: a bare flex integer
            Family::Modern => put_sized_run(&mut self.out, payloads, flex_into),
            // the converged SIZE: a UINT64 tag and eight big-endian bytes
            Family::Converged => put_sized_run(&mut self.out, payloads, converged_size_into),
            Family::Legacy12 | Family::Legacy20 => {
                for payload in payloads {
                    match payload {
                        Some(b) => self.bytes_sized(b),
                        None => return false,
                    }
                }
                true
            }
        }
    }

    /// `pack_buffer` up to the type's packer: the described-mode tag, and the check that
    /// the component registers `ty`.
    fn buffer_prologue(&mut self, ty: DataType) -> Result<()> {
        let unknown = match self.fam {
            Family::Legacy12 | Family::Legacy20 => Status::ERR_PACK_FAILURE,
            _ => Status::ERR_UNKNOWN_DATA_TYPE,
        };
        if self.desc {
            let wire_ty = match (self.fam, ty) {
                (Family::Legacy20, DataType::COMMAND) => DataType::UINT32,
                (Family::Legacy12, _) => quirks::v12_top_level_type(ty),
                _ => ty,
            };
            self.tag(wire_ty);
        }
        if !self.comp.registers(ty, self.rel) {
            return Err(fail(
                unknown,
                format!("{} does not register {}", self.comp, ty),
            ));
        }
        Ok(())
    }

    /// The registered packer for `ty` over an array of values.
    pub(super) fn values(&mut self, ty: DataType, vals: &[Value]) -> Result<()> {
        // Array-level oddities first.
        match (self.fam, ty) {
            (
                Family::Legacy12,
                DataType::POINTER | DataType::INFO_DIRECTIVES | DataType::PROC_STATE,
            ) => {
                return Ok(()); // v12 writes nothing for these
            }
            (Family::Legacy12, DataType::DATA_ARRAY | DataType::PROC_INFO | DataType::QUERY) => {
                return Err(fail(
                    Status::ERR_NOT_SUPPORTED,
                    format!("v12 cannot pack {ty}"),
                ));
            }
            (_, DataType::POINTER) => {
                // One sentinel byte per pack call, whatever the count (quirk P1).
                self.u8(1);
                return Ok(());
            }
            // OpenPMIx returns after a typeless array's tag and silently drops the arrays
            // after it in the same call (quirk R2): refuse rather than lose data.
            (Family::Converged | Family::Modern, DataType::DATA_ARRAY)
                if !self.rel.profile().darray_undef_has_size
                    && quirks::typeless_array_before_others(vals) =>
            {
                return Err(fail(
                    Status::ERR_BAD_PARAM,
                    "a DATA_ARRAY of UNDEF followed by more arrays in one call: OpenPMIx drops the rest (quirk R2)",
                ));
            }
            _ => {}
        }
        if let Some(wire) = quirks::self_tagged_int(self.fam, ty) {
            // One always-tag for the whole array, even an empty one (quirk D2).
            self.int_tag(wire);
            for v in vals {
                self.bare_int(v)?;
            }
            return Ok(());
        }
        if self.checks_as_it_goes(ty) {
            // The general loop below, with the type check fused in (see `pack_call`).
            let mismatch = || fail(Status::ERR_BAD_PARAM, "value of another type");
            match ty {
                DataType::PROC => {
                    for v in vals {
                        match v {
                            Value::Proc(p) => self.proc(p)?,
                            _ => return Err(mismatch()),
                        }
                    }
                }
                DataType::STRING => {
                    for v in vals {
                        match v {
                            Value::String(s) => self.text(s)?,
                            _ => return Err(mismatch()),
                        }
                    }
                }
                DataType::BYTE_OBJECT => {
                    let payloads = vals.iter().map(|v| match v {
                        Value::ByteObject(b) => Some(&b[..]),
                        _ => None,
                    });
                    if !self.byte_objects(payloads) {
                        return Err(mismatch());
                    }
                }
                _ => {
                    for v in vals {
                        match v {
                            Value::Info(i) => self.info(i)?,
                            _ => return Err(mismatch()),
                        }
                    }
                }
            }
            return Ok(());
        }
        for v in vals {
            self.one(v)?;
        }
        Ok(())
    }

    /// Encode one value with its type's packer (no tags other than the type's own). Types
    /// that nest are handled in this small frame to keep deep recursion cheap on the stack.
    pub(super) fn one(&mut self, v: &Value) -> Result<()> {
        match v {
            Value::Value(inner) => self.value(inner),
            Value::App(a) => self.app(a),
            Value::Info(i) => self.info(i),
            Value::Pdata(p) => self.pdata(p),
            Value::Kval(k) => {
                self.text(&k.key)?;
                self.value(&k.value)
            }
            Value::DataArray(d) => self.darray(d),
            Value::Query(q) => self.query(q),
            Value::InfoArray(infos) => self.info_array(infos),
            _ => self.leaf(v),
        }
    }
}
