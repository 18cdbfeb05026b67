//! How reservations end: namespace termination and the dispositions (NONE, DEFAULT, CHILD,
//! CHILD_DEFAULT), RELEASE and reclaim, the timeout warning, DVM teardown.

#[allow(unused_imports)]
use super::*;

impl Model {
    /// Namespace `nspace` terminates normally.
    pub fn terminate(&mut self, nspace: &str) -> Result<(), Reject> {
        self.require_started()?;
        match self.nspaces.get_mut(nspace) {
            Some(ns) if ns.state == NsState::Running => ns.state = NsState::Terminated,
            Some(_) => {
                return reject(
                    Status::ERR_BAD_PARAM,
                    format!("namespace {nspace} is not running"),
                )
            }
            None => return reject(Status::ERR_NOT_FOUND, format!("no namespace {nspace}")),
        }
        self.settle();
        Ok(())
    }

    /// Unconditional trigger 3: the scheduler terminates an allocation.
    pub fn reclaim(&mut self, id: &str) -> Result<(), Reject> {
        self.require_started()?;
        if !self.allocs.contains_key(id) {
            return reject(Status::ERR_NOT_FOUND, format!("no allocation {id:?}"));
        }
        self.return_to_scheduler(id);
        Ok(())
    }

    /// The scheduler's warning threshold for `id` is reached: relay to the requester only.
    pub fn timeout_warning(&mut self, id: &str, remaining: Option<u32>) -> Result<(), Reject> {
        self.require_started()?;
        let Some(al) = self.allocs.get(id) else {
            return reject(Status::ERR_NOT_FOUND, format!("no allocation {id:?}"));
        };
        // Advisory: without a (honored) request no warning is issued at all.
        let Some(threshold) = al.warn else {
            return Ok(());
        };
        // A mutant reports the requester's first allocation instead of this one.
        let al = if self.flaw(Mutant::WarningWrongAlloc) {
            self.allocs
                .values()
                .find(|o| o.requester == al.requester)
                .unwrap_or(al)
        } else {
            al
        };
        let id = self
            .allocs
            .iter()
            .find(|(_, o)| std::ptr::eq(*o, al))
            .map_or(id, |(k, _)| k.as_str());
        let mut info = vec![Info::new(attrs::ALLOC_ID, Value::string(id))];
        if let Some(r) = &al.req_id {
            info.push(Info::new(attrs::ALLOC_REQ_ID, Value::string(r)));
        }
        info.push(Info::new(
            attrs::TIME_REMAINING,
            Value::Uint32(remaining.unwrap_or(threshold)),
        ));
        let mut to = vec![al.requester.clone()];
        if self.flaw(Mutant::WarningBroadcast) {
            to.extend(
                al.owners
                    .iter()
                    .filter(|o| **o != al.requester.nspace)
                    .map(|o| ProcRef {
                        nspace: o.clone(),
                        rank: u32::MAX - 1,
                    }),
            );
        }
        for p in to {
            self.events.push(Event {
                to: p,
                code: Status::ALLOC_TIMEOUT_WARNING,
                info: info.clone(),
            });
        }
        Ok(())
    }

    /// Unconditional trigger 2: the DVM tears down and every session ends with it.
    pub fn teardown(&mut self) -> Result<(), Reject> {
        self.require_started()?;
        self.allocs.clear();
        let nodes: Vec<String> = self.nodes.keys().cloned().collect();
        // Every node departs, so the processes on them end with it.
        for (name, ns) in self.nspaces.iter_mut() {
            if ns.kind == NsKind::App && ns.state == NsState::Running {
                ns.state = NsState::Killed;
                self.killed.push(name.clone());
            }
        }
        self.returned.extend(nodes);
        self.nodes.clear();
        self.started = false;
        Ok(())
    }

    /// "Returned to the scheduler": the same path as an explicit release. Scheduler-owned
    /// nodes leave the DVM (killing what runs there); startup nodes revert to the default session.
    pub(super) fn return_to_scheduler(&mut self, id: &str) {
        let Some(al) = self.allocs.remove(id) else {
            return;
        };
        if self.flaw(Mutant::ReturnedTwice) && al.disposition == AllocInherit::None {
            self.ghosts.push((al.owning.clone(), al.nodes.clone()));
        }
        let mut departing = BTreeSet::new();
        for n in &al.nodes {
            match self.nodes.get_mut(n) {
                Some(node) if node.origin == Origin::Scheduler => {
                    departing.insert(n.clone());
                }
                Some(node) => node.session = None,
                None => {}
            }
        }
        if self.flaw(Mutant::UnreserveKills) {
            let staying: BTreeSet<String> = al.nodes.difference(&departing).cloned().collect();
            self.kill_on(&staying);
        }
        for n in &departing {
            self.nodes.remove(n);
            self.returned.push(n.clone());
        }
        self.kill_on(&departing);
        self.settle();
    }

    /// "Unreserved in session": the allocation goes away, its nodes join the default session.
    pub(super) fn unreserve(&mut self, id: &str) {
        let Some(al) = self.allocs.remove(id) else {
            return;
        };
        for n in &al.nodes {
            if let Some(node) = self.nodes.get_mut(n) {
                node.session = None;
            }
        }
        if self.flaw(Mutant::UnreserveKills) {
            self.kill_on(&al.nodes);
        }
    }

    /// DVM shrink: jobs on departing nodes are terminated.
    pub(super) fn kill_on(&mut self, nodes: &BTreeSet<String>) {
        for (name, ns) in self.nspaces.iter_mut() {
            if ns.kind == NsKind::App
                && ns.state == NsState::Running
                && !ns.nodes.is_disjoint(nodes)
            {
                ns.state = NsState::Killed;
                self.killed.push(name.clone());
            }
        }
    }

    pub(super) fn running(&self, ns: &str) -> bool {
        self.nspaces
            .get(ns)
            .is_some_and(|n| n.state == NsState::Running)
    }

    pub(super) fn ended(&self, ns: &str) -> bool {
        self.nspaces
            .get(ns)
            .is_some_and(|n| n.state != NsState::Running)
    }

    /// A mutant returns a released NONE allocation's nodes again at its owner's exit, taking
    /// them from whatever holds them now.
    pub(super) fn return_ghosts(&mut self) {
        let (due, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.ghosts)
            .into_iter()
            .partition(|(owning, _)| self.ended(owning));
        self.ghosts = keep;
        for (_, nodes) in due {
            for n in &nodes {
                for al in self.allocs.values_mut() {
                    al.nodes.remove(n);
                }
                match self.nodes.get(n).map(|x| x.origin) {
                    Some(Origin::Scheduler) => {
                        self.nodes.remove(n);
                        self.returned.push(n.clone());
                    }
                    Some(Origin::Startup) => {
                        if let Some(x) = self.nodes.get_mut(n) {
                            x.session = None;
                        }
                    }
                    None => {}
                }
            }
        }
    }

    /// Whether some namespace descending from `root` has ended.
    pub(super) fn has_ended_descendant(&self, root: &str) -> bool {
        self.nspaces.iter().any(|(name, ns)| {
            ns.state != NsState::Running && name != root && self.descends_from(name, root)
        })
    }

    pub(super) fn descends_from(&self, name: &str, root: &str) -> bool {
        let mut p = self.nspaces.get(name).and_then(|x| x.parent.clone());
        let mut guard = 0;
        while let Some(pp) = p {
            if pp == root {
                return true;
            }
            guard += 1;
            if guard > self.nspaces.len() {
                return false;
            }
            p = self.nspaces.get(&pp).and_then(|x| x.parent.clone());
        }
        false
    }

    /// Derived children: namespaces reachable from `root` through the spawn relationship, at any depth.
    pub(super) fn has_live_descendant(&self, root: &str) -> bool {
        self.nspaces.iter().any(|(name, ns)| {
            if ns.state != NsState::Running || name == root {
                return false;
            }
            let mut p = ns.parent.clone();
            let mut guard = 0;
            while let Some(pp) = p {
                if pp == root {
                    return true;
                }
                guard += 1;
                if guard > self.nspaces.len() {
                    return false;
                }
                p = self.nspaces.get(&pp).and_then(|x| x.parent.clone());
            }
            false
        })
    }

    /// Apply namespace-termination dispositions until nothing more fires.
    pub(super) fn settle(&mut self) {
        loop {
            let mut fire: Option<(String, bool)> = None; // (id, return_to_scheduler)
            for (id, al) in &self.allocs {
                let early = self.flaw(Mutant::ChildReleasesWhileOwnerRuns)
                    && matches!(
                        al.disposition,
                        AllocInherit::Child | AllocInherit::ChildDefault
                    )
                    && self.has_ended_descendant(&al.owning)
                    && !self.has_live_descendant(&al.owning);
                if !self.ended(&al.owning) && !early {
                    continue;
                }
                let drained = || {
                    if self.flaw(Mutant::ChildDrainByOwners) {
                        !al.owners.iter().any(|o| *o != al.owning && self.running(o))
                    } else {
                        !self.has_live_descendant(&al.owning)
                    }
                };
                let verdict = match al.disposition {
                    AllocInherit::None => Some(true),
                    AllocInherit::Default => Some(false),
                    AllocInherit::Child if self.flaw(Mutant::ChildNotDeferred) => Some(true),
                    AllocInherit::Child => drained().then_some(true),
                    AllocInherit::ChildDefault => drained().then_some(false),
                };
                if let Some(to_sched) = verdict {
                    fire = Some((id.clone(), to_sched));
                    break;
                }
            }
            match fire {
                Some((id, true)) => self.return_to_scheduler(&id),
                Some((id, false)) => self.unreserve(&id),
                None => {
                    self.return_ghosts();
                    break;
                }
            }
        }
    }
}
