//! The reader side: one decoder for every family over a bounded [`Reader`].
//!
//! [`Dec`] is one type; its methods live in the file of their concern:
//!
//! * `calls`: top-level unpack calls (count, described tags, capacity);
//! * `plan`: how a call's values are read (the plan and element steps, with the integer
//!   quirk state and the POINTER budget) and the per-value loops;
//! * `reader`: bytes, type tags and the integers of each family;
//! * `strings`: strings, byte objects, float and regex text;
//! * `leaf`: the types that do not nest; `structs`: PROC, TIMEVAL, KVAL, QUERY, APP, ...;
//! * `containers`: INFO_ARRAY, DATA_ARRAY and the nesting bound;
//! * `value_info`: VALUE and INFO;
//! * `room`: bounded reservations and fallible growth;
//! * `observing`: the path and fields an [`Observer`] hears (nothing for [`Quiet`]).

use crate::component::{BufferKind, Component, Family, Release};
use crate::error::Error;
use crate::observe::{Observer, Quiet, Seg};
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::wire::Reader;
use bytes::Bytes;

mod calls;
mod containers;
mod leaf;
mod observing;
mod plan;
mod reader;
mod room;
mod strings;
mod structs;
mod value_info;

/// Decoder options beyond the release profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Quirk D1: read modern DATA_TYPE values as plain varints (as written) instead of
    /// zigzag (as OpenPMIx reads them).
    pub datatype_as_written: bool,
    /// Decode what OpenPMIx's packer wrote where its own unpacker reads something else
    /// (quirks D1, L2, L4, U8, U10, U11, U12, U13): useful to inspect bytes and to prove a
    /// round trip. Off by default: we decode like the C receiver does.
    pub as_written: bool,
}

pub(crate) struct Dec<'a, O: Observer = Quiet> {
    pub r: Reader<'a>,
    /// The input as shared memory, when there is one: strings and byte payloads are then
    /// slices of it (no copy); otherwise they are copied out of the borrowed input.
    src: Option<&'a Bytes>,
    fam: Family,
    comp: Component,
    rel: Release,
    desc: bool,
    depth: u32,
    opts: DecodeOptions,
    /// Inside a self-tagged integer array: the remote type its one tag announced.
    array_int: Option<DataType>,
    /// Reading the second or later value of one integer unpack call (quirk R1).
    int_tail: bool,
    /// INFO_ARRAY nesting depth.
    info_depth: u32,
    /// QUERY nesting depth (a qualifier's value can be a QUERY again).
    query_depth: u32,
    /// POINTER values this decode may still produce. One sentinel byte stands for a whole
    /// run (quirk P1), so the budget is shared by the whole decode - the input's length
    /// plus [`POINTER_SLACK`] - and many short runs cannot multiply it.
    pointer_budget: u64,
    /// Who hears what is read ([`Quiet`] on the plain API: nothing below runs for it).
    obs: O,
    /// The observer's path: the structures open around the current read.
    path: Vec<Seg>,
    /// How many steps of `path` each open structure took (a pending name opens with it).
    frames: Vec<u8>,
    /// The name of the next field, given by the structure about to read it.
    pending: Option<Seg>,
    /// Bytes of room this decode may still reserve ahead of decoding (`Dec::make_room`).
    reserve_budget: usize,
    /// Whether a VALUE of every type in [`QUICK_VALUE_TYPES`] passes `value_payload`'s
    /// checks (family, registration, release refusals): decided once, not per value.
    quick_values: bool,
    /// The release's string rules, read once (`Profile::string_forces_nul`,
    /// `Profile::negative_string_is_null`).
    string_forces_nul: bool,
    negative_string_is_null: bool,
    /// Whether the values read are kept. A view (`Codec::view`) reads every value once to
    /// check and index the input and keeps none: each container's elements are dropped as
    /// they are read, so its heap stays bounded by the nesting, not by the input.
    keep_values: bool,
}

/// The value types an INFO usually carries, read inline by `Dec::info_rest`.
const QUICK_VALUE_TYPES: [DataType; 5] = [
    DataType::BOOL,
    DataType::UINT32,
    DataType::UINT64,
    DataType::STRING,
    DataType::PROC,
];

/// How the values of one call (or DATA_ARRAY payload) are read, decided by `Dec::plan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Each value on its own ([`Dec::one`]).
    General,
    /// A self-describing integer array: one always-tag, read once, names the remote width
    /// of every value (quirk D2).
    SelfTagged(DataType),
    /// A modern integer array: values after the first are read as a tail (quirk R1).
    ModernInt,
    /// POINTERs: one sentinel byte stands for them all, no bytes per value (quirk P1).
    Pointers,
}

/// How many POINTER values beyond the input's length one decode may produce (quirk P1).
pub const POINTER_SLACK: u64 = 4096;

/// The most values reserved ahead of decoding them once the reservation budget is spent
/// (see `Dec::make_room`).
const RESERVE_AHEAD: usize = 4096;

/// Bytes of room one decode may reserve ahead of decoding, per input byte.
const RESERVE_PER_INPUT_BYTE: usize = 8;

#[cold]
#[inline(never)]
fn err(status: Status, at: usize, reason: impl Into<String>) -> Error {
    Error::new(status, at, reason)
}

impl<'a> Dec<'a, Quiet> {
    pub fn new(
        bytes: &'a [u8],
        comp: Component,
        kind: BufferKind,
        rel: Release,
        opts: DecodeOptions,
    ) -> Self {
        Dec {
            r: Reader::new(bytes),
            src: None,
            fam: comp.family(),
            comp,
            rel,
            desc: kind == BufferKind::FullyDescribed,
            depth: 0,
            opts,
            array_int: None,
            int_tail: false,
            info_depth: 0,
            query_depth: 0,
            pointer_budget: bytes.len() as u64 + POINTER_SLACK,
            reserve_budget: bytes.len().saturating_mul(RESERVE_PER_INPUT_BYTE),
            quick_values: matches!(comp.family(), Family::Converged | Family::Modern)
                && QUICK_VALUE_TYPES.iter().all(|ty| {
                    !quirks::VALUE_REFUSED_TYPES.contains(ty)
                        && comp.registers(*ty, rel)
                        && (opts.as_written || !rel.profile().value_unpack_refuses.contains(ty))
                }),
            string_forces_nul: rel.profile().string_forces_nul,
            negative_string_is_null: rel.profile().negative_string_is_null,
            keep_values: true,
            obs: Quiet,
            path: Vec::new(),
            frames: Vec::new(),
            pending: None,
        }
    }

    /// A decoder over shared input: what it decodes shares `src`'s memory.
    pub fn shared(
        src: &'a Bytes,
        comp: Component,
        kind: BufferKind,
        rel: Release,
        opts: DecodeOptions,
    ) -> Self {
        let mut d = Dec::new(src, comp, kind, rel, opts);
        d.src = Some(src);
        d
    }
}
