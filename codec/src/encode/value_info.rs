//! VALUE and INFO: a value's type and payload, an INFO's key, flags and value.

use super::{fail, Enc};
use crate::component::Family;
use crate::error::Result;
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;

impl Enc {
    /// The value-type field of VALUE/INFO/PDATA.
    #[inline]
    pub(super) fn value_type(&mut self, ty: DataType) {
        match self.fam {
            // v12 and v20 write it as a tagged INT (v12 in 1.x numbering).
            Family::Legacy12 => self.int(quirks::v12_wire_type(ty.0) as i32),
            Family::Legacy20 => self.int(ty.0 as i32),
            _ => self.tag(ty),
        }
    }

    /// A `pmix_value_t`: its type, then its payload.
    pub(super) fn value(&mut self, v: &Value) -> Result<()> {
        let ty = v.data_type();
        match self.fam {
            Family::Legacy12 => self.int(quirks::v12_wire_type(ty.0) as i32),
            _ => self.tag(ty),
        }
        self.value_payload(v)
    }

    pub(super) fn info(&mut self, i: &Info) -> Result<()> {
        self.text_required(&i.key)?;
        if self.fam != Family::Legacy12 {
            self.u32(i.flags);
        }
        if matches!(self.fam, Family::Converged | Family::Modern) {
            // `value_type` + `value_payload` for the common value types, which every
            // converged and modern component registers and a VALUE may carry.
            match &i.value {
                Value::Bool(b) => {
                    self.tag(DataType::BOOL);
                    self.u8(*b as u8);
                    return Ok(());
                }
                Value::Uint32(x) => {
                    self.tag(DataType::UINT32);
                    self.u32(*x);
                    return Ok(());
                }
                Value::Uint64(x) => {
                    self.tag(DataType::UINT64);
                    self.u64(*x);
                    return Ok(());
                }
                Value::String(s) => {
                    self.tag(DataType::STRING);
                    return self.text(s);
                }
                Value::Proc(p) => {
                    self.tag(DataType::PROC);
                    return self.proc(p);
                }
                _ => {}
            }
        }
        self.value_type(i.value.data_type());
        self.value_payload(&i.value)
    }

    /// The base-driver INFO layout, used by v20's INFO_ARRAY packer.
    pub(super) fn base_info(&mut self, i: &Info) -> Result<()> {
        self.string(Some(&i.key[..]))?;
        self.u32(i.flags);
        self.tag(i.value.data_type());
        // The base pack_val calls v20's registered packers directly, not through
        // pack_buffer: no described-mode tag in front of the payload (quirk L2).
        if i.value.data_type() == DataType::UNDEF {
            return Ok(());
        }
        self.one(&i.value)
    }

    /// The payload of a `pmix_value_t` of the value's own type (`pack_val`).
    pub(super) fn value_payload(&mut self, v: &Value) -> Result<()> {
        let ty = v.data_type();
        if ty == DataType::UNDEF {
            return match self.fam {
                Family::Legacy12 => Err(fail(Status::ERROR, "v12 cannot pack an UNDEF value")),
                _ => Ok(()),
            };
        }
        match self.fam {
            Family::Legacy12 => {
                if !quirks::V12_VALUE_TYPES.contains(&ty) {
                    return Err(fail(
                        Status::ERROR,
                        format!("v12 cannot pack a VALUE of {ty}"),
                    ));
                }
                match v {
                    Value::DataArray(d) => {
                        if d.ty != DataType::INFO {
                            return Err(fail(
                                Status::ERR_NOT_SUPPORTED,
                                "v12 sends only arrays of INFO",
                            ));
                        }
                        let infos: Vec<Info> = d
                            .values
                            .iter()
                            .filter_map(|v| match v {
                                Value::Info(i) => Some((**i).clone()),
                                _ => None,
                            })
                            .collect();
                        self.legacy_desc(DataType::INFO_ARRAY);
                        self.one(&Value::InfoArray(infos))
                    }
                    Value::ProcRank(r) => {
                        self.legacy_desc(DataType::INT);
                        self.int(*r as i32);
                        Ok(())
                    }
                    _ => {
                        self.legacy_desc(ty);
                        self.one(v)
                    }
                }
            }
            Family::Legacy20 => {
                if !quirks::V20_VALUE_TYPES.contains(&ty) {
                    return Err(fail(
                        Status::ERROR,
                        format!("v20 cannot pack a VALUE of {ty}"),
                    ));
                }
                let wire_ty = if ty == DataType::COMPRESSED_STRING {
                    DataType::BYTE_OBJECT
                } else {
                    ty
                };
                self.legacy_desc(wire_ty);
                self.one(v)
            }
            _ => {
                if quirks::VALUE_REFUSED_TYPES.contains(&ty)
                    && self.rel.profile().value_refuses_types
                {
                    return Err(fail(
                        Status::ERR_BAD_PARAM,
                        format!("a VALUE cannot carry {ty}"),
                    ));
                }
                if !self.comp.registers(ty, self.rel) {
                    let status = if quirks::is_pointer_value_type(ty, self.rel) {
                        Status::ERR_UNKNOWN_DATA_TYPE
                    } else {
                        Status::ERROR
                    };
                    return Err(fail(
                        status,
                        format!("{} cannot pack a VALUE of {ty}", self.comp),
                    ));
                }
                if ty == DataType::DATA_BUFFER {
                    return Err(fail(
                        Status::ERR_NOT_SUPPORTED,
                        "VALUE of DATA_BUFFER: OpenPMIx packs garbage (quirk U1)",
                    ));
                }
                self.one(v)
            }
        }
    }
}
