//! Allocation and spawn attributes, directive values and the inheritance converter.

use crate::types::DataType;

/// `pmix_alloc_directive_t` values (type ALLOC_DIRECTIVE, 43).
pub mod alloc_directive {
    /// `PMIX_ALLOC_NEW`.
    pub const NEW: u8 = 1;
    /// `PMIX_ALLOC_EXTEND`.
    pub const EXTEND: u8 = 2;
    /// `PMIX_ALLOC_RELEASE`.
    pub const RELEASE: u8 = 3;
    /// `PMIX_ALLOC_REAQUIRE` (sic).
    pub const REAQUIRE: u8 = 4;
    /// `PMIX_ALLOC_REQ_CANCEL` (5.0+).
    pub const REQ_CANCEL: u8 = 5;
    /// `PMIX_ALLOC_EXTERNAL`: values from here up are implementer-defined.
    pub const EXTERNAL: u8 = 128;
}

/// `PMIx_Alloc_directive_string` (master).
pub fn alloc_directive_string(d: u8) -> &'static str {
    match d {
        1 => "NEW",
        2 => "EXTEND",
        3 => "RELEASE",
        4 => "REACQUIRE",
        5 => "CANCEL REQUEST",
        _ => "UNSPECIFIED",
    }
}

/// `pmix_alloc_inheritance_t` (type ALLOC_INHERIT, 75; v61 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AllocInherit {
    /// Released when the owning namespace terminates.
    None = 1,
    /// Kept until every child namespace (including derived children) terminates.
    Child = 2,
    /// Becomes unreserved (stays in the session) when the owner terminates; the default.
    Default = 3,
    /// Becomes unreserved when the last derived child terminates.
    ChildDefault = 4,
}

impl AllocInherit {
    /// All four dispositions.
    pub const ALL: [AllocInherit; 4] = [
        AllocInherit::None,
        AllocInherit::Child,
        AllocInherit::Default,
        AllocInherit::ChildDefault,
    ];

    /// The enum for a wire value, if it is one of the four.
    pub fn from_u8(v: u8) -> Option<AllocInherit> {
        AllocInherit::ALL.into_iter().find(|a| *a as u8 == v)
    }
}

/// `PMIx_Alloc_inheritance_string`: `NONE`, `CHILD`, `DEFAULT`, `CHILD_DEFAULT`, else `UNSPECIFIED`.
pub fn alloc_inheritance_string(v: u8) -> &'static str {
    match v {
        1 => "NONE",
        2 => "CHILD",
        3 => "DEFAULT",
        4 => "CHILD_DEFAULT",
        _ => "UNSPECIFIED",
    }
}

/// An attribute: its macro name, key string and declared wire type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// The C macro name.
    pub name: &'static str,
    /// The key string that travels in an INFO.
    pub key: &'static str,
    /// The declared type (`None` where it varies: SPAWN_TARGET is a STRING or a DATA_ARRAY of STRING).
    pub ty: Option<DataType>,
    /// Where it is available.
    pub note: &'static str,
}

macro_rules! attributes {
    ($($c:ident = $name:literal, $key:literal, $ty:expr, $note:literal;)*) => {
        $(
            #[doc = concat!("`", $name, "` = `\"", $key, "\"`.")]
            pub const $c: &str = $key;
        )*
        /// Every allocation/spawn attribute the seeds use.
        pub const ATTRIBUTES: &[Attribute] = &[$(Attribute { name: $name, key: $key, ty: $ty, note: $note }),*];
    };
}

attributes! {
    ALLOC_ID = "PMIX_ALLOC_ID", "pmix.alloc.id", Some(DataType::STRING), "host-assigned allocation id; 4.2.2+";
    ALLOC_REQ_ID = "PMIX_ALLOC_REQ_ID", "pmix.alloc.reqid", Some(DataType::STRING), "user-chosen request id; 4.2.2+";
    ALLOC_NUM_NODES = "PMIX_ALLOC_NUM_NODES", "pmix.alloc.nnodes", Some(DataType::UINT64), "4.2.2+";
    ALLOC_NODE_LIST = "PMIX_ALLOC_NODE_LIST", "pmix.alloc.nlist", Some(DataType::STRING), "regex of nodes; 4.2.2+";
    ALLOC_TARGET = "PMIX_ALLOC_TARGET", "pmix.alloc.tgt", Some(DataType::STRING), "namespace the resources are reserved to; master";
    ALLOC_SHARE = "PMIX_ALLOC_SHARE", "pmix.alloc.share", Some(DataType::BOOL), "true: generally available in the session; master";
    ALLOC_INHERITANCE = "PMIX_ALLOC_INHERITANCE", "pmix.alloc.inhrt", Some(DataType::ALLOC_INHERIT), "absent means DEFAULT; master, v61 only";
    ALLOC_WARN_TIMEOUT = "PMIX_ALLOC_WARN_TIMEOUT", "pmix.alloc.wtmo", Some(DataType::UINT32), "seconds before expiry to warn; master";
    TIME_REMAINING = "PMIX_TIME_REMAINING", "pmix.time.remaining", Some(DataType::UINT32), "seconds left; 4.2.2+";
    SPAWN_TARGET = "PMIX_SPAWN_TARGET", "pmix.spwn.tgt", None, "STRING (one allocation id) or DATA_ARRAY of STRING; master";
    ALLOC_STATUS = "PMIX_ALLOC_STATUS", "pmix.alloc.status", Some(DataType::STATUS), "master";
    NSPACE = "PMIX_NSPACE", "pmix.nspace", Some(DataType::STRING), "namespace";
}

/// Look an attribute up by macro name or key string.
pub fn attribute(name_or_key: &str) -> Option<&'static Attribute> {
    ATTRIBUTES
        .iter()
        .find(|a| a.name == name_or_key || a.key == name_or_key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inheritance_strings_match_openpmix() {
        let expected = [
            "UNSPECIFIED",
            "NONE",
            "CHILD",
            "DEFAULT",
            "CHILD_DEFAULT",
            "UNSPECIFIED",
        ];
        for (v, s) in expected.iter().enumerate() {
            assert_eq!(alloc_inheritance_string(v as u8), *s);
        }
        assert_eq!(AllocInherit::from_u8(4), Some(AllocInherit::ChildDefault));
        assert_eq!(AllocInherit::from_u8(0), None);
    }

    #[test]
    fn key_strings() {
        assert_eq!(
            attribute("PMIX_ALLOC_INHERITANCE").unwrap().key,
            "pmix.alloc.inhrt"
        );
        assert_eq!(
            attribute("pmix.spwn.tgt").unwrap().name,
            "PMIX_SPAWN_TARGET"
        );
        assert_eq!(ALLOC_WARN_TIMEOUT, "pmix.alloc.wtmo");
    }
}
