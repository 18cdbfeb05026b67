//! `vectors/LIVE.md`, `LIVE.svg`, `MATRIX.svg` and `pmix-wire compat` (issue 28): the files are
//! up to date and every disagreement explained, the pictures show the same cells as the
//! Markdown, `live/MATRIX.json` holds the cells of `MATRIX.md`, compat answers every pair as
//! LIVE.md does, and the comparison works on a hand-written FIXTURE (never published).

use pmix_codec::{BufferKind, Component, Release};
use pmix_live::compare::{compare, Explanations, Outcome};
use pmix_live::observations::Observations;
use pmix_live::predict::{negotiate, Predictor, Verdict};
use pmix_live::report::{self, parse_cell_text, Live};
use pmix_live::svg::{matrix_cell_title, matrix_cell_verdict};
use pmix_live::Op;
use pmix_oracle::matrix;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(vectors().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn live_files_are_up_to_date_and_every_disagreement_is_explained() {
    if let Err(e) = pmix_live::publish::check(&vectors()) {
        panic!(
            "{e}\nregenerate with `cargo run --release -p pmix-vectorgen --bin pmix-vectors -- live`"
        );
    }
}

#[test]
fn live_md_leads_with_a_grid_of_short_words() {
    let md = read("LIVE.md");
    let head: Vec<&str> = md.lines().take(40).collect();
    let grid = head
        .iter()
        .position(|l| l.starts_with("| client \\ server |"))
        .expect("the grid within the first 40 lines");
    let rows = head[grid + 2..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .count();
    assert_eq!(
        rows,
        report::CLIENTS.len(),
        "every client row within 40 lines"
    );
    for (k, text) in report::matrix_cells(&md).expect("the matrix table") {
        assert!(
            text.chars().count() <= 12,
            "{k:?}: `{text}` is longer than 12"
        );
        assert!(parse_cell_text(&text).is_some(), "{k:?}: `{text}`");
    }
}

#[test]
fn matrix_json_holds_the_cells_of_matrix_md() {
    let cells = matrix::from_json(&read("live/MATRIX.json")).unwrap();
    assert!(cells.len() >= 50, "{}", cells.len());
    assert_eq!(matrix::render(&cells), read("MATRIX.md"));
    assert_eq!(matrix::to_json(&cells), read("live/MATRIX.json"));
}

/// The cells of an SVG heat map: (row, col) -> (verdict, observed, title).
fn svg_cells(svg: &str) -> BTreeMap<(String, String), (String, bool, String)> {
    let attr = |g: &str, name: &str| -> String {
        let k = format!("{name}=\"");
        let at = g.find(&k).unwrap_or_else(|| panic!("no {name} in {g}")) + k.len();
        g[at..at + g[at..].find('"').unwrap()].to_string()
    };
    let unesc = |s: &str| {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
    };
    let mut out = BTreeMap::new();
    for g in svg.split("<g class=\"cell\"").skip(1) {
        let title = &g[g.find("<title>").unwrap() + 7..g.find("</title>").unwrap()];
        let key = (unesc(&attr(g, "data-row")), unesc(&attr(g, "data-col")));
        let v = (
            attr(g, "data-verdict"),
            attr(g, "data-observed") == "yes",
            unesc(title),
        );
        assert!(out.insert(key.clone(), v).is_none(), "{key:?} twice");
    }
    out
}

#[test]
fn live_svg_shows_the_cells_of_live_md() {
    let md = report::matrix_cells(&read("LIVE.md")).expect("the matrix table");
    let svg = svg_cells(&read("LIVE.svg"));
    assert_eq!(
        md.len(),
        report::CLIENTS.len() * report::SERVERS.len().max(1),
        "{md:?}"
    );
    assert_eq!(
        md.keys().collect::<Vec<_>>(),
        svg.keys().collect::<Vec<_>>()
    );
    for (k, text) in &md {
        let (verdict, observed, title) = &svg[k];
        // the title's first line is the grid word, the details follow
        assert_eq!(title.lines().next(), Some(text.as_str()), "{k:?}");
        let (o, v) = parse_cell_text(text).unwrap_or_else(|| panic!("{k:?}: {text}"));
        assert_eq!((v.as_str(), o), (verdict.as_str(), *observed), "{k:?}");
    }
}

#[test]
fn matrix_svg_shows_the_cells_of_matrix_md() {
    let md = read("MATRIX.md");
    let svg = svg_cells(&read("MATRIX.svg"));
    let mut seen = 0;
    let mut heading = String::new();
    for l in md.lines() {
        if let Some(h) = l.strip_prefix("## ") {
            heading = h.to_string();
            continue;
        }
        let cols: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
        let Ok(component) = cols[0].parse::<Component>() else {
            continue;
        };
        let set = |s: &str| -> std::collections::BTreeSet<String> {
            if s == "–" {
                Default::default()
            } else {
                s.split(", ").map(String::from).collect()
            }
        };
        let cell = matrix::Cell {
            a: String::new(),
            b: String::new(),
            component,
            cases: 0,
            pack_differs: set(cols[2]),
            b_cannot_read_a: set(cols[3]),
            a_cannot_read_b: set(cols[4]),
        };
        let (v, types) = matrix_cell_verdict(&cell);
        let (verdict, _, title) = &svg[&(heading.clone(), component.name().to_string())];
        assert_eq!(verdict, v.as_str(), "{heading} {component}");
        assert_eq!(
            title,
            &matrix_cell_title(v, &types),
            "{heading} {component}"
        );
        seen += 1;
    }
    assert!(seen >= 50, "{seen}");
    // every other SVG cell is a component the pair does not share
    let absent = svg.values().filter(|(v, _, _)| v == "none").count();
    assert_eq!(absent + seen, svg.len());
}

#[test]
fn negotiation_follows_the_release_profiles() {
    use Release::*;
    assert_eq!(
        negotiate(OpenPmix4_2, OpenPmix7_0, false),
        Ok(Component::V41)
    );
    assert_eq!(
        negotiate(OpenPmix6_0, OpenPmix6_1, false),
        Ok(Component::V51)
    );
    assert_eq!(
        negotiate(OpenPmix6_1, OpenPmix7_0, false),
        Ok(Component::V61)
    );
    // a tool offers only its newest component
    assert!(negotiate(OpenPmix7_0, OpenPmix5_0, true)
        .unwrap_err()
        .contains("v61"));
    assert_eq!(
        negotiate(OpenPmix4_2, OpenPmix5_0, true),
        Ok(Component::V41)
    );
}

#[test]
fn predictions_name_their_evidence() {
    let cells = matrix::from_json(&read("live/MATRIX.json")).unwrap();
    let p = Predictor::new(&cells);
    // the live client sends the inheritance as type 75 only where its release's v61 has it:
    // a 7.0.0rc1 client negotiating v41 with 4.2.2 cannot pack it ...
    let got = p.predict("7.0.0rc1", "4.2.2", false, None, BufferKind::NonDescribed);
    let alloc = got.iter().find(|x| x.op == Op::AllocationInherit).unwrap();
    assert_eq!(alloc.verdict, Verdict::Fails, "{alloc:?}");
    assert!(
        alloc.evidence.iter().any(|e| e.contains("cannot be sent")),
        "{alloc:?}"
    );
    // ... nor against pmix-server, which speaks the 7.0.0rc1 profile, in v41
    let got = p.predict(
        "7.0.0rc1",
        "native",
        false,
        Some(Component::V41),
        BufferKind::NonDescribed,
    );
    let alloc = got.iter().find(|x| x.op == Op::AllocationInherit).unwrap();
    assert_eq!(alloc.verdict, Verdict::Fails, "{alloc:?}");
    // ... while 4.2.2 sends a UINT8 that 7.0.0rc1 reads
    let got = p.predict("4.2.2", "7.0.0rc1", false, None, BufferKind::NonDescribed);
    let alloc = got.iter().find(|x| x.op == Op::AllocationInherit).unwrap();
    assert_ne!(alloc.verdict, Verdict::Fails, "{alloc:?}");
    // a v21 DATA_ARRAY of INFO that 4.2.2 packs, 6.0.0 reads: MATRIX lists neither way
    let got = p.predict(
        "4.2.2",
        "4.2.2",
        false,
        Some(Component::V41),
        BufferKind::NonDescribed,
    );
    assert!(
        got.iter()
            .all(|x| x.evidence.iter().all(|e| !e.contains("MATRIX.md \""))),
        "{got:?}"
    );
    // every operation is predicted, with evidence
    for x in p.predict("6.1.0", "4.2.2", false, None, BufferKind::FullyDescribed) {
        assert!(!x.evidence.is_empty(), "{x:?}");
    }
}

/// A hand-written FIXTURE: two cells, not an observation of anything.
const FIXTURE: &str = r#"{
  "format": 1,
  "provenance": {"date": "fixture", "host": "fixture", "command": "hand-written test fixture", "releases": {}},
  "cells": [
    {"client_release": "4.2.2", "client_kind": "client", "server": "plain-7.0.0rc1", "server_release": "7.0.0rc1",
     "component": "v41", "component_forced": false, "buffer": "non-described", "gds": "hash", "psec": "native",
     "ops": [
       {"op": "init", "status": 0, "status_name": "PMIX_SUCCESS", "observed": ""},
       {"op": "query", "status": -46, "status_name": "PMIX_ERR_NOT_FOUND", "observed": "fixture"},
       {"op": "finalize", "status": 0, "status_name": "PMIX_SUCCESS", "observed": ""}
     ]},
    {"client_release": "7.0.0rc1", "client_kind": "client", "server": "plain-7.0.0rc1", "server_release": "7.0.0rc1",
     "component": "v61", "component_forced": false, "buffer": "non-described", "gds": "hash", "psec": "native",
     "ops": [{"op": "query", "status": 0, "status_name": "PMIX_SUCCESS", "observed": ""}]}
  ]
}"#;

#[test]
fn a_disagreement_needs_an_explanation_and_an_explanation_needs_a_disagreement() {
    let dir = std::env::temp_dir().join(format!("pmix-live-fixture-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("live")).unwrap();
    std::fs::write(dir.join("live/MATRIX.json"), read("live/MATRIX.json")).unwrap();
    std::fs::write(dir.join("live/observations.json"), FIXTURE).unwrap();
    std::fs::write(
        dir.join("live/explanations.json"),
        r#"{"explanations": []}"#,
    )
    .unwrap();
    let live = Live::load(&dir).unwrap();
    let problems = live.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("query"), "{problems:?}");
    // the pair fails on query (its own release's client passes it)
    let rows = live.rows();
    let p = live.pair(&rows, "4.2.2", "plain-7.0.0rc1", &|_| true);
    assert_eq!(
        (p.observed, p.observed_failing.clone()),
        (Some(Outcome::Fails), vec!["query".to_string()])
    );
    // explained: no problem left; an explanation of nothing is one
    let e = r#"{"explanations": [
      {"client_release": "4.2.2", "server": "plain-*", "component": "*", "op": "query", "kind": "runtime", "why": "fixture", "evidence": "none"},
      {"client_release": "5.0.7", "server": "*", "component": "*", "op": "init", "kind": "runtime", "why": "covers nothing", "evidence": "none"}]}"#;
    std::fs::write(dir.join("live/explanations.json"), e).unwrap();
    let live = Live::load(&dir).unwrap();
    let problems = live.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("covers no disagreement"),
        "{problems:?}"
    );
    // the rows agree where the predictions say the op works and it did
    let obs = Observations::from_json(FIXTURE).unwrap();
    let cells = matrix::from_json(&read("live/MATRIX.json")).unwrap();
    let ex = Explanations::default();
    let rows = compare(&obs, &Predictor::new(&cells), &ex);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().filter(|r| r.observed.ok()).all(|r| r.agrees()));
    std::fs::remove_dir_all(&dir).unwrap();
}
