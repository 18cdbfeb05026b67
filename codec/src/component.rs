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
    /// OpenPMIx 5.0.x (Debian trixie's 5.0.7): byte-identical to 4.2.x but for quirk U13.
    OpenPmix5_0,
    /// OpenPMIx 6.0.x (built from tag v6.0.0): v12 ... v51.
    OpenPmix6_0,
    /// OpenPMIx 6.1.x (built from tag v6.1.0): all eight names, but its v61 lacks types 74 and 75.
    OpenPmix6_1,
    /// OpenPMIx 7.0 (Debian sid's 7.0.0rc1): v21 ... v61 (v12 and v20 are gone), v61 with
    /// REGEX2 and ALLOC_INHERIT.
    OpenPmix7_0,
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

impl Profile {
    /// Whether the SIZE in front of a MODEX or INFO_ARRAY carries a UINT64 tag (quirk R3).
    pub fn size_tagged(&self, ty: DataType, fam: Family) -> bool {
        fam == Family::Legacy12
            || match ty {
                DataType::MODEX => self.modex_size_tagged_in.contains(&fam),
                _ => self.info_array_size_tagged_in.contains(&fam),
            }
    }
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
    /// The library releases that judge this profile (each is made available by
    /// `tools/peers.sh make RELEASE`); empty where only recordings judge it.
    pub judged_by: &'static [&'static str],
    /// Type ids whose registration differs between releases: `(first, last, components)`
    /// says which components register the ids `first..=last` (quirk R4 for the STATS
    /// types). Ids not listed follow the rules every release shares.
    pub registrations: &'static [(u16, u16, &'static [Component])],
    /// Flex-integer truncation (quirk R1).
    pub flex_tail: FlexTail,
    /// A negative string length reads as NULL (master) instead of failing (4.2.x).
    pub negative_string_is_null: bool,
    /// The unpacker forces a string's last byte to NUL (master); 4.2.x keeps it.
    pub string_forces_nul: bool,
    /// PROC_STATS unpack reads a peak_vsize the packer never wrote (quirk U10).
    pub proc_stats_reads_peak_vsize: bool,
    /// A REGEX framed as `pmix...` is accepted besides `raw:`/`blob:`: the release has the
    /// native preg module (4.2.x ... 6.1; quirks U4, R11).
    pub regex_pmix_framing: bool,
    /// How the preg modules claim a REGEX: what a `blob` takes, and whether a framing must
    /// end inside the buffer (7.0 and master check it; quirks R11, C3, U4).
    pub preg: crate::preg::PregRule,
    /// Families in which the SIZE in front of a MODEX carries a UINT64 tag (quirk R3;
    /// v12 always tags).
    pub modex_size_tagged_in: &'static [Family],
    /// Families in which the SIZE in front of an INFO_ARRAY carries a UINT64 tag (quirk R3).
    pub info_array_size_tagged_in: &'static [Family],
    /// DATA_ARRAY of UNDEF carries a SIZE after its tag (quirk R2).
    pub darray_undef_has_size: bool,
    /// Nested DATA_ARRAY packing stops at the depth cap with PACK_FAILURE.
    pub darray_pack_depth_cap: bool,
    /// pack_val refuses the types of [`crate::quirks::VALUE_REFUSED_TYPES`].
    pub value_refuses_types: bool,
    /// DATA_ARRAY unpack constructs only the types of [`crate::quirks::DARRAY_CONSTRUCT_4_2`]
    /// and these (quirk U8).
    pub darray_construct_4_2: bool,
    /// Element types the release's DATA_ARRAY unpacker constructs beyond
    /// [`crate::quirks::DARRAY_CONSTRUCT_4_2`], where `darray_construct_4_2` is set (quirk U8).
    pub darray_constructs_also: &'static [DataType],
    /// Families whose INFO_ARRAY unpacker expects a tagged SIZE even where the packer
    /// writes a bare one (quirks L2, R3: v20 in 6.0 and 6.1).
    pub info_array_unpack_tagged_in: &'static [Family],
    /// Element types whose DATA_ARRAY the unpacker cannot construct (-32), although the
    /// packer writes them (quirk U8).
    pub darray_unpack_refuses: &'static [DataType],
    /// Types a VALUE's unpacker does not know (-20), although its packer writes them
    /// (quirk R8).
    pub value_unpack_refuses: &'static [DataType],
    /// PMIX_INFO_CREATE marks the last element PMIX_INFO_ARRAY_END, which v12's APP
    /// unpacker leaves in place (quirk U13); from 5.0 on the receiver sees 0.
    pub info_create_marks_end: bool,
    /// The release-dependent part of pack_val's list of pointer-valued types (the STATS
    /// types up to 6.0; DEVICE, RESOURCE_UNIT, NODE_PID from 6.1; REGEX2 from 7.0): a VALUE
    /// of such a type the component does not register is -16 rather than -1.
    pub pointer_values: &'static [DataType],
    /// The status of a DATA_ARRAY whose element type the component does not register:
    /// -32 where the storage is allocated first (master), -16 in 7.0.
    pub darray_unknown_element: crate::Status,
    /// Element types 6.1's DATA_ARRAY unpacker no longer constructs (quirk U8).
    pub darray_constructs_not: &'static [DataType],
    /// The DATA_ARRAY unpacker (v21 ... v61) refuses a count beyond the bytes left (-50)
    /// before it allocates the element storage (7.0, master); up to 6.1 the storage comes
    /// first, so an element type it cannot hold is refused whatever the count (quirk R7).
    pub darray_count_before_storage: bool,
    /// Families whose unpackers refuse string lengths and counts above INT_MAX-2
    /// (PMIX_TAINT_INT_LIMIT) with -27 (quirk R9).
    pub taint_limit_in: &'static [Family],
}

const V12_V41: &[Component] = &[
    Component::V12,
    Component::V20,
    Component::V21,
    Component::V3,
    Component::V4,
    Component::V41,
];

const V51_V61: &[Component] = &[Component::V51, Component::V61];
const LEGACY20_CONVERGED: &[Family] = &[Family::Legacy20, Family::Converged];
const STATS_TYPES: &[DataType] = &[
    DataType::PROC_STATS,
    DataType::DISK_STATS,
    DataType::NET_STATS,
    DataType::NODE_STATS,
];

/// OpenPMIx 4.2.x, and 5.0.x (byte-identical).
const PROFILE_4_2: Profile = Profile {
    name: "4.2",
    library: "OpenPMIx 4.2.2 (Debian 12 libpmix-dev 4.2.2-1+deb12u1)",
    components: V12_V41,
    judged_by: &["4.2.2"],
    registrations: &[(61, 64, &[Component::V41]), (70, 75, &[])],
    flex_tail: FlexTail::RawLastByte,
    negative_string_is_null: false,
    string_forces_nul: false,
    proc_stats_reads_peak_vsize: true,
    regex_pmix_framing: true,
    preg: crate::preg::PregRule::SizeIgnored,
    modex_size_tagged_in: LEGACY20_CONVERGED,
    info_array_size_tagged_in: LEGACY20_CONVERGED,
    darray_undef_has_size: true,
    darray_pack_depth_cap: false,
    value_refuses_types: false,
    darray_construct_4_2: true,
    darray_constructs_also: &[],
    info_array_unpack_tagged_in: LEGACY20_CONVERGED,
    darray_unpack_refuses: &[],
    value_unpack_refuses: &[],
    info_create_marks_end: true,
    pointer_values: STATS_TYPES,
    darray_unknown_element: crate::Status::ERR_NOMEM,
    darray_constructs_not: &[],
    taint_limit_in: &[],
    darray_count_before_storage: false,
};

/// OpenPMIx 5.0.x (Debian trixie's 5.0.7): 4.2.x but for quirk U13.
const PROFILE_5_0: Profile = Profile {
    name: "5.0",
    library: "OpenPMIx 5.0.7 (Debian trixie libpmix-dev)",
    judged_by: &["5.0.7"],
    info_create_marks_end: false,
    ..PROFILE_4_2
};

/// OpenPMIx master at commit 494e9d9d.
const PROFILE_MASTER: Profile = Profile {
    name: "master",
    library: "OpenPMIx master 494e9d9d (7.0.0a1)",
    components: &Component::ALL,
    judged_by: &[],
    registrations: &[
        (61, 64, &[]),
        (70, 72, V51_V61),
        (73, 75, &[Component::V61]),
    ],
    flex_tail: FlexTail::PastEnd,
    negative_string_is_null: true,
    string_forces_nul: true,
    proc_stats_reads_peak_vsize: false,
    regex_pmix_framing: false,
    preg: crate::preg::PregRule::Exact,
    modex_size_tagged_in: &[],
    info_array_size_tagged_in: &[],
    darray_undef_has_size: false,
    darray_pack_depth_cap: true,
    value_refuses_types: true,
    darray_construct_4_2: false,
    darray_constructs_also: &[],
    // v20's INFO_ARRAY unpacker still reads its SIZE through the legacy tagged reader,
    // although the base packer writes it bare (quirks L2, R3), as in 6.0 and 6.1.
    info_array_unpack_tagged_in: &[Family::Legacy20],
    darray_unpack_refuses: &[],
    value_unpack_refuses: &[],
    info_create_marks_end: false,
    pointer_values: &[
        DataType::DEVICE,
        DataType::RESOURCE_UNIT,
        DataType::NODE_PID,
        DataType::REGEX2,
    ],
    darray_unknown_element: crate::Status::ERR_NOMEM,
    darray_constructs_not: &[],
    taint_limit_in: &[],
    darray_count_before_storage: true,
};

/// OpenPMIx 6.0.0 (tag v6.0.0, e87b2ee8).
const PROFILE_6_0: Profile = Profile {
    name: "6.0",
    library: "OpenPMIx 6.0.0 (tag v6.0.0, commit e87b2ee8)",
    components: &[
        Component::V12,
        Component::V20,
        Component::V21,
        Component::V3,
        Component::V4,
        Component::V41,
        Component::V51,
    ],
    judged_by: &["6.0.0"],
    registrations: &[
        (61, 64, &[Component::V41, Component::V51]),
        (70, 72, &[Component::V51]),
        (73, 75, &[]),
    ],
    flex_tail: FlexTail::RawLastByte,
    negative_string_is_null: false,
    string_forces_nul: false,
    pointer_values: &[
        DataType::PROC_STATS,
        DataType::DISK_STATS,
        DataType::NET_STATS,
        DataType::NODE_STATS,
        DataType::DEVICE,
        DataType::RESOURCE_UNIT,
    ],
    modex_size_tagged_in: &[Family::Legacy20],
    darray_undef_has_size: true,
    darray_pack_depth_cap: false,
    darray_construct_4_2: true,
    darray_constructs_also: &[DataType::DEVICE, DataType::RESOURCE_UNIT],
    info_array_unpack_tagged_in: &[Family::Legacy20],
    proc_stats_reads_peak_vsize: true,
    regex_pmix_framing: true,
    preg: crate::preg::PregRule::SizeIgnored,
    darray_count_before_storage: false,
    ..PROFILE_MASTER
};

/// OpenPMIx 6.1.0 (tag v6.1.0, ad8d0b75).
const PROFILE_6_1: Profile = Profile {
    name: "6.1",
    library: "OpenPMIx 6.1.0 (tag v6.1.0, commit ad8d0b75)",
    components: &Component::ALL,
    judged_by: &["6.1.0"],
    registrations: &[
        (61, 64, &[]),
        (70, 72, V51_V61),
        (73, 73, &[Component::V61]),
        (74, 75, &[]),
    ],
    flex_tail: FlexTail::RawLastByte,
    negative_string_is_null: false,
    string_forces_nul: false,
    pointer_values: &[
        DataType::DEVICE,
        DataType::RESOURCE_UNIT,
        DataType::NODE_PID,
    ],
    darray_constructs_not: STATS_TYPES,
    taint_limit_in: &[Family::Legacy12, Family::Legacy20],
    modex_size_tagged_in: &[Family::Legacy20],
    darray_undef_has_size: true,
    darray_pack_depth_cap: false,
    darray_construct_4_2: true,
    darray_constructs_also: &[DataType::DEVICE, DataType::RESOURCE_UNIT],
    info_array_unpack_tagged_in: &[Family::Legacy20],
    regex_pmix_framing: true,
    preg: crate::preg::PregRule::SizeRead,
    darray_count_before_storage: false,
    ..PROFILE_MASTER
};

/// OpenPMIx 7.0.0rc1 (Debian sid libpmix-dev).
const PROFILE_7_0: Profile = Profile {
    name: "7.0",
    library: "OpenPMIx 7.0.0rc1 (Debian sid libpmix-dev 7.0.0~rc1)",
    components: &[
        Component::V21,
        Component::V3,
        Component::V4,
        Component::V41,
        Component::V51,
        Component::V61,
    ],
    judged_by: &["7.0.0rc1"],
    darray_unpack_refuses: &[
        DataType::MODEX,
        DataType::INFO_ARRAY,
        DataType::PROC_STATS,
        DataType::DISK_STATS,
        DataType::NET_STATS,
        DataType::NODE_STATS,
    ],
    value_unpack_refuses: &[DataType::COMPRESSED_STRING],
    darray_unknown_element: crate::Status::ERR_UNKNOWN_DATA_TYPE,
    ..PROFILE_MASTER
};

impl Release {
    /// Every release profile, oldest first.
    pub const ALL: [Release; 6] = [
        Release::OpenPmix4_2,
        Release::OpenPmix5_0,
        Release::OpenPmix6_0,
        Release::OpenPmix6_1,
        Release::OpenPmix7_0,
        Release::Master,
    ];

    /// The data that makes this release differ.
    pub const fn profile(self) -> &'static Profile {
        match self {
            Release::OpenPmix4_2 => &PROFILE_4_2,
            Release::OpenPmix5_0 => &PROFILE_5_0,
            Release::OpenPmix6_0 => &PROFILE_6_0,
            Release::OpenPmix6_1 => &PROFILE_6_1,
            Release::OpenPmix7_0 => &PROFILE_7_0,
            Release::Master => &PROFILE_MASTER,
        }
    }

    /// The profile judged by a library release (`4.2.2`, `5.0.7`, `6.0.0`, `6.1.0`,
    /// `7.0.0rc1`), if any.
    pub fn judged_by(library: &str) -> Option<Release> {
        Release::ALL
            .into_iter()
            .find(|r| r.profile().judged_by.contains(&library))
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

    /// Why a codec for `c` in this release is refused, if it is: the release does not
    /// register that component (OpenPMIx 7.0 has no v12/v20, 4.2.x no v51/v61), so
    /// `pmix_bfrops_base_assign_module` would find nothing.
    pub fn refusal(self, c: Component) -> Option<String> {
        (!self.ships(c)).then(|| {
            let names: Vec<&str> = self.components().iter().map(|c| c.name()).collect();
            format!(
                "{} does not register bfrops component {c} (it registers {})",
                self.profile().library,
                names.join(" ")
            )
        })
    }
}

impl FromStr for Release {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "4.2" | "4.2.2" | "openpmix-4.2" | "OpenPmix4_2" => Ok(Release::OpenPmix4_2),
            "5.0" | "5.0.7" | "OpenPmix5_0" => Ok(Release::OpenPmix5_0),
            "6.0" | "6.0.0" | "OpenPmix6_0" => Ok(Release::OpenPmix6_0),
            "6.1" | "6.1.0" | "OpenPmix6_1" => Ok(Release::OpenPmix6_1),
            "7.0" | "7.0.0rc1" | "OpenPmix7_0" => Ok(Release::OpenPmix7_0),
            "master" | "Master" | "7.0.0a1" => Ok(Release::Master),
            _ => Err(format!(
                "unknown release profile {s:?} (expected one of {})",
                Release::ALL.map(|r| r.name()).join(" ")
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
            61..=64 | 70..=75 => release
                .profile()
                .registrations
                .iter()
                .find(|(lo, hi, _)| (*lo..=*hi).contains(&id))
                .is_some_and(|(_, _, comps)| comps.contains(&self)),
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
