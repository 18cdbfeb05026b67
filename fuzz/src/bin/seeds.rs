//! Seed corpora for every fuzz target from the golden vectors.
//!
//!     cargo run --release --features seedgen --bin seeds -- <vectors dir> <out dir> [per-file cap]
//!
//! Writes `<out>/<target>/<hash>` for decode_legacy, decode_converged, decode_modern,
//! differential (4.2.2 files only), json and roundtrip. Valid and acceptable vectors first,
//! then invalid ones, at most `cap` (default 300) per vector file.
use pmix_codec::json::items_from_json;
use pmix_codec::vectors::{Outcome, VectorFile};
use pmix_codec::*;
use pmix_fuzz::{make_case, CONVERGED, DIFFERENTIAL, LEGACY, MODERN};
use std::path::{Path, PathBuf};

fn fnv(b: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for x in b {
        h ^= *x as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}

fn put(out: &Path, target: &str, data: &[u8], n: &mut usize) {
    let dir = out.join(target);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let p = dir.join(fnv(data));
    if !p.exists() {
        std::fs::write(p, data).expect("write seed");
        *n += 1;
    }
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: seeds <vectors dir> <out dir> [per-file cap]");
        std::process::exit(2);
    }
    let (vdir, out) = (PathBuf::from(&args[1]), PathBuf::from(&args[2]));
    let cap: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(300);
    let mut paths = Vec::new();
    files(&vdir, &mut paths);
    let mut n = 0;
    for p in &paths {
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        let Ok(f) = VectorFile::from_json(&text) else {
            eprintln!("seeds: skipping {} (not a vector file)", p.display());
            continue;
        };
        let codec = f.codec().expect("validated");
        let (target, comps) = match codec.component.family() {
            Family::Legacy12 | Family::Legacy20 => ("decode_legacy", LEGACY),
            Family::Converged => ("decode_converged", CONVERGED),
            Family::Modern => ("decode_modern", MODERN),
        };
        let mut tests: Vec<_> = f.tests.iter().collect();
        tests.sort_by_key(|t| (t.result == Outcome::Invalid, t.id));
        for (i, t) in tests.into_iter().take(cap).enumerate() {
            let (Ok(items), Some(wire)) = (items_from_json(&t.items), unhex(&t.wire)) else {
                continue;
            };
            let calls: Vec<(DataType, usize)> = items.iter().map(|i| (i.ty, 0)).collect();
            let mut c = codec;
            c.options.as_written = i % 3 == 0;
            if let Some(seed) = make_case(comps, &c, &calls, i % 2 == 0, &wire) {
                put(&out, target, &seed, &mut n);
            }
            if codec.release == Release::OpenPmix4_2 {
                let caps: Vec<(DataType, usize)> = items
                    .iter()
                    .map(|i| (i.ty, i.values.len().max(1)))
                    .collect();
                if let Some(seed) = make_case(DIFFERENTIAL, &codec, &caps, false, &wire) {
                    put(&out, "differential", &seed, &mut n);
                }
            }
            if i % 4 == 0 {
                put(
                    &out,
                    "json",
                    serde_json::to_string(&t.items).expect("json").as_bytes(),
                    &mut n,
                );
                let mut one = f.clone();
                one.tests = vec![t.clone()];
                one.number_of_tests = 1;
                put(&out, "json", one.to_json().as_bytes(), &mut n);
            }
            if i % 8 == 0 {
                // any bytes drive `arbitrary`; wire bytes give it varied material
                put(&out, "roundtrip", &wire, &mut n);
            }
        }
    }
    println!(
        "seeds: {n} seeds from {} vector files into {}",
        paths.len(),
        out.display()
    );
}
