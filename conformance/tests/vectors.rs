//! The wire-vector suite: the `pmix-testee` process must pass the whole corpus (the built-in
//! codec in process is `vector_replay.rs`); deliberately broken testees (byte flips, crashes,
//! hangs, garbage) are reported per case with readable diffs while the run goes on;
//! expected-failure lists cannot go stale; the CLI's reports and exit codes.

use pmix_codec::vectors::{Outcome as VOutcome, Phase};
use pmix_conformance::report::{Outcome, Report};
use pmix_conformance::testee::{
    codec_capabilities, codec_reply, BuiltinTestee, Capabilities, ProcessTestee, Reply, Request,
    Testee, TesteeError,
};
use pmix_conformance::vectors::{self, cases, load_dir, run_suite, VectorSet};
use pmix_conformance::xfail::ExpectedFailures;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const TESTEE: &str = env!("CARGO_BIN_EXE_pmix-testee");
const CLI: &str = env!("CARGO_BIN_EXE_pmix-conformance");

fn corpus() -> Vec<VectorSet> {
    load_dir(&vectors::default_dir()).expect("the corpus loads")
}

fn testee(args: &[&str], timeout: Duration) -> ProcessTestee {
    let mut argv = vec![TESTEE.to_string()];
    argv.extend(args.iter().map(|s| s.to_string()));
    ProcessTestee::new(argv, timeout)
}

/// Failing and erroring cases, one line each (for assertion messages).
fn problems(r: &Report) -> String {
    let bad: Vec<String> = r
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Fail { .. } | Outcome::Error { .. }))
        .map(|c| format!("{} {:?}: {:?}", c.id, c.detail, c.outcome))
        .collect();
    format!(
        "{} problems; first ones:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    )
}

fn assert_all_pass(r: &Report, expected_cases: usize) {
    assert_eq!(r.totals.total, expected_cases, "every vector is a case");
    assert!(r.ok(), "{}", problems(r));
    assert_eq!(
        r.totals.passed, expected_cases,
        "unsupported: {}",
        r.totals.unsupported
    );
}

// The built-in codec over the whole corpus is `tests/vector_replay.rs` (the target
// cargo-mutants runs alone).

#[test]
fn the_rust_testee_binary_passes_every_vector_through_the_protocol() {
    let sets = corpus();
    let n: usize = sets.iter().map(|s| s.file.tests.len()).sum();
    let mut t = testee(&[], Duration::from_secs(20));
    let run = run_suite(&sets, None, &mut t, None, false);
    println!(
        "{} ({:.2} s)",
        run.report.summary_line(),
        run.elapsed.as_secs_f64()
    );
    assert!(run.report.target.contains("pmix-testee"));
    assert_all_pass(&run.report, n);
    assert_eq!(t.starts(), 1, "one process served the whole corpus");
}

#[test]
fn case_ids_are_unique_readable_and_carry_their_sentence() {
    let sets = corpus();
    let all = cases(&sets, None);
    let mut seen = BTreeMap::new();
    for c in &all {
        if let Some(prev) = seen.insert(c.id.clone(), c.set.label.clone()) {
            panic!("{} appears in {prev} and {}", c.id, c.set.label);
        }
        let parts: Vec<&str> = c.id.split('.').collect();
        assert_eq!(parts.len(), 5, "{}", c.id);
        assert_eq!(parts[4], c.vector.id.to_string());
        assert!(c.requirement.contains(&c.vector.comment), "{}", c.id);
        let first = c.vector.items[0]["type"].as_str().map(str::to_string);
        if let Some(t) = first {
            assert!(parts[2].starts_with(&t), "{} vs {t}", c.id);
        }
    }
    // The issue's example, and the release qualifier of the two v41 files.
    assert!(seen.contains_key("v61@7_0.non-described.ALLOC_INHERIT.valid.471"));
    assert!(seen.keys().any(|k| k.starts_with("v41@master.")));
    assert!(seen.keys().any(|k| k.starts_with("v41.fully-described.")));
    let master_v41 = sets
        .iter()
        .find(|s| s.prefix == "v41@master.non-described")
        .unwrap();
    assert_eq!(master_v41.file.release, "master");
}

/// Ids of the cases (under `filter`) the built-in codec passes. The broken-testee tests judge
/// only these, so they test the runner whatever state the codec is in; the two tests above
/// demand that this is every case.
fn baseline(sets: &[VectorSet], filter: &str) -> std::collections::BTreeSet<String> {
    let run = run_suite(
        sets,
        Some(filter),
        &mut BuiltinTestee::default(),
        None,
        false,
    );
    let pass: std::collections::BTreeSet<String> = run
        .report
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::Pass)
        .map(|c| c.id.clone())
        .collect();
    assert!(pass.len() > 1000, "only {} baseline cases pass", pass.len());
    pass
}

/// Whether a vector records the bytes the library packed although its unpacker refuses them.
fn self_unpack_fails(v: &pmix_codec::vectors::Vector) -> bool {
    v.flags.iter().any(|f| f == "SelfUnpackFails")
}

/// Of one vector file: the ids of cases whose encode is compared (valid/acceptable, and the
/// `SelfUnpackFails` ones of a component whose packer never over-reads) with the length of
/// the expected wire.
fn compared_encodes(set: &VectorSet) -> BTreeMap<String, usize> {
    assert!(set.component.family() != pmix_codec::Family::Legacy20);
    set.file
        .tests
        .iter()
        .filter(|v| v.result != VOutcome::Invalid || self_unpack_fails(v))
        .map(|v| (vectors::case_id(set, v), v.wire.len() / 2))
        .collect()
}

#[test]
fn a_self_unpack_fails_vector_judges_the_packer_unless_it_refuses() {
    let sets = corpus();
    let filter = "v12.non-described.";
    let good = baseline(&sets, filter);
    let set = sets
        .iter()
        .find(|s| s.prefix == "v12.non-described")
        .unwrap();
    let judged: BTreeMap<String, bool> = set
        .file
        .tests
        .iter()
        .map(|v| (vectors::case_id(set, v), self_unpack_fails(v)))
        .collect();
    assert!(judged.values().filter(|s| **s).count() > 10);
    // A testee that packs other bytes fails them, one that refuses to pack them passes.
    for (brk, fails) in [("flip-byte", true), ("refuse-encode", false)] {
        let mut t = testee(&["--break", brk], Duration::from_secs(20));
        let run = run_suite(&sets, Some(filter), &mut t, None, false);
        for c in run
            .report
            .cases
            .iter()
            .filter(|c| judged[&c.id] && good.contains(&c.id))
        {
            let empty = set
                .file
                .tests
                .iter()
                .any(|v| vectors::case_id(set, v) == c.id && v.wire.is_empty());
            match &c.outcome {
                Outcome::Fail { .. } if fails && !empty => {
                    let detail = c.detail.as_deref().unwrap_or_default();
                    assert!(detail.starts_with("encode-bytes@"), "{}: {detail}", c.id);
                }
                Outcome::Pass if !fails || empty => {}
                other => panic!("{} with --break {brk}: {other:?}", c.id),
            }
        }
    }
    // Where the library's packer over-reads (quirk D4: v20 DATA_ARRAY of COMMAND), its
    // bytes are not asked of anyone.
    let filter = "v20.non-described.";
    let set = sets
        .iter()
        .find(|s| s.prefix == "v20.non-described")
        .unwrap();
    let overread: BTreeMap<String, ()> = set
        .file
        .tests
        .iter()
        .filter(|v| {
            self_unpack_fails(v)
                && pmix_codec::quirks::packer_reads_past_values(
                    set.component.family(),
                    &pmix_codec::json::items_from_json(&v.items).unwrap(),
                )
        })
        .map(|v| (vectors::case_id(set, v), ()))
        .collect();
    assert!(overread.len() >= 2, "{overread:?}");
    let mut t = testee(&["--break", "flip-byte"], Duration::from_secs(20));
    let run = run_suite(&sets, Some(filter), &mut t, None, false);
    for c in run
        .report
        .cases
        .iter()
        .filter(|c| overread.contains_key(&c.id))
    {
        assert!(
            matches!(c.outcome, Outcome::Pass),
            "{}: {:?}",
            c.id,
            c.outcome
        );
        assert!(
            c.requirement.starts_with("Unpacking these"),
            "{}",
            c.requirement
        );
    }
}

#[test]
fn a_byte_flipping_testee_fails_with_readable_hex_diffs() {
    let sets = corpus();
    let set = sets
        .iter()
        .find(|s| s.prefix == "v41.non-described")
        .expect("v41 file");
    let filter = "v41.non-described.";
    let good = baseline(&sets, filter);
    let mut t = testee(&["--break", "flip-byte"], Duration::from_secs(20));
    let run = run_suite(&sets, Some(filter), &mut t, None, false);
    let r = &run.report;
    assert_eq!(r.totals.total, set.file.tests.len());
    let encodes = compared_encodes(set);
    let mut flipped = 0;
    for c in r.cases.iter().filter(|c| good.contains(&c.id)) {
        match encodes.get(&c.id) {
            Some(&len) if len > 0 => {
                flipped += 1;
                let Outcome::Fail { expected, actual } = &c.outcome else {
                    panic!("{} should fail: {:?}", c.id, c.outcome);
                };
                // The signature, then the path of the expected field holding the byte.
                let detail = c.detail.as_deref().unwrap_or_default();
                assert!(
                    detail.starts_with(&format!("encode-bytes@{} in ", len / 2)),
                    "{}: {detail}",
                    c.id
                );
                // The marker sits under the differing byte of both renderings.
                let marker = c.diff.as_deref().expect("a diff marker");
                let col = marker.find("^^").expect("^^");
                assert_ne!(expected[col..col + 2], actual[col..col + 2], "{}", c.id);
                assert_eq!(expected[..col], actual[..col], "{}", c.id);
                assert!(
                    marker.contains(&format!("first difference at byte {}", len / 2)),
                    "{marker}"
                );
            }
            _ => assert!(
                matches!(c.outcome, Outcome::Pass),
                "{} should pass (its bytes are not compared or empty): {:?}",
                c.id,
                c.outcome
            ),
        }
    }
    assert!(flipped > 500, "only {flipped} flipped encodes");
    let failed = r.totals.failed + r.totals.errors;
    assert!(failed >= flipped);
    let console = r.console_limited(false, 5);
    assert!(console.contains("^^ first difference at byte"), "{console}");
    assert!(console.contains(&format!("... and {} more failing cases", failed - 5)));
    assert_eq!(t.starts(), 1, "a wrong answer does not restart the testee");
}

/// Run one file's cases against a testee that misbehaves on requests whose first type is
/// `ty`: those cases are errors with `signature`, every other case passes (if the built-in
/// codec passes it).
fn misbehaving(mode: &str, ty: &str, timeout: Duration, signature: &str) {
    let sets = corpus();
    let filter = "v41.non-described.";
    let good = baseline(&sets, filter);
    let mut t = testee(&["--break", mode, "--break-on", ty], timeout);
    let run = run_suite(&sets, Some(filter), &mut t, None, false);
    let r = &run.report;
    let mut hit = 0;
    for c in &r.cases {
        let first = c.id.split('.').nth(2).unwrap().split('+').next().unwrap();
        if first == ty {
            hit += 1;
            let Outcome::Error { message } = &c.outcome else {
                panic!("{} should be an error: {:?}", c.id, c.outcome);
            };
            assert_eq!(c.detail.as_deref(), Some(signature), "{}: {message}", c.id);
        } else if good.contains(&c.id) {
            assert!(
                matches!(c.outcome, Outcome::Pass),
                "{}: {:?}",
                c.id,
                c.outcome
            );
        }
    }
    assert!(hit >= 1, "no {ty} case in {filter}");
    assert_eq!(r.totals.errors, hit);
    assert!(
        r.totals.passed > 1000,
        "the run went on: {}",
        r.summary_line()
    );
    // One fresh process per broken case (plus the first), or one less if the last case broke.
    assert!(
        t.starts() == hit + 1 || t.starts() == hit,
        "{} starts for {hit} broken cases",
        t.starts()
    );
}

#[test]
fn a_crashing_testee_is_reported_per_case_and_the_run_goes_on() {
    misbehaving("crash", "BOOL", Duration::from_secs(20), "crash");
}

#[test]
fn a_garbage_writing_testee_is_reported_per_case_and_the_run_goes_on() {
    misbehaving("garbage", "BOOL", Duration::from_secs(20), "garbage");
}

#[test]
fn a_hanging_testee_times_out_per_case_and_the_run_goes_on() {
    // Every PROC_STATS case must end as a "timeout" error and every other case pass with a
    // fresh process: that, not a wall-clock bound, shows the timeout is per case.
    misbehaving("hang", "PROC_STATS", Duration::from_millis(300), "timeout");
}

#[test]
fn the_timeout_is_a_budget_per_case() {
    // Every BOOL request is answered after 600 ms, within a 1 s per-case timeout: a case
    // with one request (invalid, decode phase) passes, one with two (valid) times out.
    let sets = corpus();
    let filter = "v41.non-described.BOOL.";
    let good = baseline(&sets, "v41.non-described.");
    let mut t = testee(
        &["--break", "slow", "--delay-ms", "600", "--break-on", "BOOL"],
        Duration::from_secs(1),
    );
    let run = run_suite(&sets, Some(filter), &mut t, None, false);
    let (mut one, mut two) = (0, 0);
    for c in run.report.cases.iter().filter(|c| good.contains(&c.id)) {
        if c.id.contains(".invalid.") {
            one += 1;
            assert_eq!(c.outcome, Outcome::Pass, "{}", c.id);
        } else {
            two += 1;
            assert_eq!(c.detail.as_deref(), Some("timeout"), "{}", c.id);
        }
    }
    assert!(
        one >= 1 && two >= 1,
        "{one} one-request and {two} two-request cases"
    );
}

#[test]
fn a_testee_that_cannot_start_errors_every_case_after_three_tries() {
    let sets = corpus();
    let mut t = ProcessTestee::new(vec!["/nonexistent/testee".into()], Duration::from_secs(1));
    let run = run_suite(&sets, Some("v12.non-described.UINT"), &mut t, None, false);
    let r = &run.report;
    assert!(r.totals.total > 3);
    assert_eq!(r.totals.errors, r.totals.total);
    assert!(r.cases.iter().all(|c| c.detail.as_deref() == Some("start")));
    assert_eq!(t.starts(), 3);
}

/// An in-process testee lacking things: only v41 non-described 4.2, and no BOOL.
struct Partial;

impl Testee for Partial {
    fn describe(&self) -> String {
        "partial".into()
    }
    fn capabilities(&mut self) -> Result<Capabilities, TesteeError> {
        let mut c = codec_capabilities("partial");
        c.components = vec!["v41".into()];
        c.buffers = vec!["non-described".into()];
        c.releases = vec!["4.2".into()];
        Ok(c)
    }
    fn call(&mut self, req: &Request) -> Result<Reply, TesteeError> {
        let first = match req {
            Request::Encode { items, .. } => items[0]["type"].clone(),
            Request::Decode { types, .. } => types[0].clone(),
            Request::Capabilities { .. } => serde_json::Value::Null,
        };
        if first == "BOOL" {
            return Ok(Reply::Unsupported {
                reason: "no BOOL here".into(),
            });
        }
        Ok(codec_reply(req))
    }
}

#[test]
fn what_a_testee_lacks_is_unsupported_not_failed() {
    let sets = corpus();
    let run = run_suite(&sets, None, &mut Partial, None, false);
    let r = &run.report;
    for c in &r.cases {
        let in_scope = c.id.starts_with("v41.non-described.");
        let is_bool = c.id.starts_with("v41.non-described.BOOL");
        match &c.outcome {
            Outcome::Unsupported { reason } if !in_scope => {
                assert!(
                    reason.contains("lacks") || reason.contains("release profile"),
                    "{reason}"
                )
            }
            Outcome::Unsupported { reason } if is_bool => assert_eq!(reason, "no BOOL here"),
            Outcome::Unsupported { .. } => panic!("{} should run", c.id),
            _ => assert!(in_scope && !is_bool, "{}: {:?}", c.id, c.outcome),
        }
    }
    let in_scope = r
        .cases
        .iter()
        .filter(|c| c.id.starts_with("v41.non-described.") && !c.id.contains(".BOOL"))
        .count();
    assert_eq!(
        r.totals.passed + r.totals.failed + r.totals.errors,
        in_scope
    );
    // The master v41 file is out of scope for a 4.2-only testee.
    assert!(r.cases.iter().any(|c| c.id.starts_with("v41@master.")
        && matches!(&c.outcome, Outcome::Unsupported { reason } if reason.contains("master"))));
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmix-conformance-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn expected_failures_match_on_signature_and_cannot_go_stale() {
    let sets = corpus();
    let filter = "v41.non-described.";
    let set = sets
        .iter()
        .find(|s| s.prefix == "v41.non-described")
        .unwrap();
    let good = baseline(&sets, filter);
    let encodes: BTreeMap<String, usize> = compared_encodes(set)
        .into_iter()
        .filter(|(id, len)| good.contains(id) && *len > 4)
        .collect();
    let (flip_id, len) = encodes.iter().next().unwrap();
    let other_id = encodes.keys().nth(1).unwrap();
    let passing_id = set
        .file
        .tests
        .iter()
        .filter(|v| {
            v.error.as_ref().is_some_and(|e| e.phase == Phase::Decode) && !self_unpack_fails(v)
        })
        .map(|v| vectors::case_id(set, v))
        .find(|id| good.contains(id))
        .unwrap();
    let text = format!(
        "# test list\n{flip_id} encode-bytes@{}  # flipped on purpose\n{other_id} encode-bytes@0\n{passing_id} no-error\n",
        len / 2
    );
    let x = ExpectedFailures::parse(Path::new("t.txt"), &text).unwrap();
    let mut t = testee(&["--break", "flip-byte"], Duration::from_secs(20));
    let run = run_suite(&sets, Some(filter), &mut t, Some(&x), false);
    let by_id = |id: &str| run.report.cases.iter().find(|c| c.id == id).unwrap();
    assert!(matches!(
        &by_id(flip_id).outcome,
        Outcome::ExpectedFailure { reason, .. } if reason == "flipped on purpose"
    ));
    let other = by_id(other_id);
    assert!(matches!(other.outcome, Outcome::Fail { .. }));
    assert!(other
        .diff
        .as_deref()
        .unwrap()
        .contains("listed in t.txt:3 as failing with encode-bytes@0"));
    let stale = by_id(&passing_id);
    assert!(
        matches!(&stale.outcome, Outcome::Fail { actual, .. } if actual.contains("it passes")),
        "{:?}",
        stale.outcome
    );
    assert_eq!(run.report.totals.expected_failures, 1);

    // A full-file run: an entry naming no case of the file fails too.
    let x = ExpectedFailures::parse(
        Path::new("t.txt"),
        "v41.non-described.UINT32.valid.999999 crash\n",
    )
    .unwrap();
    let one = vec![set.clone()];
    let run = run_suite(&one, None, &mut BuiltinTestee::default(), Some(&x), false);
    let ghost = run
        .report
        .cases
        .iter()
        .find(|c| c.id == "v41.non-described.UINT32.valid.999999")
        .expect("a case for the stale entry");
    assert!(matches!(ghost.outcome, Outcome::Fail { .. }));
    assert!(!run.report.ok());
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(CLI).args(args).output().expect("run the CLI");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_cli_fixes_a_list_then_passes_with_it_and_writes_json_and_junit() {
    let list = tmp("flip.txt");
    let _ = std::fs::remove_file(&list);
    let junit = tmp("flip.xml");
    let l = list.to_str().unwrap();
    let filter = "v21.fully-described.";
    // Without a list: failures, exit 1, JUnit with the hex diff.
    let (code, out, _) = cli(&[
        "vectors",
        "--filter",
        filter,
        "--junit",
        junit.to_str().unwrap(),
        "--",
        TESTEE,
        "--break",
        "flip-byte",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("^^ first difference at byte"), "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.starts_with("<?xml")
            && xml.contains("<testsuite name=\"openpmix-4.2.2/v21-fully-described\"")
    );
    assert!(xml.contains("<failure") && xml.contains("first difference at byte"));
    // --fix writes the list (and exits 0) ...
    let (code, _, err) = cli(&[
        "vectors",
        "--filter",
        filter,
        "--expected-failures",
        l,
        "--fix",
        "--",
        TESTEE,
        "--break",
        "flip-byte",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("added"), "{err}");
    let x = ExpectedFailures::load(&list).unwrap();
    let flips = x
        .entries
        .values()
        .filter(|e| e.signature.starts_with("encode-bytes@"))
        .count();
    assert!(
        flips > 100 && flips * 10 > x.len() * 9,
        "{flips} of {}",
        x.len()
    );
    // ... with which the same run passes, reporting expected failures (JSON report).
    let (code, out, _) = cli(&[
        "vectors",
        "--filter",
        filter,
        "--expected-failures",
        l,
        "--json",
        "--",
        TESTEE,
        "--break",
        "flip-byte",
    ]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).expect("JSON report");
    assert_eq!(
        j["totals"]["expected_failures"].as_u64().unwrap() as usize,
        x.len()
    );
    assert_eq!(j["totals"]["failed"], 0);
    // A well-behaved testee now passes the listed cases: the list is stale, the run fails.
    let (code, out, _) = cli(&[
        "vectors",
        "--filter",
        filter,
        "--expected-failures",
        l,
        "--",
        TESTEE,
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("stale expected failure"), "{out}");
}

#[test]
fn the_cli_lists_cases_and_refuses_bad_input() {
    let (code, out, _) = cli(&[
        "vectors",
        "--list",
        "--filter",
        "v61@7_0.non-described.ALLOC_INHERIT.valid.471",
    ]);
    assert_eq!(code, 0);
    assert!(out
        .starts_with("v61@7_0.non-described.ALLOC_INHERIT.valid.471  Packing [ALLOC_INHERIT ×1]"));
    let (code, _, err) = cli(&["vectors", "--filter", "no-such-case"]);
    assert_eq!(code, 2);
    assert!(err.contains("no case id contains"), "{err}");
    let bad = tmp("bad.json");
    std::fs::write(&bad, "{\"schema\": \"other\"}").unwrap();
    let (code, _, err) = cli(&["vectors", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.json"), "{err}");
    let (code, _, err) = cli(&["vectors", "--timeout", "0", "--", TESTEE]);
    assert_eq!(code, 2);
    assert!(err.contains("--timeout"), "{err}");
}

#[test]
fn all_runs_both_suites_and_fails_if_either_fails() {
    let (code, out, _) = cli(&["all"]);
    let vectors_line = out
        .lines()
        .find(|l| l.starts_with("vectors ["))
        .expect("vectors summary");
    let scenarios_line = out
        .lines()
        .find(|l| l.starts_with("scenarios ["))
        .expect("scenarios summary");
    // " 0 failed," (vectors) or " 0 failed (0 reading-free, ..." (scenarios).
    let clean = |l: &str| l.contains(" 0 failed") && l.contains(" 0 errors");
    let both = clean(vectors_line) && clean(scenarios_line);
    assert_eq!(
        code == 0,
        both,
        "exit {code} for:\n{vectors_line}\n{scenarios_line}"
    );
    assert!(out.contains("all: vectors "), "{out}");
    // The acceptance: both suites pass against the built-in implementations.
    assert_eq!(code, 0, "{out}");
}

/// The README's main job, `cargo run --release -p pmix-conformance -- all`, needs cargo to know
/// which of this package's binaries to run.
#[test]
fn cargo_run_picks_the_runner() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    assert!(manifest.contains("default-run = \"pmix-conformance\""));
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    assert!(readme.contains("cargo run --release -p pmix-conformance -- all"));
}

/// Issue 16: a testee whose declared scope has a typo is refused, naming the valid values
/// (derived from the codec's lists, so new release profiles show up by themselves).
#[test]
fn a_testee_declaring_unknown_scope_values_is_refused_naming_the_valid_ones() {
    use pmix_codec::{BufferKind, Component, Release};
    for (flag, value, valid) in [
        (
            "--declare-releases",
            "bogus",
            Release::ALL.iter().map(|r| r.name()).collect::<Vec<_>>(),
        ),
        (
            "--declare-buffers",
            "non_desc",
            BufferKind::ALL.iter().map(|k| k.name()).collect(),
        ),
        (
            "--declare-components",
            "V41",
            Component::ALL.iter().map(|c| c.name()).collect(),
        ),
    ] {
        let (code, out, err) = cli(&[
            "vectors",
            "--filter",
            "v41.non-described",
            "--",
            TESTEE,
            flag,
            value,
        ]);
        assert_eq!(code, 2, "{flag} {value}: stdout {out} stderr {err}");
        assert!(err.contains(&format!("{value:?}")), "{err}");
        assert!(err.contains(&valid.join(" ")), "{err}");
    }
}

/// Issue 16: a run in which nothing passed fails and says nothing was tested; --min-pass
/// and an expected-results file pin the numbers.
#[test]
fn a_run_that_tests_nothing_fails_and_ci_can_pin_its_numbers() {
    // Valid scope, but one the filtered cases never use: every case unsupported.
    let (code, out, err) = cli(&[
        "vectors",
        "--filter",
        "v41.non-described",
        "--",
        TESTEE,
        "--declare-components",
        "v61",
    ]);
    assert_eq!(code, 1, "stdout {out} stderr {err}");
    assert!(err.contains("nothing was tested: 0 of"), "{err}");

    // The same filter against the full testee passes ...
    let (code, out, err) = cli(&["vectors", "--filter", "v41.non-described", "--", TESTEE]);
    assert_eq!(code, 0, "stdout {out} stderr {err}");
    let report: serde_json::Value = {
        let (_, json, _) = cli(&[
            "vectors",
            "--filter",
            "v41.non-described",
            "--json",
            "--",
            TESTEE,
        ]);
        serde_json::from_str(&json).expect("JSON report")
    };
    let passed = report["totals"]["passed"].as_u64().unwrap() as usize;
    assert!(passed > 0);
    // ... unless --min-pass asks for more than passed.
    let more = (passed + 1).to_string();
    let (code, _, err) = cli(&[
        "vectors",
        "--filter",
        "v41.non-described",
        "--min-pass",
        &more,
        "--",
        TESTEE,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--min-pass asks for"), "{err}");
    let exact = passed.to_string();
    let (code, _, err) = cli(&[
        "vectors",
        "--filter",
        "v41.non-described",
        "--min-pass",
        &exact,
    ]);
    assert_eq!(code, 0, "{err}");

    // Expected-results file: the right numbers pass, a wrong one fails naming it.
    let good = tmp("expected-good.json");
    std::fs::write(&good, format!("{{\"passed\": {passed}, \"failed\": 0}}")).unwrap();
    let (code, _, err) = cli(&[
        "vectors",
        "--filter",
        "v41.non-described",
        "--expected-results",
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let bad = tmp("expected-bad.json");
    std::fs::write(&bad, format!("{{\"passed\": {}}}", passed + 3)).unwrap();
    let (code, _, err) = cli(&[
        "vectors",
        "--filter",
        "v41.non-described",
        "--expected-results",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("expected results: passed is"), "{err}");
    let typo = tmp("expected-typo.json");
    std::fs::write(&typo, "{\"pased\": 1}").unwrap();
    let (code, _, err) = cli(&["vectors", "--expected-results", typo.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("valid keys: total passed"), "{err}");
}

/// Issue 16 acceptance: the skeleton testee printed in TESTEE.md (Python) makes the run fail
/// with a message that says nothing was tested.
#[test]
fn the_testee_md_skeleton_makes_the_run_fail_saying_nothing_was_tested() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/TESTEE.md")).unwrap();
    let start = doc
        .find("```python\n")
        .expect("TESTEE.md has a python skeleton")
        + 10;
    let len = doc[start..].find("```").unwrap();
    let script = tmp("skeleton.py");
    std::fs::write(&script, &doc[start..start + len]).unwrap();
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("LOUD SKIP: python3 is missing; the TESTEE.md skeleton cannot be run");
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is required in CI"
        );
        return;
    }
    let (code, out, err) = cli(&[
        "vectors",
        "--filter",
        "v41.non-described",
        "--",
        "python3",
        script.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "stdout {out} stderr {err}");
    assert!(err.contains("nothing was tested"), "{err}");
}
