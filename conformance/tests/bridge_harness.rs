//! The PRRTE bridge's harness layer (`pmix_conformance::bridge`) against the reference model
//! with strict ownership: every harness action the bridge takes must be one the model grants,
//! so the bridge would keep working on a PRRTE that fixed its uid-ownership deviation.

use pmix_codec::attrs::alloc_directive;
use pmix_codec::{attrs, Info, Status, Value};
use pmix_conformance::bridge::{job_ender, RANK_UNSUPPORTED, RECLAIM_UNSUPPORTED};
use pmix_conformance::model::Model;
use pmix_conformance::protocol::{Requester, RequesterKind};
use pmix_conformance::wireinfo::WireFormat;
use std::collections::BTreeMap;

fn tool(ns: &str) -> Requester {
    Requester {
        kind: RequesterKind::Tool,
        nspace: ns.into(),
        rank: 0,
    }
}

fn app(ns: &str) -> Requester {
    Requester {
        kind: RequesterKind::App,
        nspace: ns.into(),
        rank: 0,
    }
}

fn target(id: &str) -> Vec<Info> {
    vec![Info::new(attrs::SPAWN_TARGET, Value::string(id))]
}

/// The harness ends `job` as the bridge does: it asks `job_ender` who, given who launched
/// the job and which namespaces the model says still run, and kills it as that requester.
fn harness_end(
    m: &mut Model,
    launchers: &BTreeMap<String, Requester>,
    job: &str,
) -> Result<Requester, String> {
    let running = m.observed()?.namespaces;
    let by = job_ender(job, launchers.get(job), |r| running.contains(&r.nspace));
    m.kill(&by, job)
        .map_err(|r| format!("{}: {}", r.status, r.message))?;
    Ok(by)
}

#[test]
fn the_bridge_harness_acts_only_with_granted_privileges() {
    let mut m = Model::new(None);
    m.set_strict_ownership(true);
    m.start(&["n1".into()], &[], true, WireFormat::default())
        .unwrap();
    m.tool_connect("t1").unwrap();
    m.tool_connect("t9").unwrap();
    let mut launchers = BTreeMap::new();
    m.spawn(&tool("t1"), "j1", &[]).unwrap();
    launchers.insert("j1".to_string(), tool("t1"));
    let reply = m
        .alloc(&app("j1"), alloc_directive::NEW, &[], &["n5".into()])
        .unwrap();
    let a = reply
        .info
        .iter()
        .find(|i| i.key.as_bytes() == attrs::ALLOC_ID.as_bytes())
        .and_then(|i| pmix_conformance::wireinfo::string_of(&i.value))
        .expect("an allocation id");
    m.spawn(&app("j1"), "j2", &target(&a)).unwrap();
    launchers.insert("j2".to_string(), app("j1"));
    m.spawn(&app("j2"), "j3", &target(&a)).unwrap();
    launchers.insert("j3".to_string(), app("j2"));
    m.spawn(&app("j2"), "j4", &target(&a)).unwrap();
    launchers.insert("j4".to_string(), app("j2"));

    // The model is strict: a tool that owns nothing and launched nothing may not end a job
    // (the bridge's own tool used to), nor release the reservation (the old "reclaim").
    let refused = m.kill(&tool("t9"), "j3").unwrap_err();
    assert_eq!(refused.status, Status::ERR_NO_PERMISSIONS);
    let release = [Info::new(attrs::ALLOC_ID, Value::string(&a))];
    let refused = m
        .alloc(&tool("t9"), alloc_directive::RELEASE, &release, &[])
        .unwrap_err();
    assert_eq!(refused.status, Status::ERR_NO_PERMISSIONS);
    assert!(RECLAIM_UNSUPPORTED.contains("scheduler"));

    // A job whose launcher runs is ended by its launcher.
    assert_eq!(harness_end(&mut m, &launchers, "j3").unwrap(), app("j2"));
    // A job whose launcher (a tool) has ended ends itself.
    m.terminate("t1").unwrap();
    assert_eq!(harness_end(&mut m, &launchers, "j1").unwrap(), app("j1"));
    // So does one whose launcher (a job) has ended, and then that job's own children.
    assert_eq!(harness_end(&mut m, &launchers, "j2").unwrap(), app("j2"));
    assert_eq!(harness_end(&mut m, &launchers, "j4").unwrap(), app("j4"));
    let o = m.observed().unwrap();
    for j in ["j1", "j2", "j3", "j4"] {
        assert!(!o.namespaces.contains(&j.to_string()), "{j} still runs");
    }
    // Multi-rank requesters are a limit of the bridge, said as such.
    assert!(RANK_UNSUPPORTED.contains("limit of the bridge"));
}

#[test]
fn without_strict_ownership_the_model_is_as_lax_as_a_uid_check() {
    let mut m = Model::new(None);
    m.start(&["n1".into()], &[], true, WireFormat::default())
        .unwrap();
    m.tool_connect("t1").unwrap();
    m.tool_connect("t9").unwrap();
    m.spawn(&tool("t1"), "j1", &[]).unwrap();
    assert!(!m.may_end(&tool("t9"), "j1"));
    m.kill(&tool("t9"), "j1").unwrap();
}
