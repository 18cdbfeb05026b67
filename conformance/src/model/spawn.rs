//! `PMIx_Spawn`: `PMIX_SPAWN_TARGET` resolution, ownership, the candidate pool, owner sets.

#[allow(unused_imports)]
use super::*;

impl Model {
    /// `PMIx_Spawn` of one job; returns the candidate nodes.
    pub fn spawn(
        &mut self,
        rq: &Requester,
        nspace: &str,
        info: &[Info],
    ) -> Result<Vec<String>, Reject> {
        self.check_requester(rq)?;
        if nspace.is_empty() || self.nspaces.contains_key(nspace) {
            return reject(
                Status::ERR_EXISTS,
                format!("namespace {nspace:?} is empty or already exists"),
            );
        }
        let mut entries: Option<Vec<String>> = None;
        for i in info {
            if i.key.as_bytes() == attrs::SPAWN_TARGET.as_bytes() {
                entries = Some(match &i.value {
                    Value::String(_) => vec![string_of(&i.value).unwrap_or_default()],
                    Value::DataArray(arr) if arr.ty == DataType::STRING && !arr.values.is_empty() => {
                        arr.values.iter().map(|v| string_of(v).unwrap_or_default()).collect()
                    }
                    v => return reject(Status::ERR_BAD_PARAM, format!("PMIX_SPAWN_TARGET must be a STRING or a non-empty DATA_ARRAY of STRING, got {}", v.data_type())),
                });
            }
        }
        // Absent (or unavailable): the default session.
        let entries = entries
            .filter(|_| self.available("PMIX_SPAWN_TARGET"))
            .unwrap_or_else(|| vec![String::new()]);

        // Resolve every entry; all-or-nothing ownership check.
        let mut use_default = false;
        let mut targets: Vec<String> = Vec::new();
        for e in &entries {
            if e.is_empty() {
                use_default = true;
                continue;
            }
            let Some(al) = self.allocs.get(e) else {
                return reject(
                    Status::ERR_NOT_FOUND,
                    format!("PMIX_SPAWN_TARGET {e:?} resolves to no session"),
                );
            };
            if !al.reserved {
                // A shared allocation's nodes live in the default session.
                use_default = true;
                continue;
            }
            let uid_owner = self.flaw(Mutant::ToolsOwnByUid) && rq.kind == RequesterKind::Tool;
            if rq.kind != RequesterKind::Scheduler && !al.owners.contains(&rq.nspace) && !uid_owner
            {
                if self.flaw(Mutant::SpawnNarrowed) {
                    continue;
                }
                return reject(
                    Status::ERR_NO_PERMISSIONS,
                    format!("{} does not own {e}", rq.nspace),
                );
            }
            targets.push(e.clone());
        }
        if targets.is_empty() && !use_default {
            return reject(Status::ERR_NO_PERMISSIONS, "no permitted session remains");
        }
        // The candidate pool is exactly the union of the permitted sessions.
        let mut candidates = BTreeSet::new();
        for (name, node) in &self.nodes {
            let in_target = node.session.as_ref().is_some_and(|s| targets.contains(s));
            let in_default =
                use_default && (node.session.is_none() || self.flaw(Mutant::ReservedVisible));
            if in_target || in_default {
                candidates.insert(name.clone());
            }
        }
        if candidates.is_empty() {
            return reject(
                Status::ERR_OUT_OF_RESOURCE,
                "the targeted sessions hold no nodes",
            );
        }
        // Ownership grows by spawn-into (whoever spawned, the scheduler too), and is not transitive.
        let grows =
            !(rq.kind == RequesterKind::Scheduler && self.flaw(Mutant::SchedulerSpawnNotOwner));
        for t in targets.iter().filter(|_| grows) {
            if let Some(al) = self.allocs.get_mut(t) {
                al.owners.insert(nspace.to_string());
            }
        }
        if self.flaw(Mutant::TransitiveOwnership) {
            for al in self.allocs.values_mut() {
                if al.owners.contains(&rq.nspace) {
                    al.owners.insert(nspace.to_string());
                }
            }
        }
        let parent = (rq.kind != RequesterKind::Scheduler).then(|| rq.nspace.clone());
        self.nspaces.insert(
            nspace.into(),
            Namespace {
                kind: NsKind::App,
                state: NsState::Running,
                parent,
                nodes: candidates.clone(),
            },
        );
        Ok(candidates.into_iter().collect())
    }
}
