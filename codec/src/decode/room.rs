//! Room for values: reservations bounded by the input, fallible growth, counts checked
//! against the bytes left.

use super::{err, Dec, RESERVE_AHEAD};
use crate::error::Result;
use crate::observe::Observer;
use crate::status::Status;

impl<'a, O: Observer> Dec<'a, O> {
    /// A vector with room for up to `n` values, as far as the input can pay for it (see
    /// [`Dec::make_room`]).
    #[inline]
    pub(super) fn with_room<T>(&mut self, n: usize) -> Vec<T> {
        let mut v = Vec::new();
        if self.keep_values {
            self.make_room(&mut v, n);
        }
        v
    }

    /// Room for one more value in `v` ([`room_for_one`]), when values are kept.
    #[inline(always)]
    pub(super) fn room<T>(&mut self, v: &mut Vec<T>) -> Result<()> {
        if self.keep_values {
            room_for_one(v, self.at())?;
        }
        Ok(())
    }

    /// `v.push(x)` after [`Dec::room`], or drop `x` when values are not kept.
    #[inline(always)]
    pub(super) fn put<T>(&self, v: &mut Vec<T>, x: T) {
        if self.keep_values {
            v.push(x);
        }
    }

    /// Reserve room in `v` for up to `n` more values: no more than one per byte left, and
    /// only while the decode's reservation budget ([`RESERVE_PER_INPUT_BYTE`] bytes per
    /// input byte, shared by every container of the decode, so nesting cannot multiply it)
    /// lasts; beyond that, at most [`RESERVE_AHEAD`] at once. A lying count so costs no
    /// memory the input has not paid for, and an honest one gets its exact room.
    #[inline]
    pub(super) fn make_room<T>(&mut self, v: &mut Vec<T>, n: usize) {
        let size = std::mem::size_of::<T>().max(1);
        let n = n.min(self.r.remaining());
        let afford = self.reserve_budget / size;
        let k = if n <= afford { n } else { n.min(RESERVE_AHEAD) };
        self.reserve_budget = self.reserve_budget.saturating_sub(k * size);
        // best effort: when memory is short, the values are refused as they grow
        let _ = v.try_reserve(k);
    }

    pub(super) fn count_check(&self, n: u64, at: usize, what: &str) -> Result<usize> {
        if n > self.r.remaining() as u64 {
            return Err(err(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                at,
                format!(
                    "{what} count {n} exceeds the {} bytes left",
                    self.r.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }
}

/// Make room for one more value in `v`, growing it fallibly: a decode whose values do not
/// fit in memory fails with PMIX_ERR_NOMEM (-32), as OpenPMIx does when an allocation
/// fails, instead of aborting the process.
#[inline(always)]
pub(super) fn room_for_one<T>(v: &mut Vec<T>, at: usize) -> Result<()> {
    if v.len() == v.capacity() {
        return grow_for_one(v, at);
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn grow_for_one<T>(v: &mut Vec<T>, at: usize) -> Result<()> {
    v.try_reserve(v.capacity().max(4)).map_err(|_| {
        err(
            Status::ERR_NOMEM,
            at,
            format!(
                "out of memory growing an array of {} values past {} bytes",
                v.len(),
                v.capacity() * std::mem::size_of::<T>()
            ),
        )
    })
}

/// Prefetch the byte where the prefix of the record `AHEAD` records on would be if records
/// kept their current `stride`. Walking a run of records by their length prefixes alone is
/// a chain of dependent loads, one cache miss after the other; the prefetch starts the
/// misses early.
#[inline(always)]
pub(super) fn touch_ahead(rest: &[u8], stride: usize) {
    const AHEAD: usize = 16;
    if let Some(b) = rest.get(stride.saturating_mul(AHEAD - 1)) {
        crate::wire::prefetch(b);
    }
}
