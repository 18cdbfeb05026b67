//! The job a server hosts, and the answer to a client's `PMIX_REQ_CMD` in the layout a
//! server built on OpenPMIx's gds `hash` sends (`register_info` in `gds_hash.c`): the
//! nspace (STRING), then one KVAL per pack call: the job-level keys, the session array
//! (`pmix.ssn.arr`), one node array per node (`pmix.node.arr`), and per rank a
//! `pmix.pblob` BYTE_OBJECT holding that rank (PROC_RANK) and its KVALs. No status comes
//! first; the client's gds reads KVALs until the buffer ends.
//!
//! The keys come in the order Slurm 24.11 with libpmix 5.0.7 sends them; the unit
//! test `reply_matches_the_slurm_capture` compares the bytes with a reply Slurm sent.

use pmix_codec::{Codec, DataArray, DataType, Info, Item, Kval, Value};

/// `PMIX_RANK_WILDCARD`.
pub const RANK_WILDCARD: u32 = 0xffff_fffe;
/// `PMIX_RANK_UNDEF`.
pub const RANK_UNDEF: u32 = 0xffff_ffff;

/// One job on one node: every rank is local.
#[derive(Clone, Debug)]
pub struct Job {
    /// The namespace.
    pub nspace: String,
    /// Number of ranks.
    pub size: u32,
    /// The node's name.
    pub hostname: String,
    /// The job id (`pmix.jobid`).
    pub jobid: String,
    /// The job's session directory (`pmix.nsdir`).
    pub nsdir: String,
    /// The temporary directory (`pmix.tmpdir`).
    pub tmpdir: String,
    /// The effective uid (`pmix.euid`).
    pub euid: u32,
    /// The topology XML (`pmix.ltopo`), if any.
    pub topology: Option<String>,
    /// Extra job-level infos, packed after the standard ones.
    pub extra: Vec<Info>,
    /// Also send `pmix.lprocs` (the local procs as a DATA_ARRAY of PROC) in the node
    /// array: the 5.0 and 7.0 example clients ask for it; Slurm does not send it.
    pub local_procs: bool,
}

impl Job {
    /// A job of `size` ranks named `nspace` on this host.
    pub fn new(nspace: &str, size: u32) -> Job {
        let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|s| s.trim().to_string())
            .ok()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "localhost".to_string());
        let euid = std::fs::metadata("/proc/self")
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
            .unwrap_or(0);
        Job {
            nspace: nspace.to_string(),
            size,
            hostname,
            jobid: nspace.to_string(),
            nsdir: std::env::temp_dir()
                .join(format!("pmix-server-{nspace}"))
                .display()
                .to_string(),
            tmpdir: std::env::temp_dir().display().to_string(),
            euid,
            topology: None,
            extra: Vec::new(),
            local_procs: true,
        }
    }

    /// The ranks, comma-separated (`pmix.lpeers`).
    fn peers(&self) -> String {
        (0..self.size)
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The job-level keys, in Slurm's order; `client_version` is what the first client
    /// said in its connect message (the server caches it as `pmix.bfrops.mod`).
    pub fn job_level(&self, client_version: &str) -> Vec<Kval> {
        let mut v = vec![
            kv("pmix.spawned", Value::Bool(false)),
            kv("pmix.nsdir", Value::string(&self.nsdir)),
            kv("pmix.jobid", Value::string(&self.jobid)),
            kv("pmix.job.size", Value::Uint32(self.size)),
            kv("pmix.max.size", Value::Uint32(self.size)),
        ];
        if let Some(t) = &self.topology {
            v.push(kv("pmix.ltopo", Value::string(t)));
        }
        v.extend([
            kv("pmix.euid", Value::Uint32(self.euid)),
            kv(
                "pmix.anlmap",
                Value::string(&format!("(vector,(0,{},1))", self.size)),
            ),
            kv("pmix.num.nodes", Value::Uint32(1)),
            kv("pmix.nlist", Value::string(&self.hostname)),
            kv("pmix.bfrops.mod", Value::string(client_version)),
        ]);
        for i in &self.extra {
            v.push(Kval {
                key: Some(i.key.clone()),
                value: i.value.clone(),
            });
        }
        v
    }

    /// The session array (`pmix.ssn.arr`).
    pub fn session_array(&self) -> Kval {
        array(
            "pmix.ssn.arr",
            vec![
                Info::new("pmix.session.id", Value::Uint32(u32::MAX)),
                Info::new("pmix.tmpdir", Value::string(&self.tmpdir)),
                Info::new("pmix.tdir.rmclean", Value::Bool(true)),
                Info::new("pmix.univ.size", Value::Uint32(self.size)),
            ],
        )
    }

    /// The node array of the one node (`pmix.node.arr`).
    pub fn node_array(&self) -> Kval {
        let mut infos = vec![
            Info::new("pmix.hname", Value::string(&self.hostname)),
            Info::new("pmix.nodeid", Value::Uint32(0)),
            Info::new("pmix.node.size", Value::Uint32(self.size)),
            Info::new("pmix.lpeers", Value::string(&self.peers())),
            Info::new("pmix.lldr", Value::ProcRank(0)),
            Info::new("pmix.local.size", Value::Uint32(self.size)),
        ];
        if self.local_procs {
            infos.push(Info::new(
                "pmix.lprocs",
                Value::DataArray(Box::new(DataArray {
                    ty: DataType::PROC,
                    values: (0..self.size)
                        .map(|r| Value::proc(&self.nspace, r))
                        .collect(),
                })),
            ));
        }
        array("pmix.node.arr", infos)
    }

    /// The keys of one rank, in Slurm's order.
    pub fn rank_level(&self, rank: u32) -> Vec<Kval> {
        vec![
            kv("pmix.appnum", Value::Int(0)),
            kv("pmix.aldr", Value::Int(0)),
            kv("pmix.grank", Value::Uint32(rank)),
            kv("pmix.apprank", Value::Uint32(rank)),
            kv("pmix.lrank", Value::Uint16(rank as u16)),
            kv("pmix.nrank", Value::Uint16(rank as u16)),
            kv("pmix.hname", Value::string(&self.hostname)),
            kv("pmix.nodeid", Value::Uint32(0)),
        ]
    }

    /// The value a server holds for job-, session- or node-level `key` (the job-level keys,
    /// then the session array's, then the node array's), as OpenPMIx's hash finds it for a
    /// `PMIx_Get` of rank WILDCARD or UNDEF that the client could not answer itself.
    pub fn level_value(&self, key: &str, client_version: &str) -> Option<Value> {
        let arrays = [self.session_array(), self.node_array()];
        self.job_level(client_version)
            .into_iter()
            .chain(arrays.into_iter().flat_map(|a| {
                match a.value {
                    Value::DataArray(d) => d
                        .values
                        .into_iter()
                        .filter_map(|v| match v {
                            Value::Info(i) => Some(Kval {
                                key: Some(i.key),
                                value: i.value,
                            }),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                }
            }))
            .find(|k| k.key.as_ref().and_then(|t| t.as_str()) == Some(key))
            .map(|k| k.value)
    }

    /// The pack calls of the REQ reply.
    pub fn req_reply_items(
        &self,
        codec: &Codec,
        client_version: &str,
    ) -> pmix_codec::Result<Vec<Item>> {
        let mut items = vec![Item::one(Value::string(&self.nspace))];
        for k in self.job_level(client_version) {
            items.push(Item::one(Value::Kval(Box::new(k))));
        }
        items.push(Item::one(Value::Kval(Box::new(self.session_array()))));
        items.push(Item::one(Value::Kval(Box::new(self.node_array()))));
        for rank in 0..self.size {
            let mut blob = vec![Item::one(Value::ProcRank(rank))];
            for k in self.rank_level(rank) {
                blob.push(Item::one(Value::Kval(Box::new(k))));
            }
            let bytes = codec.encode(&blob)?;
            items.push(Item::one(Value::Kval(Box::new(kv(
                "pmix.pblob",
                Value::ByteObject(bytes.into()),
            )))));
        }
        Ok(items)
    }

    /// The REQ reply's bytes in `codec`.
    pub fn req_reply(&self, codec: &Codec, client_version: &str) -> pmix_codec::Result<Vec<u8>> {
        codec.encode(&self.req_reply_items(codec, client_version)?)
    }
}

fn kv(key: &str, value: Value) -> Kval {
    Kval {
        key: Some(key.into()),
        value,
    }
}

fn array(key: &str, infos: Vec<Info>) -> Kval {
    kv(
        key,
        Value::DataArray(Box::new(DataArray {
            ty: DataType::INFO,
            values: infos
                .into_iter()
                .map(|i| Value::Info(Box::new(i)))
                .collect(),
        })),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Component, Release};

    fn fixture() -> Vec<u8> {
        let text = include_str!("../tests/fixtures/slurm-24.11-req-reply-v41-without-ltopo.hex");
        let hex: String = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .flat_map(|l| l.chars())
            .filter(|c| !c.is_whitespace())
            .collect();
        (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    /// Slurm's job slurm.pmix.17.0: one rank on n1, as its stepd described it.
    fn slurm_job() -> Job {
        Job {
            nspace: "slurm.pmix.17.0".into(),
            size: 1,
            hostname: "n1".into(),
            jobid: "17.0".into(),
            nsdir: "/tmp/spmix_appdir_0_17.0".into(),
            tmpdir: "/tmp".into(),
            euid: 0,
            topology: None,
            extra: Vec::new(),
            local_procs: false,
        }
    }

    #[test]
    fn reply_matches_the_slurm_capture() {
        let codec =
            Codec::new(Component::V41, BufferKind::NonDescribed).with_release(Release::OpenPmix5_0);
        let ours = slurm_job().req_reply(&codec, "4.2.2rc2").unwrap();
        let theirs = fixture();
        assert_eq!(theirs.len(), 616);
        if ours != theirs {
            let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
            panic!(
                "REQ reply differs from Slurm's at byte {at:?} (ours {} bytes, Slurm's {})",
                ours.len(),
                theirs.len()
            );
        }
    }

    #[test]
    fn a_changed_value_is_seen_by_the_comparison() {
        let codec =
            Codec::new(Component::V41, BufferKind::NonDescribed).with_release(Release::OpenPmix5_0);
        let mut job = slurm_job();
        job.hostname = "n2".into();
        assert_ne!(job.req_reply(&codec, "4.2.2rc2").unwrap(), fixture());
        job = slurm_job();
        job.local_procs = true;
        assert_ne!(job.req_reply(&codec, "4.2.2rc2").unwrap(), fixture());
    }

    #[test]
    fn every_rank_gets_its_blob_in_every_component() {
        let job = Job::new("j", 3);
        for c in Component::ALL.into_iter().skip(1) {
            for k in [BufferKind::NonDescribed, BufferKind::FullyDescribed] {
                let codec = Codec::new(c, k);
                let items = job.req_reply_items(&codec, "x").unwrap();
                let blobs = items
                    .iter()
                    .filter(|i| {
                        matches!(&i.values[0], Value::Kval(kv) if kv.key.as_ref().and_then(|t| t.as_str()) == Some("pmix.pblob"))
                    })
                    .count();
                assert_eq!(blobs, 3, "{c} {k:?}");
                let bytes = codec.encode(&items).unwrap();
                let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
                assert_eq!(codec.decode(&bytes, &types).unwrap(), items, "{c} {k:?}");
            }
        }
    }
}
