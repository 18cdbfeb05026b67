//! The writer: one encoder for every family; the family decides integer, tag and layout details.
//!
//! [`Enc`] is one type; its methods live in the file of their concern, as the decoder's do:
//!
//! * `calls`: top-level pack calls (count, described tags) and the values of a call;
//! * `writer`: bytes, type tags and the integers of each family;
//! * `strings`: strings, byte objects, float text;
//! * `leaf`: the types that do not nest; `structs`: PROC, TIMEVAL, PDATA, QUERY, APP, ...;
//! * `containers`: INFO_ARRAY, DATA_ARRAY and the nesting bound;
//! * `value_info`: VALUE and INFO.

use crate::component::{BufferKind, Component, Family, Release};
use crate::error::Error;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;
use crate::wire::{flex_into, zigzag};

mod calls;
mod containers;
mod leaf;
mod strings;
mod structs;
mod value_info;
mod writer;

/// Maximum DATA_ARRAY nesting depth (OpenPMIx master `pmix_bfrops_base_max_array_depth`).
pub const MAX_ARRAY_DEPTH: u32 = 100;

pub(crate) struct Enc {
    pub out: Vec<u8>,
    fam: Family,
    comp: Component,
    rel: Release,
    desc: bool,
    depth: u32,
}

/// A string's length prefix (`n` = its bytes and NUL) written at the start of `spare`
/// (at least 10 bytes): a zigzag flex integer in the modern family, else a big-endian
/// INT32. Returns how many bytes it took.
#[inline(always)]
fn string_prefix(fam: Family, n: usize, spare: &mut [std::mem::MaybeUninit<u8>]) -> usize {
    match fam {
        Family::Modern => flex_into(zigzag(n as i64), spare),
        _ => {
            for (slot, byte) in spare.iter_mut().zip((n as i32).to_be_bytes()) {
                slot.write(byte);
            }
            4
        }
    }
}

fn fail(status: Status, reason: impl Into<String>) -> Error {
    Error::new(status, 0, reason)
}

/// A guess at the encoded size of `items`, for the output's first allocation (growing a
/// buffer from nothing costs more than the guess). At or a little above the size for the
/// common types in every family (a short guess costs a regrowth); capped at 16 MiB.
pub(crate) fn size_hint(items: &[Item]) -> usize {
    fn value(v: &Value) -> usize {
        match v {
            Value::Proc(p) => p.nspace[..].len() + 14,
            Value::String(Some(t)) => t[..].len() + 6,
            Value::ByteObject(b) => b.len() + 12,
            Value::Info(i) => i.key[..].len() + 16 + value(&i.value),
            Value::DataArray(d) => 16 + d.values.iter().map(value).sum::<usize>(),
            _ => 10,
        }
    }
    // A long call is sampled (every `step`-th value, scaled up, an eighth more for
    // luck): walking every value cost a fifth of a PROC encode.
    let call = |i: &Item| {
        let n = i.values.len();
        let step = (n / 256).max(1);
        let sampled: usize = i.values.iter().step_by(step).map(value).sum();
        let scaled = if step == 1 {
            sampled
        } else {
            sampled * step + sampled * step / 8
        };
        16 + scaled
    };
    let n: usize = items.iter().map(call).sum();
    n.min(16 << 20)
}

/// The converged family's SIZE (a UINT64 tag and eight big-endian bytes) at the start of
/// `head`, for [`put_sized_run`].
fn converged_size_into(n: u64, head: &mut [std::mem::MaybeUninit<u8>]) -> usize {
    let [t0, t1] = DataType::UINT64.0.to_be_bytes();
    let [a, b, c, d, e, f, g, h] = n.to_be_bytes();
    for (slot, byte) in head[..10].iter_mut().zip([t0, t1, a, b, c, d, e, f, g, h]) {
        slot.write(byte);
    }
    10
}

/// The error for the first value of `item` that is not of the call's type.
fn type_mismatch(item: &Item) -> Option<Error> {
    let v = item.values.iter().find(|v| v.data_type() != item.ty)?;
    Some(fail(
        Status::ERR_BAD_PARAM,
        format!(
            "value of type {} in a pack call of {}",
            v.data_type(),
            item.ty
        ),
    ))
}

impl Enc {
    /// An encoder appending to `out`.
    pub fn new(comp: Component, kind: BufferKind, rel: Release, out: Vec<u8>) -> Self {
        Enc {
            out,
            fam: comp.family(),
            comp,
            rel,
            desc: kind == BufferKind::FullyDescribed,
            depth: 0,
        }
    }

    fn legacy(&self) -> bool {
        matches!(self.fam, Family::Legacy12 | Family::Legacy20)
    }
}
