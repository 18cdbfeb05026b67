//! The differential suite: our codec against the real OpenPMIx (Debian's libpmix 4.2.2,
//! through our C oracle), release profile 4.2, components v12 ... v41, both buffer kinds.
//!
//! For every corpus case: (1) our bytes equal the library's pack output (or both fail with
//! the same status); (2) our decoder and the library's unpacker read the library's bytes
//! to the same values. The oracle is required: if it cannot be built the test fails.

use pmix_codec::*;
use pmix_oracle::corpus::{self, Case};
use pmix_oracle::edges;
use pmix_oracle::oracle::{Oracle, Reply};
use pmix_oracle::tokens::write_item;

fn tokens(items: &[Item]) -> String {
    let mut t = Vec::new();
    for i in items {
        write_item(&mut t, i);
    }
    t.join(" ")
}

#[derive(Default)]
struct Tally {
    matched: usize,
    /// Cases where the library is known to crash or emit stray memory (quirk id per case).
    upstream_bugs: Vec<String>,
    failures: Vec<String>,
}

/// Cases where libpmix 4.2.2 cannot be the judge: it crashes, or packs memory it does not
/// own. Each names its quirk (codec/src/quirks.rs), whose chosen behaviour has its own test
/// (codec/tests/quirks.rs). A case listed here that stops crashing fails the suite.
fn has_topo(case: &Case) -> bool {
    // A TOPO packed by the TOPO packer: a top-level one, or the elements of an array at any
    // depth (a VALUE's TOPO goes through the value packer, which checks it).
    let top = case
        .items
        .iter()
        .flat_map(|i| &i.values)
        .any(|v| matches!(v, Value::Topo(_)));
    top || any_value(
        case,
        &|v| matches!(v, Value::DataArray(d) if d.ty == DataType::TOPO && !d.values.is_empty()),
    )
}

/// Calls `f` on every value of `v`, `v` first, then the values nested in it (a VALUE's,
/// an INFO's, KVAL's or PDATA's value, array elements, an APP's and a QUERY's infos).
fn walk(v: &Value, f: &mut dyn FnMut(&Value)) {
    f(v);
    let infos = |l: &[Info], f: &mut dyn FnMut(&Value)| l.iter().for_each(|i| walk(&i.value, f));
    match v {
        Value::Value(x) => walk(x, f),
        Value::Info(i) => walk(&i.value, f),
        Value::Kval(k) => walk(&k.value, f),
        Value::Pdata(p) => walk(&p.value, f),
        Value::DataArray(d) => d.values.iter().for_each(|x| walk(x, f)),
        Value::InfoArray(l) => infos(l, f),
        Value::App(a) => infos(&a.info, f),
        Value::Query(q) => infos(&q.qualifiers, f),
        _ => {}
    }
}

/// Whether any value of the case, at any depth, satisfies `pred`.
fn any_value(case: &Case, pred: &dyn Fn(&Value) -> bool) -> bool {
    let mut found = false;
    for v in case.items.iter().flat_map(|i| &i.values) {
        walk(v, &mut |x| found |= pred(x));
    }
    found
}

/// Releases whose TOPO packer dereferences a NULL topology (quirk C1); 7.0 checks it.
fn topo_crashes(rel: Release) -> bool {
    rel != Release::OpenPmix7_0
}

/// A DATA_ARRAY call with a typeless (UNDEF) array before its last array (quirks R2, C6).
fn after_typeless_darray(case: &Case) -> bool {
    case.items
        .iter()
        .any(|i| i.ty == DataType::DATA_ARRAY && quirks::typeless_array_before_others(&i.values))
}

fn known_upstream_bug(codec: &Codec, case: &Case) -> Option<&'static str> {
    let darray_of =
        |elem: DataType| any_value(case, &|v| matches!(v, Value::DataArray(d) if d.ty == elem));
    let value_of = |inner: DataType| {
        any_value(
            case,
            &|v| matches!(v, Value::Value(x) if x.data_type() == inner),
        )
    };
    match codec.component {
        Component::V12
            if case
                .items
                .iter()
                .any(|i| i.ty == DataType::DATA_TYPE && i.values.len() > 1) =>
        {
            Some("D3-v12-datatype-as-int32")
        }
        Component::V20 if darray_of(DataType::COMMAND) => Some("D4-v20-darray-command-overread"),
        // (A PERSIST value fails earlier, quirk U12, so the crash is not reached.)
        Component::V20 if value_of(DataType::QUERY) && !value_of(DataType::PERSIST) => {
            Some("C2-v20-value-query-crash")
        }
        c if c >= Component::V4 && has_topo(case) && topo_crashes(codec.release) => {
            Some("C1-topo-null-crash")
        }
        c if c >= Component::V21 && after_typeless_darray(case) => {
            if codec.release.profile().darray_undef_has_size {
                // 6.1's unpacker reads every array after a typeless one as UNDEF.
                (codec.release == Release::OpenPmix6_1).then_some("C6-darray-after-undef")
            } else {
                // 7.0/master drop the arrays after it when packing; we refuse.
                Some("R2-darray-undef-size")
            }
        }
        _ => None,
    }
}

fn check_case(oracle: &mut Oracle, codec: Codec, case: &Case, tally: &mut Tally) {
    let id = format!("{}.{}.{}", codec.component, codec.kind, case.name);
    if let Some(quirk) = known_upstream_bug(&codec, case) {
        // The library must still misbehave here, or the exception is stale.
        let ours = codec.encode(&case.items);
        let theirs = oracle
            .pack(codec.component, codec.kind, &case.items)
            .expect("oracle alive");
        let still_bad = match (&ours, &theirs) {
            (_, Reply::Crashed(_)) => true,
            (Ok(a), Reply::Ok(b)) if a != b => true,
            // We refuse what the library packs to a truncated buffer (quirk R2).
            (Err(e), Reply::Ok(_)) => {
                quirk == "R2-darray-undef-size" && e.status == Status::ERR_BAD_PARAM
            }
            (Ok(_), Reply::Ok(b)) => {
                let calls: Vec<(DataType, usize)> = case
                    .items
                    .iter()
                    .map(|i| (i.ty, i.values.len().max(1)))
                    .collect();
                // Same bytes: the library's unpacker must still crash or read garbage.
                match oracle.unpack(codec.component, codec.kind, b, &calls) {
                    Ok(Reply::Crashed(_)) => true,
                    Ok(Reply::Ok(theirs)) => match codec.decode_calls(b, &calls) {
                        Ok(ours) => tokens(&ours) != tokens(&theirs),
                        Err(_) => true,
                    },
                    _ => false,
                }
            }
            _ => false,
        };
        if still_bad {
            tally.upstream_bugs.push(format!("{id} ({quirk})"));
        } else {
            tally.failures.push(format!(
                "{id}: listed as upstream bug {quirk} but libpmix now behaves: update the list"
            ));
        }
        return;
    }
    let ours = codec.encode(&case.items);
    let theirs = oracle
        .pack(codec.component, codec.kind, &case.items)
        .expect("oracle alive");
    let bytes = match (&ours, &theirs) {
        (Ok(a), Reply::Ok(b)) if a == b => b.clone(),
        (Err(e), Reply::Err { status, .. }) if e.status.0 == *status => {
            tally.matched += 1;
            return;
        }
        (a, b) => {
            tally.failures.push(format!(
                "{id}: pack differs\n   items: {}\n   ours:   {}\n   libpmix: {b:?}",
                tokens(&case.items),
                match a {
                    Ok(b) => pmix_oracle::hex::encode(b),
                    Err(e) => format!("{e}"),
                }
            ));
            return;
        }
    };
    let calls: Vec<(DataType, usize)> = case
        .items
        .iter()
        .map(|i| (i.ty, i.values.len().max(1)))
        .collect();
    let our_read = codec.decode_calls(&bytes, &calls);
    let their_read = oracle
        .unpack(codec.component, codec.kind, &bytes, &calls)
        .expect("oracle alive");
    match (&our_read, &their_read) {
        (Ok(a), Reply::Ok(b)) if tokens(a) == tokens(b) => tally.matched += 1,
        (Err((e, _)), Reply::Err { status, index, .. })
            if e.status.0 == *status && e.item == *index =>
        {
            tally.matched += 1
        }
        (a, b) => tally.failures.push(format!(
            "{id}: unpack differs\n   bytes:   {}\n   ours:    {}\n   libpmix: {}",
            pmix_oracle::hex::encode(&bytes),
            match a {
                Ok(items) => format!("ok {}", tokens(items)),
                Err((e, _)) => format!("err {e}"),
            },
            match b {
                Reply::Ok(items) => format!("ok {}", tokens(items)),
                other => format!("{other:?}"),
            }
        )),
    }
}

/// Runs the corpus of every component and buffer kind of `library`'s profile against that
/// library. A library that is not available here is reported as not run, with the
/// command that makes it available; under CI (`CI` set) that is a failure.
/// The oracle of `library` and the profile it judges, or `None` after saying loudly that
/// the library is not available (a failure under CI, which makes every release available).
fn oracle_for(library: &str, what: &str) -> Option<(Oracle, Release)> {
    let rel = Release::judged_by(library).expect("a profile for every library");
    match Oracle::start_for(library) {
        Ok(o) => Some((o, rel)),
        Err(e) => {
            let msg = format!("{what} [OpenPMIx {library}, profile {rel}]: NOT RUN: {e}");
            println!("{msg}");
            eprintln!("{msg}");
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must make every release available: {msg}"
            );
            None
        }
    }
}

fn codec_matches_library(library: &str) {
    let Some((mut oracle, rel)) = oracle_for(library, "differential") else {
        return;
    };
    println!(
        "differential [OpenPMIx {library}, profile {rel}]: oracle says {}",
        oracle.version
    );
    assert!(
        oracle
            .version
            .contains(library.trim_end_matches("rc1").trim_end_matches('.')),
        "the oracle for {library} reports {}",
        oracle.version
    );
    let mut total_failures = Vec::new();
    let mut total = 0;
    for comp in rel.components() {
        for kind in BufferKind::ALL {
            let codec = Codec::new(*comp, kind).with_release(rel);
            let mut tally = Tally::default();
            let mut cases = corpus::cases(*comp, rel);
            cases.extend(edges::edge_cases(*comp, rel));
            for case in &cases {
                check_case(&mut oracle, codec, case, &mut tally);
            }
            // The per-release forms (REGEX framings, compressed), in a library process of
            // their own as when they are recorded (tools/vectorgen/src/library.rs).
            let forms = pmix_oracle::forms::form_cases(*comp, rel);
            oracle.restart();
            for case in &forms {
                check_case(&mut oracle, codec, case, &mut tally);
            }
            oracle.restart();
            let cases = [cases, forms].concat();
            println!(
                "{library:>8} {comp:>4} {kind:<16} {:>4}/{:<4} cases match; {} upstream-bug cases (quirk table), {} differ",
                tally.matched,
                cases.len(),
                tally.upstream_bugs.len(),
                tally.failures.len(),
            );
            for b in &tally.upstream_bugs {
                println!("     upstream bug, not compared: {b}");
            }
            assert_eq!(
                tally.matched + tally.upstream_bugs.len() + tally.failures.len(),
                cases.len(),
                "every case is counted once"
            );
            total += cases.len();
            total_failures.extend(tally.failures);
        }
    }
    for f in total_failures.iter().take(1000) {
        println!("{f}");
    }
    assert!(total > 1000, "corpus too small: {total}");
    assert!(
        total_failures.is_empty(),
        "{} of {total} cases differ from OpenPMIx {library}",
        total_failures.len()
    );
}

#[test]
fn codec_matches_openpmix_4_2_2() {
    codec_matches_library("4.2.2");
}

#[test]
fn codec_matches_openpmix_5_0_7() {
    codec_matches_library("5.0.7");
}

#[test]
fn codec_matches_openpmix_6_0_0() {
    codec_matches_library("6.0.0");
}

#[test]
fn codec_matches_openpmix_6_1_0() {
    codec_matches_library("6.1.0");
}

#[test]
fn codec_matches_openpmix_7_0_0rc1() {
    codec_matches_library("7.0.0rc1");
}

/// Top-level calls whose count is zero or negative, with nothing, zeros, or a type tag
/// after it: every type number 1-75 in every component, both buffer kinds (4.2 profile). These are
/// the corners where the unpackers' own checks decide (quirks U5, U6): found by the
/// differential fuzz target as status disagreements.
#[test]
fn zero_and_negative_counts_match_every_release() {
    for library in pmix_oracle::oracle::LIBRARIES {
        zero_and_negative_counts_match(library);
    }
}

fn zero_and_negative_counts_match(library: &str) {
    let Some((mut oracle, rel)) = oracle_for(library, "zero/negative counts") else {
        return;
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    for (comp, kind) in rel
        .components()
        .iter()
        .flat_map(|c| BufferKind::ALL.map(|k| (c, k)))
    {
        let (zero, negative): (&[u8], &[u8]) = match comp.family() {
            Family::Modern => (&[0x00], &[0x01]),
            _ => (&[0; 4], &[0xff; 4]),
        };
        // After the count: nothing, zeros, or a type tag (SIZE, INT, INT8 ... UINT64: what
        // the native-size unpackers read first) and zeros.
        let mut tails: Vec<Vec<u8>> = vec![vec![], vec![0; 64]];
        for tag in [4u16, 6, 7, 8, 9, 10, 12, 13, 14, 15] {
            let mut t = match comp.family() {
                Family::Modern => vec![tag as u8],
                Family::Legacy12 => (tag as u32).to_be_bytes().to_vec(),
                _ => tag.to_be_bytes().to_vec(),
            };
            t.extend_from_slice(&[0; 16]);
            tails.push(t);
        }
        // A type tag as the component writes it (v12: 1.x numbering).
        let tag = |t: DataType| -> Vec<u8> {
            match comp.family() {
                Family::Modern => vec![t.0 as u8],
                Family::Legacy12 => (quirks::v12_wire_type(t.0) as u32).to_be_bytes().to_vec(),
                _ => t.0.to_be_bytes().to_vec(),
            }
        };
        // every type number (the unregistered ones are refused with -16 before the count
        // matters)
        for ty in (1..=75).map(DataType) {
            for count in [zero, negative] {
                for tail in &tails {
                    // described: INT32 tag, count, the call's type tag, then the tail
                    let mut bytes = Vec::new();
                    if kind == BufferKind::FullyDescribed {
                        bytes.extend(tag(DataType::INT32));
                    }
                    bytes.extend_from_slice(count);
                    if kind == BufferKind::FullyDescribed {
                        bytes.extend(tag(ty));
                    }
                    bytes.extend_from_slice(tail);
                    let calls = [(ty, 4)];
                    let ours = Codec::new(*comp, kind)
                        .with_release(rel)
                        .decode_calls(&bytes, &calls);
                    let theirs = oracle
                        .unpack(*comp, kind, &bytes, &calls)
                        .expect("oracle answers");
                    compared += 1;
                    let agree = match (&ours, &theirs) {
                        (Ok(a), Reply::Ok(b)) => tokens(a) == tokens(b),
                        // The library succeeded and handed the negative count back as the
                        // number of values; we report an empty call.
                        (Ok(a), Reply::Bad(why)) if why.contains(&format!("ok {ty} -")) => {
                            a.len() == 1 && a[0].values.is_empty()
                        }
                        (Err((e, _)), Reply::Err { status, index, .. }) => {
                            e.status.0 == *status && e.item == *index
                        }
                        _ => false,
                    };
                    if !agree {
                        failures.push(format!(
                            "{comp} {kind} {ty} {}: ours {} / libpmix {theirs:?}",
                            pmix_oracle::hex::encode(&bytes),
                            match &ours {
                                Ok(items) => format!("ok {}", tokens(items)),
                                Err((e, _)) => format!("err {e}"),
                            }
                        ));
                    }
                }
            }
        }
    }
    println!("{compared} zero/negative-count calls compared with libpmix {library}");
    assert!(compared > 20_000, "too few cases: {compared}");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// One fuzz-found quirk example: (quirk, component, kind, bytes, unpack calls, libpmix's
/// answer, ours).
type QuirkCase = (
    &'static str,
    Component,
    BufferKind,
    Vec<u8>,
    Vec<(DataType, usize)>,
    String,
    String,
);

/// The inputs the differential fuzz target found where we differ from libpmix on purpose
/// (quirk table), asked of the real library again: what the quirk entry says libpmix does
/// must still be what it does, and our decoder must still give what the entry chose.
#[test]
fn fuzz_found_quirk_examples_hold_in_libpmix_4_2() {
    let mut oracle = Oracle::start()
        .unwrap_or_else(|e| panic!("THE LIBPMIX ORACLE IS REQUIRED FOR THIS TEST: {e}"));
    let rel = Release::OpenPmix4_2;
    let reply = |r: &Reply<Vec<Item>>| match r {
        Reply::Ok(items) => format!("ok {}", tokens(items)),
        Reply::Err { status, index, .. } => format!("err {status}@{index}"),
        other => format!("{other:?}"),
    };
    let ours = |codec: Codec, bytes: &[u8], calls: &[(DataType, usize)]| match codec
        .decode_calls(bytes, calls)
    {
        Ok(items) => format!("ok {}", tokens(&items)),
        Err((e, _)) => format!("err {}@{}", e.status.0, e.item),
    };
    let (nd, fd) = (BufferKind::NonDescribed, BufferKind::FullyDescribed);
    // (quirk, component, kind, bytes, calls, libpmix's answer, ours)
    let mut cases: Vec<QuirkCase> = vec![
        (
            "L1 (VALUE of type 44)",
            Component::V12,
            nd,
            "00000001 00000009 0000002c 00000009 00000000".into(),
            vec![(DataType::VALUE, 1)],
            "ok VALUE 1 INFO_ARRAY 0".into(),
            "ok VALUE 1 DATA_ARRAY INFO 0".into(),
        ),
        (
            "C4 (BUFFER of 2^34 + 4 bytes)",
            Component::V3,
            nd,
            "00000002 01 000f 0000000400000004 00000001 02 000f 0000000000000000".into(),
            vec![(DataType::BUFFER, 2)],
            "ok BUFFER 2 1 b:00000001 2 b:".into(),
            "err -50@0".into(),
        ),
        (
            "U18 (TOPO text that is not XML)",
            Component::V4,
            nd,
            "02 38 02 38 00".into(),
            vec![(DataType::VALUE, 1)],
            "err -1@0".into(),
            "ok VALUE 1 TOPO s:38".into(),
        ),
        (
            "U11 (INFO_ARRAY element read as an UNDEF VALUE)",
            Component::V3,
            nd,
            "00000001 002c 000f 0000000000000001 0000".into(),
            vec![(DataType::VALUE, 1)],
            "ok VALUE 1 INFO_ARRAY 1 s: 0 UNDEF".into(),
            "ok VALUE 1 INFO_ARRAY 1 s: 0 UNDEF".into(),
        ),
        (
            "D2 (non-native integer tag, no described tag after it)",
            Component::V12,
            fd,
            "00000009 00000002 00000006 0000000c 0000000c 05 07".into(),
            vec![(DataType::INT, 4)],
            "ok INT 2 0 0".into(),
            "ok INT 2 0 0".into(),
        ),
    ]
    .into_iter()
    .map(
        |(q, c, k, hex, calls, theirs, ours): (_, _, _, String, _, _, _)| {
            let bytes = pmix_oracle::hex::decode(&hex.replace(' ', "")).expect("hex");
            (q, c, k, bytes, calls, theirs, ours)
        },
    )
    .collect();
    // U17: an APP whose argv holds a NULL string, in every component. The APP without it
    // is packed by libpmix to exactly our bytes first.
    let t = |s: &str| Some(Text::from(s.as_bytes().to_vec()));
    let app = Item::one(Value::App(Box::new(App {
        cmd: t("c"),
        argv: vec![t("a")],
        env: vec![],
        cwd: None,
        maxprocs: 1,
        info: vec![],
    })));
    for comp in rel.components() {
        let codec = Codec::new(*comp, nd).with_release(rel);
        let good = codec.encode(std::slice::from_ref(&app)).expect("encode");
        match oracle
            .pack(*comp, nd, std::slice::from_ref(&app))
            .expect("oracle")
        {
            Reply::Ok(b) => assert_eq!(b, good, "{comp}: libpmix packs the APP differently"),
            other => panic!("{comp}: libpmix cannot pack the APP: {other:?}"),
        }
        let (a, null): (&[u8], &[u8]) = match comp.family() {
            Family::Modern => (&[0x04, b'a', 0], &[0x00]),
            _ => (&[0, 0, 0, 2, b'a', 0], &[0, 0, 0, 0]),
        };
        let at = good.windows(a.len()).position(|w| w == a).expect("argv[0]");
        let bad = [&good[..at], null, &good[at + a.len()..]].concat();
        cases.push((
            "U17 (NULL argv element)",
            *comp,
            nd,
            bad,
            vec![(DataType::APP, 1)],
            "err -1@0".into(),
            "err -1@0".into(),
        ));
    }
    let mut failures = Vec::new();
    for (quirk, comp, kind, bytes, calls, theirs, want) in &cases {
        let codec = Codec::new(*comp, *kind).with_release(rel);
        let got_theirs = reply(&oracle.unpack(*comp, *kind, bytes, calls).expect("oracle"));
        let got_ours = ours(codec, bytes, calls);
        if &got_theirs != theirs || &got_ours != want {
            failures.push(format!(
                "{quirk} {comp} {kind} {}: libpmix {got_theirs} (quirk table: {theirs}), ours {got_ours} (chosen: {want})",
                pmix_oracle::hex::encode(bytes)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{} quirk examples hold against libpmix", cases.len());
}

/// `Packer::pack_byte_objects` packs byte-object arrays at the SIZE prefix's width
/// boundaries (one-, two-, three- and four-byte flex lengths; the converged UINT64) to
/// exactly the bytes libpmix 4.2.2 packs for them, in every component and buffer kind.
#[test]
fn pack_byte_objects_matches_libpmix_4_2() {
    let mut oracle = Oracle::start()
        .unwrap_or_else(|e| panic!("THE LIBPMIX ORACLE IS REQUIRED FOR THIS TEST: {e}"));
    let rel = Release::OpenPmix4_2;
    let blobs: Vec<Vec<u8>> = [0usize, 1, 127, 128, 16383, 16384, 2_097_152]
        .iter()
        .map(|&n| (0..n).map(|j| (j * 7 + n) as u8).collect())
        .collect();
    let item = Item::new(
        DataType::BYTE_OBJECT,
        blobs
            .iter()
            .map(|b| Value::ByteObject(b.clone().into()))
            .collect(),
    );
    let mut compared = 0;
    for comp in rel.components() {
        for kind in BufferKind::ALL {
            let codec = Codec::new(*comp, kind).with_release(rel);
            let mut ours = Vec::new();
            codec
                .packer(&mut ours)
                .pack_byte_objects(&blobs)
                .expect("pack_byte_objects");
            match oracle
                .pack(*comp, kind, std::slice::from_ref(&item))
                .expect("oracle")
            {
                Reply::Ok(theirs) => assert!(
                    theirs == ours,
                    "{comp} {kind}: libpmix packs {} bytes, pack_byte_objects {}",
                    theirs.len(),
                    ours.len()
                ),
                other => panic!("{comp} {kind}: libpmix cannot pack the array: {other:?}"),
            }
            compared += 1;
        }
    }
    assert_eq!(compared, rel.components().len() * 2);
}
