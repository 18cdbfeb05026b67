//! Allocation requests: NEW and EXTEND (the decision table, ownership, grants), RELEASE,
//! REAQUIRE and REQ_CANCEL, and the response's info array.

#[allow(unused_imports)]
use super::*;

impl Model {
    pub(super) fn parse_alloc_attrs(info: &[Info]) -> Result<AllocAttrs, Reject> {
        let mut a = AllocAttrs::default();
        for i in info {
            let key = i.key.to_string();
            let bad = |what: &str| Reject {
                status: Status::ERR_BAD_PARAM,
                message: format!("{key} must be {what}, got {}", i.value.data_type()),
            };
            match key.as_str() {
                attrs::ALLOC_TARGET => {
                    a.target = Some(string_of(&i.value).ok_or_else(|| bad("a STRING"))?)
                }
                attrs::ALLOC_ID => {
                    a.alloc_id = Some(string_of(&i.value).ok_or_else(|| bad("a STRING"))?)
                }
                attrs::ALLOC_REQ_ID => {
                    a.req_id = Some(string_of(&i.value).ok_or_else(|| bad("a STRING"))?)
                }
                attrs::ALLOC_SHARE => match i.value {
                    Value::Bool(b) => a.share = Some(b),
                    _ => return Err(bad("a BOOL")),
                },
                attrs::ALLOC_INHERITANCE => match i.value {
                    Value::AllocInherit(v) => a.inherit = Some(v),
                    _ => return Err(bad("an ALLOC_INHERIT")),
                },
                attrs::ALLOC_WARN_TIMEOUT => match i.value {
                    Value::Uint32(v) => a.warn = Some(v),
                    _ => return Err(bad("a UINT32")),
                },
                // Other keys (node counts, time, ...) are for the scheduler; the DVM ignores them.
                _ => {}
            }
        }
        Ok(a)
    }

    /// `PMIx_Allocation_request`. `grant` is what the scheduler hands back for NEW/EXTEND.
    pub fn alloc(
        &mut self,
        rq: &Requester,
        directive: u8,
        info: &[Info],
        grant: &[String],
    ) -> Result<AllocReply, Reject> {
        self.check_requester(rq)?;
        let a = Self::parse_alloc_attrs(info)?;
        let reply = self.alloc_directive(rq, directive, &a, grant);
        if a.req_id.is_some() {
            self.last_req_id = a.req_id.clone();
        }
        reply
    }

    pub(super) fn alloc_directive(
        &mut self,
        rq: &Requester,
        directive: u8,
        a: &AllocAttrs,
        grant: &[String],
    ) -> Result<AllocReply, Reject> {
        let a = AllocAttrs {
            target: a.target.clone(),
            share: a.share,
            inherit: a.inherit,
            warn: a.warn,
            alloc_id: a.alloc_id.clone(),
            req_id: a.req_id.clone(),
        };
        match directive {
            alloc_directive::NEW | alloc_directive::EXTEND => {
                self.alloc_new_or_extend(rq, directive, a, grant)
            }
            alloc_directive::RELEASE => {
                // Unconditional trigger 1: any owner (or the scheduler) releases. Inheritance is ignored.
                let id = self.find_alloc(rq, &a, directive)?;
                let info = self.reply_info(&id, a.req_id.as_deref());
                self.return_to_scheduler(&id);
                Ok(AllocReply { info })
            }
            alloc_directive::REAQUIRE | alloc_directive::REQ_CANCEL => {
                // Forwarded to the scheduler; the DVM changes no reservation on its own
                // initiative (conformance item 2). Inheritance is ignored, even if unsupported.
                Ok(AllocReply::default())
            }
            d => reject(
                Status::ERR_BAD_PARAM,
                format!("unknown allocation directive {d}"),
            ),
        }
    }

    pub(super) fn alloc_new_or_extend(
        &mut self,
        rq: &Requester,
        directive: u8,
        a: AllocAttrs,
        grant: &[String],
    ) -> Result<AllocReply, Reject> {
        // Error table row 7: a non-default inheritance value the host does not support.
        let disposition = match a.inherit {
            None if self.flaw(Mutant::DefaultNone) => None,
            // Default disposition: absent means DEFAULT.
            None => Some(AllocInherit::Default),
            Some(v) => match AllocInherit::from_u8(v) {
                Some(AllocInherit::Default) => Some(AllocInherit::Default),
                // Backward compatibility: without the attribute only DEFAULT can be had.
                Some(d) if self.available("PMIX_ALLOC_INHERITANCE") => Some(d),
                _ if self.flaw(Mutant::UnsupportedInheritanceIgnored) => {
                    Some(AllocInherit::Default)
                }
                _ => {
                    return reject(
                        Status::ERR_NOT_SUPPORTED,
                        format!(
                            "inheritance value {v} ({}) is not supported",
                            attrs::alloc_inheritance_string(v)
                        ),
                    )
                }
            },
        };
        let disposition_or_default = disposition.unwrap_or(AllocInherit::None);
        // Error table row 1: an application may not redirect a reservation — this rejection
        // holds even when the build lacks the attribute (conformance item 7).
        if a.target.is_some()
            && rq.kind == RequesterKind::App
            && !self.flaw(Mutant::AppTargetHonored)
        {
            return reject(
                Status::ERR_NO_PERMISSIONS,
                "an application request may not carry PMIX_ALLOC_TARGET",
            );
        }
        // Backward compatibility: unavailable attributes fall back to their defaults.
        let target = a
            .target
            .clone()
            .filter(|_| self.available("PMIX_ALLOC_TARGET"));
        let share = a
            .share
            .filter(|_| self.available("PMIX_ALLOC_SHARE"))
            .unwrap_or(false);
        let warn = a
            .warn
            .filter(|_| self.available("PMIX_ALLOC_WARN_TIMEOUT") && self.honors_warn);

        if directive == alloc_directive::EXTEND {
            let id = match self.find_alloc(rq, &a, directive) {
                Ok(id) => id,
                Err(e) => {
                    if self.flaw(Mutant::RejectedExtendSetsDisposition) {
                        if let Some(al) = a.alloc_id.as_ref().and_then(|i| self.allocs.get_mut(i)) {
                            al.disposition = disposition_or_default;
                        }
                    }
                    if self.flaw(Mutant::PartialExtend) && e.status == Status::ERR_NO_PERMISSIONS {
                        for n in grant {
                            self.nodes.entry(n.clone()).or_insert(Node {
                                origin: Origin::Scheduler,
                                session: None,
                            });
                        }
                    }
                    return Err(e);
                }
            };
            self.check_grant(grant)?;
            let reserved = self.allocs[&id].reserved;
            self.add_nodes(grant, reserved.then(|| id.clone()));
            let al = self.allocs.get_mut(&id).expect("found above");
            al.nodes.extend(grant.iter().cloned());
            // The disposition is "selected at creation" and "recorded at its creation": an
            // EXTEND validates its inheritance value (error row 7) but never replaces it
            // (reading disposition-at-creation).
            if a.inherit.is_some() && self.mutant == Some(Mutant::ExtendReplacesDisposition) {
                al.disposition = disposition_or_default;
            }
            if warn.is_some() {
                al.warn = warn;
            }
            return Ok(AllocReply {
                info: self.reply_info(&id, a.req_id.as_deref()),
            });
        }

        self.check_grant(grant)?;
        // Decision table: the owning namespace is the tool's TARGET, else the requester's own.
        let owning = match (rq.kind, target) {
            (RequesterKind::App, Some(t)) if self.flaw(Mutant::AppTargetHonored) => t,
            (RequesterKind::Tool | RequesterKind::Scheduler, Some(t)) => t,
            _ => rq.nspace.clone(),
        };
        // New versus extend: NEW always mints a fresh allocation id.
        let id = format!("alloc-{}", self.next_id);
        self.next_id += 1;
        // SHARE governs only the destination: reserved, or the default session.
        self.add_nodes(grant, (!share).then(|| id.clone()));
        self.allocs.insert(
            id.clone(),
            Alloc {
                req_id: a.req_id.clone(),
                owners: if self.flaw(Mutant::TargetRequesterOwns) {
                    BTreeSet::from([owning.clone(), rq.nspace.clone()])
                } else {
                    BTreeSet::from([owning.clone()])
                },
                owning,
                reserved: !share,
                disposition: disposition_or_default,
                requester: ProcRef {
                    nspace: rq.nspace.clone(),
                    rank: rq.rank,
                },
                nodes: grant.iter().cloned().collect(),
                warn,
            },
        );
        Ok(AllocReply {
            info: self.reply_info(&id, a.req_id.as_deref()),
        })
    }

    pub(super) fn check_grant(&self, grant: &[String]) -> Result<(), Reject> {
        if grant.is_empty() {
            return reject(Status::ERR_BAD_PARAM, "the scheduler granted no nodes");
        }
        for n in grant {
            match self.nodes.get(n) {
                Some(Node {
                    session: Some(s), ..
                }) => {
                    return reject(
                        Status::ERR_RESOURCE_BUSY,
                        format!("node {n} is already reserved by {s}"),
                    )
                }
                _ if n.is_empty() => return reject(Status::ERR_BAD_PARAM, "empty node name"),
                _ => {}
            }
        }
        Ok(())
    }

    /// The nodes are always added to the DVM; `session` decides where they become available.
    pub(super) fn add_nodes(&mut self, grant: &[String], session: Option<String>) {
        for n in grant {
            let node = self.nodes.entry(n.clone()).or_insert(Node {
                origin: Origin::Scheduler,
                session: None,
            });
            node.session = session.clone();
        }
    }

    pub(super) fn reply_info(&self, id: &str, req_id: Option<&str>) -> Vec<Info> {
        let mut v = vec![Info::new(attrs::ALLOC_ID, Value::string(id))];
        let stored = self.allocs.get(id).and_then(|a| a.req_id.clone());
        let req_id = match req_id {
            None if self.flaw(Mutant::StoredReqIdEchoed) => stored.as_deref(),
            None if self.flaw(Mutant::ReqIdFromPrevious) => self.last_req_id.as_deref(),
            r => r,
        };
        if let Some(r) = req_id {
            if !self.flaw(Mutant::NoReqIdEcho) {
                v.push(Info::new(attrs::ALLOC_REQ_ID, Value::string(r)));
            }
        }
        v
    }

    /// Resolve the allocation an EXTEND/RELEASE names and check the requester owns it.
    pub(super) fn find_alloc(
        &self,
        rq: &Requester,
        a: &AllocAttrs,
        directive: u8,
    ) -> Result<String, Reject> {
        // "succeeds only when the requester's namespace owns the named reservation":
        // PMIX_ALLOC_TARGET on EXTEND grants nothing (reading extend-requires-ownership).
        let weakened = (self.flaw(Mutant::ToolsOwnByUid) && rq.kind == RequesterKind::Tool)
            || (self.flaw(Mutant::ReleaseByAnyone) && directive == alloc_directive::RELEASE)
            || (self.flaw(Mutant::ExtendByAnyone) && directive == alloc_directive::EXTEND);
        let may = |al: &Alloc| {
            weakened || rq.kind == RequesterKind::Scheduler || al.owners.contains(&rq.nspace)
        };
        let id = if let Some(id) = &a.alloc_id {
            if !self.allocs.contains_key(id) {
                return reject(Status::ERR_NOT_FOUND, format!("no allocation {id:?}"));
            }
            id.clone()
        } else if let Some(r) = &a.req_id {
            let found: Vec<&String> = self
                .allocs
                .iter()
                .filter(|(_, al)| al.req_id.as_ref() == Some(r))
                .map(|(id, _)| id)
                .collect();
            match found
                .iter()
                .find(|id| may(&self.allocs[**id]))
                .or(found.first())
            {
                Some(id) => (*id).clone(),
                None => {
                    return reject(
                        Status::ERR_NOT_FOUND,
                        format!("no allocation with request id {r:?}"),
                    )
                }
            }
        } else {
            return reject(
                Status::ERR_BAD_PARAM,
                "the request names no allocation (PMIX_ALLOC_ID or PMIX_ALLOC_REQ_ID)",
            );
        };
        if !may(&self.allocs[&id]) {
            return reject(
                Status::ERR_NO_PERMISSIONS,
                format!("{} does not own {id}", rq.nspace),
            );
        }
        Ok(id)
    }
}
