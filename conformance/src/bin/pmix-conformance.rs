//! `pmix-conformance`: run conformance suites and report (console, `--json`, `--junit FILE`).
//!
//! * `vectors` — replay the golden wire vectors against the built-in codec or an external
//!   testee (`TESTEE.md`);
//! * `scenarios` — the spec scenarios against the reference model or an external server
//!   (`SERVER.md`);
//! * `all` — both, against the built-in implementations.

use clap::{Args, Parser, Subcommand};
use pmix_conformance::report::Report;
use pmix_conformance::scenarios;
use pmix_conformance::server::ServerSpec;
use pmix_conformance::status_mode::StatusMode;
use pmix_conformance::testee::{BuiltinTestee, ProcessTestee, Testee};
use pmix_conformance::vectors::{self, VectorSet};
use pmix_conformance::wireinfo::WireFormat;
use pmix_conformance::xfail::ExpectedFailures;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Set once stdout is closed (e.g. `| head`): later output is dropped, the run goes on and
/// its exit status is still the verdict.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Write to stdout; a closed pipe is not an error (no panic, unlike `print!`).
fn say(text: &str) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

macro_rules! outln {
    () => { say("\n") };
    ($($t:tt)*) => { say(&format!("{}\n", format_args!($($t)*))) };
}

macro_rules! out {
    ($($t:tt)*) => { say(&format!($($t)*)) };
}

#[derive(Parser)]
#[command(name = "pmix-conformance", version, about = "PMIx conformance suites")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay golden wire vectors against an implementation (default: the built-in codec;
    /// an external testee's command line goes after `--`).
    Vectors(VectorArgs),
    /// Run the node-reservation / session-targeting spec scenarios against a server.
    Scenarios(ScenarioArgs),
    /// Run `vectors` (built-in codec, whole corpus) and `scenarios` (reference model).
    All(AllArgs),
}

#[derive(Args)]
struct VectorArgs {
    /// Vector files to replay (default: every file under --dir).
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The vector corpus.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors"))]
    dir: PathBuf,
    /// Only cases whose id contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// The testee's expected-failure list: cases listed there with the signature they fail
    /// with do not fail the run; a listed case that passes or fails differently does.
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,
    /// Rewrite the --expected-failures file to match this run.
    #[arg(long, requires = "expected_failures")]
    fix: bool,
    /// Per-case timeout for an external testee, in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// List the cases (id and the sentence each checks) and exit.
    #[arg(long)]
    list: bool,
    /// Fail unless at least N cases passed (a run with 0 passed cases always fails).
    #[arg(long, value_name = "N")]
    min_pass: Option<usize>,
    /// Fail unless the run's totals equal those in FILE, a JSON object with any of the keys
    /// `total`, `passed`, `failed`, `unsupported`, `errors`, `expected_failures` (so CI can
    /// pin its numbers).
    #[arg(long, value_name = "FILE")]
    expected_results: Option<PathBuf>,
    /// At most this many failing cases are listed on the console (--json and --junit have all).
    #[arg(long, default_value_t = 50)]
    max_failures: usize,
    /// Stop the run once N cases ended in an error (crash, timeout, garbage, ...): the
    /// report has the cases run so far, the summary says why it stopped, and the run fails.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_errors: Option<u64>,
    /// Stop the run once N cases timed out (each costs --timeout).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_timeouts: Option<u64>,
    /// The largest reply read from the testee, in bytes (default 4 MiB, about 100 times the
    /// largest answer a vector asks for); a longer one is refused unread and the case is an
    /// error.
    #[arg(long, value_name = "BYTES", default_value_t = pmix_conformance::process::DEFAULT_MAX_REPLY)]
    max_reply_bytes: usize,
    /// How an invalid vector's status is judged: `exact` (that status), `class` (any status
    /// of its class: unreadable, unsupported, resource; see TESTEE.md), `reject` (any
    /// refusal). Always at the expected call; a success never passes.
    #[arg(long = "status", value_name = "MODE", default_value = "exact", value_parser = parse_status_mode)]
    status_mode: StatusMode,
    #[command(flatten)]
    report: ReportArgs,
    /// The testee's command line, after `--` (a program speaking TESTEE.md on stdin/stdout).
    /// Default: the built-in pmix-codec, in process.
    #[arg(last = true, value_name = "TESTEE")]
    testee: Vec<String>,
}

#[derive(Args)]
struct AllArgs {
    /// At most this many failing vector cases are listed on the console.
    #[arg(long, default_value_t = 50)]
    max_failures: usize,
    #[command(flatten)]
    report: ReportArgs,
}

/// Report options shared by every suite.
#[derive(Args)]
struct ReportArgs {
    /// Print the JSON report on stdout instead of the console report.
    #[arg(long)]
    json: bool,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Leave unsupported (out-of-scope) cases out of the --junit file.
    #[arg(long, requires = "junit")]
    junit_omit_unsupported: bool,
    /// Leave unsupported (out-of-scope) cases and their origins out of the --json report
    /// (their number stays in its totals, and `omitted_unsupported` says how many).
    #[arg(long, requires = "json")]
    json_omit_unsupported: bool,
    /// List passing cases too.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Args)]
struct ScenarioArgs {
    /// Directory of scenario TOML files.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))]
    dir: PathBuf,
    /// Run against an external server: the command line (after `--`) of a program speaking
    /// the SERVER.md protocol. Default: the embedded reference model.
    #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "CMD")]
    server: Option<Vec<String>>,
    /// Per-request timeout for an external server, in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// The largest reply read from the server, in bytes (default 4 MiB); a longer one is
    /// refused unread.
    #[arg(long, value_name = "BYTES", default_value_t = pmix_conformance::process::DEFAULT_MAX_REPLY)]
    max_reply_bytes: usize,
    /// Wire component for info arrays.
    #[arg(long, default_value = "v61")]
    component: String,
    /// Buffer kind for info arrays.
    #[arg(long, default_value = "non-described")]
    kind: String,
    /// Only scenarios whose id contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Run against a reference-model mutant instead (by name).
    #[arg(long, conflicts_with = "server")]
    mutant: Option<String>,
    /// Also check that every mutant of the reference model is killed by some scenario.
    #[arg(long)]
    mutants: bool,
    /// List the scenarios and exit.
    #[arg(long)]
    list: bool,
    /// Fail unless at least this many scenarios pass.
    #[arg(long, value_name = "N")]
    min_pass: Option<usize>,
    /// Judge the run against an expected-results file (known deviations, stale-checked).
    #[arg(long, value_name = "FILE")]
    expected: Option<PathBuf>,
    /// With --expected: write the server's Markdown report (generated from the expected-results
    /// file and the scenario files, see conformance/reports/) to FILE and exit without running.
    #[arg(long, value_name = "FILE", requires = "expected")]
    write_report: Option<PathBuf>,
    #[command(flatten)]
    report: ReportArgs,
}

fn emit(report: &Report, args: &ReportArgs, max_failures: usize) -> Result<(), String> {
    if args.json {
        outln!("{}", report.json_with(args.json_omit_unsupported));
    } else {
        out!("{}", report.console_limited(args.verbose, max_failures));
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, report.junit_with(args.junit_omit_unsupported))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn scenarios_cmd(a: ScenarioArgs) -> Result<bool, String> {
    let format = WireFormat::parse(&a.component, &a.kind)?;
    pmix_conformance::process::set_max_reply(a.max_reply_bytes);
    let mut all = scenarios::load_dir(&a.dir).map_err(|e| e.to_string())?;
    if let Some(f) = &a.filter {
        all.retain(|s| s.id.contains(f.as_str()));
        if all.is_empty() {
            return Err(format!(
                "no scenario id contains {f:?} (`pmix-conformance scenarios --list` prints them all)"
            ));
        }
    }
    if a.list {
        for s in &all {
            outln!("{:<40} {:<45} {}", s.id, s.section(), s.clauses.join(","));
        }
        return Ok(true);
    }
    let spec = match (&a.server, &a.mutant) {
        (Some(argv), _) => {
            if !(a.timeout.is_finite() && a.timeout > 0.0) {
                return Err("--timeout must be a positive number of seconds".into());
            }
            ServerSpec::External {
                argv: argv.clone(),
                timeout: Duration::from_secs_f64(a.timeout),
            }
        }
        (None, Some(m)) => ServerSpec::Model(Some(m.parse()?)),
        (None, None) => ServerSpec::Model(None),
    };
    let expected = a
        .expected
        .as_deref()
        .map(scenarios::ExpectedResults::load)
        .transpose()?;
    if let (Some(out), Some(e)) = (&a.write_report, &expected) {
        let text = scenarios::server_report::render(e, &all);
        std::fs::write(out, text).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        eprintln!("wrote {}", out.display());
        return Ok(true);
    }
    let mut report = scenarios::run_all(&all, &spec, format);
    // Judged by results: something must have run, and failures must be known deviations.
    let why = scenarios::verdict(&report, a.min_pass, expected.as_ref());
    let mut ok = why.is_empty();
    if a.mutants {
        let (results, mreport) = scenarios::run_mutants(&all, format);
        if !a.report.json {
            outln!("mutants:");
            for r in &results {
                if r.killed_by.is_empty() {
                    outln!(
                        "  SURVIVED {:<34} ({})",
                        r.mutant.name(),
                        r.mutant.description()
                    );
                } else {
                    outln!(
                        "  killed   {:<34} by {}",
                        r.mutant.name(),
                        r.killed_by.join(", ")
                    );
                }
            }
        }
        ok &= mreport.ok();
        report.extend(mreport);
    }
    emit(&report, &a.report, usize::MAX)?;
    if !a.report.json {
        for l in scenarios::reading_lines(&all, &report) {
            outln!("{l}");
        }
    }
    for w in &why {
        eprintln!("scenarios: {w}");
    }
    Ok(ok)
}

fn parse_status_mode(s: &str) -> Result<StatusMode, String> {
    s.parse()
}

fn load_sets(
    files: &[PathBuf],
    dir: &std::path::Path,
    filter: Option<&str>,
) -> Result<Vec<VectorSet>, String> {
    if files.is_empty() {
        vectors::load_dir_keeping(dir, filter)
    } else {
        vectors::load_files_keeping(files, filter)
    }
}

fn vectors_cmd(a: VectorArgs) -> Result<bool, String> {
    let sets = load_sets(&a.files, &a.dir, a.filter.as_deref())?;
    let filter = a.filter.as_deref();
    if a.list {
        let cases = vectors::cases(&sets, filter);
        for c in &cases {
            outln!("{}  {}", c.id, c.requirement);
        }
        eprintln!("{} cases", cases.len());
        return Ok(true);
    }
    if vectors::cases(&sets, filter).is_empty() {
        return Err(format!(
            "no case id contains {:?} (ids look like v61.non-described.ALLOC_INHERIT.valid.3; \
             `pmix-conformance vectors --list` prints them all)",
            filter.unwrap_or_default()
        ));
    }
    let xfail = a
        .expected_failures
        .as_deref()
        .map(ExpectedFailures::load)
        .transpose()?;
    let expected_totals = a
        .expected_results
        .as_deref()
        .map(load_expected_totals)
        .transpose()?;
    let mut testee: Box<dyn Testee> = if a.testee.is_empty() {
        Box::new(BuiltinTestee::default())
    } else {
        if !(a.timeout.is_finite() && a.timeout > 0.0) {
            return Err("--timeout must be a positive number of seconds".into());
        }
        pmix_conformance::process::set_max_reply(a.max_reply_bytes);
        Box::new(ProcessTestee::new(
            a.testee.clone(),
            Duration::from_secs_f64(a.timeout),
        ))
    };
    // A testee that cannot start, or declares a scope with a typo, would make every case an
    // error or unsupported: one clear error instead, up front.
    let caps = testee.capabilities().map_err(|e| e.to_string())?;
    caps.validate()?;
    let limits = vectors::Limits {
        max_errors: a.max_errors.map(|n| n as usize),
        max_timeouts: a.max_timeouts.map(|n| n as usize),
    };
    let options = vectors::SuiteOptions {
        filter,
        xfail: xfail.as_ref(),
        progress: !a.report.json,
        mode: a.status_mode,
        limits,
    };
    let run = vectors::run_suite_with(&sets, testee.as_mut(), &options);
    drop(testee);
    emit(&run.report, &a.report, a.max_failures)?;
    if let Some(why) = &run.stopped {
        eprintln!("pmix-conformance: {why}");
    }
    if !a.report.json {
        outln!(
            "{} cases from {} vector files in {:.2} s",
            run.runs.len(),
            sets.len(),
            run.elapsed.as_secs_f64()
        );
    }
    if a.fix {
        if let Some(x) = &xfail {
            let (text, stats) = x.fixed(&run.runs, &run.complete);
            std::fs::write(&x.path, text)
                .map_err(|e| format!("cannot write {}: {e}", x.path.display()))?;
            eprintln!(
                "wrote {}: {} entries ({} added, {} removed, {} changed)",
                x.path.display(),
                stats.total,
                stats.added,
                stats.removed,
                stats.changed
            );
            return Ok(true);
        }
    }
    let verdicts = trust_checks(&run.report, a.min_pass, expected_totals.as_ref());
    for v in &verdicts {
        eprintln!("pmix-conformance: {v}");
    }
    Ok(run.report.ok() && verdicts.is_empty() && run.stopped.is_none())
}

/// Load an expected-results file: a JSON object mapping total names to numbers.
fn load_expected_totals(path: &std::path::Path) -> Result<BTreeMap<String, usize>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let map: BTreeMap<String, usize> = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not a JSON object of counts ({e}); valid keys: {}",
            path.display(),
            TOTAL_NAMES.join(" ")
        )
    })?;
    for k in map.keys() {
        if !TOTAL_NAMES.contains(&k.as_str()) {
            return Err(format!(
                "{}: unknown key {k:?} (valid keys: {})",
                path.display(),
                TOTAL_NAMES.join(" ")
            ));
        }
    }
    Ok(map)
}

/// The keys of an expected-results file.
const TOTAL_NAMES: [&str; 6] = [
    "total",
    "passed",
    "failed",
    "unsupported",
    "errors",
    "expected_failures",
];

/// Why a run whose cases did not fail must still not pass: nothing tested, fewer passes
/// than `--min-pass`, totals other than the expected-results file pins. Empty when fine.
fn trust_checks(
    report: &Report,
    min_pass: Option<usize>,
    expected: Option<&BTreeMap<String, usize>>,
) -> Vec<String> {
    let t = report.totals;
    let mut out = Vec::new();
    if t.passed == 0 {
        // The likely cause: a scope that matches no vector file, or a testee that answers
        // `unsupported` to everything.
        let hint = if t.unsupported == t.total {
            "; check the testee's declared components, buffers and releases, and what it answers"
        } else {
            ""
        };
        out.push(format!(
            "nothing was tested: 0 of {} cases passed ({} unsupported, {} failed, {} errors){hint}",
            t.total, t.unsupported, t.failed, t.errors
        ));
    }
    if let Some(n) = min_pass {
        if t.passed < n {
            out.push(format!(
                "only {} cases passed, --min-pass asks for {n}",
                t.passed
            ));
        }
    }
    if let Some(map) = expected {
        let actual = [
            t.total,
            t.passed,
            t.failed,
            t.unsupported,
            t.errors,
            t.expected_failures,
        ];
        for (name, got) in TOTAL_NAMES.iter().zip(actual) {
            if let Some(&want) = map.get(*name) {
                if want != got {
                    out.push(format!(
                        "expected results: {name} is {got}, the expected-results file says {want}"
                    ));
                }
            }
        }
    }
    out
}

fn all_cmd(a: AllArgs) -> Result<bool, String> {
    let sets = vectors::load_dir(&vectors::default_dir())?;
    let vrun = vectors::run_suite(
        &sets,
        None,
        &mut BuiltinTestee::default(),
        None,
        !a.report.json,
    );
    let scen =
        scenarios::load_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
            .map_err(|e| e.to_string())?;
    let srep = scenarios::run_all(&scen, &ServerSpec::Model(None), WireFormat::default());
    let vrep = &vrun.report;
    if a.report.json {
        let j = serde_json::json!({
            "ok": vrep.ok() && srep.ok(),
            "vectors": vrep,
            "scenarios": srep,
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&j).map_err(|e| e.to_string())?
        );
    } else {
        outln!("== vectors");
        out!("{}", vrep.console_limited(a.report.verbose, a.max_failures));
        outln!("== scenarios");
        out!("{}", srep.console(a.report.verbose));
        outln!("== summary");
        outln!("{}", vrep.summary_line());
        outln!("{}", srep.summary_line());
        let verdict = |ok: bool| if ok { "ok" } else { "FAILED" };
        outln!(
            "all: vectors {}, scenarios {}",
            verdict(vrep.ok()),
            verdict(srep.ok())
        );
    }
    if let Some(path) = &a.report.junit {
        let mut both = Report::new("all", "built-in codec and reference model");
        both.extend(vrep.clone());
        both.extend(srep.clone());
        std::fs::write(path, both.junit_with(a.report.junit_omit_unsupported))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(vrep.ok() && srep.ok())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Vectors(a) => vectors_cmd(a),
        Command::Scenarios(a) => scenarios_cmd(a),
        Command::All(a) => all_cmd(a),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("pmix-conformance: {e}");
            ExitCode::from(2)
        }
    }
}
