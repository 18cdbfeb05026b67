//! Invalid vectors' comments agree with what the libraries give (issue 23, item 4): a
//! comment says why its input is refused, and a wrong one sends an implementer after the
//! wrong bug ("continuation bit on the last byte", where the real cause was quirk U6).
//!
//! For every decode-phase invalid vector of every library release's files: the reference
//! decoder (the release's profile, which the differential suite holds to the library)
//! refuses the input with the recorded status at the recorded call, and where its refusal
//! is a quirk's — the empty integer record at the end, quirk U6 — the comment names it.

use pmix_codec::vectors::{Outcome, Phase};
use pmix_codec::{json, BufferKind, Codec, Component, DataType, Release};
use pmix_vectorgen::load_dir;
use std::path::Path;

#[test]
fn invalid_vector_comments_agree_with_the_refusal() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors");
    let corpus = load_dir(&root).expect("the vector files");
    let (mut checked, mut u6) = (0, 0);
    let mut wrong = vec![];
    for (path, file) in &corpus {
        if path.contains("master") {
            continue; // recordings only: no decode vectors of their own
        }
        let (Ok(rel), Ok(comp), Ok(kind)) = (
            file.release.parse::<Release>(),
            file.component.parse::<Component>(),
            file.buffer.parse::<BufferKind>(),
        ) else {
            panic!("{path}: unreadable header");
        };
        let codec = Codec::new(comp, kind).with_release(rel);
        for v in &file.tests {
            let Some(err) = v.error.as_ref().filter(|e| e.phase == Phase::Decode) else {
                continue;
            };
            if v.result != Outcome::Invalid || v.flags.iter().any(|f| f == "Hardening") {
                continue;
            }
            let items = json::items_from_json(&v.items).expect("items");
            let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
            let wire = pmix_oracle::hex::decode(&v.wire).expect("hex");
            checked += 1;
            match codec.decode(&wire[..], &types) {
                Ok(_) => wrong.push(format!("{path} #{}: the reference reads it", v.id)),
                Err(e) => {
                    if (e.status.0, e.item) != (err.status, err.item) {
                        wrong.push(format!(
                            "{path} #{}: recorded {} at call {}, the reference says {} at call {}",
                            v.id, err.status, err.item, e.status.0, e.item
                        ));
                    }
                    if e.reason.contains("quirk U6") {
                        u6 += 1;
                        if !v.comment.contains("U6-empty-int-record-at-end") {
                            wrong.push(format!(
                                "{path} #{} {:?}: refused as an empty integer record at the end (quirk U6), the comment does not say so",
                                v.id, v.comment
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} invalid decode vectors");
    assert!(
        u6 > 0,
        "no vector is refused by quirk U6: the check checks nothing"
    );
    assert!(
        wrong.is_empty(),
        "{} of {checked} invalid vectors disagree with their refusal:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(40)].join("\n")
    );
}
