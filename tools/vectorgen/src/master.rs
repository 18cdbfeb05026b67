//! The OpenPMIx master files: recordings, the reference guide's bytes, vectors derived
//! from the 4.2.2 library and codec-computed vectors for the rest.

use super::draft::{features, items_key, Draft};
use super::files::{file_name, finish, Corpus};
use super::generator::Gen;
use super::judge::CodecJudge;
use super::progress::Progress;
use super::recordings::Recording;
use super::{DIR_MASTER, MASTER_COMMIT};
use pmix_codec::vectors::{Outcome, Phase, Source};
use pmix_codec::*;
use std::collections::{BTreeMap, BTreeSet};

fn source_master() -> Source {
    Source {
        implementation: "openpmix".into(),
        version: "7.0.0a1".into(),
        commit: Some(MASTER_COMMIT.into()),
        method: "PMIx_Data_pack(NULL, ...) after PMIx_server_init, component chosen with PMIX_MCA_bfrops and buffer kind with \
                 PMIX_BFROP_BUFFER_TYPE (recordings in vectors/recordings/openpmix-master-494e9d9d); vectors flagged Derived come from \
                 elsewhere, see notes"
            .into(),
    }
}

/// The reference guide's verified master bytes (wire-format.md §2.2), with the components
/// that register their types.
fn reference_vectors() -> Vec<(BufferKind, Component, &'static str, Item, &'static str)> {
    let nd = BufferKind::NonDescribed;
    let fd = BufferKind::FullyDescribed;
    let t = |s: &str| Some(Text::from(s));
    let node_pid = Item::one(Value::NodePid(Box::new(NodePid {
        hostname: t("n1"),
        nodeid: 5,
        pid: 77,
    })));
    vec![
        (
            nd,
            Component::V61,
            "ALLOC_INHERIT 3",
            Item::one(Value::AllocInherit(3)),
            "0203",
        ),
        (
            nd,
            Component::V51,
            "RESBLOCK_DIRECTIVE 1",
            Item::one(Value::ResblockDirective(1)),
            "0201",
        ),
        (
            nd,
            Component::V61,
            "NODE_PID {\"n1\", 5, 77}",
            node_pid.clone(),
            "02066e3100050e4d",
        ),
        (
            nd,
            Component::V61,
            "REGEX2 {\"raw\", \"a,b\\0\"}",
            Item::one(Value::Regex2(Box::new(Regex2 {
                kind: t("raw"),
                regex: b"a,b\0".to_vec().into(),
            }))),
            "02087261770004612c6200",
        ),
        (
            nd,
            Component::V51,
            "RESOURCE_UNIT {0x2, 4}",
            Item::one(Value::ResourceUnit(ResourceUnit {
                devtype: 2,
                count: 4,
            })),
            "020204",
        ),
        (
            nd,
            Component::V51,
            "DEVICE {\"u\", \"o\", 4}",
            Item::one(Value::Device(Box::new(Device {
                uuid: t("u"),
                osname: t("o"),
                devtype: 4,
            }))),
            "02047500046f0004",
        ),
        (
            nd,
            Component::V61,
            "VALUE ALLOC_INHERIT 2",
            Item::one(Value::Value(Box::new(Value::AllocInherit(2)))),
            "024b02",
        ),
        (
            nd,
            Component::V41,
            "DATA_ARRAY {UNDEF}",
            Item::one(Value::array(DataType::UNDEF, vec![])),
            "0200",
        ),
        (
            fd,
            Component::V61,
            "ALLOC_INHERIT 3",
            Item::one(Value::AllocInherit(3)),
            "09024b03",
        ),
        (
            fd,
            Component::V61,
            "NODE_PID {\"n1\", 5, 77}",
            node_pid,
            "090249066e3100050e4d",
        ),
    ]
}

/// Generate the master files: recordings, reference bytes, vectors derived from the 4.2.2
/// v41 library bytes, and codec-computed vectors for the rest.
pub fn generate_master(
    recordings: &[Recording],
    previous: &Corpus,
    progress: &mut Progress,
) -> Corpus {
    let rel = Release::Master;
    let mut out = Corpus::new();
    for &comp in &[Component::V41, Component::V51, Component::V61] {
        for kind in BufferKind::ALL {
            let path = file_name(DIR_MASTER, comp, kind);
            progress.step(&path);
            let mut judge = CodecJudge::new(rel);
            let mut g = Gen::new(&mut judge, comp, kind, rel);
            // 1. recordings
            for r in recordings
                .iter()
                .filter(|r| r.comp == comp && r.kind == kind)
            {
                let items = vec![r.item.clone()];
                match &r.result {
                    Ok(b) => g.push(Draft {
                        comment: format!("recorded: {}", r.desc),
                        items,
                        wire: b.clone(),
                        result: Outcome::Valid,
                        flags: BTreeSet::new(),
                        error: None,
                        decoded: None,
                    }),
                    Err(st) => g.push(Draft {
                        comment: format!("recorded: {} (refused)", r.desc),
                        items,
                        wire: vec![],
                        result: Outcome::Invalid,
                        flags: BTreeSet::new(),
                        error: Some((Phase::Encode, *st, 0)),
                        decoded: None,
                    }),
                }
            }
            // 2. the reference guide's verified bytes
            for (k, min_comp, desc, item, hex) in reference_vectors() {
                let ty_ok = features(std::slice::from_ref(&item))
                    .types
                    .iter()
                    .all(|t| *t == 0 || comp.registers(DataType(*t), rel));
                if k != kind || comp < min_comp || !ty_ok {
                    continue;
                }
                let items = vec![item];
                if g.valid_keys.contains(&items_key(&items)) {
                    continue;
                }
                let wire = pmix_oracle::hex::decode(hex).expect("reference hex");
                g.push(Draft {
                    comment: format!("reference guide: {desc}"),
                    items,
                    wire,
                    result: Outcome::Valid,
                    flags: ["Reference".to_string()].into(),
                    error: None,
                    decoded: None,
                });
            }
            // Nothing is computed here any more: every other vector of these components comes
            // from a library (7.0.0rc1, 6.1.0, 6.0.0 ...), in its own directory.
            let drafts = std::mem::take(&mut g.out);
            let mut notes = BTreeMap::new();
            notes.insert(
                "provenance".into(),
                format!(
                    "Vectors without the Derived or Reference flag are recordings from OpenPMIx master {MASTER_COMMIT} (vectors/recordings/{DIR_MASTER}/alloc-inherit.tsv); \
                     they record pack output only, so that `wire` unpacks back to `items` is inferred. Reference vectors quote the reference guide's verified master bytes."
                ),
            );
            let f = finish(
                drafts,
                source_master(),
                comp,
                kind,
                rel,
                notes,
                previous.get(&path),
            );
            out.insert(path, f);
            progress.finish_step();
        }
    }
    out
}
