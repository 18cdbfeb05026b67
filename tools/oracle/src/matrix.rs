//! The cross-release matrix: for each pair of OpenPMIx library releases and each bfrops
//! component both register, which types the two pack to different bytes, and which bytes
//! packed by one the other cannot read back (it fails, or reads other values than the
//! packer's own unpacker does).
//!
//! Every cell is produced by the real libraries through their oracles (`tools/peers.sh`):
//! release A packs the corpus case, release B packs it too and unpacks A's bytes. pmix-codec
//! only chooses the inputs (the corpus of A's release profile).

use crate::corpus;
use crate::oracle::{Oracle, Reply};
use crate::tokens::write_item;
use pmix_codec::{BufferKind, Component, DataType, Item, Release};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What one library did with one case in one component and buffer kind.
#[derive(Clone, Debug)]
struct Outcome {
    /// The pack result: bytes, or the status.
    packed: Result<Vec<u8>, i32>,
    /// Its own unpack of its bytes, as tokens (or the status).
    own_read: Option<Result<String, i32>>,
}

/// One row of the matrix: releases `a` and `b`, one component, both buffer kinds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The first library release.
    pub a: String,
    /// The second library release.
    pub b: String,
    /// The shared component.
    pub component: Component,
    /// Cases compared (both kinds).
    pub cases: usize,
    /// Types whose pack calls give different bytes or statuses.
    pub pack_differs: BTreeSet<String>,
    /// Types whose bytes packed by `a` `b` cannot read as `a` does.
    pub b_cannot_read_a: BTreeSet<String>,
    /// Types whose bytes packed by `b` `a` cannot read as `b` does.
    pub a_cannot_read_b: BTreeSet<String>,
}

fn tokens(items: &[Item]) -> String {
    let mut t = Vec::new();
    for i in items {
        write_item(&mut t, i);
    }
    t.join(" ")
}

fn calls(items: &[Item]) -> Vec<(DataType, usize)> {
    items
        .iter()
        .map(|i| (i.ty, i.values.len().max(1)))
        .collect()
}

fn read(
    oracle: &mut Oracle,
    c: Component,
    k: BufferKind,
    bytes: &[u8],
    items: &[Item],
) -> Result<Result<String, i32>, String> {
    Ok(match oracle.unpack(c, k, bytes, &calls(items))? {
        Reply::Ok(got) => Ok(tokens(&got)),
        Reply::Err { status, .. } => Err(status),
        Reply::Crashed(_) => Err(i32::MIN),
        Reply::Bad(_) => Err(i32::MIN + 1),
    })
}

type Key = (Component, BufferKind, String);

/// Compute the matrix over `libraries` (each must be available: `tools/peers.sh make`).
/// `progress` is told each library as it starts.
pub fn compute(libraries: &[&str], progress: &mut dyn FnMut(&str)) -> Result<Vec<Cell>, String> {
    // The inputs: per component and kind, the union of the corpus cases of every release
    // profile, keyed by case name (the cases of a type a release lacks are still asked).
    let mut inputs: HashMap<(Component, BufferKind), BTreeMap<String, Vec<Item>>> = HashMap::new();
    for lib in libraries {
        let rel = Release::judged_by(lib).ok_or_else(|| format!("no profile for {lib}"))?;
        for &c in rel.components() {
            for k in BufferKind::ALL {
                let e = inputs.entry((c, k)).or_default();
                for case in corpus::cases(c, rel) {
                    e.entry(case.name).or_insert(case.items);
                }
            }
        }
    }
    let mut oracles: BTreeMap<&str, Oracle> = BTreeMap::new();
    let mut outcomes: BTreeMap<&str, HashMap<Key, Outcome>> = BTreeMap::new();
    for lib in libraries {
        progress(lib);
        let rel = Release::judged_by(lib).expect("checked above");
        let mut o = Oracle::start_for(lib)?;
        let mut mine = HashMap::new();
        for ((c, k), cases) in &inputs {
            if !rel.ships(*c) {
                continue;
            }
            for (name, items) in cases {
                let packed = match o.pack(*c, *k, items)? {
                    Reply::Ok(b) => Ok(b),
                    Reply::Err { status, .. } => Err(status),
                    Reply::Crashed(_) => Err(i32::MIN),
                    Reply::Bad(_) => Err(i32::MIN + 1),
                };
                let own_read = match &packed {
                    Ok(b) => Some(read(&mut o, *c, *k, b, items)?),
                    Err(_) => None,
                };
                mine.insert((*c, *k, name.clone()), Outcome { packed, own_read });
            }
        }
        outcomes.insert(lib, mine);
        oracles.insert(lib, o);
    }
    let mut cells = Vec::new();
    for (i, a) in libraries.iter().enumerate() {
        for b in &libraries[i + 1..] {
            let (ra, rb) = (
                Release::judged_by(a).unwrap(),
                Release::judged_by(b).unwrap(),
            );
            for &c in Component::ALL
                .iter()
                .filter(|c| ra.ships(**c) && rb.ships(**c))
            {
                let mut cell = Cell {
                    a: a.to_string(),
                    b: b.to_string(),
                    component: c,
                    cases: 0,
                    pack_differs: BTreeSet::new(),
                    b_cannot_read_a: BTreeSet::new(),
                    a_cannot_read_b: BTreeSet::new(),
                };
                for k in BufferKind::ALL {
                    for (name, items) in &inputs[&(c, k)] {
                        let key = (c, k, name.clone());
                        let (Some(oa), Some(ob)) = (outcomes[a].get(&key), outcomes[b].get(&key))
                        else {
                            continue;
                        };
                        cell.cases += 1;
                        let ty = name.split('.').next().unwrap_or(name).to_string();
                        if oa.packed != ob.packed {
                            cell.pack_differs.insert(ty.clone());
                        }
                        for (from, to, set) in [
                            (oa, *b, &mut cell.b_cannot_read_a),
                            (ob, *a, &mut cell.a_cannot_read_b),
                        ] {
                            if let (Ok(bytes), Some(own)) = (&from.packed, &from.own_read) {
                                let theirs = read(
                                    oracles.get_mut(to).expect("started"),
                                    c,
                                    k,
                                    bytes,
                                    items,
                                )?;
                                if own.is_ok() && &theirs != own {
                                    set.insert(ty.clone());
                                }
                            }
                        }
                    }
                }
                cells.push(cell);
            }
        }
    }
    Ok(cells)
}

fn list(s: &BTreeSet<String>) -> String {
    if s.is_empty() {
        "–".into()
    } else {
        s.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}

/// The matrix as the Markdown of `vectors/MATRIX.md`.
pub fn render(cells: &[Cell]) -> String {
    let mut s = String::from(
        "# Cross-release wire matrix\n\n\
         Generated by `pmix-vectors regenerate` (checked by `pmix-vectors regenerate --check`); do not edit.\n\n\
         For each pair of OpenPMIx library releases and each bfrops component both register: the types\n\
         whose pack calls give different bytes or statuses, and the types whose bytes, packed by one\n\
         release, the other cannot read back as the packer's own unpacker does (it fails, or reads other\n\
         values). Every cell comes from the real libraries through their oracles (`tools/peers.sh`):\n\
         A packs, B packs and unpacks A's bytes, and the other way round. The inputs are the union of\n\
         the corpus cases of the releases' profiles (`tools/oracle/src/corpus.rs`), in both buffer kinds; a\n\
         type is listed when any of its cases differs in either kind. Where B does not register a type\n\
         (e.g. 6.1.0's v61 has no ALLOC_INHERIT), B packs nothing and cannot read A's bytes of it.\n\n",
    );
    let mut by_pair: BTreeMap<(String, String), Vec<&Cell>> = BTreeMap::new();
    for c in cells {
        by_pair
            .entry((c.a.clone(), c.b.clone()))
            .or_default()
            .push(c);
    }
    for ((a, b), rows) in by_pair {
        s += &format!("## {a} and {b}\n\n");
        s += &format!("| component | cases | packed differently | {a} bytes {b} cannot read | {b} bytes {a} cannot read |\n");
        s += "|---|---:|---|---|---|\n";
        for c in rows {
            s += &format!(
                "| {} | {} | {} | {} | {} |\n",
                c.component,
                c.cases,
                list(&c.pack_differs),
                list(&c.b_cannot_read_a),
                list(&c.a_cannot_read_b)
            );
        }
        s += "\n";
    }
    s
}

impl Cell {
    /// The types whose bytes packed by `writer` the `reader` cannot read (None when the
    /// cell is not about that pair).
    pub fn cannot_read(&self, writer: &str, reader: &str) -> Option<&BTreeSet<String>> {
        if (writer, reader) == (self.a.as_str(), self.b.as_str()) {
            Some(&self.b_cannot_read_a)
        } else if (writer, reader) == (self.b.as_str(), self.a.as_str()) {
            Some(&self.a_cannot_read_b)
        } else {
            None
        }
    }

    /// The MATRIX.md heading of the cell's pair (`4.2.2 and 6.0.0`).
    pub fn pair_heading(&self) -> String {
        format!("{} and {}", self.a, self.b)
    }
}

fn set_json(s: &BTreeSet<String>) -> serde_json::Value {
    serde_json::Value::Array(s.iter().map(|t| t.as_str().into()).collect())
}

/// The matrix as the JSON of `vectors/live/MATRIX.json`: the same cells as `MATRIX.md`, for the
/// tools that predict from them (`pmix-wire compat`, `vectors/LIVE.md`).
pub fn to_json(cells: &[Cell]) -> String {
    let rows: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| {
            serde_json::json!({
                "a": c.a,
                "b": c.b,
                "component": c.component.name(),
                "cases": c.cases,
                "pack_differs": set_json(&c.pack_differs),
                "b_cannot_read_a": set_json(&c.b_cannot_read_a),
                "a_cannot_read_b": set_json(&c.a_cannot_read_b),
            })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&serde_json::json!({
        "generated_by": "pmix-vectors regenerate (the same cells as MATRIX.md); do not edit",
        "cells": rows,
    }))
    .expect("matrix json");
    s.push('\n');
    s
}

/// Read the cells back from the text [`to_json`] writes.
pub fn from_json(text: &str) -> Result<Vec<Cell>, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("MATRIX.json: {e}"))?;
    let rows = v["cells"]
        .as_array()
        .ok_or("MATRIX.json: no `cells` array")?;
    let text_of = |r: &serde_json::Value, k: &str| -> Result<String, String> {
        r[k].as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("MATRIX.json: a cell without `{k}`"))
    };
    let set_of = |r: &serde_json::Value, k: &str| -> Result<BTreeSet<String>, String> {
        r[k].as_array()
            .ok_or_else(|| format!("MATRIX.json: a cell without `{k}`"))?
            .iter()
            .map(|t| {
                t.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("MATRIX.json: `{k}` holds a non-string"))
            })
            .collect()
    };
    rows.iter()
        .map(|r| {
            Ok(Cell {
                a: text_of(r, "a")?,
                b: text_of(r, "b")?,
                component: text_of(r, "component")?
                    .parse()
                    .map_err(|e| format!("MATRIX.json: {e}"))?,
                cases: r["cases"]
                    .as_u64()
                    .ok_or("MATRIX.json: a cell without `cases`")? as usize,
                pack_differs: set_of(r, "pack_differs")?,
                b_cannot_read_a: set_of(r, "b_cannot_read_a")?,
                a_cannot_read_b: set_of(r, "a_cannot_read_b")?,
            })
        })
        .collect()
}
