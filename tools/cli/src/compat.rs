//! `pmix-wire compat CLIENT SERVER`: will this client release work with this server? From the
//! byte matrix (`vectors/live/MATRIX.json`), the codec's profiles and quirks, and what real
//! processes did (`vectors/live/observations.json`, explained in `live/explanations.json`):
//! the same data and verdicts as `vectors/LIVE.md`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use crate::{Failure, KindArg, EXIT_OK, EXIT_PMIX};
use pmix_codec::{BufferKind, Release};
use pmix_live::compare::{first_sentence, CellJudgement, Outcome, PairVerdict, Row};
use pmix_live::observations::ClientKind;
use pmix_live::predict::{negotiate, Prediction, Predictor, Verdict};
use pmix_live::report::{cell_text, server_release, Live, SERVERS};
use pmix_live::LiveCell;

/// Help text after the options.
pub const COMPAT_HELP: &str = "\
CLIENT is a client library release (4.2.2 5.0.7 6.0.0 6.1.0 7.0.0rc1) or pmix-peer; another
release of a known line is judged by that line's release (4.2.3 by 4.2.2, and it says so).
SERVER is a server of the live matrix (plain-5.0.7, prrte-5.0.0rc1, slurm-24.11.5,
slurm-22.05.8, pmix-server, ...) or a libpmix release (then every server linking it).

The first line is the verdict for the default setup (a launched client, the negotiated
component, buffer, gds and psec). Then one line per setup that fails (a forced component,
another buffer, gds or psec, a tool), with its cause in one sentence and the remedy where
one is known; crashes (a process killed by a signal) and cells the harness could not run
are said as such. Host limitations (operations the host does not implement) and failures
that happen the same way with one release on both sides are not counted. --explain adds
the evidence (each cell's status, the explanation and its sources, the prediction's MATRIX.md
cells and quirks); --json keeps everything. The verdict is the observed one when the pair
was run (as vectors/LIVE.md shows it), else the prediction. --buffer, --gds, --psec and
--tool narrow the observed cells to that configuration.

Exit codes: 0 works (or differs: works by default, fails in another setup), 1 fails, crash
or not run, 2 usage, 3 the vectors directory cannot be read.

Examples:
  pmix-wire compat 5.0.7 4.2.2
  pmix-wire compat 4.2.2 slurm-24.11.5 --explain
  pmix-wire compat 7.0.0rc1 4.2.2 --json
  pmix-wire compat 5.0.7 plain-6.1.0 --buffer fully-described --gds hash --psec native";

/// The gds modules the releases have (what `--gds` takes).
pub const GDS_MODULES: [&str; 5] = ["hash", "ds12", "ds21", "shmem2", "shmem3"];
/// The psec modules the releases have (what `--psec` takes).
pub const PSEC_MODULES: [&str; 3] = ["native", "munge", "none"];

/// `pmix-wire compat` arguments.
#[derive(Args, Debug)]
pub struct CompatArgs {
    /// The client's library release, or pmix-peer
    client: String,
    /// The server (plain-RELEASE, prrte-5.0.0rc1, slurm-VERSION, pmix-server) or a
    /// libpmix release
    server: String,
    /// Only observed cells of this buffer kind (and predict with it)
    #[arg(long, value_enum)]
    buffer: Option<KindArg>,
    /// Only observed cells with this gds module (hash, ds12, ds21, ...)
    #[arg(long, value_name = "M")]
    gds: Option<String>,
    /// Only observed cells with this psec module (native, munge, none)
    #[arg(long, value_name = "S")]
    psec: Option<String>,
    /// The client side is a tool (PMIx_tool_init) rather than a launched client
    #[arg(long)]
    tool: bool,
    /// The vectors directory (default: the workspace's vectors/)
    #[arg(long, value_name = "DIR")]
    vectors: Option<PathBuf>,
    /// Print JSON (everything: the setups, every failing operation with its evidence,
    /// every prediction)
    #[arg(long)]
    json: bool,
    /// Print the evidence under each setup
    #[arg(long)]
    explain: bool,
}

/// One failing (or predicted failing) operation with its evidence.
struct Failing {
    op: String,
    observed: Vec<String>,
    predicted: Option<String>,
    explanations: Vec<String>,
}

/// The servers SERVER names: itself when it is a server, else every server linking it.
fn servers_for(live: &Live, server: &str) -> Vec<String> {
    let all = live.servers();
    if all.iter().any(|s| s == server) {
        return vec![server.to_string()];
    }
    all.into_iter()
        .filter(|s| server_release(s, live.observations.as_ref()).as_deref() == Some(server))
        .collect()
}

/// The known name a release name stands for: itself, or the known release of its line
/// (`4.2.3` -> `4.2.2`), with the sentence that says so.
fn by_line(name: &str, known: &[String]) -> Option<(String, Option<String>)> {
    if known.iter().any(|k| k == name) {
        return Some((name.to_string(), None));
    }
    let line = |s: &str| -> Option<String> {
        let mut it = s.split('.');
        let (a, b) = (it.next()?, it.next()?);
        (a.chars().all(|c| c.is_ascii_digit()) && !a.is_empty())
            .then(|| format!("{a}.{}", b.trim_end_matches(|c: char| !c.is_ascii_digit())))
    };
    let l = line(name)?;
    let k = known
        .iter()
        .find(|k| line(k).as_deref() == Some(l.as_str()))?;
    Some((
        k.clone(),
        Some(format!(
            "{name} is not in the matrix: judged as the {l} line by {k}"
        )),
    ))
}

/// One setup that fails: its name, the servers, the worst outcome, what failed, the causes
/// (one sentence each) and the remedies.
struct Setup {
    name: String,
    servers: Vec<String>,
    outcome: Outcome,
    failing: Vec<String>,
    /// (what failed, its cause in one sentence)
    causes: Vec<(String, String)>,
    /// (what failed, the remedy)
    remedies: Vec<(String, String)>,
    evidence: Vec<String>,
}

impl Setup {
    /// The causes (or remedies) of the failures in `own`, each once.
    fn of(list: &[(String, String)], own: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (what, x) in list {
            if (own.contains(what) || what == "not run") && !out.contains(x) {
                out.push(x.clone());
            }
        }
        out
    }
}

/// A setup in words: `default`, `gds shmem2`, `component v20 forced`, `buffer
/// client-fully`, `psec munge`, `as a tool`, `pmix-peer v41`.
fn setup_name(c: &LiveCell) -> String {
    if c.is_default() {
        return "default".into();
    }
    match c.variant.as_str() {
        "tool" => "as a tool".into(),
        "force" => format!("component {} forced", c.setting),
        "buffer" => format!("buffer {}", c.setting),
        "gds" => format!("gds {}", c.setting),
        "psec" => format!("psec {}", c.setting),
        "peer" => format!("pmix-peer {}", c.setting),
        _ => c.key(),
    }
}

/// Shorten a list of operation names: the put/commit/fence/get rounds of many type
/// classes as one entry.
fn short_ops(ops: &[String]) -> String {
    let puts: Vec<&String> = ops
        .iter()
        .filter(|o| o.starts_with("put-commit-fence-get:"))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for o in ops {
        if o.starts_with("put-commit-fence-get:") && puts.len() >= 3 {
            if o == puts[0] {
                out.push(format!(
                    "put-commit-fence-get ({} type classes)",
                    puts.len()
                ));
            }
        } else {
            out.push(o.clone());
        }
    }
    out.join(", ")
}

/// The failing setups of the pair's cells, in the order first seen (the default first).
fn setups(judged: &[(&LiveCell, CellJudgement)], rows: &[Row<'_>], explain: bool) -> Vec<Setup> {
    let mut out: Vec<Setup> = Vec::new();
    let mut order: Vec<(&LiveCell, &CellJudgement)> = judged.iter().map(|(c, j)| (*c, j)).collect();
    order.sort_by_key(|(c, _)| !c.is_default());
    for (c, j) in order {
        if !matches!(j.outcome, Outcome::Fails | Outcome::Crash | Outcome::NotRun) {
            continue;
        }
        let name = setup_name(c);
        let at = match out.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                out.push(Setup {
                    name,
                    servers: vec![],
                    outcome: j.outcome,
                    failing: vec![],
                    causes: vec![],
                    remedies: vec![],
                    evidence: vec![],
                });
                out.len() - 1
            }
        };
        let s = &mut out[at];
        // a setup that ran somewhere is judged by where it ran
        if s.outcome == Outcome::NotRun || (j.outcome != Outcome::NotRun && j.outcome > s.outcome) {
            s.outcome = j.outcome;
        }
        if !s.servers.contains(&c.server) {
            s.servers.push(c.server.clone());
        }
        let add = |v: &mut Vec<String>, x: String| {
            if !v.contains(&x) {
                v.push(x);
            }
        };
        let add2 = |v: &mut Vec<(String, String)>, what: String, x: String| {
            if !v.iter().any(|(w, y)| *w == what && *y == x) {
                v.push((what, x));
            }
        };
        if let Some(why) = &j.not_run {
            add2(
                &mut s.causes,
                "not run".into(),
                format!("not run on {}: {why}", c.server),
            );
            continue;
        }
        for f in &j.failing {
            add(&mut s.failing, f.clone());
        }
        for r in rows
            .iter()
            .filter(|r| std::ptr::eq(r.cell, c) && j.failing.contains(&r.observed.op.as_str()))
        {
            let op = r.observed.op.as_str();
            match r.explanation {
                Some(e) => {
                    add2(&mut s.causes, op.clone(), e.cause());
                    if let Some(m) = &e.remedy {
                        add2(&mut s.remedies, op.clone(), m.clone());
                    }
                }
                None if r.prediction.verdict == Verdict::Fails => {
                    let ev = r.prediction.evidence.first().map_or("", String::as_str);
                    let cause = format!("The bytes: {}.", clip(&first_sentence(ev), 160));
                    add2(&mut s.causes, op.clone(), cause);
                }
                None => {}
            }
            if explain {
                add(
                    &mut s.evidence,
                    format!(
                        "{}: {} {} {}{}",
                        c.key(),
                        r.observed.op,
                        r.observed.status,
                        r.observed.status_name,
                        if r.observed.observed.is_empty() {
                            String::new()
                        } else {
                            format!(" ({})", r.observed.observed)
                        }
                    ),
                );
                if let Some(e) = r.explanation {
                    add(
                        &mut s.evidence,
                        format!("{}: {} Evidence: {}", e.kind.as_str(), e.why, e.evidence),
                    );
                }
                add(
                    &mut s.evidence,
                    format!(
                        "predicted {}: {}",
                        r.prediction.verdict,
                        r.prediction.evidence.join("; ")
                    ),
                );
            }
        }
        if explain {
            if let Some(crash) = c.crash_text() {
                add(&mut s.evidence, format!("{}: crash: {crash}", c.key()));
            }
            if let Some(stop) = c.stopped() {
                add(&mut s.evidence, format!("{}: {stop}", c.key()));
            }
        }
    }
    out
}

/// `s` cut to at most `n` characters (with `…` when cut).
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.trim_end_matches('.').to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// Run `pmix-wire compat`.
pub fn run(a: CompatArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    let dir = a
        .vectors
        .clone()
        .unwrap_or_else(|| pmix_oracle::oracle::workspace_root().join("vectors"));
    let live = Live::load(&dir).map_err(Failure::Io)?;
    let mut notes: Vec<String> = Vec::new();
    let clients = live.clients();
    let client = match by_line(&a.client, &clients) {
        Some((c, note)) => {
            notes.extend(note);
            c
        }
        None => {
            return Err(Failure::Usage(format!(
                "unknown client `{}` (known: {})",
                a.client,
                clients.join(" ")
            )))
        }
    };
    let all_servers = live.servers();
    let releases: Vec<String> = pmix_oracle::oracle::LIBRARIES
        .iter()
        .map(|s| s.to_string())
        .collect();
    let server_name = if all_servers.contains(&a.server) {
        a.server.clone()
    } else {
        match by_line(&a.server, &releases) {
            Some((r, note)) => {
                notes.extend(note);
                r
            }
            None => {
                return Err(Failure::Usage(format!(
                    "unknown server `{}` (a server: {}; or a release: {})",
                    a.server,
                    SERVERS.map(|(s, _)| s).join(" "),
                    releases.join(" ")
                )))
            }
        }
    };
    for (flag, value, known) in [
        ("--gds", &a.gds, &GDS_MODULES[..]),
        ("--psec", &a.psec, &PSEC_MODULES[..]),
    ] {
        if let Some(v) = value {
            if !known.contains(&v.as_str()) {
                return Err(Failure::Usage(format!(
                    "{flag}: unknown module `{v}` (known: {})",
                    known.join(" ")
                )));
            }
        }
    }
    let servers = servers_for(&live, &server_name);
    let release = if servers.contains(&server_name) {
        server_release(&server_name, live.observations.as_ref()).unwrap_or_else(|| "native".into())
    } else {
        server_name.clone()
    };
    let kind: BufferKind = a.buffer.map_or(BufferKind::NonDescribed, Into::into);
    let predictor = Predictor::new(&live.matrix);
    let predictions = predictor.predict(&client, &release, a.tool, None, kind);
    let component = match (Release::judged_by(&client), Release::judged_by(&release)) {
        (Some(c), Some(s)) => match negotiate(c, s, a.tool) {
            Ok(c) => c.name().to_string(),
            Err(why) => format!("none ({why})"),
        },
        _ => "any (pmix-codec speaks each release's profile)".into(),
    };
    let rows = live.rows();
    let filtered = a.buffer.is_some() || a.gds.is_some() || a.psec.is_some() || a.tool;
    let keep_cell = |c: &LiveCell| {
        a.buffer
            .is_none_or(|b| c.buffer == BufferKind::from(b).name())
            && a.gds.as_ref().is_none_or(|g| &c.gds == g)
            && a.psec.as_ref().is_none_or(|p| &c.psec == p)
            && (!a.tool || c.client_kind == ClientKind::Tool)
    };
    let keep = |r: &Row<'_>| keep_cell(r.cell);
    let pairs: Vec<PairVerdict> = servers
        .iter()
        .map(|s| live.pair(&rows, &client, s, &keep_cell))
        .collect();
    let judged: Vec<(&LiveCell, CellJudgement)> = live
        .observations
        .iter()
        .flat_map(|o| &o.cells)
        .filter(|c| {
            c.client_release == client
                && servers.contains(&c.server)
                && c.plant.is_none()
                && keep_cell(c)
        })
        .map(|c| (c, live.judge(&rows, c)))
        .collect();
    let observed: Vec<Outcome> = pairs.iter().filter_map(|p| p.observed).collect();
    let predicted = Outcome::from_verdict(
        pairs
            .iter()
            .map(|p| p.predicted)
            .max()
            .unwrap_or(Verdict::Works),
    );
    let (verdict, source) = if observed.is_empty() {
        (predicted, "predicted")
    } else {
        // a pair that ran says more than one that could not be run
        let ran = observed.iter().filter(|o| **o != Outcome::NotRun).max();
        (*ran.unwrap_or(&Outcome::NotRun), "observed")
    };
    let setups = setups(&judged, &rows, a.explain);
    // None: the client side has no default-setup cell (a tool row, or --tool)
    let default_verdict = if source == "predicted" {
        Some(predicted)
    } else if judged
        .iter()
        .any(|(c, j)| c.is_default() && j.outcome != Outcome::NotRun)
    {
        Some(
            setups
                .iter()
                .find(|s| s.name == "default" && s.outcome != Outcome::NotRun)
                .map_or(Outcome::Works, |s| s.outcome),
        )
    } else if judged.iter().any(|(c, _)| c.is_default()) {
        Some(Outcome::NotRun)
    } else {
        None
    };
    let failing = failing_ops(&client, &servers, &rows, &keep, &predictions, &pairs);
    if a.json {
        let j = json!({
            "client": a.client,
            "client_judged_as": client,
            "server": a.server,
            "notes": notes,
            "servers": servers,
            "server_release": release,
            "component": component,
            "verdict": verdict.as_str(),
            "default_verdict": default_verdict.map(Outcome::as_str),
            "source": source,
            "filtered": filtered,
            "setups": setups.iter().map(|s| json!({
                "setup": s.name,
                "servers": s.servers,
                "outcome": s.outcome.as_str(),
                "failing": s.failing,
                "causes": Setup::of(&s.causes, &s.failing),
                "remedies": Setup::of(&s.remedies, &s.failing),
            })).collect::<Vec<_>>(),
            "live_cells": pairs.iter().map(|p| json!({
                "server": p.server,
                "text": cell_text(p),
                "observed": p.observed.map(Outcome::as_str),
                "failing": p.observed_failing,
                "not_interop": p.not_interop,
                "host_limited": p.host_limited,
                "not_run": p.not_run,
            })).collect::<Vec<_>>(),
            "failing": failing.iter().map(|f| json!({
                "op": f.op,
                "observed": f.observed,
                "predicted": f.predicted,
                "explanations": f.explanations,
            })).collect::<Vec<_>>(),
            "predictions": predictions.iter().map(|p| json!({
                "op": p.op.as_str(),
                "verdict": p.verdict.as_str(),
                "evidence": p.evidence,
            })).collect::<Vec<_>>(),
        });
        crate::write_pretty_json(out, &j)?;
    } else {
        let t = Text {
            client: &client,
            release: &release,
            component: &component,
            default_verdict,
            verdict,
            source,
            notes: &notes,
        };
        write_text(out, &a, &t, &pairs, &setups, &failing)?;
    }
    Ok(match verdict {
        Outcome::Works | Outcome::Differs => EXIT_OK,
        Outcome::Fails | Outcome::Crash | Outcome::NotRun => EXIT_PMIX,
    })
}

/// Every operation observed or predicted to fail, with its evidence. When the pair was
/// observed, a predicted failure that did not happen is still named, with the explanation.
fn failing_ops(
    client: &str,
    servers: &[String],
    rows: &[Row<'_>],
    keep: &dyn Fn(&Row<'_>) -> bool,
    predictions: &[Prediction],
    pairs: &[PairVerdict],
) -> Vec<Failing> {
    let observed = pairs.iter().any(|p| p.observed.is_some());
    let not_interop = |op: &str| {
        pairs
            .iter()
            .any(|p| p.not_interop.iter().chain(&p.host_limited).any(|n| n == op))
    };
    let mut out: Vec<Failing> = Vec::new();
    let mine: Vec<&Row<'_>> = rows
        .iter()
        .filter(|r| {
            r.cell.client_release == client
                && servers.contains(&r.cell.server)
                && r.cell.plant.is_none()
                && keep(r)
        })
        .collect();
    for r in &mine {
        let op = r.observed.op.as_str();
        // exactly the failures LIVE.md names for the pair
        let labelled = format!("{op} ({})", r.cell.setup());
        let fails = r.pair_failure()
            && pairs.iter().any(|p| {
                p.server == r.cell.server
                    && p.observed_failing
                        .iter()
                        .any(|l| *l == op || *l == labelled)
            });
        let predicted_fail = r.prediction.verdict == Verdict::Fails && !not_interop(&op);
        if !fails && !predicted_fail {
            continue;
        }
        let idx = match out.iter().position(|f| f.op == op) {
            Some(i) => i,
            None => {
                out.push(Failing {
                    op: op.clone(),
                    observed: vec![],
                    predicted: None,
                    explanations: vec![],
                });
                out.len() - 1
            }
        };
        let f = &mut out[idx];
        f.observed.push(format!(
            "LIVE.md cell \"{}\": {} {}{}",
            r.cell.key(),
            r.observed.status,
            r.observed.status_name,
            if r.observed.observed.is_empty() {
                String::new()
            } else {
                format!(": {}", r.observed.observed)
            }
        ));
        if f.predicted.is_none() {
            f.predicted = Some(format!(
                "{}: {}",
                r.prediction.verdict,
                r.prediction.evidence.join("; ")
            ));
        }
        if let Some(e) = r.explanation {
            let t = format!("{}: {} (evidence: {})", e.kind.as_str(), e.why, e.evidence);
            if !f.explanations.contains(&t) {
                f.explanations.push(t);
            }
        }
    }
    if !observed {
        let predicted_failing = |op: &str| {
            pairs
                .iter()
                .any(|p| p.predicted_failing.iter().any(|n| n == op))
        };
        for p in predictions
            .iter()
            .filter(|p| p.verdict == Verdict::Fails && predicted_failing(&p.op.as_str()))
        {
            out.push(Failing {
                op: p.op.as_str(),
                observed: vec![],
                predicted: Some(format!("fails: {}", p.evidence.join("; "))),
                explanations: vec![],
            });
        }
    }
    out
}

/// What the text output says at its head.
struct Text<'a> {
    client: &'a str,
    release: &'a str,
    component: &'a str,
    default_verdict: Option<Outcome>,
    verdict: Outcome,
    source: &'a str,
    notes: &'a [String],
}

fn write_text(
    out: &mut dyn Write,
    a: &CompatArgs,
    t: &Text<'_>,
    pairs: &[PairVerdict],
    setups: &[Setup],
    failing: &[Failing],
) -> std::io::Result<()> {
    let servers: Vec<&str> = pairs.iter().map(|p| p.server.as_str()).collect();
    let who = format!(
        "{} {} against {} (libpmix {}, component {})",
        t.client,
        if a.tool { "tool" } else { "client" },
        servers.join(", "),
        t.release,
        t.component
    );
    let others = setups.iter().filter(|s| s.name != "default").count();
    let head = match t.default_verdict {
        Some(d) => format!("{d} by default"),
        None => format!("{} (no default-setup cell: a tool)", t.verdict),
    };
    writeln!(
        out,
        "{head} ({}): {who}{}",
        t.source,
        match others {
            0 => format!("; verdict: {}", t.verdict),
            1 => format!("; 1 other setup fails (verdict: {})", t.verdict),
            n => format!("; {n} other setups fail (verdict: {})", t.verdict),
        }
    )?;
    for n in t.notes {
        writeln!(out, "  note: {n}")?;
    }
    if t.source == "predicted" {
        // nothing observed: the prediction's failing operations with their evidence
        for f in failing {
            writeln!(
                out,
                "  {}: {}",
                f.op,
                f.predicted
                    .as_deref()
                    .map(first_sentence)
                    .unwrap_or_default()
            )?;
        }
    }
    // a setup that fails only as the default one does is named once, on one line
    let default_failing: Vec<String> = setups
        .iter()
        .filter(|s| s.name == "default")
        .flat_map(|s| s.failing.clone())
        .collect();
    let mut same_as_default: Vec<&str> = Vec::new();
    for s in setups {
        let own: Vec<String> = if s.name == "default" {
            s.failing.clone()
        } else {
            s.failing
                .iter()
                .filter(|f| !default_failing.contains(f))
                .cloned()
                .collect()
        };
        if own.is_empty() && s.outcome != Outcome::NotRun && !a.explain {
            same_as_default.push(&s.name);
            continue;
        }
        let what = match s.outcome {
            Outcome::Crash => short_ops(&own),
            Outcome::NotRun => "not run".to_string(),
            _ => format!("fails: {}", short_ops(&own)),
        };
        let mut line = format!("  {} [{}] {what}", s.name, s.servers.join(", "));
        let (causes, remedies) = (Setup::of(&s.causes, &own), Setup::of(&s.remedies, &own));
        if !causes.is_empty() {
            line += &format!(". {}", causes.join(" "));
        }
        if !remedies.is_empty() {
            line += &format!(" Remedy: {}.", remedies.join("; "));
        }
        writeln!(out, "{line}")?;
        if a.explain {
            for e in &s.evidence {
                writeln!(out, "      {e}")?;
            }
        }
    }
    if !same_as_default.is_empty() {
        writeln!(
            out,
            "  the same failures as by default in: {}",
            same_as_default.join(", ")
        )?;
    }
    let mut host: Vec<&str> = Vec::new();
    let mut same: Vec<&str> = Vec::new();
    for p in pairs {
        for h in &p.host_limited {
            if !host.contains(&h.as_str()) {
                host.push(h);
            }
        }
        for n in &p.not_interop {
            if !same.contains(&n.as_str()) && !host.contains(&n.as_str()) {
                same.push(n);
            }
        }
    }
    if !host.is_empty() || !same.is_empty() {
        let mut parts = Vec::new();
        if !host.is_empty() {
            parts.push(format!("host limitations: {}", host.join(", ")));
        }
        if !same.is_empty() {
            parts.push(format!(
                "the same with one release on both sides: {}",
                same.join(", ")
            ));
        }
        writeln!(out, "  not counted: {}", parts.join("; "))?;
    }
    if !a.explain && !setups.is_empty() {
        writeln!(out, "  (--explain for the evidence, --json for everything)")?;
    }
    Ok(())
}
