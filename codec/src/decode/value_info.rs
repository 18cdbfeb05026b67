//! VALUE and INFO: a value's type and payload, an INFO's key, flags and value.

use super::{err, Dec};
use crate::component::Family;
use crate::error::Result;
use crate::observe::{Observer, Seg};
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;

impl<'a, O: Observer> Dec<'a, O> {
    pub(super) fn value_type(&mut self) -> Result<DataType> {
        self.name(Seg::Name("type"));
        Ok(match self.fam {
            Family::Legacy12 => quirks::v12_read_type(self.int()? as u32 as u16),
            // Quirk U3: the value type went out as an INT from a 2-byte field.
            Family::Legacy20 => DataType(self.int()? as u32 as u16),
            _ => self.tag()?,
        })
    }

    pub(super) fn value(&mut self) -> Result<Value> {
        self.name(Seg::Name("type"));
        let ty = match self.fam {
            Family::Legacy12 => quirks::v12_read_type(self.int()? as u32 as u16),
            _ => self.tag()?,
        };
        self.enter(Seg::Type(ty));
        let r = self.value_payload(ty);
        if r.is_ok() {
            self.leave();
        }
        r
    }

    pub(super) fn info(&mut self) -> Result<Info> {
        self.name(Seg::Name("key"));
        let key = self.required_string("key", 511)?;
        let flags = if self.fam == Family::Legacy12 {
            0
        } else {
            self.named("flags").u32()?
        };
        self.enter(Seg::Name("value"));
        let vt = self.value_type()?;
        self.enter(Seg::Type(vt));
        let value = self.value_payload(vt)?;
        self.leave();
        self.leave();
        Ok(Info { key, flags, value })
    }

    /// `Value::Info` of [`Dec::info`] where nobody observes, built in its box: the box
    /// first, its fields written into it one by one (an INFO assembled on the stack and
    /// copied as a whole is read back in wider words than it was written in).
    #[inline(always)]
    pub(super) fn boxed_info_quiet(&mut self) -> Result<Value> {
        let mut slot = Box::<Info>::new_uninit();
        let p = slot.as_mut_ptr();
        let key = self.required_string("key", 511)?;
        // SAFETY: each field is written once through a raw pointer into the box's
        // uninitialised memory, so it is whole before `assume_init`; if the rest fails, the
        // key written first is dropped and the box freed without its other fields.
        unsafe { std::ptr::addr_of_mut!((*p).key).write(key) };
        match self.info_rest() {
            Ok((flags, value)) => Ok(Value::Info(unsafe {
                std::ptr::addr_of_mut!((*p).flags).write(flags);
                std::ptr::addr_of_mut!((*p).value).write(value);
                slot.assume_init()
            })),
            Err(e) => {
                unsafe { std::ptr::drop_in_place(std::ptr::addr_of_mut!((*p).key)) };
                Err(e)
            }
        }
    }

    /// [`Dec::info`] after its key, where nobody observes: the flags and the value. The
    /// common value types of the converged and modern families are read here (`quick_values`
    /// says they pass the checks `value_payload` makes), every other value goes through
    /// `value_payload`.
    #[inline(always)]
    fn info_rest(&mut self) -> Result<(u32, Value)> {
        let flags = if self.fam == Family::Legacy12 {
            0
        } else {
            self.u32()?
        };
        // `value_type`, its common families inline (nobody observes the tag here)
        let vt = match self.fam {
            Family::Converged => DataType(self.r.be16()?),
            Family::Modern => DataType(self.flex(2)? as u16),
            _ => self.value_type()?,
        };
        let value = match vt {
            DataType::BOOL if self.quick_values => Value::Bool(self.u8()? != 0),
            DataType::UINT32 if self.quick_values => Value::Uint32(self.u32()?),
            DataType::UINT64 if self.quick_values => Value::Uint64(self.u64()?),
            DataType::STRING if self.quick_values => {
                // `string`, inline: its result read back from memory stalled
                Value::String(self.string_slice()?.map(|b| self.text(b)))
            }
            DataType::PROC if self.quick_values => Value::Proc(self.proc()?),
            _ => self.value_payload(vt)?,
        };
        Ok((flags, value))
    }

    /// [`Dec::info`] into `info`, reusing its memory.
    pub(super) fn info_into(&mut self, info: &mut Info) -> Result<()> {
        self.name(Seg::Name("key"));
        self.required_string_into("key", 511, &mut info.key)?;
        info.flags = if self.fam == Family::Legacy12 {
            0
        } else {
            self.named("flags").u32()?
        };
        self.enter(Seg::Name("value"));
        let vt = self.value_type()?;
        let r = self.value_payload_into(vt, &mut info.value);
        self.left(r)
    }

    pub(super) fn base_info(&mut self) -> Result<Info> {
        self.name(Seg::Name("key"));
        let key = self.required_string("key", 511)?;
        let flags = self.named("flags").u32()?;
        self.enter(Seg::Name("value"));
        let vt = DataType(self.named("type").be16()?);
        self.enter(Seg::Type(vt));
        // The base pack_val wrote v20's packers' output without pack_buffer's tag (quirk L2).
        let value = if vt == DataType::UNDEF {
            self.note("no payload");
            Value::Undef
        } else {
            self.one(vt)?
        };
        self.leave();
        self.leave();
        Ok(Info { key, flags, value })
    }

    /// [`Dec::value_payload`] into `slot`, reusing its memory where [`Dec::one_into`] can.
    fn value_payload_into(&mut self, ty: DataType, slot: &mut Value) -> Result<()> {
        self.enter(Seg::Type(ty));
        // The modern and converged families' checks, all passed: `one(ty)`.
        if matches!(self.fam, Family::Converged | Family::Modern)
            && ty != DataType::UNDEF
            && !quirks::VALUE_REFUSED_TYPES.contains(&ty)
            && self.comp.registers(ty, self.rel)
            && !(self.as_read() && self.rel.profile().value_unpack_refuses.contains(&ty))
        {
            let r = self.one_into(ty, slot);
            self.left(r)
        } else {
            let r = self.replace_payload(ty, slot);
            self.left(r)
        }
    }

    /// `*slot = value_payload(ty)`.
    #[inline(never)]
    fn replace_payload(&mut self, ty: DataType, slot: &mut Value) -> Result<()> {
        *slot = self.value_payload(ty)?;
        Ok(())
    }

    /// The payload of a `pmix_value_t` whose type was just read (the caller opens the
    /// observer's step for the type: this frame is on the recursion path of nested values).
    pub(super) fn value_payload(&mut self, ty: DataType) -> Result<Value> {
        let at = self.at();
        if ty == DataType::UNDEF {
            return match self.fam {
                Family::Legacy12 => Err(err(Status::ERROR, at, "v12 VALUE of UNDEF")),
                _ => {
                    self.note("no payload");
                    Ok(Value::Undef)
                }
            };
        }
        match self.fam {
            Family::Legacy12 => {
                if ty == DataType::INFO_ARRAY {
                    self.legacy_desc(DataType::INFO_ARRAY)?;
                    return match self.one(DataType::INFO_ARRAY)? {
                        Value::InfoArray(infos) => Ok(Value::array(
                            DataType::INFO,
                            infos
                                .into_iter()
                                .map(|i| Value::Info(Box::new(i)))
                                .collect(),
                        )),
                        _ => unreachable!("INFO_ARRAY decodes to InfoArray"),
                    };
                }
                if !quirks::V12_VALUE_TYPES.contains(&ty) || ty == DataType::DATA_ARRAY {
                    return Err(err(Status::ERROR, at, format!("v12 VALUE of {ty}")));
                }
                self.legacy_desc(ty)?;
                self.one(ty)
            }
            Family::Legacy20 => {
                if ty == DataType::INFO_ARRAY && self.as_read() {
                    // v20's VALUE unpacker reads a (deprecated) INFO_ARRAY, with the INFO_ARRAY
                    // unpacker (its elements as VALUEs, quirk U11), although its packer
                    // refuses to write one (quirk U19).
                    self.legacy_desc(DataType::INFO_ARRAY)?;
                    return self.one(DataType::INFO_ARRAY);
                }
                if !quirks::V20_VALUE_TYPES.contains(&ty) {
                    return Err(err(Status::ERROR, at, format!("v20 VALUE of {ty}")));
                }
                if ty == DataType::COMPRESSED_STRING {
                    self.legacy_desc(DataType::BYTE_OBJECT)?;
                    return Ok(Value::CompressedString(self.sized_bytes()?));
                }
                if ty == DataType::PERSIST && self.as_read() {
                    // v20 unpacks a PERSIST value with the PROC unpacker (quirk U12).
                    self.legacy_desc(DataType::PROC)?;
                    self.proc()?;
                    return Err(err(
                        Status::ERR_UNPACK_FAILURE,
                        at,
                        "v20 read a PERSIST value as a PROC and got garbage (quirk U12)",
                    ));
                }
                self.legacy_desc(ty)?;
                self.one(ty)
            }
            _ => {
                if quirks::VALUE_REFUSED_TYPES.contains(&ty) {
                    return Err(err(
                        Status::ERR_BAD_PARAM,
                        at,
                        format!("a VALUE cannot carry {ty}"),
                    ));
                }
                if !self.comp.registers(ty, self.rel) {
                    return Err(err(
                        Status::ERR_UNKNOWN_DATA_TYPE,
                        at,
                        format!("{} has no VALUE of {ty}", self.comp),
                    ));
                }
                if self.as_read() && self.rel.profile().value_unpack_refuses.contains(&ty) {
                    return Err(err(
                        Status::ERR_UNPACK_FAILURE,
                        at,
                        format!(
                            "the VALUE unpacker of {} does not know {ty} (quirk R8)",
                            self.rel
                        ),
                    ));
                }
                // the common leaf types without `one`'s frame; the nesting ones through `one`,
                // keeping `one_hot`'s larger frame off the recursion path
                match ty {
                    DataType::PROC
                    | DataType::STRING
                    | DataType::BOOL
                    | DataType::UINT32
                    | DataType::UINT64
                    | DataType::BYTE_OBJECT => self.one_hot(ty),
                    _ => self.one(ty),
                }
            }
        }
    }
}
