//! How strictly an invalid vector's status is judged: `--status exact|class|reject`
//! (Wycheproof-style).
//!
//! An invalid vector expects one refusal: a PMIx status at one pack/unpack call. OpenPMIx
//! itself does not refuse the same bytes with the same status from one release to the next
//! (the vectors of one component and buffer kind recorded from 4.2.2 ... 7.0.0rc1 disagree
//! on 842 cases: -63/-50 on 520, -16/-1 on 120, -32/-16 on 88, -29/-1 on 72, -32/-20 on 16,
//! -50/-27 on 10, -29/-19 on 8, -20/-16 on 8), so an independent implementation may
//! reasonably refuse with a neighbouring status. The modes:
//!
//! * [`StatusMode::Exact`] (the default): the very status at the very call.
//! * [`StatusMode::Class`]: any status of the expected status's [`StatusClass`], at the
//!   expected call.
//! * [`StatusMode::Reject`]: any refusal (any negative status) at the expected call; never a
//!   success.
//!
//! In every mode the failing call must be the expected one: failing at an earlier call
//! refuses a well-formed call, failing at a later one accepted the malformed call.
//!
//! The classes are the one place where statuses are grouped; each is what a refusal
//! *says about the input*, taken from OpenPMIx's `pmix_common.h` meanings and from where
//! the unpackers and packers of `bfrops/base` return them.

use pmix_codec::Status;
use std::fmt;
use std::str::FromStr;

/// How an invalid vector's status is judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusMode {
    /// The expected status, exactly.
    #[default]
    Exact,
    /// Any status of the expected status's class ([`StatusClass::of`]).
    Class,
    /// Any error status (negative); never a success.
    Reject,
}

impl StatusMode {
    /// Every mode, in the order `--help` lists them.
    pub const ALL: [StatusMode; 3] = [StatusMode::Exact, StatusMode::Class, StatusMode::Reject];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            StatusMode::Exact => "exact",
            StatusMode::Class => "class",
            StatusMode::Reject => "reject",
        }
    }

    /// Judge a refusal: `actual` at call `actual_item` where `expected` at `expected_item`
    /// was expected. `Accepted::Exact` when they are equal, `Accepted::Lenient` when only
    /// this mode accepts them, `None` when it does not.
    pub fn judge(
        self,
        expected: i32,
        expected_item: usize,
        actual: i32,
        actual_item: usize,
    ) -> Option<Accepted> {
        if actual_item != expected_item {
            return None;
        }
        if actual == expected {
            return Some(Accepted::Exact);
        }
        let lenient = match self {
            StatusMode::Exact => false,
            StatusMode::Class => {
                actual < 0 && StatusClass::of(Status(expected)).admits(Status(actual))
            }
            StatusMode::Reject => actual < 0,
        };
        lenient.then_some(Accepted::Lenient)
    }
}

/// How a refusal was accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// The expected status itself.
    Exact,
    /// Another status, accepted only by a lenient mode.
    Lenient,
}

impl fmt::Display for StatusMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StatusMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        StatusMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown status mode {s:?} (valid: {})",
                    StatusMode::ALL.map(StatusMode::name).join(", ")
                )
            })
    }
}

/// A class of refusals: what a status says about the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusClass {
    /// The bytes cannot be read as asked: they end early, a tag or count does not match,
    /// a field does not parse.
    Unreadable,
    /// The component does not handle this data type or value.
    Unsupported,
    /// A count, length or size the implementation refuses to trust or allocate.
    Resource,
    /// `PMIX_ERROR` (-1): a refusal that names no cause, so any refusal is of its class.
    Unspecified,
    /// A status in no class above: only itself.
    Other,
}

impl StatusClass {
    /// Every class, in the order the documentation lists them.
    pub const ALL: [StatusClass; 5] = [
        StatusClass::Unreadable,
        StatusClass::Unsupported,
        StatusClass::Resource,
        StatusClass::Unspecified,
        StatusClass::Other,
    ];

    /// The statuses of this class (empty for [`StatusClass::Other`] and
    /// [`StatusClass::Unspecified`]'s "any refusal" beyond -1 itself).
    pub fn members(self) -> &'static [Status] {
        match self {
            // -50: an unpacker ran out of bytes. -20: an unpacker gave up on what it read
            // (a REGEX that does not parse, an over-long flex integer). -19: a count larger
            // than the room it goes into (7.0's truncated REGEX). -22: a fully-described
            // buffer's tag is not the type asked for. -18: a value of another type. -63:
            // 4.2-6.1's flex-integer reader reports an over-read in the second or later
            // value of a call as PMIX_ERR_FATAL where 7.0 says -50 (quirk R1, 520 vectors).
            StatusClass::Unreadable => &[
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                Status::ERR_UNPACK_FAILURE,
                Status::ERR_UNPACK_INADEQUATE_SPACE,
                Status::ERR_PACK_MISMATCH,
                Status::ERR_TYPE_MISMATCH,
                Status::ERR_FATAL,
            ],
            // -16: no such type in this component. -47: the component refuses it (a
            // DATA_ARRAY element type it cannot carry, a component the release lacks).
            // -21: the packer has no function for a type it lists (4.2's unregistered
            // types). -46: the unpacker finds no function for a nested type.
            // -59: a value of the type the component does not support.
            StatusClass::Unsupported => &[
                Status::ERR_UNKNOWN_DATA_TYPE,
                Status::ERR_NOT_SUPPORTED,
                Status::ERR_PACK_FAILURE,
                Status::ERR_NOT_FOUND,
                Status::ERR_PARAM_VALUE_NOT_SUPPORTED,
            ],
            // -27: 6.1's taint limit on legacy lengths (quirk R9), the packer's
            // argument checks. -29: a negative string length. -32: an allocation the count
            // asks for failed (7.0 allocates a DATA_ARRAY before checking its element type).
            StatusClass::Resource => &[
                Status::ERR_BAD_PARAM,
                Status::ERR_OUT_OF_RESOURCE,
                Status::ERR_NOMEM,
            ],
            StatusClass::Unspecified => &[Status::ERROR],
            StatusClass::Other => &[],
        }
    }

    /// The class of `s`.
    pub fn of(s: Status) -> StatusClass {
        StatusClass::ALL
            .into_iter()
            .find(|c| c.members().contains(&s))
            .unwrap_or(StatusClass::Other)
    }

    /// True when a refusal with `actual` is of this class (for a status of this class
    /// expected). [`StatusClass::Other`] admits nothing but equality, which the caller
    /// checks first.
    pub fn admits(self, actual: Status) -> bool {
        match self {
            StatusClass::Unspecified => actual.0 < 0,
            StatusClass::Other => false,
            c => c.members().contains(&actual),
        }
    }

    /// The name in reports and documentation.
    pub fn name(self) -> &'static str {
        match self {
            StatusClass::Unreadable => "unreadable",
            StatusClass::Unsupported => "unsupported",
            StatusClass::Resource => "resource",
            StatusClass::Unspecified => "unspecified",
            StatusClass::Other => "other",
        }
    }
}

impl fmt::Display for StatusClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A status with its name: `PMIX_ERR_UNPACK_FAILURE (-20)`.
pub fn status_name(s: i32) -> String {
    Status(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_is_in_at_most_one_class() {
        for a in StatusClass::ALL {
            for b in StatusClass::ALL {
                if a != b {
                    for s in a.members() {
                        assert!(!b.members().contains(s), "{s} in {a} and {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_modes_judge_as_documented() {
        use StatusMode::*;
        // Exact: only the status itself.
        assert_eq!(Exact.judge(-50, 0, -50, 0), Some(Accepted::Exact));
        assert_eq!(Exact.judge(-50, 0, -20, 0), None);
        // Class: a neighbour of the same class, not one of another class.
        assert_eq!(Class.judge(-50, 0, -63, 0), Some(Accepted::Lenient));
        assert_eq!(Class.judge(-16, 1, -47, 1), Some(Accepted::Lenient));
        assert_eq!(Class.judge(-50, 0, -16, 0), None);
        assert_eq!(Class.judge(-29, 0, -32, 0), Some(Accepted::Lenient));
        // PMIX_ERROR names no cause: any refusal is of its class, but not the reverse.
        assert_eq!(Class.judge(-1, 0, -50, 0), Some(Accepted::Lenient));
        assert_eq!(Class.judge(-50, 0, -1, 0), None);
        // A status in no class: only itself.
        assert_eq!(Class.judge(-24, 0, -25, 0), None);
        // Reject: any refusal, never a success or a positive status.
        assert_eq!(Reject.judge(-50, 0, -16, 0), Some(Accepted::Lenient));
        assert_eq!(Reject.judge(-50, 0, 0, 0), None);
        assert_eq!(Reject.judge(-50, 0, 5, 0), None);
        assert_eq!(Class.judge(-1, 0, 0, 0), None);
        // Every mode: the expected call.
        for m in StatusMode::ALL {
            assert_eq!(m.judge(-50, 1, -50, 0), None, "{m}");
            assert_eq!(m.judge(-50, 1, -50, 2), None, "{m}");
        }
    }

    #[test]
    fn names_parse_back_and_errors_name_the_valid_modes() {
        for m in StatusMode::ALL {
            assert_eq!(m.name().parse::<StatusMode>(), Ok(m));
        }
        let e = "lenient".parse::<StatusMode>().unwrap_err();
        assert!(e.contains("exact, class, reject"), "{e}");
    }
}
