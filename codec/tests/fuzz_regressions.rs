//! Hostile-input regressions: the malformed inputs derived from the OpenPMIx master
//! recordings (`vectors/recordings`), and every input the fuzz targets (`fuzz/`) found that
//! made the codec misbehave, replayed through the codec with stable Rust.
//!
//! The fuzz inputs themselves live in `fuzz/regressions/<target>/` and are replayed by
//! `.ci/fuzz.sh` too; here each finding is one named test with its exact expectation (see
//! `fuzz/README.md`, "A crash", and `fuzz/FINDINGS.md`).

use pmix_codec::quirks;
use pmix_codec::wire::{put_flex, unzigzag, zigzag, Reader};
use pmix_codec::*;
use std::path::{Path, PathBuf};

// ---- the master recordings -----------------------------------------------------------------

/// The raw recordings kept in the repository (`vectors/recordings`).
fn shared_vectors() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors/recordings");
    assert!(
        p.is_dir(),
        "MISSING: {} (part of the repository)",
        p.display()
    );
    p
}

/// Every file under `dir` (relative paths, sorted).
fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, base, out);
        } else {
            out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
        }
    }
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// One recorded pack call that OpenPMIx master packed: its codec, its type and its bytes.
struct Recorded {
    file: String,
    codec: Codec,
    desc: String,
    ty: DataType,
    wire: Vec<u8>,
}

/// The `ok` lines of every recording file in the `alloc-inherit.tsv` format (sections
/// `## component=C buffer=B`, then `description<TAB>ok <hex>` or `err <status> <name>`).
fn recorded_buffers() -> (Vec<Recorded>, Vec<String>) {
    let base = shared_vectors();
    let mut files = Vec::new();
    walk(&base, &base, &mut files);
    let (mut out, mut tsv) = (Vec::new(), Vec::new());
    for rel in files.iter().filter(|f| f.ends_with(".tsv")) {
        let text = std::fs::read_to_string(base.join(rel)).unwrap();
        let mut codec = None;
        for line in text.lines() {
            if let Some(h) = line.strip_prefix("## ") {
                let get = |k: &str| {
                    h.split_whitespace()
                        .find_map(|kv| kv.strip_prefix(k))
                        .unwrap_or_else(|| panic!("{rel}: section {h:?} lacks {k}"))
                };
                codec = Some(Codec::new(
                    get("component=").parse().unwrap(),
                    get("buffer=").parse().unwrap(),
                ));
                continue;
            }
            let Some((desc, result)) = line.split_once('\t') else {
                continue;
            };
            if desc.starts_with('#') {
                continue;
            }
            let codec = codec.unwrap_or_else(|| panic!("{rel}: a line before any section"));
            if let Some(h) = result.strip_prefix("ok ") {
                let word = desc.split_whitespace().next().unwrap();
                out.push(Recorded {
                    file: rel.clone(),
                    codec,
                    desc: desc.to_string(),
                    ty: DataType::from_name(word)
                        .unwrap_or_else(|| panic!("{rel}: unknown type {word}")),
                    wire: unhex(h),
                });
            } else {
                assert!(
                    result.starts_with("err "),
                    "{rel}: unknown result {result:?}"
                );
            }
        }
        tsv.push(rel.clone());
    }
    (out, tsv)
}

/// Every file in `vectors/recordings` is replayed by a test: the `.tsv` pack recordings by
/// `master_recordings.rs` (exact bytes, and the exact status of every refused pack call)
/// and by the malformed-input tests below. A recording in any other form fails here until
/// a replay for it is written.
#[test]
fn every_shared_recording_is_replayed() {
    let base = shared_vectors();
    let mut files = Vec::new();
    walk(&base, &base, &mut files);
    let (recorded, tsv) = recorded_buffers();
    let unknown: Vec<&String> = files
        .iter()
        .filter(|f| !f.ends_with("README.md") && !tsv.contains(f))
        .collect();
    assert!(
        unknown.is_empty(),
        "recordings no test replays yet: {unknown:?}"
    );
    assert!(
        recorded.len() >= 40,
        "only {} recorded buffers",
        recorded.len()
    );
}

fn fails_with(r: &Recorded, bytes: &[u8], what: &str, want: Status) -> Option<String> {
    match r.codec.decode(bytes, &[r.ty]) {
        Err(e) if e.status == want && e.item == 0 && e.offset <= bytes.len() => None,
        Err(e) => Some(format!(
            "{} {} {} [{}] {what}: {e}",
            r.file, r.codec.component, r.codec.kind, r.desc
        )),
        Ok(v) => Some(format!(
            "{} {} {} [{}] {what}: decoded {v:?}",
            r.file, r.codec.component, r.codec.kind, r.desc
        )),
    }
}

/// Master's recorded buffers cut at every byte: OpenPMIx master refuses every truncation
/// with PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50) on the first call (reference guide
/// §4.1-4.2: "truncation anywhere"; fixed-width reads and varints alike).
#[test]
fn truncated_master_recordings_fail_with_read_past_end() {
    let (recorded, _) = recorded_buffers();
    let mut bad = Vec::new();
    let mut n = 0;
    for r in &recorded {
        assert!(
            r.codec.decode(&r.wire, &[r.ty]).is_ok(),
            "{} [{}] does not decode",
            r.file,
            r.desc
        );
        for cut in 0..r.wire.len() {
            n += 1;
            bad.extend(fails_with(
                r,
                &r.wire[..cut],
                &format!("cut at {cut}"),
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {n} truncations:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Master's recorded buffers with a top-level count that lies (one more value than the
/// bytes hold, and 2^31-1): -50 on the first call (§4.2: "Count larger than payload ... each
/// element then fails with -50 when the data runs out"), never an allocation from the count.
#[test]
fn lying_counts_in_master_recordings_fail_with_read_past_end() {
    let (recorded, _) = recorded_buffers();
    let mut bad = Vec::new();
    let mut n = 0;
    for r in &recorded {
        assert_eq!(
            r.codec.component.family(),
            Family::Modern,
            "{}: this test rewrites flex counts only",
            r.file
        );
        // [INT32 tag] count [type tag] payload
        let tag_len = if r.codec.kind == BufferKind::FullyDescribed {
            1
        } else {
            0
        };
        let mut rd = Reader::new(&r.wire[tag_len..]);
        let count = unzigzag(rd.flex(4, Release::Master).unwrap());
        let rest = rd.rest();
        for lie in [count + 1, i32::MAX as i64] {
            let mut w = r.wire[..tag_len].to_vec();
            put_flex(&mut w, zigzag(lie));
            w.extend_from_slice(rest);
            n += 1;
            bad.extend(fails_with(
                r,
                &w,
                &format!("count {count} -> {lie}"),
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {n} lying counts:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

// ---- resource bounds: nesting --------------------------------------------------------------

/// The stack the nesting test decodes on. Measured: 100 legitimate levels (DATA_ARRAY of
/// INFO of DATA_ARRAY ...) need 256-384 KiB in a release build and 1.5-2 MiB in a debug
/// build (large unoptimised frames), so a debug decoder on a thread with Rust's default
/// 2 MiB stack is near its limit; input deeper than 100 levels is refused before that.
const STACK: usize = if cfg!(debug_assertions) {
    4 << 20
} else {
    512 << 10
};

/// `levels` DATA_ARRAYs, each holding the next; through an INFO at every level when
/// `via_info` (DATA_ARRAY of INFO whose value is the next DATA_ARRAY).
fn nested(levels: usize, via_info: bool) -> Value {
    let mut v = Value::array(DataType::UINT8, vec![Value::Uint8(1)]);
    for _ in 1..levels {
        v = if via_info {
            Value::array(DataType::INFO, vec![Value::info("k", v)])
        } else {
            Value::array(DataType::DATA_ARRAY, vec![v])
        };
    }
    v
}

/// The bytes of one pack call of `nested(levels)`, for any depth: the 4.2 profile encodes
/// without a depth cap (as 4.2.2 does); deeper inputs repeat the per-level bytes found by
/// comparing the encodings of 2 and 3 levels.
fn deep_bytes(codec: Codec, levels: usize, via_info: bool) -> Vec<u8> {
    // Two and three levels stay far below any depth cap; 4.2 where it has the component.
    let rel = if Release::OpenPmix4_2.ships(codec.component) {
        Release::OpenPmix4_2
    } else {
        Release::OpenPmix6_1
    };
    let enc = codec.with_release(rel);
    let e = |n| enc.encode(&[Item::one(nested(n, via_info))]).unwrap();
    let (b2, b3) = (e(2), e(3));
    let l = b3.len() - b2.len();
    let h = (0..=b2.len())
        .find(|&h| b3[..h] == b2[..h] && b3[h + l..] == b2[h..])
        .expect("one nesting level is a contiguous run of bytes");
    let mut out = b2[..h].to_vec();
    for _ in 2..levels {
        out.extend_from_slice(&b3[h..h + l]);
    }
    out.extend_from_slice(&b2[h..]);
    if levels <= 150 {
        assert_eq!(out, e(levels), "{} {}", codec.component, codec.kind);
    }
    out
}

/// Whether OpenPMIx's unpacker (as the codec reproduces it) can allocate a DATA_ARRAY whose
/// elements are DATA_ARRAYs (quirk U8).
fn holds_nested_arrays(comp: Component, rel: Release) -> bool {
    let t = DataType::DATA_ARRAY;
    if comp == Component::V20 {
        quirks::V20_DARRAY_ELEMENT_TYPES.contains(&t)
    } else {
        !rel.profile().darray_construct_4_2 || quirks::DARRAY_CONSTRUCT_4_2.contains(&t)
    }
}

/// Nesting is capped at 100 levels in both release profiles (quirk R6; master unpacks
/// deeper arrays with PMIX_ERR_UNPACK_FAILURE, -20), and the decoder does not recurse
/// with the input: 100 000 levels are refused on a 1 MiB stack.
#[test]
fn nesting_is_capped_in_every_family_without_deep_recursion() {
    // (what, codec, bytes, expected (status, item) or Ok), built on the test thread
    let mut cases = Vec::new();
    for comp in Component::ALL.into_iter().filter(|c| *c != Component::V12) {
        for kind in BufferKind::ALL {
            for rel in Release::ALL.into_iter().filter(|r| r.ships(comp)) {
                for via_info in [false, true] {
                    let codec = Codec::new(comp, kind).with_release(rel);
                    for levels in [100, 101, 150, 100_000] {
                        let want = if !via_info && !holds_nested_arrays(comp, rel) {
                            // quirk U8: the unpacker cannot hold a DATA_ARRAY of DATA_ARRAY
                            // (libpmix 4.2.2: v20 -47, v21 ... v41 -32; vectors "nest.depth2")
                            let s = if comp == Component::V20 {
                                Status::ERR_NOT_SUPPORTED
                            } else {
                                Status::ERR_NOMEM
                            };
                            Err((s, 0))
                        } else if levels <= 100 {
                            Ok(())
                        } else {
                            Err((Status::ERR_UNPACK_FAILURE, 0))
                        };
                        let what =
                            format!("{comp} {kind} {rel} via_info={via_info} {levels} levels");
                        cases.push((what, codec, deep_bytes(codec, levels, via_info), want));
                    }
                }
            }
        }
    }
    // decoding alone runs on the small stack
    let worker = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let mut bad = Vec::new();
            for (what, codec, bytes, want) in cases {
                let got = codec
                    .decode(&bytes, &[DataType::DATA_ARRAY])
                    .map(|_| ())
                    .map_err(|e| (e.status, e.item));
                if got != want {
                    bad.push(format!("{what}: {got:?}, want {want:?}"));
                }
            }
            bad
        })
        .unwrap();
    let bad = worker.join().expect("no stack overflow");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ---- findings of the fuzz targets ----------------------------------------------------------

/// decode_modern, `regressions/decode_modern/pointer-arrays-amplify-memory`: a POINTER run
/// costs one sentinel byte whatever its length (quirk P1), and the decoder allowed every
/// DATA_ARRAY of POINTER 4096 values beyond the remaining bytes. So many short arrays
/// multiply that slack: 202 bytes decoded to 8000 `Value`s (940 KB), 100 arrays of 4000 in
/// ~400 bytes to 400 000 (45 MB) - memory O(n) only with a factor of ~10^5. The slack must
/// be one budget per decode: at most 4096 values beyond the input's length in all, anything
/// more refused like any count beyond what the input can hold (PMIX_ERR_NOMEM, -32, at the
/// call).
#[test]
fn pointer_runs_share_one_slack_per_decode() {
    let mut bad = Vec::new();
    // 100 runs of 4000 (each within a per-array slack of 4096) and 300 runs of 1000 (each
    // within the bytes that remain after it): both multiply what the input pays for
    for (runs, len) in [(100, 4000), (300, 1000)] {
        let run = Value::array(DataType::POINTER, vec![Value::Pointer; len]);
        let items = [Item::one(Value::array(
            DataType::DATA_ARRAY,
            vec![run; runs],
        ))];
        for comp in [
            Component::V21,
            Component::V3,
            Component::V4,
            Component::V41,
            Component::V51,
            Component::V61,
        ] {
            for kind in BufferKind::ALL {
                let codec = Codec::new(comp, kind);
                let bytes = codec.encode(&items).unwrap();
                let got = codec.decode(&bytes, &[DataType::DATA_ARRAY]);
                let pointers: usize = match &got {
                    Ok(items) => match &items[0].values[..] {
                        [Value::DataArray(outer)] => outer
                            .values
                            .iter()
                            .map(|v| match v {
                                Value::DataArray(run) => run.values.len(),
                                _ => 0,
                            })
                            .sum(),
                        _ => 0,
                    },
                    Err(_) => 0,
                };
                match got {
                    Err(e) if e.status == Status::ERR_NOMEM && e.item == 0 => {}
                    Ok(_) if pointers <= bytes.len() + 4096 => {}
                    other => bad.push(format!(
                        "{comp} {kind} {runs}x{len}: {} bytes gave {pointers} pointer values ({:?})",
                        bytes.len(),
                        other.map(|_| ()).map_err(|e| e.to_string())
                    )),
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// json, `regressions/json/non-ascii-wire-hex`: a vector whose `wire` holds a multi-byte
/// UTF-8 character panicked in `check_vector` (hex pairs were sliced out of the string at
/// byte offsets). A vendor's file, or a testee's reply, must be refused, not crash us.
#[test]
fn vector_with_non_ascii_wire_is_refused_not_a_panic() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/regressions/json/non-ascii-wire-hex"),
    )
    .unwrap();
    let f = pmix_codec::vectors::VectorFile::from_json(&text).expect("a well-formed file");
    let codec = f.codec().unwrap();
    let mut refused = 0;
    for v in &f.tests {
        assert!(
            !v.wire.is_ascii(),
            "the regression input lost its non-ASCII wire"
        );
        let got = std::panic::catch_unwind(|| pmix_codec::vectors::check_vector(&codec, v));
        match got {
            Ok(Err(why)) if why.contains("bad wire hex") => refused += 1,
            other => panic!("#{}: {other:?}", v.id),
        }
    }
    assert!(refused > 0);
    // every split of a two-byte character, at every position
    for wire in ["Й", "0Й", "00Й", "Й00", "aЙb", "ЙЙ"] {
        let mut v = f.tests[0].clone();
        v.wire = wire.to_string();
        assert!(
            pmix_codec::vectors::check_vector(&codec, &v).is_err(),
            "{wire:?}"
        );
    }
}
