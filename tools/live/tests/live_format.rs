//! The live observations format (`tools/live/src/`): op names, the runner's `OP` lines and
//! the JSON file shared with `tools/live-matrix.sh`.

use pmix_live::{ClientKind, JobKey, Observations, Op, OpObservation, TypeClass};

#[test]
fn every_op_name_reads_back_as_itself() {
    let all = Op::all();
    // 5 of before, 9 new with a name of their own (abort-seen too), one per class and job key
    assert_eq!(all.len(), 5 + 9 + TypeClass::ALL.len() + JobKey::ALL.len());
    let names: std::collections::BTreeSet<String> = all.iter().map(|o| o.as_str()).collect();
    assert_eq!(names.len(), all.len(), "two ops share a name");
    for op in all {
        assert_eq!(Op::parse(&op.as_str()), Ok(op), "{op}");
    }
    assert_eq!(
        Op::parse("put-commit-fence-get:flex-size"),
        Ok(Op::PutCommitFenceGet(TypeClass::FlexSize))
    );
    assert_eq!(
        Op::parse("job-key:local-peers"),
        Ok(Op::JobKey(JobKey::LocalPeers))
    );
    assert_eq!(Op::parse("get-rank-undef"), Ok(Op::GetRankUndef));
    assert_eq!(Op::parse("abort-seen"), Ok(Op::AbortSeen));
}

#[test]
fn the_field_ops_run_after_the_round_and_abort_seen_just_before_finalize() {
    let all = Op::all();
    let at = |op: Op| all.iter().position(|o| *o == op).unwrap();
    let field = Op::field();
    assert_eq!(field.len(), 8 + JobKey::ALL.len());
    assert!(field.iter().all(|o| o.is_field()));
    assert!(Op::AbortSeen.is_field() && !Op::Finalize.is_field() && !Op::Init.is_field());
    // the field block sits right after the last put/commit/fence/get, in its own order
    let first = at(field[0]);
    assert_eq!(first, at(Op::PutCommitFenceGet(TypeClass::Value)) + 1);
    assert_eq!(all[first..first + field.len()], field[..]);
    // the aborting rank ends at abort-seen: it must be the last op before finalize
    assert_eq!(at(Op::AbortSeen) + 1, at(Op::Finalize));
    assert_eq!(all.last(), Some(&Op::Finalize));
    // the order of before, without the field ops, is unchanged
    let before: Vec<Op> = all.iter().copied().filter(|o| !o.is_field()).collect();
    let mut expected = vec![Op::Init, Op::GetJobInfo];
    expected.extend(TypeClass::ALL.map(Op::PutCommitFenceGet));
    expected.extend([Op::AllocationInherit, Op::Query, Op::Finalize]);
    assert_eq!(before, expected);
}

#[test]
fn the_assembler_lists_the_ops_in_the_same_order() {
    // tools/live/assemble.py's CLIENT_OPS is the run order the cells are assembled in
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import sys; sys.path.insert(0, {:?}); import assemble; print(' '.join(assemble.CLIENT_OPS)); print(' '.join(assemble.ABORTING_RANK_OPS))",
            env!("CARGO_MANIFEST_DIR")
        ))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let ops: Vec<String> = Op::all().iter().map(|o| o.as_str()).collect();
    assert_eq!(lines.next().unwrap(), ops.join(" "));
    // rank 1 is given every op up to abort-seen, not finalize
    assert_eq!(lines.next().unwrap(), ops[..ops.len() - 1].join(" "));
}

#[test]
fn unknown_op_names_are_refused_with_the_known_list() {
    for bad in [
        "",
        "Init",
        "put-commit-fence-get",
        "put-commit-fence-get:",
        "put-commit-fence-get:complex",
        "get:int",
        "job-key",
        "job-key:",
        "job-key:pmix.job.size",
        "abort",
    ] {
        let e = Op::parse(bad).unwrap_err();
        assert!(e.contains("unknown"), "{bad}: {e}");
    }
    assert!(Op::parse("put-commit-fence-get:nope")
        .unwrap_err()
        .contains("info-array"));
    assert!(Op::parse("job-key:nope")
        .unwrap_err()
        .contains("local-rank"));
    assert!(Op::parse("nope").unwrap_err().contains("abort-seen"));
}

#[test]
fn op_lines_parse_with_spaces_in_the_observed_text() {
    let o = OpObservation::parse_line(
        "OP allocation-inherit -47 PMIX_ERR_NOT_SUPPORTED no allocation support here\n",
    )
    .unwrap();
    assert_eq!(o.op, Op::AllocationInherit);
    assert_eq!(o.status, -47);
    assert_eq!(o.status_name, "PMIX_ERR_NOT_SUPPORTED");
    assert_eq!(o.observed, "no allocation support here");
    assert!(!o.ok());
    assert_eq!(OpObservation::parse_line(&o.to_line()), Ok(o));
    let empty = OpObservation::parse_line("OP finalize 0 PMIX_SUCCESS").unwrap();
    assert!(empty.ok() && empty.observed.is_empty());
    for bad in [
        "",
        "op init 0 PMIX_SUCCESS",
        "OP init",
        "OP init zero PMIX_SUCCESS",
        "OP init 0",
        "OP nope 0 PMIX_SUCCESS x",
    ] {
        assert!(OpObservation::parse_line(bad).is_err(), "{bad}");
    }
}

/// A hand-written FIXTURE in the shared format (not an observation of anything).
const FIXTURE: &str = r#"{
  "format": 1,
  "provenance": {"date": "fixture", "host": "fixture", "command": "hand-written test fixture", "releases": {"4.2.2": "fixture"}},
  "cells": [
    {"client_release": "4.2.2", "client_kind": "client", "server": "plain-5.0.7", "server_release": "5.0.7",
     "component": "v41", "component_forced": false, "buffer": "non-described", "gds": "hash", "psec": "native",
     "ops": [
       {"op": "init", "status": 0, "status_name": "PMIX_SUCCESS", "observed": "rank 0 of 2"},
       {"op": "put-commit-fence-get:data-array", "status": -1, "status_name": "PMIX_ERROR", "observed": "get failed"}
     ]},
    {"client_release": "7.0.0rc1", "client_kind": "tool", "server": "slurm-24.11.5", "server_release": "5.0.7",
     "component": "", "component_forced": false, "buffer": "non-described", "gds": "hash", "psec": "munge",
     "ops": [], "note": "tool attach needs v21..v41 on slurm"}
  ]
}"#;

#[test]
fn the_fixture_reads_and_writes_back_the_same() {
    let o = Observations::from_json(FIXTURE).unwrap();
    assert_eq!(o.cells.len(), 2);
    assert_eq!(o.cells[1].client_kind, ClientKind::Tool);
    assert_eq!(o.cells[0].failures().count(), 1);
    assert_eq!(
        o.cells[1].note.as_deref(),
        Some("tool attach needs v21..v41 on slurm")
    );
    assert!(o.cells[0].key().contains("4.2.2 client -> plain-5.0.7 v41"));
    assert_eq!(Observations::from_json(&o.to_json()).unwrap(), o);
}

#[test]
fn bad_files_are_refused_with_a_reason() {
    let wrong_format = FIXTURE.replacen("\"format\": 1", "\"format\": 3", 1);
    assert!(Observations::from_json(&wrong_format)
        .unwrap_err()
        .contains("format 3"));
    let unknown_op = FIXTURE.replacen("\"init\"", "\"launch\"", 1);
    assert!(Observations::from_json(&unknown_op)
        .unwrap_err()
        .contains("launch"));
    let extra_field = FIXTURE.replacen("\"gds\": \"hash\"", "\"gds\": \"hash\", \"colour\": 1", 1);
    assert!(Observations::from_json(&extra_field).is_err());
    assert!(Observations::from_json("{").is_err());
}

/// A format-1 cell is migrated on reading: its variant, how rank 0 ended and the operations
/// it did not report come from its note (`exited with 139` is SIGSEGV, as `timeout`
/// reports a signal), and a cell whose note says nothing ends `unknown`.
#[test]
fn format_1_cells_are_migrated_from_their_notes() {
    let text = r#"{"format": 1, "provenance": {"date": "d", "host": "h", "command": "c", "releases": {}},
      "cells": [
        {"client_release": "6.1.0", "client_kind": "client", "server": "plain-6.1.0", "server_release": "6.1.0",
         "component": "", "component_forced": false, "buffer": "", "gds": "", "psec": "",
         "ops": [{"op": "init", "status": 0, "status_name": "PMIX_SUCCESS", "observed": ""}],
         "note": "the server was started fully-described and advertised it; the client's PMIX_BFROP_BUFFER_TYPE was removed (its own default); ended before get-job-info (exited with 139)"},
        {"client_release": "4.2.2", "client_kind": "client", "server": "slurm-24.11.5", "server_release": "5.0.7",
         "component": "v20", "component_forced": true, "buffer": "non-described", "gds": "hash", "psec": "native",
         "ops": [], "note": "only PMIX_SERVER_URI of v20 was left: the client was forced to v20; ended before init (timed out)"},
        {"client_release": "4.2.2", "client_kind": "tool", "server": "plain-4.2.2", "server_release": "4.2.2",
         "component": "v41", "component_forced": false, "buffer": "non-described", "gds": "hash", "psec": "native",
         "ops": []}
      ]}"#;
    let o = Observations::from_json(text).unwrap();
    assert_eq!(o.format, pmix_live::FORMAT);
    let c = &o.cells[0];
    assert_eq!(
        (c.variant.as_str(), c.setting.as_str()),
        ("buffer", "server-fully-client-default")
    );
    assert_eq!(
        c.crash().map(|p| &p.ended),
        Some(&pmix_live::Ending::Signal {
            signal: "SIGSEGV".into()
        })
    );
    assert_eq!(c.unreported.first(), Some(&Op::GetJobInfo));
    assert_eq!(
        c.crash_text().as_deref(),
        Some("SIGSEGV in rank0 after init")
    );
    let c = &o.cells[1];
    assert_eq!((c.variant.as_str(), c.setting.as_str()), ("force", "v20"));
    assert_eq!(c.main_ending(), Some(&pmix_live::Ending::TimedOut));
    assert_eq!(
        c.stopped().as_deref(),
        Some("stopped before init (timed out)")
    );
    let c = &o.cells[2];
    assert_eq!(c.variant, "tool");
    assert_eq!(c.main_ending(), Some(&pmix_live::Ending::Unknown));
    assert_eq!(c.unreported.len(), 4);
    // written in format 2 and read back the same
    assert_eq!(Observations::from_json(&o.to_json()).unwrap(), o);
}
