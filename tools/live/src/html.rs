//! `vectors/LIVE.html`: the live matrix as one self-contained web page (issue 44), written
//! with `vectors/LIVE.md` by `pmix-vectors live` and stale-checked with it. It opens from
//! disk (no server, no network): the CSS and the script are inline and the data is one JSON
//! blob built from the same rows ([`Live::rows`]) and pair verdicts ([`Live::pairs`]) as
//! LIVE.md. The page shows the grid (client release × server), select boxes for client kind,
//! component, forced component, buffer, gds and psec that recompute each pair's verdict over
//! the cells that match, and a panel that a click on a grid cell fills with the pair's cells,
//! their operations, statuses, predictions, explanations and, where one is checked in, a
//! recorded conversation.
//!
//! Test hook: the page reads `location.hash` (`#click=4.2.2|plain-5.0.7&gds=hash`) on load
//! and on change, sets the filters it names and calls the same function a click calls
//! (`tools/live/tests/live_html.rs` drives it in headless Chromium).
//!
//! The words the grid shows come from [`Word`] alone (the script gets them from the data).

use crate::compare::{cell_text, CellJudgement, ExplanationKind, Outcome, PairVerdict, Row};
use crate::observations::{ClientKind, LiveCell};
use crate::predict::Verdict;
use crate::report::Live;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The word a grid cell shows (the page's script gets them, in this order, from the data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// No cell of the pair matches the filters.
    NoCell,
    /// No matching cell could be run (the harness says why).
    NotRun,
    /// Nothing failed but what is not the pair's fault.
    Works,
    /// The default cells work; a cell in another configuration fails or crashes.
    Differs,
    /// An operation failed, or the client stopped short, in a default cell.
    Fails,
    /// A process of a default cell was ended by a signal.
    Crash,
}

impl Word {
    /// Every word, in the order the script indexes them.
    pub const ALL: [Word; 6] = [
        Word::NoCell,
        Word::NotRun,
        Word::Works,
        Word::Differs,
        Word::Fails,
        Word::Crash,
    ];

    /// The text shown in the grid.
    pub fn as_str(self) -> &'static str {
        match self {
            Word::NoCell => "no cell",
            Word::NotRun => "not run",
            Word::Works => "works",
            Word::Differs => "differs",
            Word::Fails => "fails",
            Word::Crash => "crash",
        }
    }

    /// The CSS class (its colour).
    pub fn class(self) -> &'static str {
        match self {
            Word::NoCell => "v-none",
            Word::NotRun => "v-none",
            Word::Works => "v-works",
            Word::Differs => "v-differs",
            Word::Fails => "v-fails",
            Word::Crash => "v-fails",
        }
    }

    /// The word for an outcome (a pair's, or a cell's judgement).
    pub fn of(o: Outcome) -> Word {
        match o {
            Outcome::NotRun => Word::NotRun,
            Outcome::Works => Word::Works,
            Outcome::Differs => Word::Differs,
            Outcome::Fails => Word::Fails,
            Outcome::Crash => Word::Crash,
        }
    }

    /// The word for a prediction.
    pub fn of_verdict(v: Verdict) -> Word {
        Word::of(Outcome::from_verdict(v))
    }

    /// Its index in [`Word::ALL`] (what the data carries).
    pub fn index(self) -> usize {
        Word::ALL
            .iter()
            .position(|w| *w == self)
            .expect("every word is in ALL")
    }
}

/// The prefix of a pair's word when nothing of it was observed (a prediction).
pub const PREDICTED: &str = "predicted";

/// What one observed operation counts as for its pair (from its cell's judgement,
/// [`Live::judge`], the same one LIVE.md and `pmix-wire compat` use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    /// It succeeded.
    Ok,
    /// It failed, but not by the pair's fault (the host does not implement it, a server
    /// limit or a deployment effect).
    Limited,
    /// It failed the same way in the same configuration with one release on both sides.
    Excused,
    /// It failed, and counts against the pair.
    Fails,
}

impl OpClass {
    /// The class of a row of a cell judged `j`.
    pub fn of(r: &Row<'_>, j: &CellJudgement) -> OpClass {
        let name = r.observed.op.as_str();
        if r.observed.ok() {
            OpClass::Ok
        } else if r.server_limited() || j.host_limited.contains(&name) {
            OpClass::Limited
        } else if j.not_interop.contains(&name) {
            OpClass::Excused
        } else {
            OpClass::Fails
        }
    }

    /// `ok`, `limited`, `excused` or `fails` (the script's names).
    pub fn as_str(self) -> &'static str {
        match self {
            OpClass::Ok => "ok",
            OpClass::Limited => "limited",
            OpClass::Excused => "excused",
            OpClass::Fails => "fails",
        }
    }
}

/// The vectors directory of this checkout (where recorded conversations are looked up).
fn default_vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

fn kind_str(k: ClientKind) -> &'static str {
    match k {
        ClientKind::Client => "client",
        ClientKind::Tool => "tool",
    }
}

/// The recorded conversation a cell has, if any: `conversations/<server>/<component>-<buffer>.json`
/// under `vectors`, recorded by `pmix-peer` (so only for its cells), with its messages' comments.
fn conversation(vectors: &Path, cell: &LiveCell) -> Option<(String, Vec<String>)> {
    if cell.client_release != "pmix-peer" || cell.component.is_empty() {
        return None;
    }
    let rel = format!(
        "conversations/{}/{}-{}.json",
        cell.server, cell.component, cell.buffer
    );
    let text = std::fs::read_to_string(vectors.join(&rel)).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let msgs = v["tests"]
        .as_array()?
        .iter()
        .filter_map(|t| t["comment"].as_str())
        .map(|c| c.trim_start_matches("conversation: ").to_string())
        .collect();
    Some((rel, msgs))
}

/// The data blob the page's script reads.
pub fn data(live: &Live, vectors: &Path) -> Value {
    let rows = live.rows();
    let pairs = live.pairs(&rows);
    let clients = live.clients();
    let servers = live.servers();
    let explanations: Vec<Value> = live
        .explanations
        .explanations
        .iter()
        .map(|e| {
            json!({
                "kind": e.kind.as_str(),
                "open": e.kind == ExplanationKind::Open,
                "pattern": e.pattern(),
                "why": e.why,
                "evidence": e.evidence,
            })
        })
        .collect();
    let cells: &[LiveCell] = live.observations.as_ref().map_or(&[], |o| &o.cells);
    let cell_index = |c: &LiveCell| cells.iter().position(|x| std::ptr::eq(x, c));
    let mut convs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // the texts of the operations, each once (many cells see the same texts)
    let mut strs: Vec<String> = Vec::new();
    let mut out_cells: Vec<Value> = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        // planted cells never count for a pair (LIVE.md lists them apart)
        if cell.plant.is_some() {
            continue;
        }
        let judged = live.judge(&rows, cell);
        let ops: Vec<Value> = rows
            .iter()
            .filter(|r| cell_index(r.cell) == Some(i))
            .map(|r| {
                let class = OpClass::of(r, &judged);
                let explanation = r.explanation.and_then(|e| {
                    live.explanations
                        .explanations
                        .iter()
                        .position(|x| std::ptr::eq(x, e))
                });
                let mut intern = |t: &str| intern(&mut strs, t);
                json!([
                    intern(&r.observed.op.as_str()),
                    r.observed.status,
                    intern(&r.observed.status_name),
                    intern(&r.observed.observed),
                    intern(r.prediction.verdict.as_str()),
                    intern(class.as_str()),
                    explanation,
                ])
            })
            .collect();
        let conv = conversation(vectors, cell).map(|(rel, msgs)| {
            convs.insert(rel.clone(), msgs);
            rel
        });
        out_cells.push(json!({
            "c": clients.iter().position(|c| *c == cell.client_release),
            "s": servers.iter().position(|s| *s == cell.server),
            "key": cell.key(),
            "kind": kind_str(cell.client_kind),
            "component": if cell.component.is_empty() { "?" } else { &cell.component },
            "forced": if cell.component_forced { "forced" } else { "negotiated" },
            "buffer": cell.buffer,
            "gds": cell.gds,
            "psec": cell.psec,
            "default": cell.is_default(),
            "w": Word::of(judged.outcome).index(),
            "failing": judged.failing,
            "not_run": judged.not_run,
            "note": cell.note,
            "conv": conv,
            "ops": ops,
        }));
    }
    let pair_values: Vec<Value> = pairs.iter().map(pair_value).collect();
    let words: Vec<Value> = Word::ALL
        .iter()
        .map(|w| json!({"text": w.as_str(), "class": w.class()}))
        .collect();
    let provenance = live.observations.as_ref().map(|o| {
        json!({"date": o.provenance.date, "host": o.provenance.host, "command": o.provenance.command})
    });
    json!({
        "words": words,
        "predicted": PREDICTED,
        "clients": clients,
        "servers": servers,
        "pairs": pair_values,
        "cells": out_cells,
        "explanations": explanations,
        "conversations": convs,
        "strs": strs,
        "provenance": provenance,
    })
}

/// The index of `t` in `strs`, added when new.
fn intern(strs: &mut Vec<String>, t: &str) -> usize {
    match strs.iter().position(|x| x == t) {
        Some(i) => i,
        None => {
            strs.push(t.to_string());
            strs.len() - 1
        }
    }
}

fn pair_value(p: &PairVerdict) -> Value {
    json!({
        "client": p.client,
        "server": p.server,
        "observed": p.observed.is_some(),
        "word": Word::of(p.shown()).index(),
        "text": cell_text(p),
        "failing": p.shown_failing(),
        "not_interop": p.not_interop,
        "predicted": p.predicted.as_str(),
        "predicted_failing": p.predicted_failing,
    })
}

/// The whole of `vectors/LIVE.html` (conversations looked up in this checkout's `vectors/`).
pub fn render(live: &Live) -> String {
    render_with(live, &default_vectors())
}

/// The whole of `vectors/LIVE.html`, with recorded conversations looked up under `vectors`.
pub fn render_with(live: &Live, vectors: &Path) -> String {
    let blob = serde_json::to_string(&data(live, vectors))
        .expect("the data serializes")
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    let mut s = String::from(HEAD);
    s += "<script type=\"application/json\" id=\"data\">";
    s += &blob;
    s += "</script>\n<script>\n";
    s += SCRIPT;
    s += "</script>\n</body>\n</html>\n";
    s
}

const HEAD: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>pmix-wire: live interop matrix</title>
<!-- Generated by `pmix-vectors live` with LIVE.md (tools/live/src/html.rs); do not edit. -->
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1em 2em; color: #222; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
#filters label { margin-right: 1em; }
#filters select { font: inherit; }
table { border-collapse: collapse; }
#grid td, #grid th { border: 1px solid #bbb; padding: 4px 8px; text-align: center; }
#grid th { background: #eee; font-weight: 600; }
#grid td.pair { cursor: pointer; min-width: 5.5em; }
#grid td.pair:hover { outline: 2px solid #333; }
#grid td.selected { outline: 3px solid #036; }
.v-works { background: #cfeccf; }
.v-differs { background: #fbe7a8; }
.v-fails { background: #f4b4b4; }
.v-none { background: #f4f4f4; color: #888; }
.predicted { font-style: italic; opacity: .7; }
#detail { margin-top: 1em; border-top: 2px solid #333; padding-top: .5em; }
#detail table { margin: .3em 0 1em; font-size: 13px; }
#detail td, #detail th { border: 1px solid #ccc; padding: 2px 6px; vertical-align: top; text-align: left; }
#detail .cfg { font-family: monospace; }
tr.fails td { background: #fbe0e0; }
tr.limited td { background: #f3f3f3; }
.obs { max-width: 40em; overflow-wrap: anywhere; }
.small { color: #555; font-size: 12px; }
</style>
</head>
<body>
<h1>Live interop matrix</h1>
<p class="small">Client release (rows) against server (columns), from <code>vectors/live/observations.json</code>; the same data as <a href="LIVE.md">LIVE.md</a>. <span id="provenance"></span> Click a cell for its operations. <code>crash</code>: a process of a default cell was ended by a signal; <code>fails</code>: an operation failed, or the client stopped short, in a default cell; <code>differs</code>: only a cell in another configuration fails or crashes; <code>works</code>: nothing failed but what fails the same way with one release on both sides, or what the host does not implement; <code>not run</code>: the harness could not run it (the cell says why); <i>predicted</i>: not observed, the byte matrix's prediction. Planted cells are left out.</p>
<div id="filters"></div>
<table id="grid"></table>
<div id="detail"><p>Click a cell of the grid.</p></div>
"#;

const SCRIPT: &str = r#"'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
// The operations' texts are interned: [op, status, status name, observed, predicted, class,
// explanation, baseline cells] with the texts as indexes into D.strs.
for (const c of D.cells) c.ops = c.ops.map(o => [D.strs[o[0]], o[1], D.strs[o[2]], D.strs[o[3]], D.strs[o[4]], D.strs[o[5]], o[6], o[7]]);
const FILTERS = ['kind', 'component', 'forced', 'buffer', 'gds', 'psec'];
const filter = {};
let selected = null;
const NOCELL = 0, NOTRUN = 1, WORKS = 2, DIFFERS = 3, FAILS = 4, CRASH = 5;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
function matches(cell) {
  return FILTERS.every(f => !filter[f] || cell[f] === filter[f]);
}
// An op counts against the pair when its cell's judgement (made in Rust, as for LIVE.md)
// says so: not a host limitation, not the same failure with one release on both sides.
function opCounts(op) {
  return op[5] === 'fails';
}
// A cell's word is its judgement: not run, works, fails or crash (a crash or a client that
// stopped short fails its cell even with no failing operation).
function cellWord(cell) {
  return cell.w;
}
function pairCells(ci, si) {
  return D.cells.filter(c => c.c === ci && c.s === si);
}
// The word index of a pair under the filters, or null for a prediction (nothing observed):
// a crash or failure of a default cell, else differs when another cell fails or crashes,
// not run when no matching cell ran (the rule of LIVE.md, compare::pair_verdict).
function pairWord(ci, si) {
  const all = pairCells(ci, si);
  if (all.length === 0) return null;
  const mine = all.filter(matches);
  if (mine.length === 0) return NOCELL;
  const ran = mine.filter(c => c.w !== NOTRUN);
  if (ran.length === 0) return NOTRUN;
  if (ran.some(c => c.default && c.w === CRASH)) return CRASH;
  if (ran.some(c => c.default && c.w === FAILS)) return FAILS;
  if (ran.some(c => c.w === FAILS || c.w === CRASH)) return DIFFERS;
  return WORKS;
}
function pairOf(ci, si) {
  return D.pairs.find(p => p.client === D.clients[ci] && p.server === D.servers[si]);
}
function buildFilters() {
  const box = document.getElementById('filters');
  for (const f of FILTERS) {
    const values = [...new Set(D.cells.map(c => c[f]))].sort();
    const sel = el('select', {id: 'f-' + f}, el('option', {value: ''}, 'all'));
    for (const v of values) sel.append(el('option', {value: v}, v));
    sel.addEventListener('change', () => { filter[f] = sel.value; render(); });
    box.append(el('label', {}, f + ' ', sel));
  }
}
function render() {
  const grid = document.getElementById('grid');
  grid.textContent = '';
  const head = el('tr', {}, el('th', {}, 'client \\ server'));
  D.servers.forEach(s => head.append(el('th', {}, s)));
  grid.append(head);
  D.clients.forEach((c, ci) => {
    const tr = el('tr', {}, el('th', {}, c));
    D.servers.forEach((s, si) => {
      const w = pairWord(ci, si);
      const p = pairOf(ci, si);
      let td;
      if (w === null) {
        const wp = D.words[p.word];
        td = el('td', {class: 'pair predicted ' + wp.class, 'data-word': D.predicted + ' ' + wp.text}, D.predicted + ' ' + wp.text);
      } else {
        const wd = D.words[w];
        td = el('td', {class: 'pair ' + wd.class, 'data-word': wd.text}, wd.text);
      }
      td.dataset.client = c;
      td.dataset.server = s;
      td.title = p.text;
      if (selected && selected[0] === ci && selected[1] === si) td.classList.add('selected');
      td.addEventListener('click', () => show(ci, si));
      tr.append(td);
    });
    grid.append(tr);
  });
  if (selected) show(selected[0], selected[1]);
}
function explanationBlock(i) {
  const e = D.explanations[i];
  return el('li', {}, el('b', {}, '#' + (i + 1) + ' ' + e.kind + (e.open ? ' (open: not yet traced to a cause)' : '') + ': '),
    e.pattern, el('br'), 'why: ' + e.why, el('br'), 'evidence: ' + e.evidence);
}
// Fill the detail panel with one pair's cells: what a click on a grid cell does.
function show(ci, si) {
  selected = [ci, si];
  document.querySelectorAll('#grid td.selected').forEach(t => t.classList.remove('selected'));
  const td = document.querySelector('#grid td[data-client="' + D.clients[ci] + '"][data-server="' + D.servers[si] + '"]');
  if (td) td.classList.add('selected');
  const p = pairOf(ci, si);
  const box = document.getElementById('detail');
  box.textContent = '';
  const w = pairWord(ci, si);
  const word = w === null ? D.predicted + ' ' + D.words[p.word].text : D.words[w].text;
  box.append(el('h2', {}, D.clients[ci] + ' × ' + D.servers[si] + ': ', el('span', {class: 'verdict'}, word)));
  box.append(el('details', {}, el('summary', {}, 'All cells, as LIVE.md: ' + (p.observed ? '' : D.predicted + ' ') +
    D.words[p.word].text + ' (' + p.failing.length + ' failing operations)'), el('p', {}, p.text)));
  box.append(el('p', {}, 'Predicted from the bytes: ' + p.predicted +
    (p.predicted_failing.length ? ' (' + p.predicted_failing.join(', ') + ')' : '') + '.' +
    (p.not_interop.length ? ' Not interop failures (fail with one release on both sides too, or a server limit): ' + p.not_interop.join(', ') + '.' : '')));
  const all = pairCells(ci, si);
  const mine = all.filter(matches);
  if (all.length === 0) { box.append(el('p', {}, 'No cell of this pair was observed: the verdict is the prediction.')); return; }
  box.append(el('p', {}, mine.length + ' of ' + all.length + ' cells match the filters.'));
  const used = new Set();
  for (const c of mine) {
    const cw = D.words[cellWord(c)].text + (c.not_run ? ': ' + c.not_run : '') +
      (c.failing.length ? ' (' + c.failing.join('; ') + ')' : '');
    box.append(el('h3', {class: 'cfg'}, c.key + ' — ' + cw + (c.default ? ' (default cell)' : '')));
    if (c.note) box.append(el('p', {class: 'small'}, 'note: ' + c.note));
    const t = el('table', {}, el('tr', {}, ...['operation', 'status', 'observed', 'predicted', 'agrees', 'counts', 'explanation'].map(h => el('th', {}, h))));
    for (const op of c.ops) {
      const ok = op[1] === 0;
      const agrees = (op[4] === 'fails') !== ok;
      const counts = ok ? 'ok' : op[5] === 'limited' ? 'not the pair (host or server limit)' : opCounts(op) ? 'against the pair' : 'not the pair (fails with one release too)';
      if (op[6] !== null) used.add(op[6]);
      t.append(el('tr', {class: ok ? '' : (opCounts(op) ? 'fails' : 'limited')},
        el('td', {class: 'op'}, op[0]), el('td', {}, op[1] + ' ' + op[2]), el('td', {class: 'obs'}, op[3]),
        el('td', {}, op[4]), el('td', {}, agrees ? 'yes' : 'no'), el('td', {}, counts),
        el('td', {}, op[6] === null ? '' : '#' + (op[6] + 1))));
    }
    box.append(t);
    if (c.conv) {
      const msgs = D.conversations[c.conv];
      const d = el('details', {}, el('summary', {}, 'recorded conversation of pmix-peer with this server in this component and buffer (' + msgs.length + ' messages, tools/prrte/conversations.sh, not this run): ', el('a', {href: c.conv}, c.conv)));
      const ol = el('ol', {class: 'small'});
      msgs.forEach(m => ol.append(el('li', {}, m)));
      d.append(ol);
      box.append(d);
    } else {
      box.append(el('p', {class: 'small'}, 'no capture recorded'));
    }
  }
  if (used.size) {
    box.append(el('h3', {}, 'Explanations'));
    const ul = el('ul', {});
    [...used].sort((a, b) => a - b).forEach(i => ul.append(explanationBlock(i)));
    box.append(ul);
  }
}
// The test hook: #click=CLIENT|SERVER&gds=hash&... sets the filters and calls show().
function fromHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  for (const f of FILTERS) {
    filter[f] = h.get(f) || '';
    const sel = document.getElementById('f-' + f);
    if (sel) sel.value = filter[f];
  }
  selected = null;
  const click = h.get('click');
  render();
  if (click) {
    const [c, s] = click.split('|');
    const ci = D.clients.indexOf(c), si = D.servers.indexOf(s);
    if (ci >= 0 && si >= 0) show(ci, si);
  }
}
// Self-check: without filters the grid must say what LIVE.md says.
function selfCheck() {
  const bad = [];
  D.clients.forEach((c, ci) => D.servers.forEach((s, si) => {
    const p = pairOf(ci, si);
    const saved = Object.assign({}, filter);
    FILTERS.forEach(f => filter[f] = '');
    const w = pairWord(ci, si);
    Object.assign(filter, saved);
    if (p.observed && w !== p.word) bad.push(c + '|' + s);
  }));
  document.body.dataset.check = bad.length ? 'mismatch: ' + bad.join(', ') : 'ok';
}
if (D.provenance) document.getElementById('provenance').textContent = 'Observed ' + D.provenance.date + ' on ' + D.provenance.host + '.';
buildFilters();
selfCheck();
fromHash();
window.addEventListener('hashchange', fromHash);
"#;
