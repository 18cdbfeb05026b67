//! Every form each release accepts, for the types whose packing depends on more than their
//! bytes (issue 23, item 2).
//!
//! A REGEX is not length-prefixed: each release's preg modules decide which framings they
//! claim and how many bytes they take ([`pmix_codec::preg`], quirk R11). The candidate
//! forms are every framing any release's modules know (`raw:`, the native module's `pmix`,
//! the compress module's `blob:` header with payloads around the one size every release
//! reads alike, and the malformed headers the releases tell apart); a release's corpus
//! holds each candidate its own profile claims, or refuses as malformed (7.0's -27). A
//! candidate that no module of the release claims would crash its packer (quirk U4) or make
//! it read memory it does not own (quirk C3), so it is left out there.
//!
//! The compressed types carry the pcompress form a library writes (a 4-byte length and a
//! zlib stream) besides the corpus's short and empty samples.
//!
//! Each form is crossed with every context that carries the type ([`crate::edges`]),
//! one case per (form, context): `form.<TYPE>.<form>.<context>`.

use crate::corpus::Case;
use crate::edges::{holds, wrap, CONTEXTS};
use pmix_codec::preg::{claim, Claim};
use pmix_codec::*;

/// The compress module's framing of `payload`, with `size` as its size field's text.
fn blob(tag: &str, label: &str, size: &str, payload: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    for field in [tag, label, size] {
        b.extend_from_slice(field.as_bytes());
        b.push(0);
    }
    b.extend_from_slice(payload);
    b
}

/// A payload of `n` bytes that holds NULs and high bytes, like a compressed stream.
fn payload(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| [0x78, 0x9c, 0x00, 0xff, 0x41][i % 5])
        .collect()
}

/// Every REGEX framing any release's preg modules know: (name, bytes).
pub fn regex_candidates() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = vec![
        ("raw-empty".into(), b"raw:\0".to_vec()),
        ("raw-list".into(), b"raw:n01,n02,n03\0".to_vec()),
        ("native".into(), b"pmix[n[2:1-3]]\0".to_vec()),
        ("native-prefix-only".into(), b"pmixfoo\0".to_vec()),
        // a node list with no framing at all: no release's modules claim it
        ("plain".into(), b"n01,n02,n03\0".to_vec()),
    ];
    // well-formed blobs: 5 is the size every release reads alike (4.2 ... 6.0 take the
    // header plus 5 bytes whatever the size says); around it, and a long one
    for n in [0usize, 4, 5, 6, 200] {
        out.push((
            format!("blob-size{n}"),
            blob(
                "blob:",
                "component=zlib:",
                &format!("size={n}:"),
                &payload(n),
            ),
        ));
    }
    // headers the releases tell apart
    out.push((
        "blob-no-colon".into(),
        blob("blob:", "component=zlib:", "size=5", &payload(5)),
    ));
    out.push((
        "blob-other-tag".into(),
        blob("blobX", "component=zlib:", "size=5:", &payload(5)),
    ));
    out.push((
        "blob-no-digits".into(),
        blob("blob:", "component=zlib:", "size=:", &payload(5)),
    ));
    out
}

/// The REGEX forms `rel`'s modules claim (or refuse as malformed).
pub fn regex_forms(rel: Release) -> Vec<(String, Value)> {
    let p = rel.profile();
    regex_candidates()
        .into_iter()
        .filter(|(_, b)| {
            matches!(
                claim(b, p.preg, p.regex_pmix_framing),
                Claim::Takes(_) | Claim::Malformed
            )
        })
        .map(|(n, b)| (n, Value::Regex(b.into())))
        .collect()
}

/// The REGEX candidates no module of `rel` claims, each refused when packed in a described
/// buffer: the plain-string fallback refuses the buffer kind (-22, quirk U4). In a
/// non-described buffer the same fallback crashes the packer, so they are packed in
/// described buffers only.
pub fn unclaimed_regex_forms(rel: Release) -> Vec<(String, Value)> {
    let p = rel.profile();
    regex_candidates()
        .into_iter()
        .filter(|(_, b)| claim(b, p.preg, p.regex_pmix_framing) == Claim::Unclaimed)
        .map(|(n, b)| (n, Value::Regex(b.into())))
        .collect()
}

/// One top-level REGEX call per candidate no module of `rel` claims, for a described
/// buffer of `comp` ([`unclaimed_regex_forms`]): `form.REGEX.unclaimed-<form>.top`.
pub fn unclaimed_regex_cases(comp: Component, rel: Release) -> Vec<Case> {
    if !comp.registers(DataType::REGEX, rel) {
        return vec![];
    }
    unclaimed_regex_forms(rel)
        .into_iter()
        .map(|(name, v)| Case {
            name: format!(
                "form.REGEX.unclaimed-{name}.top: no preg module claims it, and the \
                 plain-string fallback refuses a described buffer (quirk U4)"
            ),
            items: vec![Item::one(v)],
        })
        .collect()
}

/// The pcompress form of a string: its length (4 bytes, little-endian) and its zlib
/// stream (`node1,node2,node3`, as zlib's default level writes it).
pub const PCOMPRESS_SAMPLE: &[u8] = &[
    0x11, 0x00, 0x00, 0x00, 0x78, 0x9c, 0xcb, 0xcb, 0x4f, 0x49, 0x35, 0xd4, 0xc9, 0x03, 0x92, 0x46,
    0x60, 0xd2, 0x18, 0x00, 0x36, 0x6b, 0x05, 0xe1,
];

/// Every form of every such type `comp` registers in `rel`: (type, form name, value).
pub fn forms(comp: Component, rel: Release) -> Vec<(DataType, String, Value)> {
    let mut out = vec![];
    if comp.registers(DataType::REGEX, rel) {
        for (n, v) in regex_forms(rel) {
            out.push((DataType::REGEX, n, v));
        }
    }
    if comp.registers(DataType::COMPRESSED_STRING, rel) {
        out.push((
            DataType::COMPRESSED_STRING,
            "pcompress".into(),
            Value::CompressedString(PCOMPRESS_SAMPLE.to_vec().into()),
        ));
    }
    if comp.registers(DataType::COMPRESSED_BYTE_OBJECT, rel) {
        out.push((
            DataType::COMPRESSED_BYTE_OBJECT,
            "pcompress".into(),
            Value::CompressedByteObject(PCOMPRESS_SAMPLE.to_vec().into()),
        ));
    }
    out
}

/// One case per (form, context that carries its type).
pub fn form_cases(comp: Component, rel: Release) -> Vec<Case> {
    let mut out = vec![];
    for (ty, name, v) in forms(comp, rel) {
        for &ctx in CONTEXTS {
            if !holds(ctx, ty, comp, rel) {
                continue;
            }
            out.push(Case {
                name: format!("form.{ty}.{name}.{}", ctx.name()),
                items: vec![wrap(ctx, ty, std::slice::from_ref(&v))],
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_release_gets_the_forms_its_modules_claim() {
        let names = |rel| -> Vec<String> { regex_forms(rel).into_iter().map(|f| f.0).collect() };
        let old = names(Release::OpenPmix6_0);
        let new = names(Release::OpenPmix7_0);
        assert!(old.contains(&"native".to_string()));
        assert!(!new.contains(&"native".to_string()));
        // a 4-byte payload: 4.2 ... 6.0 would read one byte past it
        assert!(!old.contains(&"blob-size4".to_string()));
        assert!(new.contains(&"blob-size4".to_string()));
        // malformed for 7.0 (refused with -27), claimed by 6.1
        assert!(new.contains(&"blob-no-colon".to_string()));
        assert!(names(Release::OpenPmix6_1).contains(&"blob-other-tag".to_string()));
        assert!(!new.contains(&"blob-other-tag".to_string()));
        // no framing: claimed by none, so packed (and refused) in described buffers only
        let unclaimed = |rel| -> Vec<String> {
            unclaimed_regex_forms(rel)
                .into_iter()
                .map(|f| f.0)
                .collect()
        };
        assert!(!old.contains(&"plain".to_string()));
        assert_eq!(unclaimed(Release::OpenPmix6_0), ["plain"]);
        assert!(unclaimed(Release::OpenPmix7_0).contains(&"native".to_string()));
        assert!(unclaimed_regex_cases(Component::V20, Release::OpenPmix6_0).is_empty());
    }

    #[test]
    fn forms_cross_every_context() {
        let cases = form_cases(Component::V61, Release::OpenPmix6_1);
        for ctx in ["top", "value", "info", "kval", "darray"] {
            assert!(
                cases
                    .iter()
                    .any(|c| c.name == format!("form.REGEX.blob-size5.{ctx}")),
                "{ctx}"
            );
        }
        assert!(cases
            .iter()
            .any(|c| c.name == "form.COMPRESSED_STRING.pcompress.info"));
    }
}
