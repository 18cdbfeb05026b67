//! What a green vectors run is worth (issue 23): a testee that is correct except for one
//! flex-integer bug confined to one container context must fail the run, for each context.
//!
//! The testee is the in-process codec with a switch. It encodes as the codec does, then
//! walks its own bytes with the codec's observed decoder and rewrites every 9-byte flexible
//! integer (a 64-bit value of 2^56 or more) that sits in the planted context one byte too
//! long: the ninth byte gets a continuation bit and a tenth byte follows. Values elsewhere,
//! and every decode, stay correct. This is the bug a vendor planted in the VALUE/INFO path
//! of a C testee, which the vectors did not catch before the edge families (`edge.*`).

use pmix_codec::observe::{Enc, Field, Meaning, Observer, Seg};
use pmix_codec::{json, BufferKind, Codec, Component, DataType, Release};
use pmix_conformance::report::Outcome;
use pmix_conformance::testee::{
    codec_capabilities, codec_reply, Capabilities, Reply, Request, Testee, TesteeError,
};
use pmix_conformance::vectors::{self, case_id, load_dir, run_suite, VectorSet};
use std::collections::HashMap;

/// Where the planted bug lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plant {
    /// Values of a VALUE call.
    Value,
    /// The value of an INFO call's elements.
    Info,
    /// The elements of a DATA_ARRAY call.
    DataArray,
    /// A field of a struct call (TIMEVAL.sec, RESOURCE_UNIT.count, DISK_STATS.counters ...).
    StructField,
}

const PLANTS: [Plant; 4] = [
    Plant::Value,
    Plant::Info,
    Plant::DataArray,
    Plant::StructField,
];

/// Whether a field at `path` is in the planted context.
fn planted_here(plant: Plant, path: &[Seg]) -> bool {
    let Some(Seg::Type(call)) = path.first() else {
        return false;
    };
    let named = path.iter().any(|s| matches!(s, Seg::Name(_)));
    match plant {
        Plant::Value => *call == DataType::VALUE,
        Plant::Info => *call == DataType::INFO && path.contains(&Seg::Name("value")),
        Plant::DataArray => *call == DataType::DATA_ARRAY,
        Plant::StructField => {
            let containers = [
                DataType::VALUE,
                DataType::INFO,
                DataType::DATA_ARRAY,
                DataType::KVAL,
                DataType::PDATA,
                DataType::INFO_ARRAY,
                DataType::APP,
                DataType::QUERY,
            ];
            named && !containers.contains(call)
        }
    }
}

/// The offsets of the 9-byte flexible integers in the planted context.
struct NineByteInts {
    plant: Plant,
    offsets: Vec<usize>,
}

impl Observer for NineByteInts {
    fn field(&mut self, f: &Field<'_>) {
        let flex = matches!(
            f.meaning,
            Meaning::Int {
                enc: Enc::Flex | Enc::Zigzag(_),
                ..
            }
        );
        if flex && f.len == 9 && planted_here(self.plant, f.path.0) {
            self.offsets.push(f.offset);
        }
    }
}

/// The codec, with one context's 64-bit flex integers written one byte too long.
struct PlantedTestee(Plant);

impl PlantedTestee {
    fn plant(&self, req: &Request, wire: &[u8]) -> Option<Vec<u8>> {
        let Request::Encode {
            component,
            buffer,
            release,
            items,
        } = req
        else {
            return None;
        };
        let comp: Component = component.parse().ok()?;
        let kind: BufferKind = buffer.parse().ok()?;
        let rel: Release = release.parse().ok()?;
        let items = json::items_from_json(items).ok()?;
        let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
        let mut seen = NineByteInts {
            plant: self.0,
            offsets: vec![],
        };
        let codec = Codec::new(comp, kind).with_release(rel);
        codec.decode_observed(wire, Some(&types), &mut seen).ok()?;
        if seen.offsets.is_empty() {
            return None;
        }
        let mut out = wire.to_vec();
        for &at in seen.offsets.iter().rev() {
            let last = out[at + 8];
            out.splice(at + 8..at + 9, [(last & 0x7f) | 0x80, last >> 7]);
        }
        Some(out)
    }
}

impl Testee for PlantedTestee {
    fn describe(&self) -> String {
        format!("pmix-codec with a flex-integer bug in {:?}", self.0)
    }
    fn capabilities(&mut self) -> Result<Capabilities, TesteeError> {
        Ok(codec_capabilities("pmix-codec-planted"))
    }
    fn call(&mut self, req: &Request) -> Result<Reply, TesteeError> {
        let reply = codec_reply(req);
        if let Reply::Ok { wire: Some(w), .. } = &reply {
            let bytes: Vec<u8> = (0..w.len() / 2)
                .map(|i| u8::from_str_radix(&w[2 * i..2 * i + 2], 16).expect("hex"))
                .collect();
            if let Some(bad) = self.plant(req, &bytes) {
                return Ok(Reply::wire(&bad));
            }
        }
        Ok(reply)
    }
}

/// The modern-family files (flexible integers) of every release.
fn flex_files() -> Vec<VectorSet> {
    load_dir(&vectors::default_dir())
        .expect("the corpus loads")
        .into_iter()
        .filter(|s| s.component >= Component::V4)
        .collect()
}

#[test]
fn a_flex_integer_bug_in_one_context_fails_the_vectors_run() {
    let sets = flex_files();
    let comments: HashMap<String, String> = sets
        .iter()
        .flat_map(|s| {
            s.file
                .tests
                .iter()
                .map(move |v| (case_id(s, v), v.comment.clone()))
        })
        .collect();
    for plant in PLANTS {
        let run = run_suite(&sets, None, &mut PlantedTestee(plant), None, false);
        let failed: Vec<&str> = run
            .report
            .cases
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Fail { .. }))
            .map(|c| comments.get(&c.id).map_or("?", String::as_str))
            .collect();
        println!(
            "{plant:?}: {} of {} cases fail, {} of them edge cases",
            failed.len(),
            run.report.totals.total,
            failed.iter().filter(|c| c.starts_with("edge.")).count()
        );
        assert!(
            !failed.is_empty(),
            "a flex-integer bug confined to {plant:?} passed the vectors run"
        );
        let edge = match plant {
            Plant::Value => "edge.UINT64.value",
            Plant::Info => "edge.UINT64.info",
            Plant::DataArray => "edge.UINT64.darray",
            Plant::StructField => "edge.RESOURCE_UNIT.top",
        };
        assert!(
            failed.iter().any(|c| c.starts_with(edge)),
            "{plant:?}: the edge vectors ({edge}) do not catch it; failing: {:?}",
            &failed[..failed.len().min(10)]
        );
        assert!(
            run.report.totals.errors == 0,
            "{plant:?}: the testee errored"
        );
    }
}

#[test]
fn the_unplanted_walk_finds_nothing_to_change_in_a_small_value() {
    // Control: the switch only touches 9-byte integers, so a run over values below 2^56
    // is the codec's own (a planted testee that changed more would fail the run above for
    // the wrong reason).
    let req = Request::Encode {
        component: "v61".into(),
        buffer: "non-described".into(),
        release: "6.1".into(),
        items: serde_json::json!([{"type": "VALUE", "values": [{"type": "UINT64", "value": 72057594037927935u64}]}]),
    };
    let t = PlantedTestee(Plant::Value);
    let Reply::Ok { wire: Some(w), .. } = codec_reply(&req) else {
        panic!("the codec encodes it")
    };
    let bytes: Vec<u8> = (0..w.len() / 2)
        .map(|i| u8::from_str_radix(&w[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    assert_eq!(t.plant(&req, &bytes), None, "2^56 - 1 takes 8 bytes");
    let req = Request::Encode {
        component: "v61".into(),
        buffer: "non-described".into(),
        release: "6.1".into(),
        items: serde_json::json!([{"type": "VALUE", "values": [{"type": "UINT64", "value": 72057594037927936u64}]}]),
    };
    let Reply::Ok { wire: Some(w), .. } = codec_reply(&req) else {
        panic!("the codec encodes it")
    };
    let bytes: Vec<u8> = (0..w.len() / 2)
        .map(|i| u8::from_str_radix(&w[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let bad = t
        .plant(&req, &bytes)
        .expect("2^56 takes 9 bytes and is planted");
    assert_eq!(bad.len(), bytes.len() + 1);
}
