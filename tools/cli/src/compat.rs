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
use pmix_live::compare::{Outcome, PairVerdict, Row};
use pmix_live::observations::ClientKind;
use pmix_live::predict::{negotiate, Prediction, Predictor, Verdict};
use pmix_live::report::{cell_text, server_release, Live, SERVERS};
use pmix_live::LiveCell;

/// Help text after the options.
pub const COMPAT_HELP: &str = "\
CLIENT is a client library release (4.2.2 5.0.7 6.0.0 6.1.0 7.0.0rc1) or pmix-peer.
SERVER is a server of the live matrix (plain-5.0.7, prrte-5.0.0rc1, slurm-24.11.5,
slurm-22.05.8, pmix-server, ...) or a libpmix release (then every server linking it).

Names every operation (init, get-job-info, put-commit-fence-get:<type class>,
allocation-inherit, query, finalize) predicted or observed to fail, each with its evidence:
the MATRIX.md cell (release pair, component, the types one side cannot read), the LIVE.md
cell (the observed status), the quirk ids, and the explanation of any disagreement.
The verdict is the observed one when the pair was run (as vectors/LIVE.md shows it), else
the prediction. --buffer, --gds, --psec and --tool narrow the observed cells to that
configuration (the bytes say nothing of gds and psec: only observations speak to them).

Exit codes: 0 works (or differs: works by default, fails in another configuration),
1 something breaks, 2 usage, 3 the vectors directory cannot be read.

Examples:
  pmix-wire compat 4.2.2 slurm-24.11.5
  pmix-wire compat 7.0.0rc1 4.2.2 --json
  pmix-wire compat 5.0.7 plain-6.1.0 --buffer fully-described --gds hash --psec native";

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
    /// Print JSON
    #[arg(long)]
    json: bool,
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

/// Run `pmix-wire compat`.
pub fn run(a: CompatArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    let dir = a
        .vectors
        .clone()
        .unwrap_or_else(|| pmix_oracle::oracle::workspace_root().join("vectors"));
    let live = Live::load(&dir).map_err(Failure::Io)?;
    if !live.clients().contains(&a.client) {
        return Err(Failure::Usage(format!(
            "unknown client `{}` (known: {})",
            a.client,
            live.clients().join(" ")
        )));
    }
    let servers = servers_for(&live, &a.server);
    let release = if servers.contains(&a.server) {
        server_release(&a.server, live.observations.as_ref()).unwrap_or_else(|| "native".into())
    } else if Release::judged_by(&a.server).is_some() {
        a.server.clone()
    } else {
        return Err(Failure::Usage(format!(
            "unknown server `{}` (a server: {}; or a release: {})",
            a.server,
            SERVERS.map(|(s, _)| s).join(" "),
            pmix_oracle::oracle::LIBRARIES.join(" ")
        )));
    };
    let kind: BufferKind = a.buffer.map_or(BufferKind::NonDescribed, Into::into);
    let predictor = Predictor::new(&live.matrix);
    let predictions = predictor.predict(&a.client, &release, a.tool, None, kind);
    let component = match (Release::judged_by(&a.client), Release::judged_by(&release)) {
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
        .map(|s| live.pair(&rows, &a.client, s, &keep_cell))
        .collect();
    let observed: Vec<&PairVerdict> = pairs.iter().filter(|p| p.observed.is_some()).collect();
    let (verdict, source) = match observed.iter().filter_map(|p| p.observed).max() {
        Some(v) => (v, "observed"),
        None => (
            Outcome::from_verdict(
                pairs
                    .iter()
                    .map(|p| p.predicted)
                    .max()
                    .unwrap_or(Verdict::Works),
            ),
            "predicted",
        ),
    };
    let failing = failing_ops(&a.client, &servers, &rows, &keep, &predictions, &pairs);
    if a.json {
        let j = json!({
            "client": a.client,
            "server": a.server,
            "servers": servers,
            "server_release": release,
            "component": component,
            "verdict": verdict.as_str(),
            "source": source,
            "filtered": filtered,
            "live_cells": pairs.iter().map(|p| json!({
                "server": p.server,
                "text": cell_text(p),
                "observed": p.observed.map(Outcome::as_str),
                "failing": p.observed_failing,
                "not_interop": p.not_interop,
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
        write_text(
            out,
            &a,
            &release,
            &component,
            (verdict, source),
            &pairs,
            &failing,
        )?;
    }
    Ok(if verdict >= Outcome::Fails {
        EXIT_PMIX
    } else {
        EXIT_OK
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
    let not_interop = |op: &str| pairs.iter().any(|p| p.not_interop.iter().any(|n| n == op));
    let mut out: Vec<Failing> = Vec::new();
    let mine: Vec<&Row<'_>> = rows
        .iter()
        .filter(|r| r.cell.client_release == client && servers.contains(&r.cell.server) && keep(r))
        .collect();
    for r in &mine {
        let op = r.observed.op.as_str();
        // exactly the failures LIVE.md's matrix names for the pair
        let labelled = format!("{op} ({})", r.cell.key());
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

fn write_text(
    out: &mut dyn Write,
    a: &CompatArgs,
    release: &str,
    component: &str,
    (verdict, source): (Outcome, &str),
    pairs: &[PairVerdict],
    failing: &[Failing],
) -> std::io::Result<()> {
    writeln!(
        out,
        "{} {} against {} (libpmix {release})",
        a.client,
        if a.tool { "tool" } else { "client" },
        a.server
    )?;
    writeln!(out, "negotiated component (predicted): {component}")?;
    writeln!(out, "verdict: {verdict} ({source})")?;
    for p in pairs {
        writeln!(
            out,
            "LIVE.md cell {} × {}: {}",
            p.client,
            p.server,
            cell_text(p)
        )?;
        if !p.not_interop.is_empty() {
            writeln!(
                out,
                "  not interop failures (they fail with one release on both sides too): {}",
                p.not_interop.join(", ")
            )?;
        }
    }
    if failing.is_empty() {
        writeln!(out, "no operation is predicted or observed to fail")?;
        return Ok(());
    }
    writeln!(out, "operations predicted or observed to fail:")?;
    for f in failing {
        writeln!(out, "  {}", f.op)?;
        for o in &f.observed {
            writeln!(out, "    observed: {o}")?;
        }
        if let Some(p) = &f.predicted {
            writeln!(out, "    predicted {p}")?;
        }
        for e in &f.explanations {
            writeln!(out, "    explained ({e})")?;
        }
    }
    Ok(())
}
