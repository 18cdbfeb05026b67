//! The checked-in live observations (`vectors/live/observations.json`, written by
//! `bash tools/live-matrix.sh`): they read with the shared format's parser, come from a full
//! run (every client release against every plain server, PRRTE, pmix-server and both
//! Slurm releases, clients and tools, with provenance), and every same-release base cell completed: the harness
//! worked when they were recorded.

use std::collections::BTreeSet;

use pmix_live::{ClientKind, Observations, Op, TypeClass};

const RELEASES: [&str; 5] = ["4.2.2", "5.0.7", "6.0.0", "6.1.0", "7.0.0rc1"];

fn observations() -> Observations {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/live/observations.json"
    );
    let text = std::fs::read_to_string(path).expect("vectors/live/observations.json");
    Observations::from_json(&text).expect("the observations read in the shared format")
}

#[test]
fn every_client_release_met_every_server() {
    let o = observations();
    let mut servers: Vec<String> = RELEASES.iter().map(|r| format!("plain-{r}")).collect();
    servers.push("prrte-5.0.0rc1".into());
    servers.push("pmix-server".into());
    servers.push("slurm-24.11.5".into());
    servers.push("slurm-22.05.8".into());
    let seen: BTreeSet<(String, ClientKind, String)> = o
        .cells
        .iter()
        .map(|c| (c.client_release.clone(), c.client_kind, c.server.clone()))
        .collect();
    for r in RELEASES {
        assert!(o.provenance.releases.contains_key(r), "provenance of {r}");
        for s in &servers {
            for kind in [ClientKind::Client, ClientKind::Tool] {
                assert!(
                    seen.contains(&(r.to_string(), kind, s.clone())),
                    "no {kind:?} cell of {r} against {s}"
                );
            }
        }
    }
}

#[test]
fn ops_are_the_closed_list_in_the_order_a_cell_runs_them() {
    let order = Op::all();
    // cells recorded before the field operations (issue 38 item 3) existed ran the order
    // without them: such a cell was not asked them, it did not stop before them
    let before_field: Vec<Op> = order.iter().copied().filter(|o| !o.is_field()).collect();
    let tool_order = [Op::Init, Op::Query, Op::AllocationInherit, Op::Finalize];
    for c in &observations().cells {
        let ops: Vec<Op> = c.ops.iter().map(|o| o.op).collect();
        let has_field = ops.iter().any(|o| o.is_field());
        let expected: Vec<Op> = match c.client_kind {
            ClientKind::Client if has_field => order.clone(),
            ClientKind::Client => before_field.clone(),
            ClientKind::Tool => tool_order.to_vec(),
        };
        // a cell lists a prefix of its operations: those it reached
        assert!(
            expected.starts_with(&ops),
            "{}: {ops:?} is not a prefix of the run order",
            c.key()
        );
        if ops.len() < expected.len() {
            assert!(
                c.note.is_some(),
                "{}: stopped early without a note",
                c.key()
            );
        }
    }
}

#[test]
fn same_release_cells_completed_and_were_seen_on_the_wire() {
    let o = observations();
    for r in RELEASES {
        let base = o
            .cells
            .iter()
            .find(|c| {
                c.client_release == r
                    && c.client_kind == ClientKind::Client
                    && c.server == format!("plain-{r}")
                    && !c.component_forced
                    && c.note.is_none()
            })
            .unwrap_or_else(|| panic!("no unforced base cell of {r} against plain-{r}"));
        assert!(!base.component.is_empty(), "{}: component", base.key());
        for op in [Op::Init, Op::Finalize]
            .into_iter()
            .chain(TypeClass::ALL.map(Op::PutCommitFenceGet))
        {
            let got = base.ops.iter().find(|o| o.op == op);
            assert!(
                got.is_some_and(|o| o.ok()),
                "{}: {op} {:?}",
                base.key(),
                got
            );
        }
    }
}

/// The cells of `client` against `server` whose note contains `said`.
fn cells_saying<'a>(
    o: &'a Observations,
    client: &str,
    server: &str,
    said: &str,
) -> Vec<&'a pmix_live::LiveCell> {
    o.cells
        .iter()
        .filter(|c| c.client_release == client && c.server == server)
        .filter(|c| c.note.as_deref().is_some_and(|n| n.contains(said)))
        .collect()
}

#[test]
fn the_buffer_gds_and_psec_dimensions_were_measured_for_every_release() {
    let o = observations();
    let gds = |r: &str| match r {
        "4.2.2" => vec!["ds12", "ds21", "hash"],
        "7.0.0rc1" => vec!["shmem3", "hash"],
        _ => vec!["shmem2", "hash"],
    };
    let psec = |r: &str| match r {
        "4.2.2" => vec!["munge"],
        "5.0.7" => vec!["munge", "none"],
        _ => vec!["none"],
    };
    for r in RELEASES {
        let plain = format!("plain-{r}");
        for m in gds(r) {
            let said = format!("PMIX_GDS_MODULE={m}");
            assert!(
                !cells_saying(&o, r, &plain, &said).is_empty(),
                "{r}: no {said} cell"
            );
        }
        for m in psec(r) {
            let said = format!("PMIX_SECURITY_MODE={m}");
            assert!(
                !cells_saying(&o, r, &plain, &said).is_empty(),
                "{r}: no {said} cell"
            );
        }
        for said in [
            "the server was started fully-described (",
            "the client's PMIX_BFROP_BUFFER_TYPE was removed",
            "the client was told PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC",
        ] {
            assert!(
                !cells_saying(&o, r, &plain, said).is_empty(),
                "{r}: no cell where {said}"
            );
        }
    }
}

#[test]
fn pmix_peer_is_a_tool_row_in_every_component_of_every_server() {
    let o = observations();
    assert!(
        o.provenance.releases.contains_key("pmix-peer"),
        "provenance of pmix-peer"
    );
    let offers = |server: &str| -> Vec<&str> {
        match server {
            "plain-4.2.2" | "plain-5.0.7" | "slurm-24.11.5" | "slurm-22.05.8" => {
                vec!["v20", "v21", "v3", "v4", "v41"]
            }
            "plain-6.0.0" => vec!["v20", "v21", "v3", "v4", "v41", "v51"],
            "plain-6.1.0" | "pmix-server" => vec!["v20", "v21", "v3", "v4", "v41", "v51", "v61"],
            _ => vec!["v21", "v3", "v4", "v41", "v51", "v61"],
        }
    };
    let mut servers: Vec<String> = RELEASES.iter().map(|r| format!("plain-{r}")).collect();
    servers.extend(
        [
            "prrte-5.0.0rc1",
            "pmix-server",
            "slurm-24.11.5",
            "slurm-22.05.8",
        ]
        .map(String::from),
    );
    for s in &servers {
        for c in offers(s) {
            let said = format!("pmix-peer (this repository's native tool) spoke {c}");
            // "spoke v4" must not be met by "spoke v41": the note part ends there or at a comma
            let spoke = |n: &str| {
                n.split("; ")
                    .any(|p| p == said || p.starts_with(&format!("{said},")))
            };
            let cells = cells_saying(&o, "pmix-peer", s, &said);
            assert!(
                cells
                    .iter()
                    .any(|x| x.client_kind == ClientKind::Tool
                        && x.note.as_deref().is_some_and(spoke)),
                "no pmix-peer {c} tool cell against {s}"
            );
        }
    }
}
