//! `WIRE.md` cannot drift from the recorded vectors: every worked example in it (a fenced
//! block marked `wire`) must be the bytes of a vector recorded from a real OpenPMIx library
//! for the same component, buffer kind (and release, when the example names one), the same
//! type and the same values (or, for an example ending in `=> STATUS`, a decode the library
//! refused with that status); and pmix-codec, set to that vector file's release, must pack
//! and unpack it the way the vector says.

mod support;

use pmix_codec::vectors::{check_vector, Outcome, Phase, VectorFile};
use serde_json::Value as J;
use std::path::PathBuf;
use support::{unhex, vector_files};

/// One worked example of WIRE.md.
#[derive(Debug)]
struct Example {
    /// Line number of its first line, for messages.
    line: usize,
    component: String,
    release: Option<String>,
    buffer: String,
    ty: String,
    values: J,
    /// `Some(status)` for an example the library refuses to unpack.
    refused: Option<i32>,
    wire: Vec<u8>,
}

/// The `wire` blocks of `text`, parsed; panics with the line on a malformed block.
fn examples(text: &str) -> Vec<Example> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```wire" {
            i += 1;
            continue;
        }
        let line = i + 2;
        let head = lines[i + 1];
        let mut body = String::new();
        i += 2;
        while lines[i].trim() != "```" {
            body.push_str(lines[i]);
            i += 1;
        }
        i += 1;
        let (head, refused) = match head.split_once(" => ") {
            Some((h, s)) => (h, Some(s.trim().parse::<i32>().expect("a status"))),
            None => (head, None),
        };
        let mut parts = head.splitn(4, ' ');
        let (comp, buffer, ty, values) = (
            parts.next().unwrap(),
            parts
                .next()
                .unwrap_or_else(|| panic!("line {line}: no buffer kind")),
            parts
                .next()
                .unwrap_or_else(|| panic!("line {line}: no type")),
            parts
                .next()
                .unwrap_or_else(|| panic!("line {line}: no values")),
        );
        let (component, release) = match comp.split_once('@') {
            Some((c, r)) => (c.to_string(), Some(r.to_string())),
            None => (comp.to_string(), None),
        };
        let hex: String = body
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '|')
            .collect();
        assert!(
            hex.len().is_multiple_of(2) && hex.chars().all(|c| c.is_ascii_hexdigit()),
            "line {line}: the bytes are not hex: {hex}"
        );
        out.push(Example {
            line,
            component,
            release,
            buffer: buffer.to_string(),
            ty: ty.to_string(),
            values: serde_json::from_str(values)
                .unwrap_or_else(|e| panic!("line {line}: values: {e}")),
            refused,
            wire: unhex(&hex),
        });
    }
    out
}

fn wire_md() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../WIRE.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether vector `v` of `f` is the example: same bytes, same call, same values or status.
fn is_example(f: &VectorFile, v: &pmix_codec::vectors::Vector, ex: &Example) -> bool {
    if f.component != ex.component
        || f.buffer != ex.buffer
        || ex.release.as_ref().is_some_and(|r| *r != f.release)
        || v.flags.iter().any(|fl| fl == "Computed")
        || unhex(&v.wire) != ex.wire
    {
        return false;
    }
    let Some([item]) = v.items.as_array().map(Vec::as_slice) else {
        return false;
    };
    if item["type"] != J::String(ex.ty.clone()) {
        return false;
    }
    match (ex.refused, v.result, &v.error) {
        (Some(status), Outcome::Invalid, Some(e)) => e.phase == Phase::Decode && e.status == status,
        (None, Outcome::Valid | Outcome::Acceptable, _) => item["values"] == ex.values,
        _ => false,
    }
}

#[test]
fn every_wire_md_example_is_a_recorded_vector_the_codec_reproduces() {
    let doc = wire_md();
    let exs = examples(&doc);
    assert!(exs.len() >= 60, "WIRE.md has only {} examples", exs.len());
    let files: Vec<VectorFile> = vector_files()
        .into_iter()
        .filter(|f| f.source.implementation == "openpmix")
        .collect();
    for ex in &exs {
        let found = files.iter().find_map(|f| {
            f.tests
                .iter()
                .find(|v| is_example(f, v, ex))
                .map(|v| (f, v))
        });
        let Some((f, v)) = found else {
            panic!(
                "WIRE.md line {}: no recorded vector of {} {} {} {} has these bytes: {}",
                ex.line,
                ex.component,
                ex.buffer,
                ex.ty,
                ex.values,
                pmix_codec::vectors::hex(&ex.wire)
            );
        };
        check_vector(&f.codec().unwrap(), v).unwrap_or_else(|e| {
            panic!(
                "WIRE.md line {}: vector {} of {} {} ({}): {e}",
                ex.line, v.id, f.source.version, f.component, f.buffer
            )
        });
    }
}

#[test]
fn wire_md_has_an_example_for_every_family_buffer_kind_and_type_class() {
    let exs = examples(&wire_md());
    for comp in ["v12", "v20", "v21", "v41", "v61"] {
        for buffer in ["non-described", "fully-described"] {
            if comp == "v61" && buffer == "fully-described" {
                continue;
            }
            assert!(
                exs.iter()
                    .any(|e| e.component == comp && e.buffer == buffer),
                "no {comp} {buffer} example"
            );
        }
    }
    let classes = [
        "UINT32",
        "UINT64",
        "INT64",
        "INT16",
        "INT",
        "UINT",
        "SIZE",
        "PID",
        "STATUS",
        "BOOL",
        "STRING",
        "BYTE_OBJECT",
        "DOUBLE",
        "BUFFER",
        "PROC",
        "TIMEVAL",
        "PROC_INFO",
        "ENVAR",
        "GEOMETRY",
        "REGEX",
        "REGEX2",
        "VALUE",
        "INFO",
        "KVAL",
        "PDATA",
        "DATA_ARRAY",
        "INFO_ARRAY",
        "APP",
        "QUERY",
    ];
    for ty in classes {
        assert!(
            exs.iter().any(|e| e.ty == ty && e.refused.is_none()),
            "WIRE.md has no worked example of {ty}"
        );
    }
    assert!(
        exs.iter().any(|e| e.refused.is_some()),
        "no refused example"
    );
}

#[test]
fn a_wrong_byte_in_an_example_is_found() {
    // The check above could pass vacuously if `is_example` matched anything: flip one byte
    // of each example and none may still be found among the vectors as that example.
    let files: Vec<VectorFile> = vector_files();
    let mut exs = examples(&wire_md());
    exs.truncate(12);
    for ex in &mut exs {
        let last = ex.wire.len() - 1;
        ex.wire[last] ^= 0x40;
        let found = files
            .iter()
            .any(|f| f.tests.iter().any(|v| is_example(f, v, ex)));
        assert!(
            !found,
            "WIRE.md line {}: a changed byte still matched",
            ex.line
        );
    }
}
