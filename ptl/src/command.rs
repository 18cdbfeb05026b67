//! The commands a tool sends, each a typed request whose bytes come from the codec, and
//! the typed answers. Argument order per OpenPMIx (client side):
//!
//! | command | code | request after `pmix_cmd_t` | reply |
//! |---|---|---|---|
//! | finalize | 5 | — | (anything; the tool library ignores it) |
//! | spawn | 9 | `size_t ninfo`, infos, `size_t napps`, apps | status, nspace (STRING), job info (KVAL …) |
//! | register events | 13 | `size_t ncodes`, codes (STATUS), `size_t ninfo`, infos | status |
//! | query | 15 | `size_t nqueries`, queries | status, `size_t ninfo`, infos |
//! | allocation | 17 | directive (ALLOC_DIRECTIVE), `size_t ninfo`, infos | status, `size_t ninfo`, infos |
//! | job control | 18 | `size_t ntargets`, procs, `size_t ndirs`, infos | status, `size_t ninfo`, infos |
//! | notify | 12 | status (STATUS), range (DATA_RANGE), `size_t ninfo`, infos | status |
//!
//! Sources: `src/common/pmix_alloc.c`, `src/client/pmix_client_spawn.c`,
//! `src/common/pmix_query.c`, `src/common/pmix_control.c`,
//! `src/event/pmix_event_registration.c`, `src/event/pmix_event_notification.c`,
//! `src/tool/pmix_tool.c`; codes from
//! `src/include/pmix_globals.h`. Arrays of length 0 are not packed at all.
//!
//! Payloads are packed and unpacked with the codec's own `Packer`/`Unpacker` (not `nom`):
//! the bfrops grammar, per component and release, already lives there, byte-exact with
//! libpmix; a second parser would only be a second place for it to be wrong.

use pmix_codec::{App, Codec, DataType, Info, Item, Proc, Query, Value};

use crate::error::{PtlError, Result};

/// `pmix_cmd_t` values (`src/include/pmix_globals.h`).
pub mod cmd {
    /// `PMIX_REQ_CMD`.
    pub const REQ: u8 = 0;
    /// `PMIX_FINALIZE_CMD`.
    pub const FINALIZE: u8 = 5;
    /// `PMIX_SPAWNNB_CMD`.
    pub const SPAWN: u8 = 9;
    /// `PMIX_NOTIFY_CMD`.
    pub const NOTIFY: u8 = 12;
    /// `PMIX_REGEVENTS_CMD`.
    pub const REGEVENTS: u8 = 13;
    /// `PMIX_QUERY_CMD`.
    pub const QUERY: u8 = 15;
    /// `PMIX_ALLOC_CMD`.
    pub const ALLOC: u8 = 17;
    /// `PMIX_JOB_CONTROL_CMD`.
    pub const JOB_CONTROL: u8 = 18;
}

/// `pmix_alloc_directive_t`: all five.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocDirective {
    /// `PMIX_ALLOC_NEW` (1).
    New = 1,
    /// `PMIX_ALLOC_EXTEND` (2).
    Extend = 2,
    /// `PMIX_ALLOC_RELEASE` (3).
    Release = 3,
    /// `PMIX_ALLOC_REAQUIRE` (4).
    Reacquire = 4,
    /// `PMIX_ALLOC_REQ_CANCEL` (5).
    Cancel = 5,
}

impl AllocDirective {
    /// Parse a name (`new extend release reacquire cancel`).
    pub fn from_name(s: &str) -> Result<AllocDirective> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "new" => AllocDirective::New,
            "extend" => AllocDirective::Extend,
            "release" => AllocDirective::Release,
            "reacquire" => AllocDirective::Reacquire,
            "cancel" => AllocDirective::Cancel,
            _ => {
                return Err(PtlError::Usage(format!(
                "unknown allocation directive '{s}' (valid: new extend release reacquire cancel)"
            )))
            }
        })
    }
}

fn infos_item(infos: &[Info]) -> Item {
    Item::new(
        DataType::INFO,
        infos
            .iter()
            .map(|i| Value::Info(Box::new(i.clone())))
            .collect(),
    )
}

fn push_counted(items: &mut Vec<Item>, n: usize, item: Item) {
    items.push(Item::one(Value::Size(n as u64)));
    if n > 0 {
        items.push(item);
    }
}

/// A request, before it is packed.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `PMIx_Allocation_request`.
    Alloc {
        /// The directive.
        directive: AllocDirective,
        /// Its infos.
        infos: Vec<Info>,
    },
    /// `PMIx_Spawn`.
    Spawn {
        /// Job infos (e.g. `PMIX_SPAWN_TARGET`).
        job_infos: Vec<Info>,
        /// The applications.
        apps: Vec<App>,
    },
    /// `PMIx_Query_info`.
    Query(Vec<Query>),
    /// `PMIx_Register_event_handler` (`codes` empty = every event).
    RegisterEvents {
        /// Status codes.
        codes: Vec<i32>,
        /// Infos.
        infos: Vec<Info>,
    },
    /// `PMIx_Job_control`.
    JobControl {
        /// Target processes.
        targets: Vec<Proc>,
        /// Directives (e.g. `PMIX_JOB_CTRL_KILL`).
        directives: Vec<Info>,
    },
    /// `PMIx_Notify_event`.
    Notify {
        /// The event's status code.
        status: i32,
        /// `pmix_data_range_t` (e.g. 5 = `PMIX_RANGE_GLOBAL`).
        range: u8,
        /// Infos.
        infos: Vec<Info>,
    },
    /// `PMIx_tool_finalize`.
    Finalize,
}

impl Request {
    /// The command code.
    pub fn command(&self) -> u8 {
        match self {
            Request::Alloc { .. } => cmd::ALLOC,
            Request::Spawn { .. } => cmd::SPAWN,
            Request::Query(_) => cmd::QUERY,
            Request::RegisterEvents { .. } => cmd::REGEVENTS,
            Request::JobControl { .. } => cmd::JOB_CONTROL,
            Request::Notify { .. } => cmd::NOTIFY,
            Request::Finalize => cmd::FINALIZE,
        }
    }

    /// A short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Alloc { .. } => "alloc",
            Request::Spawn { .. } => "spawn",
            Request::Query(_) => "query",
            Request::RegisterEvents { .. } => "register-events",
            Request::JobControl { .. } => "job-control",
            Request::Notify { .. } => "notify",
            Request::Finalize => "finalize",
        }
    }

    /// The pack calls of this request.
    pub fn items(&self) -> Vec<Item> {
        let mut items = vec![Item::one(Value::Command(self.command()))];
        match self {
            Request::Alloc { directive, infos } => {
                items.push(Item::one(Value::AllocDirective(*directive as u8)));
                push_counted(&mut items, infos.len(), infos_item(infos));
            }
            Request::Spawn { job_infos, apps } => {
                push_counted(&mut items, job_infos.len(), infos_item(job_infos));
                let apps_item = Item::new(
                    DataType::APP,
                    apps.iter()
                        .map(|a| Value::App(Box::new(a.clone())))
                        .collect(),
                );
                push_counted(&mut items, apps.len(), apps_item);
            }
            Request::Query(queries) => {
                let q = Item::new(
                    DataType::QUERY,
                    queries
                        .iter()
                        .map(|q| Value::Query(Box::new(q.clone())))
                        .collect(),
                );
                push_counted(&mut items, queries.len(), q);
            }
            Request::RegisterEvents { codes, infos } => {
                let c = Item::new(
                    DataType::STATUS,
                    codes.iter().map(|c| Value::Status(*c)).collect(),
                );
                push_counted(&mut items, codes.len(), c);
                push_counted(&mut items, infos.len(), infos_item(infos));
            }
            Request::JobControl {
                targets,
                directives,
            } => {
                let t = Item::new(
                    DataType::PROC,
                    targets.iter().map(|p| Value::Proc(p.clone())).collect(),
                );
                push_counted(&mut items, targets.len(), t);
                push_counted(&mut items, directives.len(), infos_item(directives));
            }
            Request::Notify {
                status,
                range,
                infos,
            } => {
                items.push(Item::one(Value::Status(*status)));
                items.push(Item::one(Value::DataRange(*range)));
                push_counted(&mut items, infos.len(), infos_item(infos));
            }
            Request::Finalize => {}
        }
        items
    }

    /// The payload bytes in `codec`'s component.
    pub fn encode(&self, codec: &Codec) -> Result<Vec<u8>> {
        Ok(codec.encode(&self.items())?)
    }
}

/// A reply of the shape status, `size_t ninfo`, infos (alloc, query, job control).
#[derive(Clone, Debug, PartialEq)]
pub struct InfoReply {
    /// The status.
    pub status: i32,
    /// The infos.
    pub infos: Vec<Info>,
}

impl InfoReply {
    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        find(&self.infos, key)
    }
}

/// The value of the first info named `key`.
pub fn find<'a>(infos: &'a [Info], key: &str) -> Option<&'a Value> {
    infos
        .iter()
        .find(|i| i.key.as_bytes() == key.as_bytes())
        .map(|i| &i.value)
}

/// Bound on the number of infos in one reply: no more than the payload's bytes (an info
/// takes more than one byte), so a lying count cannot make us allocate.
fn counted(n: u64, payload_len: usize, what: &str) -> Result<usize> {
    if n > payload_len as u64 {
        return Err(PtlError::malformed(
            what,
            format!("count {n} exceeds the {payload_len}-byte payload"),
        ));
    }
    Ok(n as usize)
}

/// Decode status, ninfo, infos.
pub fn decode_info_reply(codec: &Codec, payload: &[u8], what: &str) -> Result<InfoReply> {
    let mut u = codec.unpacker(payload);
    let status = match u.unpack(DataType::STATUS, 1)?.values.pop() {
        Some(Value::Status(s)) => s,
        other => return Err(PtlError::malformed(what, format!("status: {other:?}"))),
    };
    let mut infos = Vec::new();
    if u.remaining() > 0 {
        let n = match u.unpack(DataType::SIZE, 1)?.values.pop() {
            Some(Value::Size(n)) => counted(n, payload.len(), what)?,
            other => return Err(PtlError::malformed(what, format!("ninfo: {other:?}"))),
        };
        if n > 0 {
            for v in u.unpack(DataType::INFO, n)?.values {
                if let Value::Info(i) = v {
                    infos.push(*i);
                }
            }
        }
    }
    Ok(InfoReply { status, infos })
}

/// A spawn's answer: status and the new job's namespace.
#[derive(Clone, Debug, PartialEq)]
pub struct SpawnReply {
    /// The status.
    pub status: i32,
    /// The namespace (absent on failure).
    pub nspace: Option<String>,
    /// The job's info the server sends along for the tool's gds (one KVAL each).
    pub job_info: Vec<pmix_codec::Kval>,
}

/// Decode a spawn reply.
pub fn decode_spawn_reply(codec: &Codec, payload: &[u8]) -> Result<SpawnReply> {
    let mut u = codec.unpacker(payload);
    let status = match u.unpack(DataType::STATUS, 1)?.values.pop() {
        Some(Value::Status(s)) => s,
        other => return Err(PtlError::malformed("spawn reply", format!("{other:?}"))),
    };
    let mut nspace = None;
    if u.remaining() > 0 {
        if let Some(Value::String(Some(t))) = u.unpack(DataType::STRING, 1)?.values.pop() {
            nspace = Some(t.to_string());
        }
    }
    // each KVAL takes at least one byte, so the loop ends within the payload
    let mut job_info = Vec::new();
    while u.remaining() > 0 {
        if let Some(Value::Kval(k)) = u.unpack(DataType::KVAL, 1)?.values.pop() {
            job_info.push(*k);
        }
    }
    Ok(SpawnReply {
        status,
        nspace,
        job_info,
    })
}

/// An event notification received on tag 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The command (12 = NOTIFY).
    pub command: u8,
    /// The event's status code (e.g. `PMIX_DVM_IS_READY` -195).
    pub status: i32,
    /// Its source.
    pub source: Proc,
    /// Its infos.
    pub infos: Vec<Info>,
    /// The range, when sent.
    pub range: Option<u8>,
}

/// Decode an event (`pmix_tool_notify_recv`: cmd, status, source, ninfo, infos, \[range\]).
pub fn decode_event(codec: &Codec, payload: &[u8]) -> Result<Event> {
    let what = "event";
    let mut u = codec.unpacker(payload);
    let command = match u.unpack(DataType::COMMAND, 1)?.values.pop() {
        Some(Value::Command(c)) => c,
        other => return Err(PtlError::malformed(what, format!("cmd: {other:?}"))),
    };
    let status = match u.unpack(DataType::STATUS, 1)?.values.pop() {
        Some(Value::Status(s)) => s,
        other => return Err(PtlError::malformed(what, format!("status: {other:?}"))),
    };
    let source = match u.unpack(DataType::PROC, 1)?.values.pop() {
        Some(Value::Proc(p)) => p,
        other => return Err(PtlError::malformed(what, format!("source: {other:?}"))),
    };
    let n = match u.unpack(DataType::SIZE, 1)?.values.pop() {
        Some(Value::Size(n)) => counted(n, payload.len(), what)?,
        other => return Err(PtlError::malformed(what, format!("ninfo: {other:?}"))),
    };
    let mut infos = Vec::new();
    if n > 0 {
        for v in u.unpack(DataType::INFO, n)?.values {
            if let Value::Info(i) = v {
                infos.push(*i);
            }
        }
    }
    let mut range = None;
    if u.remaining() > 0 {
        if let Ok(item) = u.unpack(DataType::DATA_RANGE, 1) {
            if let Some(Value::DataRange(r)) = item.values.first() {
                range = Some(*r);
            }
        }
    }
    Ok(Event {
        command,
        status,
        source,
        infos,
        range,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Component};

    #[test]
    fn alloc_bytes_match_the_capture() {
        // Q5: 02 11 02 01 02 03 06 22 "pmix.alloc.nlist\0" 00 03 06 "n2\0" ...
        let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
        let req = Request::Alloc {
            directive: AllocDirective::New,
            infos: vec![
                Info::new("pmix.alloc.nlist", Value::string("n2")),
                Info::new("pmix.alloc.inhrt", Value::AllocInherit(2)),
                Info::new("pmix.alloc.reqid", Value::string("rq")),
            ],
        };
        let b = req.encode(&codec).unwrap();
        assert_eq!(b.len(), 76, "the capture's payload is 76 bytes");
        assert_eq!(&b[..8], &[0x02, 0x11, 0x02, 0x01, 0x02, 0x03, 0x06, 0x22]);
        let inh = b
            .windows(17)
            .position(|w| w == b"pmix.alloc.inhrt\0")
            .unwrap();
        assert_eq!(&b[inh + 17..inh + 20], &[0x00, 0x4b, 0x02]);
    }

    #[test]
    fn v51_cannot_carry_type_75() {
        let codec = Codec::new(Component::V51, BufferKind::NonDescribed);
        let req = Request::Alloc {
            directive: AllocDirective::New,
            infos: vec![Info::new("pmix.alloc.inhrt", Value::AllocInherit(2))],
        };
        assert!(req.encode(&codec).is_err());
    }

    #[test]
    fn lying_counts_are_refused_before_allocation() {
        let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
        // status 0, ninfo = 2^40
        let payload = codec
            .encode(&[Item::one(Value::Status(0)), Item::one(Value::Size(1 << 40))])
            .unwrap();
        assert!(decode_info_reply(&codec, &payload, "t").is_err());
    }

    #[test]
    fn directive_names() {
        assert_eq!(
            AllocDirective::from_name("NEW").unwrap(),
            AllocDirective::New
        );
        let e = AllocDirective::from_name("grow").unwrap_err().to_string();
        assert!(e.contains("new extend release reacquire cancel"));
    }
}
