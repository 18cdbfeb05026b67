//! Scoring that cannot pass a failure (issue 38 item 1), on synthetic run folders put
//! through the real assembler (`tools/live/assemble.py`) and judged by the real report code:
//! a planted crashing client and a planted server whose every init fails both come out
//! failing (the crash named with its signal and the last operation reached), a cell the
//! harness could not run is *not run*, failures are excused only by the same failure in the
//! same configuration with one release on both sides, and the baseline gate
//! (`live-matrix.sh --baseline`, `--ci`) reports each of them as worse.

use std::path::{Path, PathBuf};
use std::process::Command;

use pmix_live::compare::{Explanations, Outcome};
use pmix_live::gate::compare_runs;
use pmix_live::report::{self, Live};
use pmix_live::{Observations, Op};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// One synthetic cell: its TSV fields and what its folder holds.
struct Cell<'a> {
    client: &'a str,
    server: &'a str,
    variant: &'a str,
    forced: &'a str,
    setting: &'a str,
    plant: &'a str,
    /// rank 0's and rank 1's `OP` lines (None: every operation succeeded)
    ops: Option<&'a str>,
    /// the exit status `timeout` gave both ranks (None: no rc file, not run)
    rc: Option<i32>,
    /// why the harness could not run it
    not_run: Option<&'a str>,
    /// the server's exit status (None: not recorded)
    server_rc: Option<i32>,
}

impl Cell<'_> {
    fn ok<'a>(client: &'a str, server: &'a str) -> Cell<'a> {
        Cell {
            client,
            server,
            variant: "base",
            forced: "-",
            setting: "-",
            plant: "-",
            ops: None,
            rc: Some(0),
            not_run: None,
            server_rc: None,
        }
    }
}

fn tap_record(client: &str, rank: u32, component: &str) -> String {
    format!(
        r#"{{"bfrops":"{component}","buffer":"non-described","flag":"SimpleClient","gds":"hash","nspace":"live","psec":"native","rank":{rank},"version":"{client}"}}"#
    )
}

/// Write a run folder of `cells` under a fresh temp dir, assemble it, and return the
/// observations (and the assembler's success).
fn assemble(name: &str, cells: &[Cell<'_>]) -> (bool, Observations) {
    let d = std::env::temp_dir().join(format!("pmix-live-scoring-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let mut tsv = String::new();
    let all: String = Op::all()
        .iter()
        .map(|op| format!("OP {op} 0 PMIX_SUCCESS fine\n"))
        .collect();
    for (i, c) in cells.iter().enumerate() {
        let f = d.join(format!("cell.{i}"));
        std::fs::create_dir_all(&f).unwrap();
        let release = c.server.strip_prefix("plain-").unwrap_or("native");
        tsv += &format!(
            "{}\tclient\t{}\t{release}\t{}\t{}\t{}\t{}\t{}\n",
            c.client,
            c.server,
            c.variant,
            c.forced,
            f.display(),
            c.setting,
            c.plant
        );
        if let Some(why) = c.not_run {
            std::fs::write(f.join("not_run"), why).unwrap();
            continue;
        }
        let component = if c.forced == "-" { "v41" } else { c.forced };
        let mut tap = String::new();
        for r in 0..2u32 {
            std::fs::write(f.join(format!("out.{r}")), c.ops.unwrap_or(&all)).unwrap();
            if let Some(rc) = c.rc {
                std::fs::write(f.join(format!("rank{r}.rc")), format!("{rc}\n")).unwrap();
            }
            tap += &tap_record(c.client, r, component);
            tap.push('\n');
        }
        std::fs::write(f.join("tap.jsonl"), tap).unwrap();
        if let Some(rc) = c.server_rc {
            std::fs::write(f.join("server.rc"), format!("{rc}\n")).unwrap();
        }
    }
    std::fs::write(d.join("cells.tsv"), tsv).unwrap();
    std::fs::write(
        d.join("provenance.json"),
        r#"{"date": "fixture", "host": "fixture", "command": "synthetic run folders (a test)", "releases": {}}"#,
    )
    .unwrap();
    let out = d.join("observations.json");
    let o = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/assemble.py"))
        .arg(d.join("cells.tsv"))
        .arg(d.join("provenance.json"))
        .arg(&out)
        .arg("--check")
        .output()
        .expect("python3 runs tools/live/assemble.py");
    let text = std::fs::read_to_string(&out).expect("the assembler wrote its file");
    let obs = Observations::from_json(&text).expect("in the shared format");
    let _ = std::fs::remove_dir_all(&d);
    (o.status.success(), obs)
}

/// A Live over `obs` with the checked-in byte matrix and no explanations.
fn live(obs: Observations) -> Live {
    let mut l = Live::load(&vectors()).expect("the vectors read");
    l.observations = Some(obs);
    l.explanations = Explanations::default();
    l
}

const CRASH: &str = "OP init 0 PMIX_SUCCESS client live.0\n";
const INIT_FAILS: &str = "OP init -12 PMIX_ERR_INVALID_CRED refused\n";

/// The real cells every run has, and the planted ones of `--plant crash,init-fails`.
fn planted_run() -> Vec<Cell<'static>> {
    vec![
        Cell::ok("4.2.2", "plain-4.2.2"),
        Cell::ok("5.0.7", "plain-5.0.7"),
        Cell::ok("4.2.2", "plain-5.0.7"),
        Cell {
            plant: "crash",
            ops: Some(CRASH),
            rc: Some(128 + 11),
            ..Cell::ok("4.2.2", "plain-5.0.7")
        },
        Cell {
            plant: "init-fails",
            ops: Some(INIT_FAILS),
            rc: Some(1),
            ..Cell::ok("4.2.2", "plain-5.0.7")
        },
        // the server's own release fails too: that must not excuse it
        Cell {
            plant: "init-fails",
            ops: Some(INIT_FAILS),
            rc: Some(1),
            ..Cell::ok("5.0.7", "plain-5.0.7")
        },
        Cell {
            variant: "force",
            forced: "v20",
            not_run: Some("the server does not offer v20"),
            ..Cell::ok("4.2.2", "plain-5.0.7")
        },
    ]
}

#[test]
fn a_planted_crash_and_a_planted_init_failure_are_failures_and_not_run_is_recorded() {
    let (ok, obs) = assemble("planted", &planted_run());
    assert!(
        ok,
        "the harness check fails on planted cells only by mistake"
    );
    let crash = &obs.cells[3];
    assert_eq!(crash.plant.as_deref(), Some("crash"));
    assert_eq!(
        crash.crash_text().as_deref(),
        Some("SIGSEGV in rank0 after init")
    );
    assert_eq!(crash.unreported.first(), Some(&Op::GetJobInfo));
    let not_run = &obs.cells[6];
    assert_eq!(
        not_run.not_run.as_deref(),
        Some("the server does not offer v20")
    );
    assert!(not_run.ops.is_empty());
    let live = live(obs);
    let rows = live.rows();
    let judged = live.judge_all(&rows);
    let (_, j) = &judged[3];
    assert_eq!(j.outcome, Outcome::Crash);
    assert!(
        j.failing[0].contains("SIGSEGV") && j.failing[0].contains("after init"),
        "{j:?}"
    );
    for i in [4, 5] {
        let (c, j) = &judged[i];
        assert_eq!(j.outcome, Outcome::Fails, "{}: {j:?}", c.experiment());
        assert!(j.failing.contains(&"init".to_string()), "{j:?}");
    }
    assert_eq!(judged[6].1.outcome, Outcome::NotRun);
    // the real cells still work, and the planted ones never reach the grid
    let p = live.pair(&rows, "4.2.2", "plain-5.0.7", &|_| true);
    assert_eq!(p.observed, Some(Outcome::Works), "{p:?}");
    assert_eq!(p.not_run.len(), 1, "{p:?}");
    let md = report::render(&live);
    let planted = md
        .split("## Planted cells")
        .nth(1)
        .expect("LIVE.md lists the planted cells");
    assert!(planted.contains("| crash | crash |"), "{planted}");
    assert!(planted.contains("| init-fails | fails |"), "{planted}");
}

#[test]
fn the_baseline_gate_names_every_cell_that_got_worse() {
    let (_, old) = assemble(
        "baseline",
        &[
            Cell::ok("4.2.2", "plain-4.2.2"),
            Cell::ok("5.0.7", "plain-5.0.7"),
            Cell::ok("4.2.2", "plain-5.0.7"),
            Cell {
                variant: "force",
                forced: "v20",
                ..Cell::ok("4.2.2", "plain-5.0.7")
            },
        ],
    );
    let (_, new) = assemble("planted-run", &planted_run());
    let changes = compare_runs(&live(new), &live(old.clone()));
    let worse: Vec<String> = changes
        .iter()
        .filter(|c| c.worse())
        .map(|c| c.line())
        .collect();
    assert_eq!(worse.len(), 4, "{worse:#?}");
    assert!(
        worse
            .iter()
            .any(|l| l.contains("plant=crash") && l.contains("-> crash") && l.contains("SIGSEGV")),
        "{worse:#?}"
    );
    assert_eq!(
        worse
            .iter()
            .filter(|l| l.contains("plant=init-fails"))
            .count(),
        2,
        "{worse:#?}"
    );
    assert!(
        worse
            .iter()
            .any(|l| l.contains("force v20") && l.contains("not run")),
        "{worse:#?}"
    );
    // the same run against itself: nothing is worse
    let same = compare_runs(&live(old.clone()), &live(old));
    assert!(same.iter().all(|c| !c.worse()), "{same:?}");
}

#[test]
fn a_failure_is_excused_only_in_the_same_configuration() {
    // 4.2.2 fails get-job-info against its own server, but in another gds setup only:
    // the default cell of the pair is not excused by it
    let fails = "OP init 0 PMIX_SUCCESS x\nOP get-job-info -46 PMIX_ERR_NOT_FOUND x\n";
    let (_, obs) = assemble(
        "config",
        &[
            Cell {
                variant: "gds",
                setting: "ds12",
                ops: Some(fails),
                rc: Some(1),
                ..Cell::ok("4.2.2", "plain-4.2.2")
            },
            Cell::ok("5.0.7", "plain-5.0.7"),
            Cell {
                ops: Some(fails),
                rc: Some(1),
                ..Cell::ok("4.2.2", "plain-5.0.7")
            },
            Cell {
                variant: "gds",
                setting: "ds12",
                ops: Some(fails),
                rc: Some(1),
                ..Cell::ok("4.2.2", "plain-5.0.7")
            },
        ],
    );
    let live = live(obs);
    let rows = live.rows();
    let judged = live.judge_all(&rows);
    assert_eq!(judged[2].1.outcome, Outcome::Fails, "{:?}", judged[2].1);
    // the same failure in the same configuration with one release on both sides: excused
    assert_eq!(judged[3].1.outcome, Outcome::Works, "{:?}", judged[3].1);
    assert!(judged[3]
        .1
        .not_interop
        .contains(&"get-job-info".to_string()));
    let p = live.pair(&rows, "4.2.2", "plain-5.0.7", &|_| true);
    assert_eq!(p.observed, Some(Outcome::Fails), "{p:?}");
}

/// A server that dies by a signal after every client reported every operation still fails
/// its cell: a crash anywhere in the cell is a crash.
#[test]
fn a_server_ended_by_a_signal_is_a_crash() {
    let (_, obs) = assemble(
        "server-crash",
        &[
            Cell {
                server_rc: Some(128 + 6),
                ..Cell::ok("5.0.7", "plain-5.0.7")
            },
            Cell {
                server_rc: Some(0),
                ..Cell::ok("4.2.2", "plain-4.2.2")
            },
        ],
    );
    assert_eq!(
        obs.cells[0].crash_text().as_deref(),
        Some("SIGABRT in server after finalize")
    );
    let live = live(obs);
    let rows = live.rows();
    let judged = live.judge_all(&rows);
    assert_eq!(judged[0].1.outcome, Outcome::Crash, "{:?}", judged[0].1);
    assert_eq!(judged[1].1.outcome, Outcome::Works, "{:?}", judged[1].1);
    let p = live.pair(&rows, "5.0.7", "plain-5.0.7", &|_| true);
    assert_eq!(p.observed, Some(Outcome::Crash), "{p:?}");
}

/// An operation added to the client after the baseline was recorded cannot have got worse:
/// the gate leaves it out and names it; an operation the baseline had still gates.
#[test]
fn operations_new_since_the_baseline_are_named_not_gated() {
    let (_, mut old) = assemble(
        "old-client",
        &[
            Cell::ok("5.0.7", "plain-5.0.7"),
            Cell::ok("5.0.7", "pmix-server"),
        ],
    );
    // the baseline's client did not have event-notify yet
    for c in &mut old.cells {
        c.ops.retain(|o| o.op.as_str() != "event-notify");
        c.unreported.clear();
    }
    let line = |op: &str, status: &str| {
        Op::all()
            .iter()
            .map(|o| {
                if o.as_str() == op {
                    format!("OP {o} {status} failed here\n")
                } else {
                    format!("OP {o} 0 PMIX_SUCCESS fine\n")
                }
            })
            .collect::<String>()
    };
    let (new_fails, init_fails) = (
        line("event-notify", "-24 PMIX_ERR_TIMEOUT"),
        line("init", "-12 PMIX_ERR_INVALID_CRED"),
    );
    let (_, new) = assemble(
        "new-client",
        &[
            Cell::ok("5.0.7", "plain-5.0.7"),
            Cell {
                ops: Some(&new_fails),
                ..Cell::ok("5.0.7", "pmix-server")
            },
        ],
    );
    let changes = compare_runs(&live(new), &live(old.clone()));
    let server = changes
        .iter()
        .find(|c| c.experiment.contains("pmix-server"))
        .expect("the pmix-server cell");
    assert!(!server.worse(), "{}", server.line());
    assert!(
        server
            .why
            .contains("not gated (new since the baseline): event-notify"),
        "{}",
        server.line()
    );
    // an operation the baseline had still gates
    let (_, new) = assemble(
        "new-client-init",
        &[
            Cell::ok("5.0.7", "plain-5.0.7"),
            Cell {
                ops: Some(&init_fails),
                ..Cell::ok("5.0.7", "pmix-server")
            },
        ],
    );
    let changes = compare_runs(&live(new), &live(old));
    assert!(
        changes
            .iter()
            .any(|c| c.worse() && c.experiment.contains("pmix-server")),
        "{changes:#?}"
    );
}

/// A run that tested nothing (no cell, or every cell not run) fails the gate.
#[test]
fn a_run_that_tested_nothing_fails_the_gate() {
    let (_, old) = assemble("nothing-baseline", &[Cell::ok("5.0.7", "plain-5.0.7")]);
    let mut empty = old.clone();
    empty.cells.clear();
    assert!(pmix_live::gate::tested_nothing(&compare_runs(
        &live(empty),
        &live(old.clone())
    )));
    let (_, skipped) = assemble(
        "nothing-skipped",
        &[Cell {
            not_run: Some("the server did not start"),
            ..Cell::ok("6.1.0", "plain-6.1.0")
        }],
    );
    assert!(pmix_live::gate::tested_nothing(&compare_runs(
        &live(skipped),
        &live(old.clone())
    )));
    assert!(!pmix_live::gate::tested_nothing(&compare_runs(
        &live(old.clone()),
        &live(old)
    )));
}
