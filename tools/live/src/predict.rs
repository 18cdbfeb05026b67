//! Predictions: from the byte matrix (`vectors/live/MATRIX.json`, the cells of `MATRIX.md`), the
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

use crate::ops::{JobKey, Op, TypeClass};
use pmix_codec::quirks::QUIRKS;
use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Kval, Query, Release, Value};
use pmix_oracle::matrix::Cell;
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
    /// The value.
    pub value: Value,
    /// True when it crosses as the value of a KVAL (put/commit data, a get's answer, job
    /// data), false when it is packed as itself (a request's arguments, a status).
    pub as_kval: bool,
}

impl Payload {
    /// The pack calls that carry it.
    pub fn items(&self) -> Vec<Item> {
        vec![Item::one(if self.as_kval {
            Value::Kval(Box::new(Kval {
                key: Some("pmix.test.key".into()),
                value: self.value.clone(),
            }))
        } else {
            self.value.clone()
        })]
    }
}

fn kval(direction: Direction, what: &'static str, value: Value) -> Payload {
    Payload {
        direction,
        what,
        value,
        as_kval: true,
    }
}

/// A PMIX_TIMEOUT directive of `seconds`.
fn timeout(seconds: i32) -> Value {
    Value::info("pmix.timeout", Value::Int(seconds))
}

fn arg(direction: Direction, what: &'static str, value: Value) -> Payload {
    Payload {
        direction,
        what,
        value,
        as_kval: false,
    }
}

/// The namespace the plain server registers (`tools/live/server.sh`); the proc class names it.
const LIVE_NSPACE: &str = "live";

/// The value rank `rank` puts for `class`, exactly as `tools/live/live-client.c`'s
/// `load_value` builds it (the other rank reads rank 1's value: rank 0 reads rank 1's).
pub fn class_value(class: TypeClass, rank: u32) -> Value {
    match class {
        TypeClass::Int => Value::Int32(-100_000 - rank as i32),
        TypeClass::Uint => Value::Uint64(0x12_3456_7890 + u64::from(rank)),
        TypeClass::FlexSize => Value::Size(70_000 + u64::from(rank)),
        TypeClass::Float => Value::Double(0.25 + f64::from(rank)),
        TypeClass::String => Value::string(&format!("live value of rank {rank}")),
        TypeClass::Bytes => Value::ByteObject(vec![1, 0, 2, 0, 3, rank as u8].into()),
        TypeClass::Proc => Value::proc(LIVE_NSPACE, rank),
        // PMIX_DATA_ARRAY of two PMIX_INFO (the client program's "info-array" class)
        TypeClass::InfoArray => Value::array(
            DataType::INFO,
            vec![
                Value::info("live.a", Value::string("first")),
                Value::info("live.b", Value::Uint32(7 + rank)),
            ],
        ),
        TypeClass::DataArray => Value::array(
            DataType::UINT32,
            vec![
                Value::Uint32(1),
                Value::Uint32(2),
                Value::Uint32(300 + rank),
            ],
        ),
        // PMIX_DATA_ARRAY of two PMIX_VALUE (the client program's "value" class)
        TypeClass::Value => Value::array(
            DataType::VALUE,
            vec![
                Value::Value(Box::new(Value::string("in a value"))),
                Value::Value(Box::new(Value::Uint16(40 + rank as u16))),
            ],
        ),
    }
}

/// The job data a server hands a launched client at init (with the hash gds it crosses the
/// wire as KVALs; a get of job info then reads it locally): what `peer/servers/plain-server.c`
/// registers (job, universe and local size, local peers, host name, and per rank a
/// PMIX_PROC_DATA array of rank, local rank, node rank, host name and node id).
fn job_info() -> Vec<Payload> {
    use Direction::ToClient;
    vec![
        kval(ToClient, "job size", Value::Uint32(2)),
        kval(ToClient, "local peers", Value::string("0,1")),
        kval(
            ToClient,
            "per-rank data array",
            Value::array(
                DataType::INFO,
                vec![
                    Value::info("pmix.rank", Value::ProcRank(1)),
                    Value::info("pmix.lrank", Value::Uint16(1)),
                    Value::info("pmix.nrank", Value::Uint16(1)),
                    Value::info("pmix.hname", Value::string("n1")),
                    Value::info("pmix.nodeid", Value::Uint32(0)),
                ],
            ),
        ),
    ]
}

/// The value a launcher sets for `key` (rank 1 of the plain servers' 2-rank job on one node),
/// as the client reads it back in a `job-key:<key>` operation.
pub fn job_key_value(key: JobKey) -> Value {
    match key {
        JobKey::JobSize | JobKey::LocalSize | JobKey::UnivSize => Value::Uint32(2),
        JobKey::LocalPeers => Value::string("0,1"),
        JobKey::Appnum | JobKey::NodeId => Value::Uint32(0),
        JobKey::LocalRank => Value::Uint16(1),
    }
}

/// A get of another rank's string `value` (`tools/live/live-client.c`'s field operations):
/// committed by that rank, asked for with `directives`, and answered.
fn string_get(value: &str, directives: Vec<Value>) -> Vec<Payload> {
    use Direction::{ToClient, ToServer};
    vec![
        kval(ToServer, "committed value", Value::string(value)),
        arg(
            ToServer,
            "get directives",
            Value::array(DataType::INFO, directives),
        ),
        kval(ToClient, "other rank's value", Value::string(value)),
    ]
}

/// The inheritance sent with the allocation request: `tools/live/live-client.c` sends type 75
/// (ALLOC_INHERIT) where the client's release defines it (its v61 registers the type), else
/// a UINT8 under the same key; pmix-peer (`client` None, `peer/src/live.rs`) sends type 75
/// where the negotiated component registers it.
pub fn inheritance_value(client: Option<Release>, component: Component) -> Value {
    let typed = match client {
        Some(r) => Component::V61.registers(DataType::ALLOC_INHERIT, r),
        None => component.registers(DataType::ALLOC_INHERIT, Release::Master),
    };
    if typed {
        Value::AllocInherit(2)
    } else {
        Value::Uint8(2)
    }
}

/// The values `op` carries, each with its direction, as `tools/live/live-client.c` sends
/// them from a client (or tool, `tool`) of release `client` in `component` (None:
/// pmix-peer, which takes the same values but for the inheritance's type).
pub fn payloads(op: Op, client: Option<Release>, tool: bool, component: Component) -> Vec<Payload> {
    use Direction::{ToClient, ToServer};
    match op {
        // a tool's id travels in the connect message (text, no PMIx type); the server's
        // answer to its job-data request starts with the tool's namespace
        Op::Init if tool => vec![arg(ToClient, "tool's namespace", Value::string("livetool"))],
        Op::Init | Op::GetJobInfo => job_info(),
        Op::PutCommitFenceGet(c) => vec![
            kval(ToServer, "committed value", class_value(c, 1)),
            arg(
                ToServer,
                "fence directives",
                Value::array(
                    DataType::INFO,
                    vec![
                        Value::info("pmix.collect", Value::Bool(true)),
                        Value::info("pmix.timeout", Value::Int(10)),
                    ],
                ),
            ),
            kval(ToClient, "other rank's value", class_value(c, 1)),
        ],
        Op::JobKey(k) => vec![kval(ToClient, "launcher's value", job_key_value(k))],
        Op::GetRankUndef => {
            let mut v = string_get("undef key of rank 1", vec![timeout(3)]);
            v.push(arg(
                ToServer,
                "proc of rank UNDEF",
                Value::proc(LIVE_NSPACE, u32::MAX),
            ));
            v
        }
        Op::GetRankWildcard => {
            let mut v = string_get("wildcard key of rank 1", vec![timeout(3)]);
            v.push(arg(
                ToServer,
                "proc of rank WILDCARD",
                Value::proc(LIVE_NSPACE, u32::MAX - 1),
            ));
            v
        }
        Op::FenceNodataGet => {
            let mut v = string_get("direct modex of rank 1", vec![timeout(3)]);
            v.push(arg(
                ToServer,
                "fence directives",
                Value::array(DataType::INFO, vec![timeout(6)]),
            ));
            v
        }
        Op::QualifiedValues => {
            let qualified = Value::array(
                DataType::INFO,
                vec![
                    Value::info("live.qual", Value::string("qualified a of rank 1")),
                    Value::info("live.qual.which", Value::string("a")),
                ],
            );
            vec![
                kval(ToServer, "qualified value", qualified.clone()),
                kval(ToClient, "other rank's qualified value", qualified),
            ]
        }
        Op::GetRefreshCache => string_get(
            "second value of rank 1",
            vec![
                timeout(3),
                Value::info("pmix.get.refresh", Value::Bool(true)),
            ],
        ),
        Op::GetWaitCommit => string_get("late value of rank 1", vec![]),
        Op::GetWaitCommitTimeout => string_get("late value of rank 1", vec![timeout(10)]),
        Op::EventNotify => {
            let payload = Value::array(
                DataType::INFO,
                vec![Value::info(
                    "live.event.payload",
                    Value::string("event of rank 1"),
                )],
            );
            vec![
                arg(ToServer, "event status", Value::Status(-3038)),
                arg(ToServer, "event payload", payload.clone()),
                arg(ToClient, "event status", Value::Status(-3038)),
                arg(ToClient, "event payload", payload),
            ]
        }
        Op::AbortSeen => vec![
            arg(ToServer, "abort status", Value::Int(38)),
            arg(
                ToServer,
                "abort message",
                Value::string("live-client: abort-seen"),
            ),
            arg(ToServer, "aborted proc", Value::proc(LIVE_NSPACE, 1)),
        ],
        Op::AllocationInherit => vec![
            arg(ToServer, "allocation directive", Value::AllocDirective(1)),
            arg(
                ToServer,
                "allocation directives",
                Value::array(
                    DataType::INFO,
                    vec![
                        Value::info("pmix.alloc.nnodes", Value::Uint64(1)),
                        Value::info("pmix.alloc.reqid", Value::string("live-live-0")),
                        Value::info("pmix.alloc.inhrt", inheritance_value(client, component)),
                    ],
                ),
            ),
            arg(ToClient, "status", Value::Status(0)),
            arg(
                ToClient,
                "allocation results",
                Value::array(
                    DataType::INFO,
                    vec![
                        Value::info("pmix.alloc.id", Value::string("plain.1")),
                        Value::info("pmix.alloc.reqid", Value::string("live-live-0")),
                    ],
                ),
            ),
        ],
        Op::Query => vec![
            arg(
                ToServer,
                "query",
                Value::Query(Box::new(Query {
                    keys: vec![Some("pmix.qry.ns".into())],
                    qualifiers: vec![],
                })),
            ),
            arg(ToClient, "status", Value::Status(0)),
            arg(
                ToClient,
                "namespaces",
                Value::info("pmix.qry.ns", Value::string(LIVE_NSPACE)),
            ),
        ],
        Op::Finalize => vec![arg(ToClient, "status", Value::Status(0))],
    }
}

/// The MATRIX type names a payload puts on the wire.
pub fn payload_types(p: &Payload) -> BTreeSet<String> {
    let mut out = wire_types(&p.value);
    if !p.as_kval {
        out.remove("KVAL");
        out.remove("VALUE");
        if let Some(n) = p.value.data_type().name() {
            out.insert(n.to_string());
        }
        // a VALUE inside (an INFO's value) still crosses as a VALUE
        if matches!(
            p.value,
            Value::Info(_) | Value::DataArray(_) | Value::Query(_)
        ) {
            out.insert("VALUE".into());
        }
    }
    out
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

/// Pack `payload` with the `writer` profile and read it with the
/// `reader` profile.
fn codec_cross(
    payload: &Payload,
    component: Component,
    kind: BufferKind,
    writer: Release,
    reader: Release,
) -> Cross {
    let items = payload.items();
    let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
    let w = Codec::new(component, kind).with_release(writer);
    let r = Codec::new(component, kind).with_release(reader);
    let bytes = match w.encode(&items) {
        Ok(b) => b,
        Err(e) => return Cross::CannotPack(format!("the {writer} profile cannot pack it: {e}")),
    };
    match r.decode(&bytes[..], &types) {
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
    /// A predictor over the cells of `vectors/live/MATRIX.json`.
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
        // pmix-codec (pmix-peer, pmix-server) speaks the profile of the library on the other
        // side byte for byte (vectors/): the pair is that library against itself, so what
        // that library cannot send even to its own release still fails.
        let codec_client = release_of(client).is_none();
        let (cr, sr) = match (release_of(client), release_of(server)) {
            (Some(c), Some(s)) => (c, s),
            (Some(r), None) | (None, Some(r)) => (r, r),
            (None, None) => {
                return ops
                    .into_iter()
                    .map(|op| Prediction {
                        op,
                        verdict: Verdict::Works,
                        evidence: vec![format!(
                            "{client} and {server} are both pmix-codec: one codec on both sides"
                        )],
                    })
                    .collect();
            }
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
            .map(|op| {
                self.predict_op(
                    op,
                    (client, server),
                    (cr, sr),
                    (tool, codec_client),
                    (component, kind),
                )
            })
            .collect()
    }

    fn predict_op(
        &self,
        op: Op,
        (client, server): (&str, &str),
        (cr, sr): (Release, Release),
        (tool, codec_client): (bool, bool),
        (component, kind): (Component, BufferKind),
    ) -> Prediction {
        let mut verdict = Verdict::Works;
        let mut evidence = Vec::new();
        let listed = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        let sender = (!codec_client).then_some(cr);
        for p in payloads(op, sender, tool, component) {
            let (writer, reader, wr, rr) = match p.direction {
                Direction::ToServer => (client, server, cr, sr),
                Direction::ToClient => (server, client, sr, cr),
            };
            let types = payload_types(&p);
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
                None if wr == rr => format!(
                    "one profile ({}) on both sides ({writer} and {reader}) {component}",
                    wr.name()
                ),
                None => format!("MATRIX.md: no cell for {writer} and {reader} {component}"),
            };
            let codec = codec_cross(&p, component, kind, wr, rr);
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
            evidence.push(if cr == sr {
                format!("one profile ({}) on both sides ({client} and {server}) {component}", cr.name())
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
