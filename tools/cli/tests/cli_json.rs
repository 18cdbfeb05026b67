//! `pmix-wire` for scripts (issue 16, item 7): `--json` output for `types`, `diff`,
//! `encode`, `decode`, `inherit`, `quirks`; every error as one JSON object on stdout when
//! `--json` is given (its `exit_code` is the process's); error messages that name the valid
//! choices; and no panic when the reader of `--json` output goes away (`| head`).

use pmix_codec::{Component, DataType};
use serde_json::Value as J;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_pmix-wire");

/// Run the binary; returns (exit code, stdout, stderr).
fn pw(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run pmix-wire");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// stdout must be exactly one JSON document.
fn one_json(args: &[&str], out: &str) -> J {
    serde_json::from_str(out)
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON value ({e}): {out}"))
}

#[test]
fn types_diff_encode_decode_inherit_and_quirks_print_json() {
    let (code, out, _) = pw(&["types", "--json"]);
    assert_eq!(code, 0);
    let j = one_json(&["types"], &out);
    assert_eq!(j["release"], "master");
    assert_eq!(j["types"].as_array().unwrap().len(), 75);
    let alloc = &j["types"][74];
    assert_eq!(alloc["name"], "ALLOC_INHERIT");
    assert_eq!(alloc["components"], serde_json::json!(["v61"]));
    assert_eq!(j["components"][7]["types"], 69);

    let (_, out, _) = pw(&["types", "-r", "4.2", "-c", "v61", "--json"]);
    let j = one_json(&["types -c"], &out);
    assert_eq!(j["registered_by_release"], false);
    assert!(j["types"].as_array().unwrap().iter().all(|t| t["id"] != 75));

    let items = r#"{"type":"PID","values":[4242]}"#;
    let (code, out, _) = pw(&["diff", "--json", "v41", "v3", items]);
    assert_eq!(code, 0, "both sides encode");
    let j = one_json(&["diff"], &out);
    assert_eq!(j["a"]["hex"], "020e9221");
    assert_eq!(j["b"]["hex"], "00000001000e00001092");
    assert_eq!(j["items"][0]["identical"], false);
    assert_eq!(j["items_differing"], 1);
    // A side that cannot encode: its error, exit 1 (as the text form).
    let (code, out, _) = pw(&[
        "diff",
        "--json",
        "v61",
        "v51",
        r#"{"type":"ALLOC_INHERIT","values":[2]}"#,
    ]);
    assert_eq!(code, 1);
    let j = one_json(&["diff v51"], &out);
    assert_eq!(j["b"]["error"]["status"], -16);
    assert_eq!(
        j["items"][0]["b"]["error"]["name"],
        "PMIX_ERR_UNKNOWN_DATA_TYPE"
    );

    let (code, out, _) = pw(&[
        "encode",
        "--json",
        "-c",
        "v41",
        r#"{"type":"UINT32","values":[42]}"#,
    ]);
    assert_eq!(code, 0);
    let j = one_json(&["encode"], &out);
    assert_eq!(
        (j["hex"].as_str(), j["bytes"].as_u64()),
        (Some("022a"), Some(2))
    );
    assert_eq!(j["codec"], "v41@master");

    let (code, out, _) = pw(&["decode", "--json", "-c", "v41", "-t", "UINT32", "022a"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1, "one line: {out}");
    assert_eq!(one_json(&["decode"], &out)[0]["values"][0], 42);

    let (_, out, _) = pw(&["inherit", "--json"]);
    let j = one_json(&["inherit"], &out);
    assert_eq!(j["inheritance"][2]["string"], "CHILD");
    assert!(j["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["key"] == "pmix.alloc.inhrt"));
    let (_, out, _) = pw(&["inherit", "--json", "pmix.alloc.inhrt"]);
    let j = one_json(&["inherit key"], &out);
    assert_eq!(j["attributes"][0]["type"]["id"], 75);

    let (code, out, _) = pw(&["quirks", "--json", "D1"]);
    assert_eq!(code, 0);
    assert_eq!(one_json(&["quirks"], &out)["id"], "D1-datatype-zigzag");
}

/// Every kind of failure, with `--json`: one object on stdout whose `exit_code` is the
/// process's, the human line still on stderr.
#[test]
fn every_error_is_a_json_object_with_the_exit_code_and_message() {
    let cases: &[(&[&str], i32, &str)] = &[
        // The codec refuses the bytes: the PMIx status, offset and call.
        (
            &[
                "decode",
                "--json",
                "-c",
                "v41",
                "-t",
                "UINT32,STRING",
                "022a020a6162",
            ],
            1,
            "pmix",
        ),
        (
            &[
                "encode",
                "--json",
                "-c",
                "v51",
                r#"{"type":"ALLOC_INHERIT","values":[2]}"#,
            ],
            1,
            "pmix",
        ),
        // A lookup finds nothing.
        (&["inherit", "--json", "nothing-like-this"], 1, "status"),
        // Usage: clap's own errors and ours.
        (
            &["decode", "--json", "-c", "V41", "-t", "UINT32", "02"],
            2,
            "usage",
        ),
        (&["decode", "--json", "-c", "v41", "022a"], 2, "usage"),
        (&["decode", "--json", "-t", "UINT32", "zz"], 2, "usage"),
        (&["types", "--json", "-r", "4.3"], 2, "usage"),
        (&["diff", "--json", "-c", "v99", "00", "00"], 2, "usage"),
        (&["quirks", "--json", "Z9"], 2, "usage"),
        (&["encode", "--json", "not json"], 2, "usage"),
        // I/O.
        (
            &[
                "decode",
                "--json",
                "-t",
                "UINT32",
                "--file",
                "/nonexistent/pmix-wire.bin",
            ],
            3,
            "io",
        ),
    ];
    for (args, want, kind) in cases {
        let (code, out, err) = pw(args);
        assert_eq!(code, *want, "{args:?}: {out}{err}");
        let j = one_json(args, &out);
        let e = &j["error"];
        assert_eq!(e["exit_code"], *want, "{args:?}: {j}");
        assert_eq!(e["kind"], *kind, "{args:?}: {j}");
        let message = e["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{args:?}: {j}");
        assert!(
            err.contains("error"),
            "{args:?}: the human line stays on stderr: {err}"
        );
        if *kind == "pmix" {
            assert!(e["status"].as_i64().is_some_and(|s| s < 0), "{j}");
            assert!(
                e["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("PMIX_ERR_")),
                "{j}"
            );
            assert!(e["offset"].is_u64() && e["item"].is_u64(), "{j}");
        }
    }
    // inspect --json carries its error in its own document: still one JSON value.
    let args = [
        "inspect",
        "--json",
        "-c",
        "v41",
        "-t",
        "UINT32,STRING",
        "022a020a6162",
    ];
    let (code, out, _) = pw(&args);
    assert_eq!(code, 1);
    let j = one_json(&args, &out);
    assert_eq!(j["error"]["status"], -50, "{j}");
    // Without --json, stdout stays empty on failure.
    let (code, out, _) = pw(&["decode", "-c", "v41", "-t", "UINT32", "02"]);
    assert_eq!((code, out.as_str()), (1, ""));
}

#[test]
fn error_messages_name_the_valid_choices() {
    let msg = |args: &[&str]| {
        let (code, out, err) = pw(args);
        assert_ne!(code, 0, "{args:?}");
        let j = one_json(args, &out);
        (j["error"]["message"].as_str().unwrap().to_string(), err)
    };
    let (m, _) = msg(&["decode", "--json", "-c", "v42", "-t", "UINT32", "02"]);
    for c in Component::ALL {
        assert!(m.contains(c.name()), "{m}");
    }
    let (m, _) = msg(&["decode", "--json", "-r", "4.3", "-t", "UINT32", "02"]);
    for r in ["master", "4.2", "5.0", "6.0", "6.1", "7.0"] {
        assert!(m.contains(r), "{m}");
    }
    let (m, _) = msg(&[
        "decode",
        "--json",
        "-b",
        "described-ish",
        "-t",
        "UINT32",
        "02",
    ]);
    assert!(
        m.contains("non-described") && m.contains("fully-described"),
        "{m}"
    );
    let (m, _) = msg(&["decode", "--json", "-t", "UINT33", "02"]);
    for n in 1..=75u16 {
        let name = DataType(n).name().unwrap();
        assert!(m.contains(&format!(" {name}")), "{name} missing: {m}");
    }
    let (m, _) = msg(&["decode", "--json", "-t", "UINT32", "0g"]);
    assert!(m.contains("valid: 0-9 a-f"), "{m}");
    let (m, _) = msg(&["diff", "--json", "-c", "v41@4.3", "00", "00"]);
    assert!(m.contains("4.2") && m.contains("master"), "{m}");
    let (m, _) = msg(&["inherit", "--json", "GRANDCHILD"]);
    assert!(
        m.contains("CHILD_DEFAULT") && m.contains("PMIX_ALLOC_INHERITANCE"),
        "{m}"
    );
    let (m, _) = msg(&["quirks", "--json", "Z9"]);
    assert!(m.contains("D1-datatype-zigzag"), "{m}");
    // `completions` prints a script, not JSON; its error names the shells on stderr.
    let (code, _, err) = pw(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("bash") && err.contains("zsh"), "{err}");
}

/// The reader of `--json` output is gone before anything is written: a real pipe whose
/// read end is closed. The write fails with EPIPE; the program must end without a panic.
#[test]
fn json_into_a_closed_pipe_does_not_panic() {
    let runs: &[&[&str]] = &[
        &["types", "--json"],
        &["quirks", "--json"],
        &["inherit", "--json"],
        &[
            "diff",
            "--json",
            "v41",
            "v3",
            r#"{"type":"PID","values":[4242]}"#,
        ],
        &["diff", "-c", "v41", "--json", "022a", "022b"],
        &[
            "encode",
            "--json",
            "-c",
            "v41",
            r#"{"type":"UINT32","values":[42]}"#,
        ],
        &["decode", "--json", "-c", "v41", "-t", "UINT32", "022a"],
        &["inspect", "--json", "-c", "v41", "-t", "UINT32", "022a"],
        // A failure whose JSON error object goes to the closed pipe.
        &["decode", "--json", "-c", "v41", "-t", "UINT32", "02"],
        &["decode", "--json", "-c", "V41", "-t", "UINT32", "02"],
    ];
    for args in runs {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(BIN)
            .args(*args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(out.status.code().is_some(), "{args:?}: killed by a signal");
    }
}

/// `pmix-wire ... --json | head -c 64` through a real shell pipeline: head's output is the
/// start of the JSON, and pmix-wire says nothing on stderr.
#[test]
fn json_through_head_in_a_shell_pipeline() {
    let dir = std::env::temp_dir().join(format!("pmix-wire-head-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let err = dir.join("stderr.txt");
    for sub in ["types --json", "quirks --json", "inherit --json"] {
        let script = format!(
            "set -o pipefail; '{BIN}' {sub} 2>'{}' | head -c 64; echo; echo \"status ${{PIPESTATUS[0]}}\"",
            err.display()
        );
        let out = Command::new("bash").args(["-c", &script]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.starts_with('{') || text.starts_with('['),
            "{sub}: {text}"
        );
        let status = text.lines().last().unwrap_or_default();
        assert_eq!(status, "status 0", "{sub}: {text}");
        let e = std::fs::read_to_string(&err).unwrap();
        assert!(e.is_empty(), "{sub}: stderr {e}");
    }
}
