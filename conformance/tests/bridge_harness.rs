//! The PRRTE bridge's harness layer (`pmix_conformance::bridge`) against the reference model
//! with strict ownership (`pmix-model-server --strict-ownership`): every harness action the
//! bridge takes must be one the model grants, so the bridge would keep working on a PRRTE
//! that fixed its uid-ownership deviation.

use pmix_codec::Status;
use pmix_conformance::bridge::relay::{Action, HarnessRelay, Reclaim};
use pmix_conformance::bridge::{job_ender, RECLAIM_UNSUPPORTED};
use pmix_conformance::protocol::{Request, Requester, RequesterKind, Response};
use pmix_conformance::report::Outcome;
use pmix_conformance::scenarios::{load_dir, run_scenario, Step};
use pmix_conformance::server::{ExternalServer, Server};
use pmix_conformance::wireinfo::{WireFormat, WireInfo};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

fn model_server(strict: bool) -> ExternalServer {
    let mut argv = vec![env!("CARGO_BIN_EXE_pmix-model-server").to_string()];
    if strict {
        argv.push("--strict-ownership".into());
    }
    ExternalServer::spawn(&argv, Duration::from_secs(20)).expect("pmix-model-server starts")
}

fn who(kind: RequesterKind, ns: &str, rank: u32) -> Requester {
    Requester {
        kind,
        nspace: ns.into(),
        rank,
    }
}

fn ask(s: &mut impl Server, req: Request) -> Response {
    s.call(&req).expect("the model server answers")
}

/// A DVM with tools t1 (which spawns j1) and t9 (which owns and launched nothing).
fn dvm_with_bystander(s: &mut impl Server) {
    let empty = WireInfo {
        component: "v61".into(),
        kind: "non-described".into(),
        hex: String::new(),
    };
    let start = Request::Start {
        nodes: vec!["n1".into()],
        unavailable: Vec::new(),
        scheduler_honors_warn_timeout: true,
        component: "v61".into(),
    };
    for req in [
        start,
        Request::ToolConnect { tool: "t1".into() },
        Request::ToolConnect { tool: "t9".into() },
        Request::Spawn {
            requester: who(RequesterKind::Tool, "t1", 0),
            nspace: "j1".into(),
            info: empty,
            ranks: 1,
        },
    ] {
        assert_eq!(ask(s, req).status, 0);
    }
}

#[test]
fn strict_ownership_refuses_a_kill_by_a_tool_that_owns_nothing() {
    let kill = |by: &str| Request::Kill {
        requester: who(RequesterKind::Tool, by, 0),
        nspace: "j1".into(),
    };
    let mut strict = model_server(true);
    dvm_with_bystander(&mut strict);
    let r = ask(&mut strict, kill("t9"));
    assert_eq!(r.status, Status::ERR_NO_PERMISSIONS.0, "{r:?}");
    // Its launcher may.
    assert_eq!(ask(&mut strict, kill("t1")).status, 0);

    // Without the flag the model is as lax as a uid check: the bystander's kill succeeds.
    let mut lax = model_server(false);
    dvm_with_bystander(&mut lax);
    assert_eq!(ask(&mut lax, kill("t9")).status, 0);
}

#[test]
fn the_help_names_strict_ownership() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pmix-model-server"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--strict-ownership"));
}

#[test]
fn job_ender_prefers_the_running_launcher_then_the_job_itself() {
    let launcher = who(RequesterKind::App, "j1", 0);
    assert_eq!(job_ender("j2", Some(&launcher), |_| true), launcher);
    let itself = who(RequesterKind::App, "j2", 0);
    assert_eq!(job_ender("j2", Some(&launcher), |_| false), itself);
    assert_eq!(job_ender("j2", None, |_| true), itself);
}

/// Every scenario through the harness relay (PRRTE's reclaim policy) in front of
/// `pmix-model-server --strict-ownership`: the harness needs no laxity to run.
#[test]
fn the_suite_runs_through_the_bridge_harness_against_the_strict_model() {
    let all = load_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios")))
        .expect("scenarios load");
    assert!(all.len() >= 92, "only {} scenarios", all.len());
    let mut problems = Vec::new();
    let mut unsupported = BTreeSet::new();
    let (mut by_launcher, mut by_itself, mut ranks) = (0, 0, BTreeSet::new());
    for sc in &all {
        let mut relay = HarnessRelay::new(
            model_server(true),
            Reclaim::Unsupported(RECLAIM_UNSUPPORTED),
        );
        let r = run_scenario(sc, &mut relay, WireFormat::default());
        match &r.outcome {
            Outcome::Pass => {}
            Outcome::Unsupported { reason } if reason == RECLAIM_UNSUPPORTED => {
                unsupported.insert(sc.id.clone());
            }
            other => problems.push(format!("{}: {:?} {other:?}", sc.id, r.detail)),
        }
        for a in &relay.actions {
            match a {
                Action::Killed { job, by, status } => {
                    assert_ne!(
                        *status,
                        Status::ERR_NO_PERMISSIONS.0,
                        "{}: the harness's kill of {job} by {by:?} was refused",
                        sc.id
                    );
                    if by.nspace == *job {
                        by_itself += 1;
                    } else {
                        by_launcher += 1;
                    }
                }
                Action::RankDriven(r) => {
                    ranks.insert(format!("{}:{}", r.nspace, r.rank));
                }
                Action::ReclaimUnsupported => {}
            }
        }
    }
    assert!(
        problems.is_empty(),
        "through the harness:\n{}",
        problems.join("\n")
    );
    // Exactly the scenarios with a scheduler reclaim are unsupported (with PRRTE's reason).
    let reclaiming: BTreeSet<String> = all
        .iter()
        .filter(|s| s.steps.iter().any(|st| matches!(st, Step::Reclaim { .. })))
        .map(|s| s.id.clone())
        .collect();
    assert_eq!(unsupported, reclaiming);
    // Both ways of ending a job ran, and a requester rank other than 0 was driven.
    assert!(
        by_launcher > 0 && by_itself > 0,
        "{by_launcher} {by_itself}"
    );
    assert!(ranks.contains("j1:3"), "{ranks:?}");
}

/// With the model's scheduler path, reclaims run too: every scenario passes.
#[test]
fn with_a_scheduler_path_every_scenario_passes_through_the_harness() {
    let all = load_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios")))
        .expect("scenarios load");
    let failing: Vec<String> = all
        .iter()
        .filter_map(|sc| {
            let mut relay = HarnessRelay::new(model_server(true), Reclaim::Scheduler);
            let r = run_scenario(sc, &mut relay, WireFormat::default());
            (r.outcome != Outcome::Pass)
                .then(|| format!("{}: {:?} {:?}", sc.id, r.detail, r.outcome))
        })
        .collect();
    assert!(failing.is_empty(), "{}", failing.join("\n"));
}

/// A requester rank the job was not spawned with is a harness fault, never a finding.
#[test]
fn a_rank_the_job_lacks_is_a_harness_fault() {
    let mut relay = HarnessRelay::new(model_server(true), Reclaim::Scheduler);
    dvm_with_bystander(&mut relay);
    let req = Request::Alloc {
        requester: who(RequesterKind::App, "j1", 1),
        directive: 1,
        info: WireInfo {
            component: "v61".into(),
            kind: "non-described".into(),
            hex: String::new(),
        },
        grant: vec!["n5".into()],
    };
    let e = relay.call(&req).unwrap_err().to_string();
    assert!(e.contains("harness fault"), "{e}");
}
