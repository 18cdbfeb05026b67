//! Running cases and whole suites: order, progress, limits, and the report.

use super::*;

/// Run `cases` against `testee`, in order. Cases whose component, buffer kind or release
/// the testee lacks are `unsupported` without a request. With `progress`, a counter is
/// drawn on stderr when it is a terminal.
pub fn run(cases: &[Case<'_>], testee: &mut dyn Testee, progress: bool) -> Vec<CaseRun> {
    run_in(cases, testee, progress, StatusMode::Exact)
}

/// [`run`], judging invalid vectors' statuses in `mode` (`--status`).
pub fn run_in(
    cases: &[Case<'_>],
    testee: &mut dyn Testee,
    progress: bool,
    mode: StatusMode,
) -> Vec<CaseRun> {
    run_limited(cases, testee, progress, mode, &Limits::default()).0
}

/// [`run_in`], stopping early when `limits` are reached; then also why it stopped.
pub fn run_limited(
    cases: &[Case<'_>],
    testee: &mut dyn Testee,
    progress: bool,
    mode: StatusMode,
    limits: &Limits,
) -> (Vec<CaseRun>, Option<String>) {
    let (mut errors, mut timeouts, mut stopped) = (0usize, 0usize, None);
    let progress = progress && std::io::stderr().is_terminal();
    let mut caps: Result<Capabilities, TesteeError> = testee.capabilities();
    let mut out = Vec::with_capacity(cases.len());
    let t_all = Instant::now();
    for (n, case) in cases.iter().enumerate() {
        if let Some(why) = limits.reached(errors, timeouts) {
            stopped = Some(format!(
                "stopped early: {why}; {n} of {} cases run, {} not run",
                cases.len(),
                cases.len() - n
            ));
            break;
        }
        if progress && n % 500 == 0 {
            eprint!(
                "\r  {n}/{} cases, {:.0} s",
                cases.len(),
                t_all.elapsed().as_secs_f64()
            );
        }
        let t0 = Instant::now();
        if caps.is_err() {
            // Try again (a process testee gives up by itself after a few failed starts).
            caps = testee.capabilities();
        }
        let verdict = match &caps {
            Err(e) => Verdict::from_testee_error("capabilities", e),
            Ok(c) => match c.supports(case.set.component, case.set.kind, case.set.release) {
                Err(reason) => Verdict::unsupported(reason),
                Ok(()) => {
                    testee.begin_case();
                    name_the_quirk(run_vector(case.set, case.vector, testee, mode), case.vector)
                }
            },
        };
        if matches!(verdict.outcome, Outcome::Error { .. }) {
            errors += 1;
            timeouts += usize::from(verdict.signature.as_deref() == Some("timeout"));
        }
        out.push(CaseRun {
            result: CaseResult {
                id: case.id.clone(),
                requirement: case.requirement.clone(),
                group: case.set.label.clone(),
                outcome: verdict.outcome,
                detail: verdict.detail.or(verdict.signature.clone()),
                diff: verdict.diff,
                duration: t0.elapsed(),
            },
            signature: verdict.signature,
            prefix: case.set.prefix.clone(),
            lenient: verdict.lenient,
            explanation: verdict.explanation,
        });
    }
    if progress {
        eprint!("\r{}\r", " ".repeat(40));
    }
    (out, stopped)
}

/// Where a vector's expectation comes from: recorded by the library its file names, or
/// computed (flag `UpstreamBug`: the library crashed or read garbage, so the expectation is
/// pmix-codec's), with the quirk its comment names when a quirk decides it.
pub fn origin(set: &VectorSet, v: &Vector) -> Origin {
    let computed = v.flags.iter().any(|f| f == "UpstreamBug");
    let src = &set.file.source;
    let quirk = pmix_codec::quirks::Quirk::named_in(&v.comment).map(|q| q.id.to_string());
    Origin {
        provenance: if computed { "computed" } else { "recorded" }.into(),
        recorded_from: (!computed).then(|| format!("{} {}", src.implementation, src.version)),
        flags: v.flags.clone(),
        quirk,
    }
}

/// A finished run of the suite.
#[derive(Clone, Debug)]
pub struct SuiteRun {
    /// The report (expected failures applied).
    pub report: Report,
    /// The cases with their signatures (for `--fix`).
    pub runs: Vec<CaseRun>,
    /// Case-id prefixes of the files replayed in full (no filter).
    pub complete: BTreeSet<String>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
    /// Why the run stopped before its last case (`--max-errors`, `--max-timeouts`).
    pub stopped: Option<String>,
}

/// Replay `sets` (the cases whose id contains `filter`) against `testee`, judge the result
/// against `xfail` if given, and build the report (statuses judged exactly).
pub fn run_suite(
    sets: &[VectorSet],
    filter: Option<&str>,
    testee: &mut dyn Testee,
    xfail: Option<&ExpectedFailures>,
    progress: bool,
) -> SuiteRun {
    let options = SuiteOptions {
        filter,
        xfail,
        progress,
        ..SuiteOptions::default()
    };
    run_suite_with(sets, testee, &options)
}

/// How [`run_suite_with`] replays a corpus: which cases, against which expected failures,
/// how statuses are judged and when to stop early. The default replays every case, with no
/// expected-failure list, no progress line, exact statuses and no early stop.
#[derive(Clone, Copy, Debug, Default)]
pub struct SuiteOptions<'a> {
    /// Only the cases whose id contains this.
    pub filter: Option<&'a str>,
    /// The testee's expected-failure list.
    pub xfail: Option<&'a ExpectedFailures>,
    /// Print a progress line to stderr.
    pub progress: bool,
    /// How invalid vectors' statuses are judged (`--status`); the report says which mode it
    /// was and lists the passes only that mode allowed.
    pub mode: StatusMode,
    /// When to stop early (the cases not run are not in the report, and no file counts as
    /// replayed in full).
    pub limits: Limits,
}

/// [`run_suite`] with every option of [`SuiteOptions`].
pub fn run_suite_with(
    sets: &[VectorSet],
    testee: &mut dyn Testee,
    options: &SuiteOptions<'_>,
) -> SuiteRun {
    let SuiteOptions {
        filter,
        xfail,
        progress,
        mode,
        ref limits,
    } = *options;
    let t0 = Instant::now();
    let all = cases(sets, filter);
    let (mut runs, stopped) = run_limited(&all, testee, progress, mode, limits);
    let complete: BTreeSet<String> = if filter.is_some() || stopped.is_some() {
        BTreeSet::new()
    } else {
        sets.iter().map(|s| s.prefix.clone()).collect()
    };
    let extra = match xfail {
        Some(x) => x.apply(&mut runs, &complete),
        None => Vec::new(),
    };
    let mut report = Report::new("vectors", testee.describe());
    report.status_mode = Some(mode);
    for c in all.iter().take(runs.len()) {
        report.origins.insert(c.id.clone(), origin(c.set, c.vector));
    }
    for c in &runs {
        report.push(c.result.clone());
        if let Some(l) = &c.lenient {
            report.lenient_passes.insert(c.result.id.clone(), l.clone());
        }
        if let Some(x) = &c.explanation {
            report.explanations.insert(c.result.id.clone(), x.clone());
        }
    }
    for c in extra {
        report.push(c);
    }
    SuiteRun {
        report,
        runs,
        complete,
        elapsed: t0.elapsed(),
        stopped,
    }
}
