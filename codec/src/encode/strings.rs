//! Strings and byte objects: C strings with each family's length prefix, sized payloads,
//! the text of floats.

use super::{fail, string_prefix, Enc};
use crate::error::Result;
use crate::float::format_percent_f;
use crate::status::Status;
use crate::value::*;

impl Enc {
    /// A nullable C string: INT32 length including the NUL (0 = NULL), then the bytes and NUL.
    #[inline]
    pub(super) fn string(&mut self, s: Option<&[u8]>) -> Result<()> {
        match s {
            None => self.i32(0),
            Some(b) => {
                if b.len() >= i32::MAX as usize - 1 {
                    return Err(fail(
                        Status::ERR_BAD_PARAM,
                        "string too long for an INT32 length",
                    ));
                }
                // prefix, bytes and NUL with one capacity check, written in place
                let n = b.len() + 1;
                self.out.reserve(n + 10);
                let len = self.out.len();
                let spare = self.out.spare_capacity_mut();
                let head = string_prefix(self.fam, n, spare);
                for (slot, byte) in spare[head..].iter_mut().zip(b) {
                    slot.write(*byte);
                }
                spare[head + b.len()].write(0);
                // SAFETY: the `head + n` bytes after `len` were just written, within the
                // capacity reserved above (`n + 10`, and a prefix takes at most 10).
                unsafe { self.out.set_len(len + head + n) };
            }
        }
        Ok(())
    }

    /// A non-NULL string held in a [`Text`]: an inline one is copied as one fixed-size
    /// block (the bytes after its length are overwritten by the NUL and what follows),
    /// cheaper than a copy of exactly its length.
    #[inline(always)]
    pub(super) fn text_required(&mut self, t: &Text) -> Result<()> {
        let Some(block) = t.inline_block() else {
            return self.string(Some(t.as_bytes()));
        };
        let blen = block[Text::INLINE] as usize;
        let n = blen + 1;
        self.out.reserve(10 + block.len());
        let len = self.out.len();
        let spare = self.out.spare_capacity_mut();
        let head = string_prefix(self.fam, n, spare);
        let dst = &mut spare[head..head + block.len()];
        // SAFETY: `dst` is `block.len()` bytes of the vector's spare room, which cannot
        // overlap `block` (borrowed from a value, not from the output).
        unsafe {
            std::ptr::copy_nonoverlapping(block.as_ptr(), dst.as_mut_ptr().cast::<u8>(), dst.len())
        };
        spare[head + blen].write(0);
        // SAFETY: the `head + n` bytes after `len` were just written (`n <= 24`), within
        // the capacity reserved above (a prefix takes at most 10 bytes).
        unsafe { self.out.set_len(len + head + n) };
        Ok(())
    }

    #[inline]
    pub(super) fn text(&mut self, t: &NullableText) -> Result<()> {
        self.string(t.as_ref().map(|t| t.as_bytes()))
    }

    #[inline]
    pub(super) fn bytes_sized(&mut self, b: &[u8]) {
        self.size(b.len() as u64);
        self.out.extend_from_slice(b);
    }

    pub(super) fn float_text(&mut self, x: f64) -> Result<()> {
        let s = format_percent_f(x);
        self.string(Some(s.as_bytes()))
    }
}
