//! What the server knows between messages: who is connected, what each rank committed,
//! the fences in progress and the gets waiting for data. Every operation returns the
//! replies to send ([`Outbox`]); the caller sends them after the lock is released, so a
//! slow client never holds the others up.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use pmix_codec::{Codec, Item, Kval, Status, Value};

use crate::job::{Job, RANK_WILDCARD};

/// The writing half of a connection, shared by whoever answers on it.
pub type Writer = Arc<crate::outgoing::Outgoing>;

/// Where a reply goes.
#[derive(Clone)]
pub struct ReplyTo {
    /// The connection's writer.
    pub writer: Writer,
    /// The connection's id (its index in the server's peer table).
    pub conn: u32,
    /// The codec of the connection's component.
    pub codec: Codec,
    /// The tag of the request.
    pub tag: u32,
}

/// Replies to send once the state lock is released.
pub type Outbox = Vec<(ReplyTo, Vec<u8>)>;

/// Send one framed reply (network-order header, pindex 0 as real servers send).
pub fn send(to: &ReplyTo, payload: &[u8]) -> std::io::Result<()> {
    let mut wire = Vec::with_capacity(16 + payload.len());
    wire.extend_from_slice(&0i32.to_be_bytes());
    wire.extend_from_slice(&to.tag.to_be_bytes());
    wire.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    wire.extend_from_slice(&0u32.to_be_bytes());
    wire.extend_from_slice(payload);
    to.writer.send(wire)
}

/// A status-only payload (empty if the codec refuses, which a codec the handshake accepted
/// does not: the server never panics on a peer's choice).
pub fn status_payload(codec: &Codec, status: i32) -> Vec<u8> {
    codec
        .encode(&[Item::one(Value::Status(status))])
        .unwrap_or_default()
}

struct Fence {
    participants: BTreeSet<u32>,
    arrived: BTreeMap<u32, ReplyTo>,
}

/// What one rank committed: its KVALs in the order first put, and where each key is (a
/// later put of a key replaces the value in place). The index makes a commit of `n` keys
/// cost O(n), not a search of everything committed per key (a 100,000-key commit took 43 s
/// with that search).
#[derive(Default)]
struct Committed {
    kvs: Vec<Kval>,
    index: HashMap<Option<pmix_codec::Text>, usize>,
}

impl Committed {
    fn put(&mut self, k: Kval) {
        match self.index.get(&k.key) {
            Some(&i) => self.kvs[i] = k,
            None => {
                self.index.insert(k.key.clone(), self.kvs.len());
                self.kvs.push(k);
            }
        }
    }

    fn has(&self, key: &str) -> bool {
        self.index.contains_key(&Some(pmix_codec::Text::from(key)))
    }
}

/// Most gets one connection may have waiting for data (a rank that never commits): one more
/// is answered `PMIX_ERR_OUT_OF_RESOURCE` at once. OpenPMIx has no such bound; a real client
/// has one get in flight per thread.
pub const MAX_PENDING_GETS: usize = 1024;

/// Most fences one rank may have entered and not seen complete: one more is answered
/// `PMIX_ERR_OUT_OF_RESOURCE` at once. A real client is in one fence at a time
/// (`PMIx_Fence`), a few with `PMIx_Fence_nb`.
pub const MAX_PENDING_FENCES: usize = 64;

/// The longest key a GETNB may ask for (`PMIX_MAX_KEYLEN`, 511 bytes): a longer one is
/// answered `PMIX_ERR_BAD_PARAM` (a libpmix client refuses such a key itself).
pub const MAX_KEY_LEN: usize = 511;

struct PendingGet {
    rank: u32,
    key: Option<String>,
    to: ReplyTo,
}

/// What happened to a rank, for the launcher and the report.
#[derive(Clone, Debug, Default)]
pub struct RankRecord {
    /// It completed the handshake.
    pub connected: bool,
    /// It sent FINALIZE.
    pub finalized: bool,
    /// Its connection is gone.
    pub gone: bool,
    /// The bfrops component it spoke.
    pub component: Option<String>,
    /// The buffer kind it spoke.
    pub buffer: Option<String>,
    /// The version string it sent.
    pub version: Option<String>,
}

/// A client's call to `PMIx_Abort`.
#[derive(Clone, Debug)]
pub struct AbortRecord {
    /// The rank that called it.
    pub rank: u32,
    /// The status it gave.
    pub status: i32,
    /// Its message.
    pub message: String,
    /// The ranks to abort (all, when it named none or the wildcard).
    pub targets: Vec<u32>,
}

/// The server's state.
pub struct State {
    /// The job.
    pub job: Job,
    /// The version the first client gave (cached once as `pmix.bfrops.mod`, as OpenPMIx
    /// packs the job data once per namespace).
    pub first_version: Option<String>,
    /// What each rank put and committed, key order kept, later puts replacing earlier.
    committed: BTreeMap<u32, Committed>,
    fences: Vec<Fence>,
    /// Per rank: the fences it is in, not yet complete.
    fences_of: BTreeMap<u32, usize>,
    gets: Vec<PendingGet>,
    /// Per connection: its gets waiting.
    gets_of: BTreeMap<u32, usize>,
    /// Per rank: connected, finalized, gone.
    pub ranks: BTreeMap<u32, RankRecord>,
    /// Aborts, in order.
    pub aborts: Vec<AbortRecord>,
    /// Connection id -> rank, for clients.
    pub conn_rank: BTreeMap<u32, u32>,
}

impl State {
    /// A fresh state for `job`.
    pub fn new(job: Job) -> State {
        State {
            job,
            first_version: None,
            committed: BTreeMap::new(),
            fences: Vec::new(),
            fences_of: BTreeMap::new(),
            gets: Vec::new(),
            gets_of: BTreeMap::new(),
            ranks: BTreeMap::new(),
            aborts: Vec::new(),
            conn_rank: BTreeMap::new(),
        }
    }

    /// A JSON report: per rank what it spoke and how it ended, and the aborts.
    pub fn report(&self) -> serde_json::Value {
        let ranks: Vec<serde_json::Value> = self
            .ranks
            .iter()
            .map(|(r, x)| {
                serde_json::json!({"rank": r, "connected": x.connected, "finalized": x.finalized,
                    "gone": x.gone, "component": x.component, "buffer": x.buffer,
                    "version": x.version})
            })
            .collect();
        let aborts: Vec<serde_json::Value> = self
            .aborts
            .iter()
            .map(|a| serde_json::json!({"rank": a.rank, "status": a.status, "message": a.message, "targets": a.targets}))
            .collect();
        serde_json::json!({"nspace": self.job.nspace, "size": self.job.size, "ranks": ranks, "aborts": aborts})
    }

    /// Every rank has finalized or gone.
    pub fn all_done(&self) -> bool {
        (0..self.job.size).all(|r| {
            self.ranks
                .get(&r)
                .is_some_and(|x| x.connected && (x.finalized || x.gone))
        })
    }

    /// A rank committed `kvs`: store them and answer the gets that waited for them.
    pub fn commit(&mut self, rank: u32, kvs: Vec<Kval>) -> Outbox {
        let slot = self.committed.entry(rank).or_default();
        for k in kvs {
            slot.put(k);
        }
        let mut out = Outbox::new();
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.gets)
            .into_iter()
            .partition(|g| g.rank == rank);
        self.gets = waiting;
        for g in ready {
            self.unwait_get(g.to.conn);
            let p = self.get_reply(&g.to.codec, rank, g.key.as_deref());
            out.push((g.to, p));
        }
        out
    }

    /// The GETNB answer for `rank`'s data: status 0 and one BYTE_OBJECT holding the PROC
    /// and all its KVALs (`assemb_kvs_req` of gds hash), or NOT_FOUND when it committed
    /// nothing or not the `key` asked for (as a plain OpenPMIx server answers).
    fn get_reply(&self, codec: &Codec, rank: u32, key: Option<&str>) -> Vec<u8> {
        let Some(data) = self
            .committed
            .get(&rank)
            .filter(|c| key.is_none_or(|k| c.has(k)))
        else {
            return status_payload(codec, Status::ERR_NOT_FOUND.0);
        };
        let mut blob = vec![Item::one(Value::proc(&self.job.nspace, rank))];
        for k in &data.kvs {
            blob.push(Item::one(Value::Kval(Box::new(k.clone()))));
        }
        let built = codec.encode(&blob).and_then(|b| {
            codec.encode(&[
                Item::one(Value::Status(0)),
                Item::one(Value::ByteObject(b.into())),
            ])
        });
        // a value a client committed always encodes again in its own component; if not,
        // say so rather than send half a reply
        built.unwrap_or_else(|_| status_payload(codec, Status::ERR_PACK_FAILURE.0))
    }

    /// `PMIx_Get` of job-, session- or node-level `key` for `rank` WILDCARD or UNDEF, which
    /// a client asks its server when its own gds does not hold the job's data (a client
    /// that chose a shared-memory gds and was served hash's job data). Answered as
    /// OpenPMIx's `pmix_server_get` does from its own hash store (`get_job_data` for
    /// WILDCARD, `_satisfy_request` for UNDEF): status 0 and a byte object of the proc
    /// asked for and the one KVAL; status 0 alone when the key is not there.
    pub fn level_get(&self, codec: &Codec, rank: u32, key: &str) -> Vec<u8> {
        let version = self.first_version.as_deref().unwrap_or("");
        let Some(value) = self.job.level_value(key, version) else {
            return status_payload(codec, 0);
        };
        let kval = Kval {
            key: Some(key.into()),
            value,
        };
        let blob = [
            Item::one(Value::proc(&self.job.nspace, rank)),
            Item::one(Value::Kval(Box::new(kval))),
        ];
        let built = codec.encode(&blob).and_then(|b| {
            codec.encode(&[
                Item::one(Value::Status(0)),
                Item::one(Value::ByteObject(b.into())),
            ])
        });
        built.unwrap_or_else(|_| status_payload(codec, Status::ERR_PACK_FAILURE.0))
    }

    /// `PMIx_Get` of `rank`'s data (`key`: the key asked for, if any): answered now, or
    /// when `rank` commits (unless the client asked for an immediate answer, or `rank` is
    /// gone). A key longer than [`MAX_KEY_LEN`] is answered `PMIX_ERR_BAD_PARAM`; a get
    /// that would wait while its connection already has [`MAX_PENDING_GETS`] waiting,
    /// `PMIX_ERR_OUT_OF_RESOURCE`.
    pub fn get(&mut self, rank: u32, key: Option<String>, immediate: bool, to: ReplyTo) -> Outbox {
        if key.as_ref().is_some_and(|k| k.len() > MAX_KEY_LEN) {
            let p = status_payload(&to.codec, Status::ERR_BAD_PARAM.0);
            return vec![(to, p)];
        }
        let known = rank < self.job.size;
        let gone = self.ranks.get(&rank).is_some_and(|r| r.gone);
        if self.committed.contains_key(&rank) || !known || immediate || gone {
            let p = self.get_reply(&to.codec, rank, key.as_deref());
            return vec![(to, p)];
        }
        let waiting = self.gets_of.entry(to.conn).or_default();
        if *waiting >= MAX_PENDING_GETS {
            let p = status_payload(&to.codec, Status::ERR_OUT_OF_RESOURCE.0);
            return vec![(to, p)];
        }
        *waiting += 1;
        self.gets.push(PendingGet { rank, key, to });
        Vec::new()
    }

    /// One get of connection `conn` stopped waiting.
    fn unwait_get(&mut self, conn: u32) {
        if let Some(n) = self.gets_of.get_mut(&conn) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.gets_of.remove(&conn);
            }
        }
    }

    /// Fences `rank` is in and that have not completed.
    pub fn pending_fences(&self, rank: u32) -> usize {
        self.fences_of.get(&rank).copied().unwrap_or(0)
    }

    /// Gets connection `conn` has waiting.
    pub fn pending_gets(&self, conn: u32) -> usize {
        self.gets_of.get(&conn).copied().unwrap_or(0)
    }

    fn left_fence(&mut self, rank: u32) {
        if let Some(n) = self.fences_of.get_mut(&rank) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.fences_of.remove(&rank);
            }
        }
    }

    /// The ranks a fence over `procs` involves (WILDCARD = all); `None` if a proc is not
    /// of this job.
    pub fn participants(&self, procs: &[(String, u32)]) -> Option<BTreeSet<u32>> {
        let mut set = BTreeSet::new();
        if procs.is_empty() {
            set.extend(0..self.job.size);
        }
        for (ns, rank) in procs {
            if *ns != self.job.nspace {
                return None;
            }
            if *rank == RANK_WILDCARD {
                set.extend(0..self.job.size);
            } else if *rank < self.job.size {
                set.insert(*rank);
            } else {
                return None;
            }
        }
        Some(set)
    }

    /// `rank` enters the fence over `participants`; when all have, everyone gets status 0.
    /// A rank already in [`MAX_PENDING_FENCES`] fences is answered
    /// `PMIX_ERR_OUT_OF_RESOURCE`.
    pub fn fence(&mut self, rank: u32, participants: BTreeSet<u32>, to: ReplyTo) -> Outbox {
        if !participants.contains(&rank) {
            return vec![(
                to.clone(),
                status_payload(&to.codec, Status::ERR_BAD_PARAM.0),
            )];
        }
        // a participant already gone: the fence can never complete
        if participants
            .iter()
            .any(|r| self.ranks.get(r).is_some_and(|x| x.gone))
        {
            return vec![(
                to.clone(),
                status_payload(&to.codec, Status::ERR_LOST_CONNECTION.0),
            )];
        }
        if self.pending_fences(rank) >= MAX_PENDING_FENCES {
            return vec![(
                to.clone(),
                status_payload(&to.codec, Status::ERR_OUT_OF_RESOURCE.0),
            )];
        }
        let idx = match self
            .fences
            .iter()
            .position(|f| f.participants == participants && !f.arrived.contains_key(&rank))
        {
            Some(i) => i,
            None => {
                self.fences.push(Fence {
                    participants,
                    arrived: BTreeMap::new(),
                });
                self.fences.len() - 1
            }
        };
        self.fences[idx].arrived.insert(rank, to);
        *self.fences_of.entry(rank).or_default() += 1;
        let f = &self.fences[idx];
        if f.arrived.len() == f.participants.len() {
            let f = self.fences.remove(idx);
            for r in f.arrived.keys() {
                self.left_fence(*r);
            }
            f.arrived
                .into_values()
                .map(|to| {
                    let p = status_payload(&to.codec, 0);
                    (to, p)
                })
                .collect()
        } else {
            Vec::new()
        }
    }

    /// A connection ended: mark its rank gone, fail the fences that now cannot complete,
    /// answer NOT_FOUND to the gets waiting for its data, drop its own waiting gets.
    pub fn lost(&mut self, conn: u32) -> Outbox {
        let mut out = Outbox::new();
        self.gets.retain(|g| g.to.conn != conn);
        self.gets_of.remove(&conn);
        self.fences.retain_mut(|f| {
            f.arrived.retain(|_, to| to.conn != conn);
            // a fence nobody waits in any more is forgotten
            !f.arrived.is_empty()
        });
        let Some(rank) = self.conn_rank.remove(&conn) else {
            return out;
        };
        self.fences_of.remove(&rank);
        self.ranks.entry(rank).or_default().gone = true;
        let (dead, live): (Vec<_>, Vec<_>) = std::mem::take(&mut self.fences)
            .into_iter()
            .partition(|f| f.participants.contains(&rank) && !f.arrived.contains_key(&rank));
        self.fences = live;
        for f in dead {
            for (r, to) in f.arrived {
                self.left_fence(r);
                let p = status_payload(&to.codec, Status::ERR_LOST_CONNECTION.0);
                out.push((to, p));
            }
        }
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.gets)
            .into_iter()
            .partition(|g| g.rank == rank && !self.committed.contains_key(&rank));
        self.gets = waiting;
        for g in ready {
            self.unwait_get(g.to.conn);
            let p = status_payload(&g.to.codec, Status::ERR_NOT_FOUND.0);
            out.push((g.to, p));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Component, DataType};

    fn kv(key: &str, v: u32) -> Kval {
        Kval {
            key: Some(key.into()),
            value: Value::Uint32(v),
        }
    }

    /// The KVALs of a GETNB answer, as (key, value).
    fn served(codec: &Codec, reply: &[u8]) -> Vec<(String, Value)> {
        let items = codec
            .decode(reply, &[DataType::STATUS, DataType::BYTE_OBJECT])
            .unwrap();
        let Value::ByteObject(b) = &items[1].values[0] else {
            panic!("no byte object")
        };
        let mut u = codec.unpacker(&b[..]);
        u.unpack(DataType::PROC, 1).unwrap();
        let mut out = Vec::new();
        while u.remaining() > 0 {
            if let Some(Value::Kval(k)) = u.unpack(DataType::KVAL, 1).unwrap().values.pop() {
                out.push((
                    k.key.as_ref().and_then(|t| t.as_str()).unwrap().to_string(),
                    k.value,
                ));
            }
        }
        out
    }

    #[test]
    fn a_commit_of_many_keys_takes_linear_time_and_later_puts_replace() {
        let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
        let mut st = State::new(Job::new("lin", 2));
        let n = 100_000;
        let t = std::time::Instant::now();
        st.commit(0, (0..n).map(|i| kv(&format!("key-{i}"), i)).collect());
        // the same keys again, and one new: replaced in place, in first-put order
        st.commit(
            0,
            (0..n)
                .rev()
                .map(|i| kv(&format!("key-{i}"), i + 1))
                .chain([kv("last", 7)])
                .collect(),
        );
        let took = t.elapsed();
        // a search per key took 43 s for this; the index takes milliseconds
        assert!(
            took.as_secs_f64() < 2.0,
            "{n} keys committed twice in {took:?}"
        );
        let got = served(&codec, &st.get_reply(&codec, 0, Some("key-99999")));
        assert_eq!(got.len(), n as usize + 1);
        assert_eq!(got[0], ("key-0".to_string(), Value::Uint32(1)));
        assert_eq!(got[n as usize - 1].1, Value::Uint32(n));
        assert_eq!(got[n as usize], ("last".to_string(), Value::Uint32(7)));
        let missing = st.get_reply(&codec, 0, Some("nobody-put-this"));
        assert_eq!(missing, status_payload(&codec, Status::ERR_NOT_FOUND.0));
    }
}
