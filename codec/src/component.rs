//! bfrops components, their families, and the types each registers in each release.
//!
//! Families are code; versions are data: a component is its family plus the table of
//! types it registers (which depends on the OpenPMIx release that hosts it).

use crate::types::DataType;
use std::fmt;
use std::str::FromStr;

/// A bfrops component: one wire-format version, named as in the PTL handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    /// PMIx 1.2 (legacy family, own code, 4-byte tags in 1.x numbering).
    V12,
    /// PMIx 2.0 (legacy family, own code).
    V20,
    /// PMIx 2.1 (converged family: base driver, fixed-width integers).
    V21,
    /// PMIx 3.x (converged family).
    V3,
    /// PMIx 4.0 (modern family: flexible integers).
    V4,
    /// PMIx 4.1 (modern; native in 4.2.x and 5.0.x).
    V41,
    /// PMIx 5.1/6.0 (modern).
    V51,
    /// PMIx 6.1 / master (modern; the only one with ALLOC_INHERIT).
    V61,
}

/// The code that encodes a component's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// v12: its own pack/unpack, be32 tags in PMIx 1.x numbering.
    Legacy12,
    /// v20: its own pack/unpack, be16 tags, tags nested values in described buffers.
    Legacy20,
    /// v21, v3: the base driver with fixed-width big-endian integers.
    Converged,
    /// v4, v41, v51, v61: the base driver with flexible (varint) integers.
    Modern,
}

/// The OpenPMIx release whose behaviour a codec reproduces for a given component name.
///
/// Components with the same name differ in bytes between releases (see [`crate::quirks`]).
/// A release is a name for a [`Profile`]: the data (type tables and a few flags) that the one
/// encoder and the one decoder consult where releases differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Release {
    /// OpenPMIx 4.2.x (Debian's libpmix 4.2.2): v12 ... v41, v41 registers STATS 61-64,
    /// DATA_ARRAY of UNDEF carries a SIZE, INFO_ARRAY/MODEX sizes are tagged.
    OpenPmix4_2,
    /// OpenPMIx master (7.0.0a1, commit 494e9d9d): all eight components, v61 with REGEX2 and ALLOC_INHERIT.
    #[default]
    Master,
}

/// How a modern (flex-int) decoder treats input that ends inside a varint (quirk R1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlexTail {
    /// 4.2.x's psquash: the last available byte is read as a raw 8-bit tail; a later value
    /// of the same call that finds no bytes left is PMIX_ERR_FATAL.
    RawLastByte,
    /// Master: input ending inside a varint is READ_PAST_END.
    PastEnd,
}

/// What a release does differently: the data behind a [`Release`] name.
///
/// Every field is consulted at one place in the encoder or decoder; none selects a copy of
/// a code path. The quirk each flag implements is named on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Short name (`4.2`, `master`).
    pub name: &'static str,
    /// The library release this profile is judged against.
    pub library: &'static str,
    /// The components the release registers, oldest first.
    pub components: &'static [Component],
    /// Components that register the STATS types 61-64 (quirk R4).
    pub stats_in: &'static [Component],
    /// Components that register types 73-75 (REGEX2 ... ALLOC_INHERIT).
    pub newest_types_in: &'static [Component],
    /// Flex-integer truncation (quirk R1).
    pub flex_tail: FlexTail,
    /// A negative string length reads as NULL (master) instead of failing (4.2.x).
    pub negative_string_is_null: bool,
    /// The unpacker forces a string's last byte to NUL (master); 4.2.x keeps it.
    pub string_forces_nul: bool,
    /// PROC_STATS unpack reads a peak_vsize the packer never wrote (quirk U10).
    pub proc_stats_reads_peak_vsize: bool,
    /// A REGEX framed as `pmix...` is accepted (4.2.x) besides `raw:`/`blob:` (quirk U4).
    pub regex_pmix_framing: bool,
    /// INFO_ARRAY/MODEX sizes carry a UINT64 tag in v20/v21/v3 (quirk R3).
    pub modex_size_tagged: bool,
    /// DATA_ARRAY of UNDEF carries a SIZE after its tag (quirk R2).
    pub darray_undef_has_size: bool,
    /// Nested DATA_ARRAY packing stops at the depth cap with PACK_FAILURE.
    pub darray_pack_depth_cap: bool,
    /// pack_val refuses the types of [`crate::quirks::VALUE_REFUSED_TYPES`].
    pub value_refuses_types: bool,
    /// DATA_ARRAY unpack constructs only the types of [`crate::quirks::DARRAY_CONSTRUCT_4_2`].
    pub darray_construct_4_2: bool,
    /// pack_val's pointer-valued list includes the STATS types (4.2.x) rather than the newer
    /// structs DEVICE, RESOURCE_UNIT, NODE_PID, REGEX2 (master).
    pub pointer_values_stats: bool,
}

const V12_V41: &[Component] = &[
    Component::V12,
    Component::V20,
    Component::V21,
    Component::V3,
    Component::V4,
    Component::V41,
];

/// OpenPMIx 4.2.x, and 5.0.x (byte-identical).
const PROFILE_4_2: Profile = Profile {
    name: "4.2",
    library: "OpenPMIx 4.2.2 (Debian 12 libpmix-dev 4.2.2-1+deb12u1)",
    components: V12_V41,
    stats_in: &[Component::V41],
    newest_types_in: &[],
    flex_tail: FlexTail::RawLastByte,
    negative_string_is_null: false,
    string_forces_nul: false,
    proc_stats_reads_peak_vsize: true,
    regex_pmix_framing: true,
    modex_size_tagged: true,
    darray_undef_has_size: true,
    darray_pack_depth_cap: false,
    value_refuses_types: false,
    darray_construct_4_2: true,
    pointer_values_stats: true,
};

/// OpenPMIx master at commit 494e9d9d.
const PROFILE_MASTER: Profile = Profile {
    name: "master",
    library: "OpenPMIx master 494e9d9d (7.0.0a1)",
    components: &Component::ALL,
    stats_in: &[],
    newest_types_in: &[Component::V61],
    flex_tail: FlexTail::PastEnd,
    negative_string_is_null: true,
    string_forces_nul: true,
    proc_stats_reads_peak_vsize: false,
    regex_pmix_framing: false,
    modex_size_tagged: false,
    darray_undef_has_size: false,
    darray_pack_depth_cap: true,
    value_refuses_types: true,
    darray_construct_4_2: false,
    pointer_values_stats: false,
};

impl Release {
    /// Every release profile.
    pub const ALL: [Release; 2] = [Release::OpenPmix4_2, Release::Master];

    /// The data that makes this release differ.
    pub const fn profile(self) -> &'static Profile {
        match self {
            Release::OpenPmix4_2 => &PROFILE_4_2,
            Release::Master => &PROFILE_MASTER,
        }
    }

    /// The profile's short name as used on command lines and in vector files.
    pub fn name(self) -> &'static str {
        self.profile().name
    }

    /// The components the release ships.
    pub fn components(self) -> &'static [Component] {
        self.profile().components
    }

    /// Whether the release registers the component at all.
    pub fn ships(self, c: Component) -> bool {
        self.components().contains(&c)
    }
}

impl FromStr for Release {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "4.2" | "4.2.2" | "openpmix-4.2" | "OpenPmix4_2" => Ok(Release::OpenPmix4_2),
            "master" | "Master" | "7.0.0a1" => Ok(Release::Master),
            _ => Err(format!(
                "unknown release profile {s:?} (expected 4.2 or master)"
            )),
        }
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Component {
    /// All eight components, oldest first.
    pub const ALL: [Component; 8] = [
        Component::V12,
        Component::V20,
        Component::V21,
        Component::V3,
        Component::V4,
        Component::V41,
        Component::V51,
        Component::V61,
    ];

    /// The name used in the handshake and in `PMIX_MCA_bfrops`.
    pub fn name(self) -> &'static str {
        match self {
            Component::V12 => "v12",
            Component::V20 => "v20",
            Component::V21 => "v21",
            Component::V3 => "v3",
            Component::V4 => "v4",
            Component::V41 => "v41",
            Component::V51 => "v51",
            Component::V61 => "v61",
        }
    }

    /// The family whose code encodes this component.
    pub fn family(self) -> Family {
        match self {
            Component::V12 => Family::Legacy12,
            Component::V20 => Family::Legacy20,
            Component::V21 | Component::V3 => Family::Converged,
            _ => Family::Modern,
        }
    }

    /// Whether this component registers `ty` in `release`.
    ///
    /// A component a release does not ship is described as master has it.
    pub fn registers(self, ty: DataType, release: Release) -> bool {
        let id = ty.0;
        match id {
            1..=25 | 27 | 28 | 30..=41 => true,
            26 => true, // BUFFER: deprecated id, still registered everywhere
            29 | 44 => self <= Component::V3, // MODEX, INFO_ARRAY
            42 | 43 => self >= Component::V20,
            45 | 46 => self >= Component::V3,
            47..=59 => self >= Component::V4,
            60 | 65..=69 => self >= Component::V41,
            61..=64 => release.profile().stats_in.contains(&self), // quirk R4
            70..=72 => self >= Component::V51,
            73..=75 => release.profile().newest_types_in.contains(&self),
            _ => false,
        }
    }

    /// The types this component registers in `release`, in id order.
    pub fn registered_types(self, release: Release) -> Vec<DataType> {
        (1..=75u16)
            .map(DataType)
            .filter(|t| self.registers(*t, release))
            .collect()
    }
}

impl FromStr for Component {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Component::ALL
            .iter()
            .copied()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("unknown bfrops component {s:?} (expected one of v12 v20 v21 v3 v4 v41 v51 v61)"))
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The buffer kind (`pmix_bfrop_buffer_type_t`). It is not carried in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BufferKind {
    /// `PMIX_BFROP_BUFFER_NON_DESC` (1): counts and values only.
    #[default]
    NonDescribed,
    /// `PMIX_BFROP_BUFFER_FULLY_DESC` (2): each pack call also writes type tags.
    FullyDescribed,
}

impl BufferKind {
    /// Both kinds.
    pub const ALL: [BufferKind; 2] = [BufferKind::NonDescribed, BufferKind::FullyDescribed];

    /// `non-described` / `fully-described`.
    pub fn name(self) -> &'static str {
        match self {
            BufferKind::NonDescribed => "non-described",
            BufferKind::FullyDescribed => "fully-described",
        }
    }
}

impl FromStr for BufferKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "non-described" | "nd" | "NON_DESC" | "PMIX_BFROP_BUFFER_NON_DESC" => {
                Ok(BufferKind::NonDescribed)
            }
            "fully-described"
            | "described"
            | "fd"
            | "FULLY_DESC"
            | "PMIX_BFROP_BUFFER_FULLY_DESC" => Ok(BufferKind::FullyDescribed),
            _ => Err(format!(
                "unknown buffer kind {s:?} (expected non-described or fully-described)"
            )),
        }
    }
}

impl fmt::Display for BufferKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
