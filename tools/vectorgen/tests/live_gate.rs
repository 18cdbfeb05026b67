//! `pmix-vectors live --observations NEW --baseline OLD` (what `live-matrix.sh --baseline`
//! and `--ci` call): exit 1 with one line per cell that got worse, exit 0 when none did.

use std::path::{Path, PathBuf};
use std::process::Command;

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// A format-2 observations file of one base cell of 5.0.7 against plain-5.0.7: every
/// operation reported when `crash` is false; only init, then SIGSEGV, when it is true.
fn observations(crash: bool) -> String {
    let names = [
        "init",
        "get-job-info",
        "put-commit-fence-get:int",
        "allocation-inherit",
        "finalize",
    ];
    let reported = if crash { &names[..1] } else { &names[..] };
    let ops: Vec<String> = reported
        .iter()
        .map(|n| {
            format!(
                r#"{{"op": "{n}", "status": 0, "status_name": "PMIX_SUCCESS", "observed": ""}}"#
            )
        })
        .collect();
    let (ending, unreported) = if crash {
        (
            r#"{"how": "signal", "signal": "SIGSEGV"}"#,
            r#", "unreported": ["get-job-info", "put-commit-fence-get:int", "allocation-inherit", "finalize"]"#,
        )
    } else {
        (r#"{"how": "exited", "code": 0}"#, "")
    };
    format!(
        r#"{{"format": 2, "provenance": {{"date": "d", "host": "h", "command": "a test", "releases": {{}}}},
  "cells": [{{"client_release": "5.0.7", "client_kind": "client", "server": "plain-5.0.7", "server_release": "5.0.7",
    "component": "v41", "component_forced": false, "buffer": "non-described", "gds": "hash", "psec": "native",
    "ops": [{}], "variant": "base", "setting": "-",
    "processes": [{{"who": "rank0", "ended": {ending}}}]{unreported}}}]}}"#,
        ops.join(", ")
    )
}

/// Run the gate; (exit code, stdout).
fn gate(new: &str, old: &str) -> (i32, String) {
    let d = std::env::temp_dir().join(format!("pmix-vectors-gate-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (n, o) = (d.join("new.json"), d.join("old.json"));
    std::fs::write(&n, new).unwrap();
    std::fs::write(&o, old).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pmix-vectors"))
        .args(["live", "--dir"])
        .arg(vectors())
        .arg("--observations")
        .arg(&n)
        .arg("--baseline")
        .arg(&o)
        .output()
        .expect("pmix-vectors runs");
    let _ = std::fs::remove_dir_all(&d);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_cell_that_crashes_now_fails_the_gate_and_an_unchanged_run_passes() {
    let (code, out) = gate(&observations(true), &observations(false));
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(
        lines[0].starts_with("worse: 5.0.7 client -> plain-5.0.7 base")
            && lines[0].contains("works (5 ok) -> crash (1 ok)")
            && lines[0].contains("SIGSEGV in rank0 after init"),
        "{out}"
    );
    let (code, out) = gate(&observations(false), &observations(false));
    assert_eq!((code, out.as_str()), (0, ""));
    // getting better is not worse
    let (code, out) = gate(&observations(false), &observations(true));
    assert_eq!((code, out.as_str()), (0, ""));
}
