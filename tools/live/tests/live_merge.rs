//! `tools/live/merge.py` on the checked-in observations: a partial run's cell replaces the
//! same experiment's cell in its place, a new experiment is added, the provenance names the
//! run, and a run with two cells of one experiment is refused without writing anything.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as J;

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/live/observations.json")
}

/// Run merge.py BASE RUN OUT --why WHY; (success, stderr).
fn merge(run: &J, out: &Path) -> (bool, String) {
    let run_path = out.with_extension("run.json");
    std::fs::write(&run_path, serde_json::to_string(run).unwrap()).unwrap();
    let o = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/merge.py"))
        .arg(vectors())
        .arg(&run_path)
        .arg(out)
        .args(["--why", "a test"])
        .output()
        .expect("python3 runs tools/live/merge.py");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_run_replaces_its_experiments_and_adds_new_ones() {
    let base: J = serde_json::from_str(&std::fs::read_to_string(vectors()).unwrap()).unwrap();
    let cells = base["cells"].as_array().unwrap();
    // the same experiment as the base's 3rd cell, with another outcome
    let at = 2;
    let mut same = cells[at].clone();
    same["ops"] = serde_json::json!([{"op": "init", "status": -25,
        "status_name": "PMIX_ERR_UNREACH", "observed": "merged"}]);
    // a new experiment: the same pair, told something no cell of the base was told
    let mut new = cells[at].clone();
    new["note"] = J::from("the client was told something new");
    let mut prov = base["provenance"].clone();
    prov["command"] = J::from("bash tools/live-matrix.sh --a-subset");
    prov["date"] = J::from("2026-11-26T09:00:00Z");
    let run = serde_json::json!({"format": base["format"].clone(), "provenance": prov, "cells": [same, new]});
    let out = std::env::temp_dir().join(format!("pw-live-merge-{}.json", std::process::id()));
    let (ok, err) = merge(&run, &out);
    assert!(ok, "{err}");
    let merged: J = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let m = merged["cells"].as_array().unwrap();
    assert_eq!(m.len(), cells.len() + 1);
    assert_eq!(
        m[at]["ops"][0]["observed"], "merged",
        "replaced in its place"
    );
    assert_eq!(m[m.len() - 1]["note"], "the client was told something new");
    for (i, c) in cells.iter().enumerate().filter(|(i, _)| *i != at) {
        assert_eq!(&m[i], c, "cell {i} kept as it was");
    }
    let command = merged["provenance"]["command"].as_str().unwrap();
    assert!(
        command.ends_with(
            "; then bash tools/live-matrix.sh --a-subset (2026-11-26T09:00:00Z) replaced 1 cells and added 1: a test"
        ),
        "{command}"
    );
    let _ = std::fs::remove_file(&out);

    // two cells of one experiment in the run: refused, nothing written
    let twice = serde_json::json!({"format": base["format"].clone(), "provenance": run["provenance"].clone(),
        "cells": [cells[at].clone(), cells[at].clone()]});
    let (ok, err) = merge(&twice, &out);
    assert!(!ok && err.contains("two cells of one experiment"), "{err}");
    assert!(!out.exists(), "written anyway");
    let _ = std::fs::remove_file(out.with_extension("run.json"));
}
