//! Inputs that close the gaps mutation testing found in the vector corpus
//! (`vectors/COVERAGE.md`, "Every surviving mutant"): each family below pushes one guard of
//! the codec to where a broken guard gives a different answer, and each input is judged by
//! the release's library like every other vector.
//!
//! * many sibling INFO_ARRAYs in one buffer (a nesting count left raised after each one
//!   refuses the 51st, or the 101st);
//! * a negative top-level count for a variable-size type (quirk U5's second branch: the
//!   call reads no value and the next call goes on from there);
//! * a DATA_ARRAY of an element type the release refuses, whose count is beyond the bytes
//!   left (which refusal comes first);
//! * one pack call of several POINTERs (quirk P1: one sentinel byte per call);
//! * v12 PROCs whose rank is one of the 1.x special ranks (quirk L4: read back as today's);
//! * a DATA_ARRAY of DATA_ARRAY or of POINTER (elements that may take less than a byte each)
//!   whose count is beyond what the input can hold (which refusal, if any, and when);
//! * a run of byte objects packed after a value that took more room than the encoder's
//!   first allocation guessed (the run's buffer must grow in the middle);
//! * a byte object whose modern SIZE is three bytes with a middle byte above 0x80 (the
//!   decoder's two-byte fast path must not take it);
//! * a v12 VALUE and INFO whose value type is UNDEF (v12's unpacker has no such case);
//! * self-tagged integers (quirk D2) whose always-tag names another width than the native
//!   one, every width (the unpacker converts: UNPACK_SIZE_MISMATCH);
//! * many sibling non-empty DATA_ARRAYs in one call (the DATA_ARRAY nesting count);
//! * a PROC_STATS as the unpackers of the releases that register it read it: with the
//!   `peak_vsize` their packer never writes (quirk U10);
//! * POINTER calls of exactly as many values as pmix-codec's POINTER budget allows (the
//!   input's length plus 4096), in one call and in two: the libraries read them, and so
//!   must the codec;
//! * many sibling QUERYs in one call (the QUERY nesting count, as for INFO_ARRAY);
//! * v12 calls of the types it registers no unpacker for that later components read
//!   (DATA_ARRAY, PROC_INFO, QUERY): bytes a v2+ peer could send, which v12 must refuse.

use super::generator::{Gen, V1_RANKS};
use pmix_codec::quirks;
use pmix_codec::*;

/// Sibling INFO_ARRAYs in one call: past the 50 a nesting count raised by two per array
/// (and never lowered) would allow, and past the 100 a count raised by one per array would.
const SIBLINGS: [usize; 2] = [60, 101];

/// The count of the DATA_ARRAYs whose count lies: far beyond the few bytes that follow.
const LYING_COUNT: usize = 1000;

/// The bytes left after a lying DATA_ARRAY count.
const BYTES_LEFT: usize = 8;

/// Record every gap family for this generator's component and buffer kind.
pub(super) fn gen_gaps(g: &mut Gen) {
    sibling_info_arrays(g);
    pointer_calls(g);
    negative_counts(g);
    lying_refused_darrays(g);
    v12_special_ranks(g);
    lying_tiny_element_darrays(g);
    byte_objects_after_a_long_value(g);
    long_byte_objects(g);
    v12_undef_values(g);
    int_widths(g);
    sibling_data_arrays(g);
    proc_stats_as_read(g);
    pointer_budget(g);
    sibling_queries(g);
    v12_unreadable_types(g);
}

/// A v12 call of DATA_ARRAY, PROC_INFO or QUERY (types v12 neither packs nor unpacks): a
/// count of 1, eight zero bytes (an empty value in the later components' layouts), then a
/// UINT8 call of 7. The library says how v12 refuses it, before or at its values.
fn v12_unreadable_types(g: &mut Gen) {
    if g.comp.family() != Family::Legacy12 {
        return;
    }
    let Some(seven) = seven_then_end(g) else {
        g.skip("gap.v12-unreadable: the codec cannot pack UINT8");
        return;
    };
    for ty in [DataType::DATA_ARRAY, DataType::PROC_INFO, DataType::QUERY] {
        let wire = [g.header(1, ty.0), vec![0u8; 8], seven.clone()].concat();
        g.hostile(
            format!("gap.v12-unreadable: one {ty} (eight zero bytes), then a UINT8 call of 7"),
            wire,
            &[ty, DataType::UINT8],
            &[],
        );
    }
}

/// One INFO_ARRAY call of each count of [`SIBLINGS`] empty arrays (empty: v12 ... v3 read
/// an array's elements as VALUEs, quirk U11, so only empty ones come back as packed).
fn sibling_info_arrays(g: &mut Gen) {
    sibling_calls(
        g,
        DataType::INFO_ARRAY,
        "gap.siblings",
        "empty INFO_ARRAYs",
        |_| Value::InfoArray(vec![]),
    );
}

/// One call of `ty` of each count of [`SIBLINGS`] values made by `value` (from its index),
/// where the component registers `ty`: a nesting count left raised after each value would
/// refuse the 51st, or the 101st.
fn sibling_calls(
    g: &mut Gen,
    ty: DataType,
    family: &str,
    what: &str,
    value: impl Fn(usize) -> Value,
) {
    if !g.comp.registers(ty, g.rel) {
        return;
    }
    for n in SIBLINGS {
        g.pack_case(
            &format!("{family}: {n} {what} in one call"),
            &[Item::new(ty, (0..n).map(&value).collect())],
            &[],
        );
    }
}

/// POINTER calls of two and three values (v12 packs no POINTER byte at all).
fn pointer_calls(g: &mut Gen) {
    if !g.comp.registers(DataType::POINTER, g.rel) || g.comp.family() == Family::Legacy12 {
        return;
    }
    for n in [2usize, 3] {
        g.pack_case(
            &format!("gap.pointers: {n} POINTERs in one call"),
            &[Item::new(DataType::POINTER, vec![Value::Pointer; n])],
            &[],
        );
    }
}

/// One QUERY call of each count of [`SIBLINGS`] QUERYs (one key, no qualifiers), for the
/// QUERY nesting count.
fn sibling_queries(g: &mut Gen) {
    sibling_calls(g, DataType::QUERY, "gap.query-siblings", "QUERYs", |i| {
        Value::Query(Box::new(Query {
            keys: vec![Some(format!("pmix.qry.k{i}").into())],
            qualifiers: vec![],
        }))
    });
}

/// One POINTER call of exactly the POINTER budget: pmix-codec produces at most the input's
/// length plus 4096 POINTER values per decode (one sentinel byte stands for the whole call,
/// quirk P1, so the count alone would let a peer claim any number), and this call asks for
/// that many, not one more. The count is found by iterating: its own field's length is part
/// of the input's.
fn pointer_budget(g: &mut Gen) {
    if !g.comp.registers(DataType::POINTER, g.rel) || g.comp.family() == Family::Legacy12 {
        return;
    }
    let codec = g.codec();
    let call = |n: usize| codec.encode(&[Item::new(DataType::POINTER, vec![Value::Pointer; n])]);
    let slack = POINTER_SLACK as usize;
    let mut n = slack;
    for _ in 0..8 {
        match call(n) {
            Ok(wire) if wire.len() + slack == n => {
                g.pack_case(
                    &format!(
                        "gap.pointer-budget: {n} POINTERs in one call of {} bytes, \
                         the input's length plus 4096",
                        wire.len()
                    ),
                    &[Item::new(DataType::POINTER, vec![Value::Pointer; n])],
                    &[],
                );
                // The budget is shared by the calls of one decode: two calls (2, then the
                // rest) that spend it exactly. The second call's count field is at most as
                // long as the single call's, so the input is too.
                let two = |k: usize| {
                    vec![
                        Item::new(DataType::POINTER, vec![Value::Pointer; 2]),
                        Item::new(DataType::POINTER, vec![Value::Pointer; k]),
                    ]
                };
                if let Ok(wire2) = codec.encode(&two(n - 2)) {
                    let k = wire2.len() + slack - 2;
                    if codec.encode(&two(k)).map(|w| w.len()) == Ok(wire2.len()) {
                        g.pack_case(
                            &format!(
                                "gap.pointer-budget: POINTER calls of 2 and {k} in {} bytes, \
                                 the input's length plus 4096 in all",
                                wire2.len()
                            ),
                            &two(k),
                            &[],
                        );
                    }
                }
                return;
            }
            Ok(wire) => n = wire.len() + slack,
            Err(e) => {
                g.skip(&format!(
                    "gap.pointer-budget: the codec cannot pack POINTERs: {e}"
                ));
                return;
            }
        }
    }
    g.skip("gap.pointer-budget: no count equals its input's length plus 4096");
}

/// A call of STRING or INFO whose count is -1, then a UINT8 call of 7, then a UINT8 call
/// past the end: the libraries read no value for the first call (quirk U5: these unpackers
/// do not check `count * size`), read the 7, and fail on the third call.
fn negative_counts(g: &mut Gen) {
    let Ok(seven) = g.codec().encode(&[Item::one(Value::Uint8(7))]) else {
        g.skip("gap.negative-count: the codec cannot pack UINT8");
        return;
    };
    for ty in [DataType::STRING, DataType::INFO] {
        if !g.comp.registers(ty, g.rel) {
            continue;
        }
        let mut wire = g.header(-1, ty.0);
        wire.extend(&seven);
        g.hostile(
            format!(
                "gap.negative-count: {ty} call of count -1 (no value read, quirk U5-negative-count), \
                 then UINT8 7, then a UINT8 call past the end"
            ),
            wire,
            &[ty, DataType::UINT8, DataType::UINT8],
            &["LyingCount"],
        );
    }
}

/// A DATA_ARRAY whose element type the release refuses (quirk U8) and whose count is
/// [`LYING_COUNT`] with [`BYTES_LEFT`] bytes after it: the first registered type the
/// reference decoder refuses as an element, and the unknown id 500.
fn lying_refused_darrays(g: &mut Gen) {
    if !g.comp.registers(DataType::DATA_ARRAY, g.rel) {
        return;
    }
    let codec = g.codec();
    // A DATA_ARRAY of UINT8 as this component writes it: its header, the element type
    // field, then the count (and in a described buffer the elements' tag) and the elements.
    let darray = |n: usize| {
        codec.encode(&[Item::one(Value::array(
            DataType::UINT8,
            vec![Value::Uint8(7); n],
        ))])
    };
    let (Ok(lying), Ok(honest)) = (darray(LYING_COUNT), darray(1)) else {
        g.skip("gap.lying-darray: the codec cannot pack a DATA_ARRAY of UINT8");
        return;
    };
    let type_field = |t: DataType| g.tag(t.0);
    let head = g.header(1, DataType::DATA_ARRAY.0).len();
    let uint8 = type_field(DataType::UINT8);
    if lying.get(head..head + uint8.len()) != Some(&uint8[..]) {
        g.skip("gap.lying-darray: element type field not found");
        return;
    }
    // Everything between the type field and the elements: the count and its tags.
    let count_and_tags = &lying[head + uint8.len()..lying.len() - LYING_COUNT];
    let with_type = |t: DataType, count_and_tags: &[u8], tail: &[u8]| {
        [&lying[..head], &type_field(t), count_and_tags, tail].concat()
    };
    // The element types this release refuses: one element that the bytes can hold, refused
    // for its type (not for a short read).
    let honest_count = &honest[head + uint8.len()..honest.len() - 1];
    let refused = g
        .comp
        .registered_types(g.rel)
        .into_iter()
        .filter(|t| {
            !matches!(
                *t,
                DataType::UNDEF | DataType::POINTER | DataType::DATA_ARRAY
            )
        })
        .find(|&t| {
            let wire = with_type(t, honest_count, &[0; 64]);
            codec
                .decode(&wire, &[DataType::DATA_ARRAY])
                .is_err_and(|e| {
                    [
                        Status::ERR_NOT_SUPPORTED,
                        Status::ERR_NOMEM,
                        Status::ERR_UNKNOWN_DATA_TYPE,
                    ]
                    .contains(&e.status)
                })
        });
    let inputs: Vec<(DataType, Vec<u8>)> = refused
        .into_iter()
        .chain([DataType(500)])
        .map(|t| (t, with_type(t, count_and_tags, &[0; BYTES_LEFT])))
        .collect();
    for (t, wire) in inputs {
        g.hostile(
            format!(
                "gap.lying-darray: DATA_ARRAY of {t} (an element type this release refuses, \
                 quirk U8-darray-element-storage) whose count says {LYING_COUNT}, {BYTES_LEFT} bytes follow"
            ),
            wire,
            &[DataType::DATA_ARRAY],
            &["LyingCount"],
        );
    }
}

/// v12 only: a PROC call and a PDATA call whose ranks are the 1.x WILDCARD and UNDEF
/// numbers. v12 packs a rank unchanged and its unpacker turns those two into today's
/// WILDCARD and UNDEF (quirk L4), so the vectors pin each mapping (the library's decode is
/// the vector's `decoded`). The PDATA carries them in a described buffer too, where a
/// top-level PROC reads back as INFO_ARRAY (quirk L1) and is refused.
fn v12_special_ranks(g: &mut Gen) {
    if g.comp != Component::V12 {
        return;
    }
    let procs = || {
        V1_RANKS.iter().map(|&rank| Proc {
            nspace: "ns".into(),
            rank,
        })
    };
    let calls = [
        (DataType::PROC, procs().map(Value::Proc).collect()),
        (
            DataType::PDATA,
            procs()
                .map(|proc| {
                    Value::Pdata(Box::new(Pdata {
                        proc,
                        key: "key".into(),
                        value: Value::Uint32(5),
                    }))
                })
                .collect::<Vec<_>>(),
        ),
    ];
    for (ty, values) in calls {
        if !g.comp.registers(ty, g.rel) {
            continue;
        }
        g.pack_case(
            &format!(
                "gap.v12-ranks: {ty} of the ranks 2147483646 and 2147483647 (PMIx 1.x's WILDCARD and UNDEF)"
            ),
            &[Item::new(ty, values)],
            &[],
        );
    }
}

/// The bytes after the count of a lying DATA_ARRAY of DATA_ARRAY read as zeros: element
/// types of UNDEF.
const ZEROS: [u8; 8] = [0; 8];

/// A DATA_ARRAY of DATA_ARRAY and one of POINTER whose count lies, per component: elements
/// of these types may take less than a byte each (an UNDEF inner array, one sentinel byte
/// for all the POINTERs, quirk P1), so the count is not bounded by the bytes left.
/// pmix-codec reads the POINTERs' sentinel byte before spending its POINTER budget (the
/// input's length plus 4096), and refuses a DATA_ARRAY of DATA_ARRAY count beyond the bytes
/// left plus 4096 only where the next inner array is typeless or the count is 2^31 or more;
/// these vectors tell each of those refusals from reading on and running out.
///
/// * DATA_ARRAY of DATA_ARRAY, with a count of 2^31 and one just past the bytes left plus
///   4096, followed by [`ZEROS`] (inner arrays of UNDEF) or by one real inner array and the
///   end of the input;
/// * DATA_ARRAY of POINTER, with a count just past the POINTER budget and one of 2^31,
///   followed by its sentinel byte or by nothing.
fn lying_tiny_element_darrays(g: &mut Gen) {
    if !g.comp.registers(DataType::DATA_ARRAY, g.rel) {
        return;
    }
    let codec = g.codec();
    let call = g.header(1, DataType::DATA_ARRAY.0);
    let inner = Value::array(DataType::UINT8, vec![Value::Uint8(7)]);
    // The inner array as an element: its bytes without the call header.
    let Ok(element) = codec
        .encode(&[Item::one(inner.clone())])
        .map(|b| b[call.len()..].to_vec())
    else {
        g.skip("gap.lying-tiny: the codec cannot pack a DATA_ARRAY of UINT8");
        return;
    };
    let nested =
        |ty: DataType, v: Value, k: usize| codec.encode(&[Item::one(Value::array(ty, vec![v; k]))]);
    let mut cases = vec![];
    let darrays = |k| nested(DataType::DATA_ARRAY, inner.clone(), k);
    match split_at_count(darrays(1), darrays(2), g.comp.family(), &element) {
        Some((head, tags)) => {
            for (tail, what) in [
                (
                    ZEROS.to_vec(),
                    "8 zero bytes follow (inner arrays of UNDEF)",
                ),
                (
                    element.clone(),
                    "one inner DATA_ARRAY of UINT8 follows, then the end",
                ),
            ] {
                let left = (tags.len() + tail.len()) as u64;
                for n in [1u64 << 31, left + 4097] {
                    cases.push((
                        DataType::DATA_ARRAY,
                        head.clone(),
                        tags.clone(),
                        n,
                        tail.clone(),
                        what,
                    ));
                }
            }
        }
        None => g.skip("gap.lying-tiny: DATA_ARRAY of DATA_ARRAY count field not found"),
    }
    if g.comp.registers(DataType::POINTER, g.rel) && g.comp.family() != Family::Legacy12 {
        let pointers = |k| nested(DataType::POINTER, Value::Pointer, k);
        match split_at_count(pointers(1), pointers(2), g.comp.family(), &[1]) {
            Some((head, tags)) => {
                for (tail, what) in [
                    (vec![1u8], "its sentinel byte follows"),
                    (vec![], "nothing follows (no sentinel byte)"),
                ] {
                    // The POINTER budget: the whole input's length plus 4096, for a count
                    // field of up to 9 bytes.
                    let budget = (head.len() + 9 + tags.len() + tail.len()) as u64 + POINTER_SLACK;
                    for n in [budget + 1, 1u64 << 31] {
                        cases.push((
                            DataType::POINTER,
                            head.clone(),
                            tags.clone(),
                            n,
                            tail.clone(),
                            what,
                        ));
                    }
                }
            }
            None => g.skip("gap.lying-tiny: DATA_ARRAY of POINTER count field not found"),
        }
    }
    for (ty, head, tags, n, tail, what) in cases {
        let wire = [&head[..], &count_field(g.comp.family(), n), &tags, &tail].concat();
        g.hardening(
            format!("gap.lying-tiny: DATA_ARRAY of {ty} whose count says {n}; {what}"),
            wire,
            &[DataType::DATA_ARRAY],
            if ty == DataType::POINTER {
                "P1-pointer-sentinel"
            } else {
                "R7-nested-count-check"
            },
        );
    }
}

/// A DATA_ARRAY count `n` as the family writes it: a varint in v4 ... v61, a big-endian
/// 64-bit SIZE elsewhere (its tags are before it).
fn count_field(fam: Family, n: u64) -> Vec<u8> {
    if fam == Family::Modern {
        let mut v = vec![];
        pmix_codec::wire::put_flex(&mut v, n);
        v
    } else {
        n.to_be_bytes().to_vec()
    }
}

/// Split the bytes of a one-element DATA_ARRAY call (`one`, its element's bytes being
/// `element`) around its count, found where the two-element call (`two`) first differs:
/// what comes before the count (with its tags), and what comes between it and the element
/// (the elements' tag in a described buffer).
fn split_at_count(
    one: Result<Vec<u8>>,
    two: Result<Vec<u8>>,
    fam: Family,
    element: &[u8],
) -> Option<(Vec<u8>, Vec<u8>)> {
    let (one, two) = (one.ok()?, two.ok()?);
    let at = one.iter().zip(&two).position(|(a, b)| a != b)?;
    let width = count_field(fam, 1).len();
    let start = (at + 1).checked_sub(width)?;
    if one[start..=at] != count_field(fam, 1)[..] || !one.ends_with(element) {
        return None;
    }
    let tags = one[at + 1..one.len() - element.len()].to_vec();
    Some((one[..start].to_vec(), tags))
}

/// The STRING inside the VALUE (or KVAL) packed before a run of byte objects. The
/// encoder's first allocation (`size_hint`) guesses 10 bytes for a VALUE or KVAL whatever it
/// holds, and the byte objects' own size (plus 12 each); this STRING takes about 300 of the
/// room guessed for the run, less than the run itself, so the buffer does not grow (and
/// double) before the run but must grow inside it, before its last object.
const LONG_STRING: usize = 300;

/// The byte objects of that run (2,003 bytes): several, the last longer than what is left.
const RUN: [usize; 5] = [500, 3, 700, 0, 800];

/// Converged and modern components (their byte objects are written as one run): a VALUE,
/// then a KVAL, holding a STRING of [`LONG_STRING`] bytes, then one BYTE_OBJECT call of
/// the objects of [`RUN`].
fn byte_objects_after_a_long_value(g: &mut Gen) {
    if !matches!(g.comp.family(), Family::Converged | Family::Modern) {
        return;
    }
    let text = || Value::String(Some(Text::from("s".repeat(LONG_STRING))));
    let run = Item::new(
        DataType::BYTE_OBJECT,
        RUN.iter()
            .map(|&n| Value::ByteObject(pattern(n).into()))
            .collect(),
    );
    let before = [
        (DataType::VALUE, Value::Value(Box::new(text()))),
        (
            DataType::KVAL,
            Value::Kval(Box::new(Kval {
                key: Some("key".into()),
                value: text(),
            })),
        ),
    ];
    for (ty, v) in before {
        if !g.comp.registers(ty, g.rel) {
            continue;
        }
        g.pack_case(
            &format!(
                "gap.grown-run: {ty} holding a STRING of {LONG_STRING} bytes, then a BYTE_OBJECT \
                 call of {} objects (the encoder's buffer grows inside the run)",
                RUN.len()
            ),
            &[Item::one(v), run.clone()],
            &[],
        );
    }
}

/// The length of the long byte objects: 20,000 = `a0 9c 01` as a modern SIZE, whose middle
/// byte is above 0x80 (a two-byte reading of it would claim 20,000 bytes from one byte
/// early, which the input holds).
const LONG_OBJECT: usize = 20_000;

/// Modern components: a BYTE_OBJECT of [`LONG_OBJECT`] bytes, at the top level and inside a
/// VALUE (one length only: every vector holds its bytes twice, in `items` and `wire`).
fn long_byte_objects(g: &mut Gen) {
    if g.comp.family() != Family::Modern {
        return;
    }
    let object = || Value::ByteObject(pattern(LONG_OBJECT).into());
    for (v, context) in [
        (object(), "at the top level"),
        (Value::Value(Box::new(object())), "inside a VALUE"),
    ] {
        g.pack_case(
            &format!(
                "gap.long-object: BYTE_OBJECT of {LONG_OBJECT} bytes {context} (a three-byte SIZE \
                 whose middle byte is above 0x80)"
            ),
            &[Item::one(v)],
            &[],
        );
    }
}

/// `n` bytes counting up from 1 and wrapping at 251, so that bytes read from one place
/// early or late differ from the expected ones.
fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8 + 1).collect()
}

/// v12 only: a VALUE and an INFO whose value type is UNDEF (0), with nothing after it, and
/// with a UINT8 call after it. v12's packer cannot make one (pmix-codec refuses it like the
/// C packer's missing case), so the bytes are a VALUE or INFO of UINT8 with its type
/// rewritten to 0 and its payload left out; the library's unpacker decides.
fn v12_undef_values(g: &mut Gen) {
    if g.comp.family() != Family::Legacy12 {
        return;
    }
    let codec = g.codec();
    let Ok(seven) = codec.encode(&[Item::one(Value::Uint8(7))]) else {
        g.skip("gap.v12-undef: the codec cannot pack UINT8");
        return;
    };
    // The payload of a UINT8 value: its type tag in a described buffer, then the byte.
    let payload = match g.kind {
        BufferKind::FullyDescribed => g.tag(DataType::UINT8.0).len() + 1,
        BufferKind::NonDescribed => 1,
    };
    let uint8_type = (quirks::v12_wire_type(DataType::UINT8.0) as u32).to_be_bytes();
    for (ty, v) in [
        (DataType::VALUE, Value::Value(Box::new(Value::Uint8(7)))),
        (
            DataType::INFO,
            Value::Info(Box::new(Info::new("key", Value::Uint8(7)))),
        ),
    ] {
        let Ok(enc) = codec.encode(&[Item::one(v)]) else {
            g.skip("gap.v12-undef: the codec cannot pack the UINT8 value");
            continue;
        };
        // The value's type, a 4-byte int, just before the payload.
        let Some(at) = enc.len().checked_sub(payload + 4) else {
            g.skip("gap.v12-undef: value type field not found");
            continue;
        };
        if enc[at..at + 4] != uint8_type {
            g.skip("gap.v12-undef: value type field not found");
            continue;
        }
        let undef = [&enc[..at], &[0u8; 4][..]].concat();
        g.hostile(
            format!("gap.v12-undef: {ty} whose value type is UNDEF (0), nothing follows"),
            undef.clone(),
            &[ty],
            &[],
        );
        g.hostile(
            format!("gap.v12-undef: {ty} whose value type is UNDEF (0), then a UINT8 call of 7"),
            [&undef[..], &seven].concat(),
            &[ty, DataType::UINT8],
            &[],
        );
    }
}

/// The fixed-width integer types an always-tag may name (the unpacker converts any of them
/// to the native type, quirk D2), with their width in bytes.
const INT_WIDTHS: [(DataType, usize); 8] = [
    (DataType::INT8, 1),
    (DataType::UINT8, 1),
    (DataType::INT16, 2),
    (DataType::UINT16, 2),
    (DataType::INT32, 4),
    (DataType::UINT32, 4),
    (DataType::INT64, 8),
    (DataType::UINT64, 8),
];

/// The bytes a decode vector ends with to tell where the calls before it stopped reading: a
/// UINT8 call of 7 (then the vector's last call, a UINT8, finds nothing left).
fn seven_then_end(g: &Gen) -> Option<Vec<u8>> {
    g.codec().encode(&[Item::one(Value::Uint8(7))]).ok()
}

/// The bytes of two values of the fixed-width integer type `width` (`n` bytes wide) as the
/// component writes them after a call header of `header` bytes: -2 (all ones but the last
/// bit) and 0x4141... (the first byte 0x41).
fn width_values(codec: &Codec, header: usize, width: DataType, n: usize) -> Option<Vec<u8>> {
    let ones = u64::MAX >> (64 - 8 * n);
    let (low, high) = (ones - 1, 0x4141_4141_4141_4141u64 & ones);
    let values = match width {
        DataType::INT8 => vec![Value::Int8(low as i8), Value::Int8(high as i8)],
        DataType::UINT8 => vec![Value::Uint8(low as u8), Value::Uint8(high as u8)],
        DataType::INT16 => vec![Value::Int16(low as i16), Value::Int16(high as i16)],
        DataType::UINT16 => vec![Value::Uint16(low as u16), Value::Uint16(high as u16)],
        DataType::INT32 => vec![Value::Int32(low as i32), Value::Int32(high as i32)],
        DataType::UINT32 => vec![Value::Uint32(low as u32), Value::Uint32(high as u32)],
        DataType::INT64 => vec![Value::Int64(low as i64), Value::Int64(high as i64)],
        _ => vec![Value::Uint64(low), Value::Uint64(high)],
    };
    let bytes = codec.encode(&[Item::new(width, values)]).ok()?;
    bytes.get(header..).map(<[u8]>::to_vec)
}

/// Every self-tagged integer type of the component (quirk D2: the types
/// [`quirks::self_tagged_int`] names a native width for), in one call of two values, -2 and
/// a positive one, under an always-tag of every other width of [`INT_WIDTHS`], then UINT8 7,
/// then a UINT8 call past the end. The libraries convert each value to the native type
/// (UNPACK_SIZE_MISMATCH) and read the 7, so the third call is the one refused: a reader
/// that takes another width than the tag's reads the 7 from the wrong place or runs out.
/// Only non-native tags: the native one is every ordinary vector's.
fn int_widths(g: &mut Gen) {
    let Some(seven) = seven_then_end(g) else {
        g.skip("gap.int-width: the codec cannot pack UINT8");
        return;
    };
    let fam = g.comp.family();
    let codec = g.codec();
    for ty in g.comp.registered_types(g.rel) {
        let Some(native) = quirks::self_tagged_int(fam, ty) else {
            continue;
        };
        for (width, n) in INT_WIDTHS {
            if width == native {
                continue;
            }
            let Some(values) = width_values(&codec, g.header(2, width.0).len(), width, n) else {
                g.skip("gap.int-width: the codec cannot pack the width's values");
                continue;
            };
            let wire = [g.header(2, ty.0), g.tag(width.0), values, seven.clone()].concat();
            g.hostile(
                format!(
                    "gap.int-width: {ty} call of -2 (or all ones but the last bit) and 0x{} under a {width} always-tag (quirk D2-int-tag-per-call), \
                     then UINT8 7, then a UINT8 call past the end",
                    "41".repeat(n)
                ),
                wire,
                &[ty, DataType::UINT8, DataType::UINT8],
                &["Quirk"],
            );
        }
    }
}

/// One DATA_ARRAY call of each count of [`SIBLINGS`] DATA_ARRAYs of one UINT8 (non-empty:
/// an empty DATA_ARRAY is read without entering it), past the 100 a nesting count raised
/// per array and never lowered would allow.
fn sibling_data_arrays(g: &mut Gen) {
    sibling_calls(
        g,
        DataType::DATA_ARRAY,
        "gap.darray-siblings",
        "DATA_ARRAYs of one UINT8",
        |_| Value::array(DataType::UINT8, vec![Value::Uint8(7)]),
    );
}

/// The `peak_vsize` the unpackers of 4.2.x, 5.0.x and 6.0.x read after `rss` (quirk U10).
const PEAK_VSIZE: f32 = 2.5;

/// Where the release registers PROC_STATS: one PROC_STATS as this component's packer writes
/// it with a FLOAT `peak_vsize` ([`PEAK_VSIZE`]) put between `rss` and `processor`, the
/// fields its unpacker reads (quirk U10), then UINT8 7, then a UINT8 call past the end. The
/// library reads the PROC_STATS and the 7 and refuses the third call: the only PROC_STATS
/// input of these releases that unpacks (what their packer writes does not, see the
/// `SelfUnpackFails` vectors).
fn proc_stats_as_read(g: &mut Gen) {
    if !g.comp.registers(DataType::PROC_STATS, g.rel) {
        return;
    }
    let Some(seven) = seven_then_end(g) else {
        g.skip("gap.proc-stats-read: the codec cannot pack UINT8");
        return;
    };
    let Some(Value::ProcStats(ps)) = super::families::any_sample(DataType::PROC_STATS) else {
        g.skip("gap.proc-stats-read: no PROC_STATS sample");
        return;
    };
    let codec = g.codec();
    // A struct field's bytes: the top-level call's without its header (the fields of a
    // PROC_STATS carry no type tags, in either buffer kind).
    let field = |v: Value| {
        let header = g.header(1, v.data_type().0).len();
        codec
            .encode(&[Item::one(v)])
            .ok()
            .map(|b| b[header..].to_vec())
    };
    let (Some(whole), Some(peak), Some(processor), Some(sample_time)) = (
        codec
            .encode(&[Item::one(Value::ProcStats(ps.clone()))])
            .ok(),
        field(Value::Float(PEAK_VSIZE)),
        field(Value::Int16(ps.processor)),
        field(Value::Timeval(ps.sample_time)),
    ) else {
        g.skip("gap.proc-stats-read: the codec cannot pack the fields");
        return;
    };
    let tail = [processor, sample_time].concat();
    if !whole.ends_with(&tail) {
        g.skip("gap.proc-stats-read: processor and sample_time not found at the end");
        return;
    }
    let at = whole.len() - tail.len();
    let wire = [&whole[..at], &peak, &whole[at..], &seven].concat();
    g.hostile(
        format!(
            "gap.proc-stats-read: PROC_STATS with a peak_vsize of {PEAK_VSIZE} after rss, as the \
             unpacker reads it (quirk U10-proc-stats-peak-vsize), then UINT8 7, then a UINT8 call past the end"
        ),
        wire,
        &[DataType::PROC_STATS, DataType::UINT8, DataType::UINT8],
        &["Quirk"],
    );
}
