//! The checked-in MPI rows (`vectors/live/mpi.json`, written by `tools/live/mpi.sh` from a
//! full run): every cell has a verdict; no cell whose process died by a signal, exited
//! non-zero, timed out or came up as a singleton is "works"; every "works" cell shows
//! each rank's size check equal to the launched count; and `MPI.md` is the one the JSON
//! gives (its grid agrees with the cells).

use std::path::{Path, PathBuf};

use serde_json::Value as J;

const VERDICTS: &[&str] = &[
    "works",
    "fails",
    "crash",
    "hang",
    "killed",
    "singleton",
    "not run",
];

fn live() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/live")
}

fn doc() -> J {
    serde_json::from_str(&std::fs::read_to_string(live().join("mpi.json")).unwrap()).unwrap()
}

fn cells(d: &J) -> &Vec<J> {
    d["cells"].as_array().expect("cells")
}

fn name(c: &J) -> String {
    format!(
        "Open MPI {} x {}",
        c["ompi"].as_str().unwrap(),
        c["launcher"].as_str().unwrap()
    )
}

#[test]
fn every_cell_of_the_grid_is_there_with_a_verdict() {
    let d = doc();
    assert_eq!(d["format"], "pmix-wire live mpi 1");
    let np = d["np"].as_u64().unwrap();
    assert_eq!(np, 2);
    let ompis: Vec<&str> = d["ompi"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["ompi"].as_str().unwrap())
        .collect();
    let launchers: Vec<&str> = d["launchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["launcher"].as_str().unwrap())
        .collect();
    assert_eq!(ompis, ["4.1.4", "5.0.7", "6.0.0rc2"]);
    for o in &ompis {
        for l in &launchers {
            let c = cells(&d)
                .iter()
                .find(|c| c["ompi"] == *o && c["launcher"] == *l)
                .unwrap_or_else(|| panic!("no cell Open MPI {o} x {l}"));
            for key in ["verdict", "spawn"] {
                let v = c[key]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}: no {key}", name(c)));
                assert!(VERDICTS.contains(&v), "{}: {key} '{v}'", name(c));
            }
            if c["verdict"] == "not run" {
                assert!(
                    !c["reason"].as_str().unwrap_or("").is_empty(),
                    "{}: not run without a reason",
                    name(c)
                );
            } else {
                assert!(
                    !c["runs"].as_array().unwrap().is_empty(),
                    "{}: no runs",
                    name(c)
                );
            }
        }
    }
    // the Debian MPICH note is kept, and no MPICH row is faked
    assert!(d["mpich"]
        .as_str()
        .unwrap()
        .contains("does not link libpmix"));
    assert!(!ompis.iter().any(|o| o.to_lowercase().contains("mpich")));
}

/// The run a cell's verdict (or spawn verdict) comes from.
fn run<'a>(c: &'a J, which: &str) -> Option<&'a J> {
    c["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run"] == which)
}

fn check_works_run(c: &J, r: &J, np: u64) {
    let what = format!("{} run {}", name(c), r["run"]);
    assert_eq!(r["verdict"], "works", "{what}");
    assert_eq!(r["timed_out"], false, "{what}: timed out yet works");
    assert_eq!(r["launcher_exit"], 0, "{what}: launcher exit");
    let procs = r["processes"].as_array().unwrap();
    assert_eq!(procs.len() as u64, np, "{what}: rank processes");
    let mut ranks = Vec::new();
    for p in procs {
        assert!(
            p["signal"].is_null(),
            "{what}: a rank died by signal {} yet works",
            p["signal"]
        );
        assert_eq!(
            p["exit"], 0,
            "{what}: a rank exited {} yet works",
            p["exit"]
        );
        assert!(
            p.get("no_status").is_none(),
            "{what}: a rank without status yet works"
        );
        let checks = p["checks"].as_array().unwrap();
        assert!(
            checks.iter().all(|k| k["result"] == "ok"),
            "{what}: a failed check yet works"
        );
        let size = checks
            .iter()
            .find(|k| k["check"] == "size")
            .unwrap_or_else(|| panic!("{what}: a works cell without a size check"));
        assert!(
            size["detail"]
                .as_str()
                .unwrap()
                .starts_with(&format!("size={np} expected={np}")),
            "{what}: size check {}",
            size["detail"]
        );
        ranks.push(size["rank"].as_u64().unwrap());
        for k in ["init", "allreduce", "barrier", "finalize"] {
            assert!(
                checks.iter().any(|x| x["check"] == k),
                "{what}: no {k} check"
            );
        }
        if r["run"] == "spawn" {
            assert!(
                checks.iter().any(|x| x["check"] == "spawn"),
                "{what}: no spawn check"
            );
        }
    }
    ranks.sort();
    assert_eq!(ranks, (0..np).collect::<Vec<_>>(), "{what}: ranks");
    if r["run"] == "spawn" {
        assert!(
            r["child_checks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["check"] == "child" && k["result"] == "ok"),
            "{what}: the child reported nothing"
        );
    }
}

#[test]
fn no_failure_is_scored_as_works() {
    let d = doc();
    let np = d["np"].as_u64().unwrap();
    for c in cells(&d) {
        if c["verdict"] == "works" {
            check_works_run(c, run(c, "core").expect("core run"), np);
        }
        if c["spawn"] == "works" {
            check_works_run(c, run(c, "spawn").expect("spawn run"), np);
        }
        // any run with a signal, a timeout or a non-zero rank has a non-works verdict
        for r in c["runs"].as_array().unwrap() {
            let bad = r["timed_out"] == true
                || r["processes"].as_array().unwrap().iter().any(|p| {
                    !p["signal"].is_null() || p["exit"] != 0 || p.get("no_status").is_some()
                });
            if bad {
                assert_ne!(r["verdict"], "works", "{} run {}", name(c), r["run"]);
            }
        }
        // a cell that needs a variable also records what happens without it
        if !c["needs_env"].as_array().unwrap().is_empty() {
            assert!(
                run(c, "bare").is_some(),
                "{}: needs a variable but no bare run",
                name(c)
            );
        }
    }
}

#[test]
fn the_summary_grid_is_the_one_the_json_gives() {
    let d = doc();
    let md = std::fs::read_to_string(live().join("MPI.md")).unwrap();
    assert!(md.contains("do not edit by hand"));
    for c in cells(&d) {
        let v = c["verdict"].as_str().unwrap();
        let shown = if v == "works" && !c["needs_env"].as_array().unwrap().is_empty() {
            "works+env"
        } else {
            v
        };
        assert!(shown.len() <= 12);
        let row = format!(
            "| {} ({}) |",
            c["ompi"].as_str().unwrap(),
            c["libpmix"].as_str().unwrap()
        );
        let line = md
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("no row {row}"));
        assert!(
            line.contains(&format!("| {shown} |")),
            "{}: {shown} not in {line}",
            name(c)
        );
    }
}
