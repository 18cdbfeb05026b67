//! Judges: what bytes a pack call list gives and how bytes unpack, said by the real
//! library (through the oracle) or by pmix-codec.

use pmix_codec::*;
use pmix_oracle::oracle::{Oracle, Reply};
use std::result::Result;

/// What a pack call list came to.
#[derive(Clone, Debug)]
pub enum Packed {
    /// The buffer.
    Ok(Vec<u8>),
    /// Call `index` failed with `status`; `partial` is what the buffer held then.
    Err {
        /// PMIx status.
        status: i32,
        /// Failing call.
        index: usize,
        /// Bytes written before the failure.
        partial: Vec<u8>,
    },
    /// The library crashed or hung.
    Crashed(String),
    /// The request cannot be expressed to this judge.
    Unexpressible(String),
}

/// What an unpack call list came to.
#[derive(Clone, Debug)]
pub enum Unpacked {
    /// The items read.
    Ok(Vec<Item>),
    /// Call `index` failed with `status`.
    Err {
        /// PMIx status.
        status: i32,
        /// Failing call.
        index: usize,
    },
    /// The library crashed or hung.
    Crashed(String),
    /// The request or the answer cannot be expressed.
    Unexpressible(String),
}

/// Something that says what bytes a pack call list gives and how bytes unpack: the real
/// library (through the oracle) or `pmix-codec` (for master behaviour no library here has).
pub trait Judge {
    /// Pack `items` into one fresh buffer.
    fn pack(&mut self, comp: Component, kind: BufferKind, items: &[Item])
        -> Result<Packed, String>;
    /// Unpack `bytes` with one call per type (capacity large enough for any honest count).
    fn unpack(
        &mut self,
        comp: Component,
        kind: BufferKind,
        bytes: &[u8],
        types: &[DataType],
        min_cap: usize,
    ) -> Result<Unpacked, String>;
    /// Whether this is a real library (else: our codec).
    fn is_library(&self) -> bool;
    /// Requests answered so far.
    fn requests(&self) -> usize;
    /// Answer the next requests from a fresh library process (no effect on the codec).
    fn fresh(&mut self) {}
}

/// The installed libpmix, through `pmix-oracle`.
pub struct LibraryJudge {
    /// The running oracle.
    pub oracle: Oracle,
    n: usize,
}

impl LibraryJudge {
    /// Build (if needed) and start the oracle against the installed libpmix.
    pub fn start() -> Result<Self, String> {
        Ok(LibraryJudge {
            oracle: Oracle::start()?,
            n: 0,
        })
    }

    /// Start the oracle of a library release made available by `tools/peers.sh`.
    pub fn start_for(library: &str) -> Result<Self, String> {
        Ok(LibraryJudge {
            oracle: Oracle::start_for(library)?,
            n: 0,
        })
    }
}

impl Judge for LibraryJudge {
    fn pack(
        &mut self,
        comp: Component,
        kind: BufferKind,
        items: &[Item],
    ) -> Result<Packed, String> {
        self.n += 1;
        Ok(match self.oracle.pack(comp, kind, items)? {
            Reply::Ok(b) => Packed::Ok(b),
            Reply::Err {
                status,
                index,
                partial,
            } => Packed::Err {
                status,
                index,
                partial,
            },
            Reply::Crashed(s) => Packed::Crashed(s),
            Reply::Bad(s) => Packed::Unexpressible(s),
        })
    }
    fn unpack(
        &mut self,
        comp: Component,
        kind: BufferKind,
        bytes: &[u8],
        types: &[DataType],
        min_cap: usize,
    ) -> Result<Unpacked, String> {
        self.n += 1;
        // A capacity above any count the bytes can satisfy, so the library never stops at
        // the capacity (PMIX_ERR_UNPACK_INADEQUATE_SPACE) where a decoder without one would go on.
        let cap = (bytes.len() + 8).max(min_cap);
        let calls: Vec<(DataType, usize)> = types.iter().map(|t| (*t, cap)).collect();
        Ok(match self.oracle.unpack(comp, kind, bytes, &calls)? {
            Reply::Ok(items) => Unpacked::Ok(items),
            Reply::Err { status, index, .. } => Unpacked::Err { status, index },
            Reply::Crashed(s) => Unpacked::Crashed(s),
            Reply::Bad(s) => Unpacked::Unexpressible(s),
        })
    }
    fn is_library(&self) -> bool {
        true
    }
    fn requests(&self) -> usize {
        self.n
    }
    fn fresh(&mut self) {
        self.oracle.restart();
    }
}

/// `pmix-codec` with a release profile.
pub struct CodecJudge {
    /// The profile.
    pub release: Release,
    n: usize,
}

impl CodecJudge {
    /// A codec judge for `release`.
    pub fn new(release: Release) -> Self {
        CodecJudge { release, n: 0 }
    }
}

impl Judge for CodecJudge {
    fn pack(
        &mut self,
        comp: Component,
        kind: BufferKind,
        items: &[Item],
    ) -> Result<Packed, String> {
        self.n += 1;
        Ok(codec_pack(
            Codec::new(comp, kind).with_release(self.release),
            items,
        ))
    }
    fn unpack(
        &mut self,
        comp: Component,
        kind: BufferKind,
        bytes: &[u8],
        types: &[DataType],
        _min_cap: usize,
    ) -> Result<Unpacked, String> {
        self.n += 1;
        Ok(codec_unpack(
            Codec::new(comp, kind).with_release(self.release),
            bytes,
            types,
        ))
    }
    fn is_library(&self) -> bool {
        false
    }
    fn requests(&self) -> usize {
        self.n
    }
}

pub(super) fn codec_pack(codec: Codec, items: &[Item]) -> Packed {
    match codec.encode(items) {
        Ok(b) => Packed::Ok(b),
        Err(e) => {
            let e = e.into_details();
            Packed::Err {
                status: e.status.0,
                index: e.item,
                partial: e.partial,
            }
        }
    }
}

pub(super) fn codec_unpack(codec: Codec, bytes: &[u8], types: &[DataType]) -> Unpacked {
    match codec.decode(bytes, types) {
        Ok(items) => Unpacked::Ok(items),
        Err(e) => Unpacked::Err {
            status: e.status.0,
            index: e.item,
        },
    }
}
