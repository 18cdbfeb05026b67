//! Failures that explain themselves (issue 16, item 3): a decode mismatch names the path of
//! the first differing field with both values there, an invalid-input failure shows the
//! input bytes and the expected status with its name and reason; in the console, `--json`
//! (`explanations`) and `--junit`.

use std::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_pmix-conformance");
const TESTEE: &str = env!("CARGO_BIN_EXE_pmix-testee");

fn cli(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(CLI).args(args).output().expect("run the CLI");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pmix-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_decode_mismatch_names_the_differing_field() {
    // A testee that decodes every PROC rank one too high.
    let junit = tmp("rank.xml");
    let args = [
        "vectors",
        "--filter",
        "v41.non-described.PROC.valid.",
        "--junit",
        junit.to_str().unwrap(),
        "--",
        TESTEE,
        "--break",
        "decode-rank",
    ];
    let (code, out, _) = cli(&args);
    assert_eq!(code, 1, "{out}");
    // Console: the path and both values, not two whole JSON lines.
    let expected = out
        .lines()
        .find(|l| l.trim_start().starts_with("expected: [0].values["))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(expected.contains("].rank = "), "{expected}");
    assert!(!out.contains("\"nspace\""), "whole values shown: {out}");
    assert!(out.contains("first differing field: [0].values["), "{out}");
    // JUnit: the same lines.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("].rank = "), "{xml}");
    // JSON: the path and both values, structured.
    let (_, out, _) = cli(&[&args[..3], &["--json"], &args[5..]].concat());
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let x = j["explanations"].as_object().unwrap();
    assert!(!x.is_empty());
    for e in x.values() {
        assert_eq!(e["kind"], "decode_field");
        let path = e["path"].as_str().unwrap();
        assert!(
            path.starts_with("[0].values[") && path.ends_with(".rank"),
            "{path}"
        );
        let (want, got) = (
            e["expected"].as_u64().unwrap(),
            e["actual"].as_u64().unwrap(),
        );
        assert_eq!((want + 1) % (1 << 32), got);
    }
}

#[test]
fn an_invalid_input_failure_shows_the_bytes_and_the_expected_status_with_its_reason() {
    // A testee that refuses truncated input with a status of another class.
    let junit = tmp("status.xml");
    let args = [
        "vectors",
        "--filter",
        "v41.non-described.UINT32.invalid.",
        "--junit",
        junit.to_str().unwrap(),
        "--",
        TESTEE,
        "--break",
        "status-other",
    ];
    let (code, out, _) = cli(&args);
    assert_eq!(code, 1, "{out}");
    let input = out
        .lines()
        .find(|l| l.trim_start().starts_with("input: ") && !l.contains("(empty)"))
        .unwrap_or_else(|| panic!("{out}"));
    let hex = input.trim_start()["input: ".len()..]
        .split(' ')
        .next()
        .unwrap();
    assert!(
        !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()),
        "{input}"
    );
    assert!(
        out.contains("expected refusal: PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50) at call 0 (class unreadable): truncated UINT32"),
        "{out}"
    );
    assert!(
        out.contains("actual: PMIX_ERR_UNKNOWN_DATA_TYPE (-16)"),
        "{out}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("expected refusal: PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50)"));
    let (_, out, _) = cli(&[&args[..3], &["--json"], &args[5..]].concat());
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (id, e) = j["explanations"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, e)| e["expected"]["status"] == -50 && e["hex"] != "")
        .unwrap();
    assert_eq!(e["kind"], "invalid_input", "{id}");
    assert_eq!(e["phase"], "decode");
    assert_eq!(e["expected"]["status"], -50);
    assert_eq!(
        e["expected"]["name"],
        "PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER"
    );
    assert_eq!(e["actual"]["status"], -16);
    // The reason is the vector's comment, the input bytes are the vector's, whole.
    let case = j["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == *id)
        .unwrap();
    let reason = e["reason"].as_str().unwrap();
    assert!(!reason.is_empty() && case["requirement"].as_str().unwrap().contains(reason));
    assert!(case["requirement"].as_str().unwrap().contains(&format!(
        "Unpacking these {} bytes",
        e["hex"].as_str().unwrap().len() / 2
    )));
}

#[test]
fn a_decode_mismatch_shows_the_byte_the_walk_of_the_input_and_the_field() {
    // A planted bug: the testee decodes every PROC rank one too high.
    let args = [
        "vectors",
        "--filter",
        "v41.non-described.PROC.valid.",
        "--json",
        "--",
        TESTEE,
        "--break",
        "decode-rank",
    ];
    let (code, out, _) = cli(&[&args[..3], &args[4..]].concat());
    assert_eq!(code, 1, "{out}");
    // Console: where the answer parts from the expectation, the input's walk, the field.
    assert!(
        out.contains("the answer reads other values at byte "),
        "{out}"
    );
    assert!(out.contains("walk of the input:"), "{out}");
    let marked = out
        .lines()
        .find(|l| l.trim_start().starts_with(">>"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(marked.contains("].rank = "), "{marked}");
    assert!(
        marked.contains("<- the answer parts here: byte "),
        "{marked}"
    );
    // JSON: the byte offset lies inside the marked field, which is a rank.
    let (_, out, _) = cli(&args);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let x = j["explanations"].as_object().unwrap();
    assert!(!x.is_empty());
    for e in x.values() {
        let b = &e["bytes"];
        assert_eq!(b["basis"], "input", "{e}");
        let (at, start, len) = (
            b["offset"].as_u64().unwrap(),
            b["field"]["offset"].as_u64().unwrap(),
            b["field"]["len"].as_u64().unwrap(),
        );
        assert!(start <= at && at < start + len, "{e}");
        assert!(
            b["field"]["path"].as_str().unwrap().ends_with(".rank"),
            "{e}"
        );
        assert!(b["walk"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().starts_with(">>")));
    }
}

#[test]
fn a_failing_vector_that_names_a_quirk_shows_the_quirk_and_its_summary() {
    // VALUE.56 of 4.2.2's v41 file is acceptable under quirk D1; a testee that flips a
    // byte of every encode fails it.
    let (code, out, _) = cli(&[
        "vectors",
        "--filter",
        "v41.non-described.VALUE.acceptable.178",
        "--",
        TESTEE,
        "--break",
        "flip-byte",
    ]);
    assert_eq!(code, 1, "{out}");
    let q = pmix_codec::quirks::QUIRKS
        .iter()
        .find(|q| q.id == "D1-datatype-zigzag")
        .unwrap();
    assert!(
        out.contains(&format!("quirk D1-datatype-zigzag: {}", q.summary())),
        "{out}"
    );
}

#[test]
fn an_invalid_input_failure_marks_where_the_reference_refuses() {
    let (code, out, _) = cli(&[
        "vectors",
        "--filter",
        "v41.non-described.UINT32.invalid.",
        "--",
        TESTEE,
        "--break",
        "status-other",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "the reference refuses call 0 (PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER) at byte "
        ),
        "{out}"
    );
    assert!(
        out.contains("<- the reference refuses here: PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER"),
        "{out}"
    );
}
