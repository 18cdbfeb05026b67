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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Release {
    /// OpenPMIx 4.2.x (Debian's libpmix 4.2.2): v12 ... v41, v41 registers STATS 61-64,
    /// DATA_ARRAY of UNDEF carries a SIZE, INFO_ARRAY/MODEX sizes are tagged.
    OpenPmix4_2,
    /// OpenPMIx master (7.0.0a1, commit 494e9d9d): all eight components, v61 with REGEX2 and ALLOC_INHERIT.
    #[default]
    Master,
}

impl Release {
    /// Every release profile.
    pub const ALL: [Release; 2] = [Release::OpenPmix4_2, Release::Master];

    /// The profile's short name as used on command lines and in vector files.
    pub fn name(self) -> &'static str {
        match self {
            Release::OpenPmix4_2 => "4.2",
            Release::Master => "master",
        }
    }

    /// The components the release ships.
    pub fn components(self) -> &'static [Component] {
        match self {
            Release::OpenPmix4_2 => &Component::ALL[..6],
            Release::Master => &Component::ALL,
        }
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
            61..=64 => {
                // The STATS types: v41 in 4.2.x-6.0, gone in master.
                self == Component::V41 && release == Release::OpenPmix4_2
            }
            70..=72 => self >= Component::V51,
            73..=75 => self == Component::V61,
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
