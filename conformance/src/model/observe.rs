//! What the model shows: the introspection snapshot, the default-session probe, and the
//! answers to the queries a PMIx peer can make.

#[allow(unused_imports)]
use super::*;

impl Model {
    /// The observable state; info arrays of events are packed in the session's wire format.
    pub fn snapshot(&self) -> Result<Snapshot, String> {
        let mut s = Snapshot::default();
        for (n, node) in &self.nodes {
            s.nodes
                .insert(n.clone(), node.session.clone().unwrap_or_default());
        }
        for (id, al) in &self.allocs {
            s.allocations.insert(
                id.clone(),
                AllocView {
                    owning: al.owning.clone(),
                    owners: al.owners.iter().cloned().collect(),
                    reserved: al.reserved,
                    nodes: al.nodes.iter().cloned().collect(),
                    req_id: al.req_id.clone(),
                },
            );
        }
        for (name, ns) in &self.nspaces {
            s.jobs.insert(
                name.clone(),
                JobView {
                    kind: if ns.kind == NsKind::Tool {
                        "tool"
                    } else {
                        "app"
                    }
                    .into(),
                    state: match ns.state {
                        NsState::Running => "running",
                        NsState::Terminated => "terminated",
                        NsState::Killed => "killed",
                    }
                    .into(),
                    parent: ns.parent.clone().unwrap_or_default(),
                    nodes: ns.nodes.iter().cloned().collect(),
                },
            );
        }
        s.returned = self.returned.clone();
        s.killed = self.killed.clone();
        for e in &self.events {
            s.events.push(EventView {
                to: e.to.clone(),
                code: e.code.0,
                info: self.format.encode(&e.info)?,
            });
        }
        Ok(s)
    }

    /// The nodes an untargeted job of an unrelated tool lands on (the default session),
    /// computed by the same spawn path on a copy, so the model's state does not change.
    pub fn probe_default(&self) -> Result<Vec<String>, Reject> {
        if !self.started {
            // No DVM (never started or torn down): the probe lands nowhere.
            return Ok(Vec::new());
        }
        let mut copy = self.clone();
        let mut tool = String::from("probe");
        while copy.nspaces.contains_key(&tool) {
            tool.push('_');
        }
        copy.tool_connect(&tool)?;
        let rq = Requester {
            kind: RequesterKind::Tool,
            nspace: tool.clone(),
            rank: 0,
        };
        match copy.spawn(&rq, &format!("{tool}-job"), &[]) {
            Ok(c) => Ok(c),
            // An empty default session: the probe lands nowhere.
            Err(r) if r.status == Status::ERR_OUT_OF_RESOURCE => Ok(Vec::new()),
            Err(r) => Err(r),
        }
    }

    /// What PMIx peers observe: query answers and the events delivered so far.
    pub fn observed(&self) -> Result<Observed, String> {
        let mut o = Observed {
            alloc_ids: self.allocs.keys().cloned().collect(),
            ..Default::default()
        };
        for (id, al) in &self.allocs {
            o.allocations
                .insert(id.clone(), al.nodes.iter().cloned().collect());
        }
        for (name, ns) in &self.nspaces {
            if ns.state != NsState::Running {
                continue;
            }
            o.namespaces.push(name.clone());
            if ns.kind == NsKind::App {
                o.proc_table
                    .insert(name.clone(), ns.nodes.iter().cloned().collect());
            }
        }
        for e in &self.events {
            o.events.push(EventView {
                to: e.to.clone(),
                code: e.code.0,
                info: self.format.encode(&e.info)?,
            });
        }
        Ok(o)
    }

    /// The events raised so far from the `from`-th on, in order: recipient, code, infos
    /// (a live server delivers them; `observed` reports them encoded).
    pub fn events_from(&self, from: usize) -> Vec<(ProcRef, Status, Vec<Info>)> {
        self.events
            .iter()
            .skip(from)
            .map(|e| (e.to.clone(), e.code, e.info.clone()))
            .collect()
    }

    /// The nodes of the DVM now, sorted (startup nodes and granted ones).
    pub fn dvm_nodes(&self) -> Vec<String> {
        self.nodes.keys().cloned().collect()
    }
}
