//! Why a message failed: the explanation attached to a problem, from the codec's own
//! registration tables, the quirks it documents (QUIRKS.md) and the cross-release matrix
//! (vectors/MATRIX.md).

use pmix_codec::{Component, DataType, Release, Status};

/// The statuses a receiver returns when it cannot read what its peer packed: seen in a
/// reply, they say the two sides do not agree on the wire format.
pub const CROSS_VERSION: [Status; 6] = [
    Status::ERR_UNKNOWN_DATA_TYPE,
    Status::ERR_UNPACK_INADEQUATE_SPACE,
    Status::ERR_UNPACK_FAILURE,
    Status::ERR_PACK_MISMATCH,
    Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
    Status::ERR_PACK_FAILURE,
];

/// Whether a status means the receiver could not unpack its peer's bytes.
pub fn is_cross_version(status: i32) -> bool {
    CROSS_VERSION.contains(&Status(status))
}

/// Every (component, release) that registers `ty`, as text: `v61 in 7.0 master`.
pub fn who_registers(ty: DataType) -> String {
    let mut parts = Vec::new();
    for c in Component::ALL {
        let rels: Vec<&str> = Release::ALL
            .into_iter()
            .filter(|r| r.ships(c) && c.registers(ty, *r))
            .map(|r| r.name())
            .collect();
        if !rels.is_empty() {
            parts.push(format!("{c} in {}", rels.join(" ")));
        }
    }
    if parts.is_empty() {
        "no component of any release".to_string()
    } else {
        parts.join("; ")
    }
}

/// The type named in a codec error about an unregistered type (its reason says
/// `<component> does not register <TYPE>`).
pub fn unregistered_type(e: &pmix_codec::Error) -> Option<DataType> {
    let (_, after) = e
        .reason
        .split_once("does not register ")
        .or_else(|| e.reason.split_once("has no VALUE of "))?;
    let name: String = after
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    DataType::from_name(&name).or_else(|| name.parse().ok().map(DataType))
}

/// Quirk ids whose description names `word`.
fn quirks_naming(word: &str) -> Vec<&'static str> {
    pmix_codec::quirks::QUIRKS
        .iter()
        .filter(|q| q.openpmix.contains(word) || q.chosen.contains(word))
        .map(|q| q.id)
        .collect()
}

/// The explanation of a decode failure in `component`/`release`.
pub fn decode_failure(e: &pmix_codec::Error, component: Component, release: Release) -> String {
    if let Some(ty) = unregistered_type(e) {
        let mut s = format!(
            "{component} in the {release} profile does not register {ty} (type {}); it is registered by {}. \
             The sender packed it with another component or release than this connection negotiated, \
             so the receiver cannot read it (vectors/MATRIX.md: where a side does not register a type, \
             it cannot read the other's bytes of it)",
            ty.0,
            who_registers(ty)
        );
        let q = quirks_naming(&ty.to_string());
        if !q.is_empty() {
            s.push_str(&format!("; QUIRKS.md: {}", q.join(", ")));
        }
        return s;
    }
    if e.status == Status::ERR_NOMEM {
        return "the bytes may be fine: this dissector holds a message's decoded values in memory, \
                and these would take too much of it (a value takes 48 bytes or more, one of a \
                one-byte type 48 times its wire size). The whole payload is in the message \
                (`--json`: `wire`); `pmix-wire decode -o index` reads a message of any size in a \
                few bytes per value"
            .to_string();
    }
    if e.status == Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER {
        return format!(
            "the payload ends before the field does in {component} ({release}): a truncated or lying \
             message, or bytes packed by a component that lays this type out differently \
             (vectors/MATRIX.md lists the types each pair of releases packs differently)"
        );
    }
    format!(
        "the bytes do not follow {component}'s layout in the {release} profile \
         (vectors/MATRIX.md lists the types each pair of releases packs differently)"
    )
}

/// The explanation of a reply status that means the peer could not read the request.
pub fn status(status: i32) -> String {
    let s = Status(status);
    let why = match s {
        Status::ERR_UNKNOWN_DATA_TYPE => {
            "the receiver met a data type its bfrops component does not register"
        }
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER => {
            "the receiver read past the end of the request: it expected more or longer fields"
        }
        Status::ERR_PACK_MISMATCH => {
            "the receiver found another type than it unpacks at that place (a fully-described buffer)"
        }
        Status::ERR_UNPACK_INADEQUATE_SPACE => "the receiver's unpack found fewer values than asked",
        _ => "the receiver could not unpack the request",
    };
    format!(
        "{s}: {why}. The request was packed in a way the server's library does not read with the \
         negotiated component (a cross-version failure: see the request's own problems, and vectors/MATRIX.md)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_inherit_is_registered_only_where_the_profiles_say() {
        let w = who_registers(DataType::ALLOC_INHERIT);
        assert!(w.contains("v61"), "{w}");
        assert!(!w.contains("v51"), "{w}");
        assert!(is_cross_version(-16) && !is_cross_version(0) && !is_cross_version(-47));
    }
}
