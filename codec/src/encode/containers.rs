//! Containers and nesting: INFO_ARRAY and DATA_ARRAY, with the nesting bound.

use super::{fail, Enc, MAX_ARRAY_DEPTH};
use crate::component::Family;
use crate::error::Result;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;

impl Enc {
    #[inline(never)]
    pub(super) fn info_array(&mut self, infos: &[Info]) -> Result<()> {
        if self.fam == Family::Legacy20
            && self
                .rel
                .profile()
                .size_tagged(DataType::INFO_ARRAY, self.fam)
        {
            // v20's INFO_ARRAY packer uses the base SIZE packer: the always-tag but no
            // described-mode tag (quirk L2); its unpacker expects both.
            self.tag(DataType::UINT64);
            self.u64(infos.len() as u64);
        } else {
            self.modex_size(DataType::INFO_ARRAY, infos.len() as u64);
        }
        for i in infos {
            if self.fam == Family::Legacy20 {
                // v20's INFO_ARRAY packer calls the base INFO packer (quirk L2).
                self.base_info(i)?;
            } else {
                self.info(i)?;
            }
        }
        Ok(())
    }

    pub(super) fn darray(&mut self, d: &DataArray) -> Result<()> {
        for v in &d.values {
            if v.data_type() != d.ty {
                return Err(fail(
                    Status::ERR_BAD_PARAM,
                    format!("{} element in a DATA_ARRAY of {}", v.data_type(), d.ty),
                ));
            }
        }
        if self.depth >= MAX_ARRAY_DEPTH
            && self.rel.profile().darray_pack_depth_cap
            && !self.legacy()
        {
            return Err(fail(
                Status::ERR_PACK_FAILURE,
                "DATA_ARRAY nested deeper than 100",
            ));
        }
        match self.fam {
            Family::Legacy20 => {
                self.out.extend_from_slice(&d.ty.0.to_be_bytes());
                self.size(d.values.len() as u64);
                if d.values.is_empty() || d.ty == DataType::UNDEF {
                    return Ok(());
                }
                self.depth += 1;
                let r = self.pack_buffer(d.ty, &d.values);
                self.depth -= 1;
                r
            }
            _ => {
                self.tag(d.ty);
                if d.ty == DataType::UNDEF && !self.rel.profile().darray_undef_has_size {
                    return Ok(()); // master: the typeless marker has no SIZE (quirk R2)
                }
                self.size(d.values.len() as u64);
                if d.values.is_empty() || d.ty == DataType::UNDEF {
                    return Ok(());
                }
                if !self.comp.registers(d.ty, self.rel) {
                    return Err(fail(
                        Status::ERR_UNKNOWN_DATA_TYPE,
                        format!("{} does not register {}", self.comp, d.ty),
                    ));
                }
                self.depth += 1;
                let r = self.values(d.ty, &d.values);
                self.depth -= 1;
                r
            }
        }
    }
}
