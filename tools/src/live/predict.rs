//! Predictions: from the byte matrix (`vectors/MATRIX.json`, the cells of `MATRIX.md`), the
//! codec's release profiles and the quirk table, what one operation of a live cell should
//! do: work, differ (the two libraries pack its values to other bytes but each reads the
//! other's), or fail (one library cannot read what the other sends).
//!
//! The model: each [`Op`] carries a few values, each in one direction ([`payloads`]). A value
//! crosses as a KVAL, so the types it puts on the wire are KVAL, VALUE and every type inside
//! it. A payload is predicted to fail when the matrix cell of the writer and reader releases
//! in the negotiated component says the reader cannot read one of those types *and* the
//! codec's profiles of the two releases confirm it for this very value (the matrix lists a
//! type when any case of it fails; most cases of VALUE and DATA_ARRAY read fine). The evidence
//! names the MATRIX.md cell, the codec's finding and the quirks about the types.

use super::ops::{Op, TypeClass};
use crate::vectorgen::matrix::Cell;
use pmix_codec::quirks::QUIRKS;
use pmix_codec::{BufferKind, Codec, Component, DataType, Info, Item, Kval, Query, Release, Value};
use std::collections::BTreeSet;
use std::fmt;

/// What an operation does (predicted) or did (observed), as the heat maps colour it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// It works, and the bytes are the same.
    Works,
    /// It works, but the two libraries write other bytes or read other values.
    Differs,
    /// It fails.
    Fails,
}

impl Verdict {
    /// `works`, `differs` or `fails`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Works => "works",
            Verdict::Differs => "differs",
            Verdict::Fails => "fails",
        }
    }

    /// The verdict named `s`.
    pub fn parse(s: &str) -> Option<Verdict> {
        [Verdict::Works, Verdict::Differs, Verdict::Fails]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which way a payload travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Packed by the client's library, read by the server's.
    ToServer,
    /// Packed by the server's library, read by the client's.
    ToClient,
}

/// One value an operation puts on the wire.
#[derive(Clone, Debug)]
pub struct Payload {
    /// Which way it goes.
    pub direction: Direction,
    /// What it is (for the evidence text).
    pub what: &'static str,
    /// The value (sent as the value of a KVAL).
    pub value: Value,
}

fn payload(direction: Direction, what: &'static str, value: Value) -> Payload {
    Payload {
        direction,
        what,
        value,
    }
}

/// The value a put of `class` carries.
pub fn class_value(class: TypeClass) -> Value {
    match class {
        TypeClass::Int => Value::Int32(-7),
        TypeClass::Uint => Value::Uint64(1 << 40),
        TypeClass::FlexSize => Value::Size(300),
        TypeClass::Float => Value::Double(2.5),
        TypeClass::String => Value::string("a string value"),
        TypeClass::Bytes => Value::ByteObject(b"\x00\x01bytes".to_vec().into()),
        TypeClass::Proc => Value::proc("ns.1", 3),
        TypeClass::InfoArray => Value::InfoArray(vec![
            Info::new("k1", Value::Uint32(1)),
            Info::new("k2", Value::string("v")),
        ]),
        TypeClass::DataArray => Value::array(
            DataType::INFO,
            vec![
                Value::info("k1", Value::Uint32(1)),
                Value::info("k2", Value::string("v")),
            ],
        ),
        TypeClass::Value => Value::Value(Box::new(Value::Uint16(9))),
    }
}

/// The job-level information a server hands a client at init (and a get of job info reads).
fn job_info() -> Vec<Payload> {
    use Direction::ToClient;
    vec![
        payload(ToClient, "job size", Value::Uint32(2)),
        payload(ToClient, "namespace", Value::string("ns.1")),
        payload(ToClient, "rank", Value::ProcRank(0)),
        payload(
            ToClient,
            "node/app information array",
            Value::array(
                DataType::INFO,
                vec![
                    Value::info("pmix.hname", Value::string("n1")),
                    Value::info("pmix.nodeid", Value::Uint32(0)),
                ],
            ),
        ),
    ]
}

/// The values `op` carries, each with its direction.
pub fn payloads(op: Op) -> Vec<Payload> {
    use Direction::{ToClient, ToServer};
    match op {
        Op::Init | Op::GetJobInfo => job_info(),
        Op::PutCommitFenceGet(c) => vec![
            payload(ToServer, "committed value", class_value(c)),
            payload(ToClient, "other rank's value", class_value(c)),
        ],
        Op::AllocationInherit => vec![
            payload(ToServer, "allocation directive", Value::AllocDirective(1)),
            payload(ToServer, "inheritance", Value::AllocInherit(1)),
            payload(ToClient, "status", Value::Status(0)),
        ],
        Op::Query => vec![
            payload(
                ToServer,
                "query",
                Value::Query(Box::new(Query {
                    keys: vec![Some("pmix.qry.ns".into())],
                    qualifiers: vec![],
                })),
            ),
            payload(ToClient, "namespaces", Value::string("ns.1")),
        ],
        Op::Finalize => vec![payload(ToClient, "status", Value::Status(0))],
    }
}

/// The MATRIX type names a KVAL of `v` puts on the wire.
pub fn wire_types(v: &Value) -> BTreeSet<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        if let Some(n) = v.data_type().name() {
            out.insert(n.to_string());
        }
        match v {
            Value::Value(inner) => walk(inner, out),
            Value::Info(i) => walk(&i.value, out),
            Value::InfoArray(is) => is.iter().for_each(|i| walk(&i.value, out)),
            Value::Kval(k) => walk(&k.value, out),
            Value::DataArray(a) => {
                if let Some(n) = a.ty.name() {
                    out.insert(n.to_string());
                }
                a.values.iter().for_each(|x| walk(x, out));
            }
            Value::Query(q) => {
                out.insert("INFO".into());
                q.qualifiers.iter().for_each(|i| walk(&i.value, out));
            }
            _ => {}
        }
    }
    let mut out: BTreeSet<String> = ["KVAL", "VALUE"].map(String::from).into();
    walk(v, &mut out);
    out
}

/// The quirks that explain a cross-release difference of these MATRIX types.
pub fn quirks_for(types: &BTreeSet<String>) -> Vec<&'static str> {
    const TABLE: &[(&str, &[&str])] = &[
        ("INFO_ARRAY", &["R3-info-array-size-tag"]),
        ("MODEX", &["R3-info-array-size-tag"]),
        (
            "DATA_ARRAY",
            &[
                "R2-darray-undef-size",
                "U8-darray-element-storage",
                "C6-darray-after-undef",
            ],
        ),
        (
            "VALUE",
            &["U7-value-of-container", "R8-value-compressed-string-unpack"],
        ),
        ("PROC_STATS", &["R4-stats-types"]),
        ("DISK_STATS", &["R4-stats-types"]),
        ("NET_STATS", &["R4-stats-types"]),
        ("NODE_STATS", &["R4-stats-types"]),
        ("APP", &["U13-v12-app-info-end-flag", "L1-v12-type-numbers"]),
        ("TOPO", &["C1-topo-null-crash"]),
        ("ALLOC_INHERIT", &["R10-pointer-valued-types"]),
    ];
    let mut out = Vec::new();
    for (ty, ids) in TABLE {
        if types.contains(*ty) {
            for id in *ids {
                debug_assert!(QUIRKS.iter().any(|q| q.id == *id), "{id}");
                if !out.contains(id) {
                    out.push(*id);
                }
            }
        }
    }
    out
}

/// The prediction for one operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// The operation.
    pub op: Op,
    /// What it should do.
    pub verdict: Verdict,
    /// Why: MATRIX.md cells, the codec's finding, quirk ids, profile facts.
    pub evidence: Vec<String>,
}

/// The component a client (or tool) of `client` negotiates with a server of `server`: a
/// launched client takes the newest component both register (the server passes its list
/// in the client's environment); a tool offers only its newest, which the server must have.
pub fn negotiate(client: Release, server: Release, tool: bool) -> Result<Component, String> {
    let newest = |r: Release| r.components().iter().copied().max();
    let pick = if tool {
        newest(client).filter(|c| server.ships(*c))
    } else {
        client
            .components()
            .iter()
            .copied()
            .filter(|c| server.ships(*c))
            .max()
    };
    pick.ok_or_else(|| {
        format!(
            "release profiles: the {} side offers {}, the {} server registers {}",
            client.name(),
            if tool {
                newest(client)
                    .map(|c| c.name())
                    .unwrap_or("nothing")
                    .to_string()
            } else {
                names(client.components())
            },
            server.name(),
            names(server.components())
        )
    })
}

fn names(cs: &[Component]) -> String {
    cs.iter().map(|c| c.name()).collect::<Vec<_>>().join(" ")
}

/// The library release (`4.2.2`) whose profile judges a side, if it is a real library.
fn release_of(lib: &str) -> Option<Release> {
    Release::judged_by(lib)
}

/// What the codec's profiles say of a value written by one release and read by another.
#[derive(Clone, Debug, PartialEq)]
enum Cross {
    /// The writer's profile cannot pack it (e.g. a type its component does not register).
    CannotPack(String),
    /// The reader's profile fails on the writer's bytes, or reads something else.
    Unreadable(String),
    /// The reader reads it back; `true` when both profiles write the same bytes.
    Read(bool),
}

/// Pack `value` (as the value of a KVAL) with the `writer` profile and read it with the
/// `reader` profile.
fn codec_cross(
    value: &Value,
    component: Component,
    kind: BufferKind,
    writer: Release,
    reader: Release,
) -> Cross {
    let items = vec![Item::one(Value::Kval(Box::new(Kval {
        key: Some("pmix.test.key".into()),
        value: value.clone(),
    })))];
    let w = Codec::new(component, kind).with_release(writer);
    let r = Codec::new(component, kind).with_release(reader);
    let bytes = match w.encode(&items) {
        Ok(b) => b,
        Err(e) => return Cross::CannotPack(format!("the {writer} profile cannot pack it: {e}")),
    };
    match r.decode(&bytes[..], &[DataType::KVAL]) {
        Ok(got) if got == items => {
            Cross::Read(r.encode(&items).ok().as_deref() == Some(&bytes[..]))
        }
        Ok(got) => Cross::Unreadable(format!("the {reader} profile reads {got:?}")),
        Err(e) => Cross::Unreadable(format!("the {reader} profile cannot read it: {e}")),
    }
}

/// Predictions from the byte matrix.
pub struct Predictor<'a> {
    cells: &'a [Cell],
}

impl<'a> Predictor<'a> {
    /// A predictor over the cells of `vectors/MATRIX.json`.
    pub fn new(cells: &'a [Cell]) -> Self {
        Predictor { cells }
    }

    fn cell(&self, x: &str, y: &str, component: Component) -> Option<&'a Cell> {
        self.cells.iter().find(|c| {
            c.component == component && ((c.a == x && c.b == y) || (c.a == y && c.b == x))
        })
    }

    /// Predict every operation for a client of `client` (a library release or `pmix-peer`)
    /// against a server linking `server` (a release or `native`). `component`: the one the
    /// cell negotiated, or None to predict the negotiation too.
    pub fn predict(
        &self,
        client: &str,
        server: &str,
        tool: bool,
        component: Option<Component>,
        kind: BufferKind,
    ) -> Vec<Prediction> {
        let ops = Op::all();
        let (Some(cr), Some(sr)) = (release_of(client), release_of(server)) else {
            let codec_side = if release_of(client).is_none() {
                client
            } else {
                server
            };
            return ops
                .into_iter()
                .map(|op| Prediction {
                    op,
                    verdict: Verdict::Works,
                    evidence: vec![format!(
                        "{codec_side} is pmix-codec, which speaks each release's profile byte for byte (vectors/)"
                    )],
                })
                .collect();
        };
        let component = match component.map(Ok).unwrap_or_else(|| negotiate(cr, sr, tool)) {
            Ok(c) => c,
            Err(why) => {
                return ops
                    .into_iter()
                    .map(|op| Prediction {
                        op,
                        verdict: Verdict::Fails,
                        evidence: vec![format!("no common component: {why}")],
                    })
                    .collect()
            }
        };
        ops.into_iter()
            .map(|op| self.predict_op(op, client, server, (cr, sr), component, kind))
            .collect()
    }

    fn predict_op(
        &self,
        op: Op,
        client: &str,
        server: &str,
        (cr, sr): (Release, Release),
        component: Component,
        kind: BufferKind,
    ) -> Prediction {
        let mut verdict = Verdict::Works;
        let mut evidence = Vec::new();
        let listed = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        for p in payloads(op) {
            let (writer, reader, wr, rr) = match p.direction {
                Direction::ToServer => (client, server, cr, sr),
                Direction::ToClient => (server, client, sr, cr),
            };
            let types = wire_types(&p.value);
            let cell = self.cell(writer, reader, component);
            let unread: BTreeSet<String> = cell
                .and_then(|c| c.cannot_read(writer, reader))
                .map(|s| s.intersection(&types).cloned().collect())
                .unwrap_or_default();
            let differ: BTreeSet<String> = cell
                .map(|c| c.pack_differs.intersection(&types).cloned().collect())
                .unwrap_or_default();
            let at = match cell {
                Some(c) => format!("MATRIX.md \"{}\" {component}", c.pair_heading()),
                None if writer == reader => format!("same release ({writer}) {component}"),
                None => format!("MATRIX.md: no cell for {writer} and {reader} {component}"),
            };
            let codec = codec_cross(&p.value, component, kind, wr, rr);
            match &codec {
                Cross::CannotPack(why) => {
                    verdict = verdict.max(Verdict::Fails);
                    evidence.push(format!("{at}: {} cannot be sent: {why}", p.what));
                }
                Cross::Unreadable(why) if !unread.is_empty() => {
                    verdict = verdict.max(Verdict::Fails);
                    evidence.push(format!(
                        "{at}: {writer} bytes {reader} cannot read {} ({}: {why})",
                        listed(&unread),
                        p.what
                    ));
                }
                Cross::Unreadable(why) => {
                    verdict = verdict.max(Verdict::Fails);
                    evidence.push(format!("{at}: release profiles ({}): {why}", p.what));
                }
                Cross::Read(same) if !unread.is_empty() => {
                    verdict = verdict.max(Verdict::Differs);
                    evidence.push(format!(
                        "{at}: {writer} bytes {reader} cannot read {} in some cases, but the profiles read this {} alike{}",
                        listed(&unread),
                        p.what,
                        if *same { "" } else { " (from other bytes)" }
                    ));
                }
                Cross::Read(same) => {
                    if !differ.is_empty() || !same {
                        verdict = verdict.max(Verdict::Differs);
                        evidence.push(format!(
                            "{at}: packed differently: {} ({})",
                            if differ.is_empty() {
                                "the profiles' bytes".to_string()
                            } else {
                                listed(&differ)
                            },
                            p.what
                        ));
                    }
                }
            }
            if !matches!(codec, Cross::Read(_)) || !unread.is_empty() {
                let q = quirks_for(if unread.is_empty() { &types } else { &unread });
                if !q.is_empty() {
                    evidence.push(format!("quirks: {}", q.join(", ")));
                }
            }
        }
        if evidence.is_empty() {
            evidence.push(if client == server {
                format!("same release ({client}) {component}: one library on both sides")
            } else {
                format!("MATRIX.md \"{client} and {server}\" {component}: no type of this operation differs")
            });
        }
        Prediction {
            op,
            verdict,
            evidence,
        }
    }
}
