//! The scenario suite against the reference model (in process and over the protocol),
//! the mutants, and the loader's error messages.

use pmix_conformance::model::Mutant;
use pmix_conformance::report::Outcome;
use pmix_conformance::scenarios::{self, load_dir, parse_file, run_all, run_mutants};
use pmix_conformance::server::{ExternalServer, Server, ServerSpec};
use pmix_conformance::wireinfo::WireFormat;
use std::path::Path;
use std::time::Duration;

fn all() -> Vec<scenarios::Scenario> {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")).expect("scenarios load")
}

fn failures(r: &pmix_conformance::report::Report) -> String {
    r.cases
        .iter()
        .filter(|c| c.outcome != Outcome::Pass)
        .map(|c| format!("{} {:?} {:?}", c.id, c.detail, c.outcome))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn all_scenarios_pass_against_the_model() {
    let s = all();
    assert!(s.len() >= 60, "only {} scenarios", s.len());
    let r = run_all(&s, &ServerSpec::Model(None), WireFormat::default());
    assert_eq!(r.totals.passed, s.len(), "failures:\n{}", failures(&r));
    for c in &r.coverage {
        assert!(
            c.uncovered.is_empty(),
            "section {} has uncovered clauses {:?}",
            c.section,
            c.uncovered
        );
    }
}

#[test]
fn all_scenarios_pass_through_the_external_protocol() {
    let s = all();
    let spec = ServerSpec::External {
        argv: vec![env!("CARGO_BIN_EXE_pmix-model-server").to_string()],
        timeout: Duration::from_secs(20),
    };
    let r = run_all(&s, &spec, WireFormat::default());
    assert_eq!(r.totals.passed, s.len(), "failures:\n{}", failures(&r));
}

#[test]
fn a_mutant_served_externally_fails() {
    let s = all();
    let spec = ServerSpec::External {
        argv: vec![
            env!("CARGO_BIN_EXE_pmix-model-server").to_string(),
            "--mutant".into(),
            "spawn-narrowed".into(),
        ],
        timeout: Duration::from_secs(20),
    };
    let r = run_all(&s, &spec, WireFormat::default());
    let failed: Vec<&str> = r
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Fail { .. }))
        .map(|c| c.id.as_str())
        .collect();
    assert!(failed.contains(&"own-all-or-nothing"), "{failed:?}");
}

#[test]
fn every_mutant_is_killed_by_a_named_scenario() {
    let s = all();
    let (results, report) = run_mutants(&s, WireFormat::default());
    assert_eq!(results.len(), Mutant::ALL.len());
    assert!(report.ok(), "{}", report.console(false));
    let expect = [
        (Mutant::DefaultNone, "disp-default-when-absent"),
        (Mutant::TransitiveOwnership, "own-not-transitive"),
        (Mutant::SpawnNarrowed, "own-all-or-nothing"),
        (
            Mutant::ChildDrainByOwners,
            "disp-child-descendant-elsewhere",
        ),
        (Mutant::ChildNotDeferred, "disp-child-waits-for-descendants"),
        (Mutant::AppTargetHonored, "alloc-row6-app-target-rejected"),
        (Mutant::ReservedVisible, "spawn-isolation-owner-too"),
        (Mutant::PartialExtend, "extend-by-non-owner-rejected"),
        (Mutant::WarningBroadcast, "warn-directed-to-requester"),
        (Mutant::NoReqIdEcho, "report-no-req-id-no-echo"),
        (
            Mutant::UnsupportedInheritanceIgnored,
            "err-row7-unsupported-inheritance",
        ),
        (Mutant::UnreserveKills, "disp-default-explicit"),
        (
            Mutant::SchedulerSpawnNotOwner,
            "neg-scheduler-spawned-job-joins-owners",
        ),
        (
            Mutant::TargetRequesterOwns,
            "neg-target-requester-gains-nothing",
        ),
        (
            Mutant::ExtendReplacesDisposition,
            "disp-extend-updates-disposition",
        ),
        (
            Mutant::RejectedExtendSetsDisposition,
            "neg-rejected-extend-keeps-disposition",
        ),
        (
            Mutant::ChildReleasesWhileOwnerRuns,
            "neg-child-waits-for-owner",
        ),
        (
            Mutant::ChildReleasesWhileOwnerRuns,
            "neg-child-default-waits-for-owner",
        ),
        (
            Mutant::ReturnedTwice,
            "neg-released-nodes-not-returned-again",
        ),
        (
            Mutant::ReturnedTwice,
            "neg-reclaimed-startup-nodes-not-returned-again",
        ),
        (
            Mutant::WarningWrongAlloc,
            "neg-warning-names-the-right-allocation",
        ),
        (Mutant::ReqIdFromPrevious, "neg-no-uninvited-req-id"),
        (
            Mutant::StoredReqIdEchoed,
            "neg-extend-release-by-id-no-stored-req-id",
        ),
        // The strict-ownership set.
        (Mutant::ToolsOwnByUid, "alloc-row2-tool-own"),
        (Mutant::ToolsOwnByUid, "err-row6-spawn-unowned"),
        (Mutant::ReleaseByAnyone, "err-release-non-owner"),
        (Mutant::ExtendByAnyone, "extend-by-non-owner-rejected"),
    ];
    for m in Mutant::STRICT_OWNERSHIP {
        assert!(Mutant::ALL.contains(&m), "{m} is not run by --mutants");
    }
    for (m, id) in expect {
        let r = results.iter().find(|r| r.mutant == m).unwrap();
        assert!(
            r.killed_by.iter().any(|k| k == id),
            "{m} should be killed by {id}, killed by {:?}",
            r.killed_by
        );
    }
}

#[test]
fn old_component_reports_unsupported_not_pass() {
    // v41 cannot carry ALLOC_INHERIT: such scenarios are unsupported, the rest still pass.
    let s = all();
    let fmt = WireFormat::parse("v41", "non-described").unwrap();
    let r = run_all(&s, &ServerSpec::Model(None), fmt);
    let un = r
        .cases
        .iter()
        .find(|c| c.id == "disp-child-waits-for-descendants")
        .unwrap();
    assert!(
        matches!(un.outcome, Outcome::Unsupported { .. }),
        "{:?}",
        un.outcome
    );
    let ok = r
        .cases
        .iter()
        .find(|c| c.id == "spawn-several-ids-union")
        .unwrap();
    assert_eq!(ok.outcome, Outcome::Pass);
    assert_eq!(r.totals.failed + r.totals.errors, 0, "{}", failures(&r));
}

fn load_err(text: &str) -> String {
    parse_file(Path::new("bad.toml"), text)
        .expect_err("must fail")
        .to_string()
}

const HEAD: &str = "[[scenario]]\nid = \"x\"\nclauses = [\"spawn.absent\"]\nrequirement = \"r\"\n";

/// Steps: a DVM on n1, tool t, and a spawn of j by t, whose expectations are `spawn`.
fn one_spawn(spawn_expect: &str) -> String {
    format!(
        "{HEAD}steps = [ {{ op = \"dvm_start\", nodes = [\"n1\"] }}, {{ op = \"tool_connect\", tool = \"t\" }}, {{ op = \"spawn\", by = \"tool:t\", nspace = \"j\", expect = {{ {spawn_expect} }} }}, {{ op = \"observe\", expect = {{ subject = true, running = [\"j\"] }} }} ]\n"
    )
}

#[test]
fn bad_scenario_files_give_clear_errors() {
    let e = load_err("[[scenario]]\nid = \"x\"\nclauses = [\"spawn.absent\"]\nrequirement = \"r\"\nsteps = [ { op = \"dvm_start\", nodez = [] } ]\n");
    assert!(e.contains("bad.toml") && e.contains("nodez"), "{e}");
    let e = load_err(&format!("{HEAD}steps = [ {{ op = \"fly\" }} ]\n"));
    assert!(e.contains("fly"), "{e}");
    let e = load_err(&format!("{HEAD}steps = [ {{ op = \"dvm_start\", nodes = [] }}, {{ op = \"reclaim\", alloc = \"$A\" }} ]\n"));
    assert!(e.contains("step 2 (reclaim)") && e.contains("$A"), "{e}");
    let e = load_err("[[scenario]]\nid = \"x\"\nclauses = [\"nope\"]\nrequirement = \"r\"\nsteps = [ { op = \"dvm_start\", nodes = [] } ]\n");
    assert!(e.contains("unknown clause id \"nope\""), "{e}");
    let e = load_err(&format!(
        "{HEAD}steps = [ {{ op = \"dvm_start\", nodes = [] }}, {{ op = \"alloc\", by = \"tool:t\", directive = \"NEW\", info = [ {{ key = \"PMIX_ALLOC_SHARE\", value = 3 }} ] }} ]\n"
    ));
    assert!(e.contains("BOOL"), "{e}");
    let e = load_err(&format!("{HEAD}steps = [ {{ op = \"dvm_start\", nodes = [] }}, {{ op = \"alloc\", by = \"robot\", directive = \"NEW\" }} ]\n"));
    assert!(e.contains("bad requester"), "{e}");
    let e = load_err(&format!("{HEAD}steps = [ {{ op = \"dvm_start\", nodes = [], expect = {{ status = \"ERR_WHATEVER\" }} }} ]\n"));
    assert!(e.contains("unknown status"), "{e}");
    let e = load_err(&format!(
        "{HEAD}steps = [ {{ op = \"dvm_start\", nodes = [], expect = {{ allocations = [] }} }} ]\n"
    ));
    assert!(e.contains("no subject"), "{e}");
    let e = load_err(&one_spawn("reading = \"no-such-reading\""));
    assert!(e.contains("unknown reading \"no-such-reading\""), "{e}");
    let e = load_err("not toml at all = = =");
    assert!(e.starts_with("bad.toml:"), "{e}");
}

#[test]
fn wrong_expectation_fails_with_expected_and_actual() {
    let text = format!(
        "{HEAD}steps = [ {{ op = \"dvm_start\", nodes = [\"n1\"] }}, {{ op = \"tool_connect\", tool = \"t\" }}, {{ op = \"spawn\", by = \"tool:t\", nspace = \"j\", expect = {{ subject = true, candidates = [\"n2\"] }} }} ]\n"
    );
    let s = parse_file(Path::new("t.toml"), &text).unwrap();
    let r = run_all(&s, &ServerSpec::Model(None), WireFormat::default());
    match &r.cases[0].outcome {
        Outcome::Fail { expected, actual } => {
            assert!(
                expected.contains("n2") && actual.contains("n1"),
                "{expected} / {actual}"
            );
        }
        o => panic!("expected a failure, got {o:?}"),
    }
    assert_eq!(
        r.cases[0].detail.as_deref(),
        Some("step 3 (spawn, subject)")
    );
}

#[test]
fn a_failure_is_judged_by_where_it_happens_and_by_its_reading() {
    let run = |spawn_expect: &str| {
        let s = parse_file(Path::new("t.toml"), &one_spawn(spawn_expect)).unwrap();
        let r = run_all(&s, &ServerSpec::Model(None), WireFormat::default());
        (r.cases[0].clone(), r)
    };
    // Before the subject: inconclusive, neither a pass nor a deviation.
    let (c, r) = run("candidates = [\"n2\"]");
    assert!(
        matches!(&c.outcome, Outcome::Inconclusive { expected, actual } if expected.contains("n2") && actual.contains("n1")),
        "{:?}",
        c.outcome
    );
    assert_eq!(
        c.detail.as_deref(),
        Some("step 3 (spawn, before the subject)")
    );
    assert_eq!((r.totals.failed, r.totals.inconclusive), (0, 1));
    assert!(!r.ok());
    assert!(
        r.summary_line().contains(
            "1 cases, 0 passed, 0 failed (0 reading-free, 0 reading-dependent), 1 inconclusive, 0 unsupported, 0 errors"
        ),
        "{}",
        r.summary_line()
    );
    // At the subject, reading-free: a deviation.
    let (c, r) = run("subject = true, candidates = [\"n2\"]");
    assert!(matches!(c.outcome, Outcome::Fail { .. }), "{:?}", c.outcome);
    assert!(r
        .summary_line()
        .contains("1 failed (1 reading-free, 0 reading-dependent)"));
    // At the subject, tagged with a reading: the server follows the other one.
    let (c, r) =
        run("subject = true, reading = \"child-no-target-default\", candidates = [\"n2\"]");
    match &c.outcome {
        Outcome::ReadingDependent {
            reading, follows, ..
        } => {
            assert_eq!(reading, "child-no-target-default");
            assert!(follows.contains("parent's session"), "{follows}");
        }
        o => panic!("expected a reading-dependent failure, got {o:?}"),
    }
    assert!(r
        .summary_line()
        .contains("1 failed (0 reading-free, 1 reading-dependent)"));
    // Where the readings allow several placements, each passes.
    let (c, _) = run("subject = true, candidates_in = [[\"n2\"], [\"n1\"]]");
    assert_eq!(c.outcome, Outcome::Pass);
    let (c, _) = run("subject = true, candidates_in = [[\"n2\"], [\"n3\"]]");
    assert!(matches!(c.outcome, Outcome::Fail { .. }), "{:?}", c.outcome);
}

#[test]
fn crashing_and_hanging_servers_are_errors() {
    let s = all();
    let one = vec![s[0].clone()];
    // A "server" that exits at once.
    let r = run_all(
        &one,
        &ServerSpec::External {
            argv: vec!["false".into()],
            timeout: Duration::from_secs(5),
        },
        WireFormat::default(),
    );
    assert!(
        matches!(&r.cases[0].outcome, Outcome::Error { message } if message.contains("ended")),
        "{:?}",
        r.cases[0].outcome
    );
    // A "server" that never answers.
    let started = std::time::Instant::now();
    let r = run_all(
        &one,
        &ServerSpec::External {
            argv: vec!["sleep".into(), "30".into()],
            timeout: Duration::from_millis(300),
        },
        WireFormat::default(),
    );
    assert!(
        matches!(&r.cases[0].outcome, Outcome::Error { message } if message.contains("did not answer")),
        "{:?}",
        r.cases[0].outcome
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // A missing program.
    assert!(
        ExternalServer::spawn(&["/nonexistent/server".into()], Duration::from_secs(1)).is_err()
    );
}

#[test]
fn model_server_rejects_garbage_info_without_panicking() {
    use pmix_conformance::protocol::{Request, Requester, RequesterKind};
    use pmix_conformance::wireinfo::WireInfo;
    let mut m = pmix_conformance::server::ModelServer::new(None);
    let r = m
        .call(&Request::Start {
            nodes: vec!["n1".into()],
            unavailable: vec![],
            scheduler_honors_warn_timeout: true,
            component: "v61".into(),
        })
        .unwrap();
    assert_eq!(r.status, 0);
    m.call(&Request::ToolConnect { tool: "t".into() }).unwrap();
    let bad = WireInfo {
        component: "v61".into(),
        kind: "non-described".into(),
        hex: "05".into(),
    };
    let r = m
        .call(&Request::Alloc {
            requester: Requester {
                kind: RequesterKind::Tool,
                nspace: "t".into(),
                rank: 0,
            },
            directive: 1,
            info: bad,
            grant: vec!["n5".into()],
        })
        .unwrap();
    assert_ne!(r.status, 0);
    assert!(r.message.is_some());
}

#[test]
fn observables_only_never_fails_and_never_passes_what_it_cannot_check() {
    // The model without introspection: every scenario either passes on observables alone
    // or is unsupported (naming the steps); none fails or errors.
    let s = all();
    let r = run_all(
        &s,
        &ServerSpec::ModelObservablesOnly(None),
        WireFormat::default(),
    );
    assert_eq!(r.totals.failed + r.totals.errors, 0, "{}", failures(&r));
    for c in &r.cases {
        if let Outcome::Unsupported { reason } = &c.outcome {
            assert!(
                reason.contains("introspection") && reason.contains("step "),
                "{reason}"
            );
        }
    }
    eprintln!("observables only: {}", r.summary_line());
}

fn cli(args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pmix-conformance"))
        .args(args)
        .output()
        .expect("run pmix-conformance");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn a_server_unsupported_for_everything_fails_the_run() {
    let model = env!("CARGO_BIN_EXE_pmix-model-server");
    let (ok, text) = cli(&["scenarios", "--server", model, "--refuse-all"]);
    assert!(!ok, "{text}");
    assert!(text.contains("no scenario ran"), "{text}");
    assert!(
        text.contains(&format!(
            " 0 passed, 0 failed (0 reading-free, 0 reading-dependent), 0 inconclusive, {} unsupported",
            all().len()
        )),
        "{text}"
    );
    // Coverage counts only passed scenarios: nothing is covered.
    let r = run_all(&all(), &ServerSpec::Refusing, WireFormat::default());
    assert!(
        r.coverage.iter().all(|c| c.covered == 0),
        "{:?}",
        r.coverage
    );
}

#[test]
fn min_pass_and_expected_results_pin_the_numbers() {
    let model = env!("CARGO_BIN_EXE_pmix-model-server");
    let n = all().len();
    let (ok, text) = cli(&["scenarios", "--min-pass", &n.to_string()]);
    assert!(ok, "{text}");
    let (ok, text) = cli(&["scenarios", "--min-pass", &(n + 1).to_string()]);
    assert!(
        !ok && text.contains(&format!("{n} scenario(s) passed, at least {} must", n + 1)),
        "{text}"
    );

    // A mutant served externally, judged against a file listing exactly its failures.
    let s = all();
    let r = run_all(
        &s,
        &ServerSpec::Model(Some(Mutant::SpawnNarrowed)),
        WireFormat::default(),
    );
    let failed: Vec<&str> = r
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Fail { .. }))
        .map(|c| c.id.as_str())
        .collect();
    assert!(!failed.is_empty());
    let dir = std::env::temp_dir().join(format!("pmix-expected-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // One entry per scenario: its outcome, `flip` listed as a deviation whatever it is, and
    // `drop` left out.
    let write = |name: &str, flip: Option<&str>, drop: Option<&str>| {
        let mut t = String::from("server = \"mutant spawn-narrowed\"\n");
        for c in &r.cases {
            if Some(c.id.as_str()) == drop {
                continue;
            }
            let deviation = failed.contains(&c.id.as_str()) || Some(c.id.as_str()) == flip;
            t += &format!(
                "[[scenario]]\nid = \"{}\"\noutcome = \"{}\"\nsubject = \"the step(s) marked\"\nobserved = \"what it did\"\n",
                c.id,
                if deviation { "deviation" } else { "pass" }
            );
            if deviation {
                t += "breaks = \"never silently narrowed\"\n";
            }
        }
        let p = dir.join(name);
        std::fs::write(&p, t).unwrap();
        p
    };
    let exact = write("exact.toml", None, None);
    let args = |f: &std::path::Path| -> Vec<String> {
        vec![
            "scenarios".into(),
            "--expected".into(),
            f.display().to_string(),
            "--server".into(),
            model.into(),
            "--mutant".into(),
            "spawn-narrowed".into(),
        ]
    };
    let run = |f: &std::path::Path| {
        let a = args(f);
        cli(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (ok, text) = run(&exact);
    assert!(ok, "{text}");
    // Stale: a listed deviation that passes.
    let (ok, text) = run(&write("stale.toml", Some("spawn-one-id"), None));
    assert!(
        !ok && text.contains("spawn-one-id: listed as deviation, but it is pass"),
        "{text}"
    );
    // Unlisted failure.
    let (ok, text) = run(&write("short.toml", None, Some(failed[0])));
    assert!(
        !ok && text.contains(&format!(
            "{}: deviation, but the expected-results file does not list it",
            failed[0]
        )),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn expected_results_files_load_and_name_real_scenarios() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("expected");
    let ids: Vec<String> = all().into_iter().map(|s| s.id).collect();
    let mut files = 0;
    for e in std::fs::read_dir(&dir).expect("conformance/expected exists") {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("toml") {
            continue;
        }
        files += 1;
        let r = scenarios::ExpectedResults::load(&p).unwrap_or_else(|e| panic!("{e}"));
        for e in &r.scenario {
            assert!(ids.contains(&e.id), "{}: no scenario {}", p.display(), e.id);
        }
        // One entry per scenario.
        for id in &ids {
            assert!(
                r.get(id).is_some(),
                "{}: scenario {id} has no entry",
                p.display()
            );
        }
        // Its report is generated from it and the scenarios, and is not stale.
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let report = dir.join("../reports").join(format!("{stem}.md"));
        let want = scenarios::server_report::render(&r, &all());
        let got = std::fs::read_to_string(&report)
            .unwrap_or_else(|e| panic!("{}: {e}", report.display()));
        assert!(
            got == want,
            "{} is stale: regenerate it with `pmix-conformance scenarios --expected {} --write-report {}`",
            report.display(),
            p.display(),
            report.display()
        );
    }
    assert!(files > 0, "no expected-results file in {}", dir.display());
}
