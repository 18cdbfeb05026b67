//! The catalogue of specification clauses (seed 001, *Node Reservation and Session
//! Targeting*, with the allocation-inheritance overview, seed 000).
//!
//! Each scenario names the clauses it checks by id; the runner reports, per section,
//! how many clauses at least one scenario covers, and the loader rejects unknown ids.

/// One clause of the specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clause {
    /// Stable id used in scenario files (`errors.row3`).
    pub id: &'static str,
    /// The specification section.
    pub section: &'static str,
    /// The table row / numbered item / paragraph, for humans.
    pub label: &'static str,
}

macro_rules! clauses {
    ($($section:literal { $($id:literal => $label:literal,)* })*) => {
        /// Every clause, in specification order.
        pub const CLAUSES: &[Clause] = &[$($(Clause { id: $id, section: $section, label: $label },)*)*];
        /// The sections, in specification order.
        pub const SECTIONS: &[&str] = &[$($section,)*];
    };
}

clauses! {
    "Attribute contract" {
        "attr.target" => "PMIX_ALLOC_TARGET names the owning namespace; honored only for tools; absent = requester's own",
        "attr.share" => "PMIX_ALLOC_SHARE absent/false reserves; true joins the default session from the outset",
        "attr.inherit-directives" => "PMIX_ALLOC_INHERITANCE honored on NEW/EXTEND, ignored on RELEASE/REAQUIRE/REQ_CANCEL",
        "attr.inherit-shared" => "PMIX_ALLOC_INHERITANCE is meaningful for a shared allocation",
        "attr.warn" => "PMIX_ALLOC_WARN_TIMEOUT is advisory: a scheduler that ignores it delivers no warning",
        "attr.spawn-target" => "PMIX_SPAWN_TARGET is a single id string or an array of id strings",
        "attr.optional" => "a request with none of the five attributes behaves as before reservations",
    }
    "Allocation behavior" {
        "alloc.startup" => "case 1: startup nodes form the default session",
        "alloc.nodes-added" => "nodes returned for a dynamic request are always added to the DVM",
        "alloc.row1" => "table row 1: tool, TARGET=<ns>, SHARE absent/false -> reservation owned by <ns>",
        "alloc.row2" => "table row 2: tool, no TARGET, SHARE absent/false -> reservation owned by the tool",
        "alloc.row3" => "table row 3: tool, no TARGET, SHARE=true -> default session",
        "alloc.row4" => "table row 4: application, no TARGET, SHARE absent/false -> reservation owned by the application",
        "alloc.row5" => "table row 5: application, no TARGET, SHARE=true -> default session",
        "alloc.row6" => "table row 6: application with TARGET -> PMIX_ERR_NO_PERMISSIONS",
        "alloc.target-share" => "TARGET designates the owning namespace even when the nodes are shared",
    }
    "New versus extend" {
        "newext.new" => "NEW always mints a fresh reservation; a namespace may hold several",
        "newext.extend-id" => "EXTEND by PMIX_ALLOC_ID adds nodes to that reservation",
        "newext.extend-reqid" => "EXTEND by PMIX_ALLOC_REQ_ID adds nodes to that reservation",
        "newext.extend-owner" => "EXTEND succeeds only when the requester's namespace owns the reservation",
    }
    "Reporting the result" {
        "report.alloc-id" => "a successful response returns the destination's PMIX_ALLOC_ID",
        "report.req-id" => "a supplied PMIX_ALLOC_REQ_ID is echoed back",
    }
    "Spawn targeting behavior" {
        "spawn.absent" => "absent PMIX_SPAWN_TARGET: default session",
        "spawn.invalid-only" => "only the invalid namespace: default session",
        "spawn.union" => "one or more valid ids: union of those reservations",
        "spawn.union-default" => "valid ids plus the invalid namespace: union plus the default pool",
        "spawn.exact" => "the candidate pool is exactly the permitted sessions; no other node is visible",
        "spawn.isolation" => "once a node is reserved, default-session jobs no longer see it",
        "spawn.unchanged" => "nothing reserved: a job that targets nothing behaves as today",
    }
    "Ownership model" {
        "own.seeded" => "the owner set is seeded with the owning namespace",
        "own.grows" => "a job spawned into a reservation joins its owner set and may spawn onto it",
        "own.single-owning" => "exactly one owning namespace for life: it alone drives inheritance",
        "own.derived" => "derived children are descendants at any depth, wherever they run",
        "own.not-transitive" => "a child owns only the reservation it was spawned into",
        "own.scheduler" => "the scheduler is an implicit owner of every session",
        "own.all-or-nothing" => "every PMIX_SPAWN_TARGET entry must pass, or the spawn is rejected whole",
    }
    "Error semantics" {
        "errors.row1" => "row 1: application request carries PMIX_ALLOC_TARGET -> PMIX_ERR_NO_PERMISSIONS",
        "errors.row2" => "row 2: EXTEND names an allocation the requester does not own -> PMIX_ERR_NO_PERMISSIONS",
        "errors.row3" => "row 3: EXTEND names an allocation that does not exist -> PMIX_ERR_NOT_FOUND",
        "errors.row4" => "row 4: EXTEND carries neither ALLOC_ID nor REQ_ID -> PMIX_ERR_BAD_PARAM",
        "errors.row5" => "row 5: SPAWN_TARGET resolves to no session -> PMIX_ERR_NOT_FOUND",
        "errors.row6" => "row 6: SPAWN_TARGET names a session the requester does not own -> PMIX_ERR_NO_PERMISSIONS",
        "errors.row7" => "row 7: unsupported non-default PMIX_ALLOC_INHERITANCE -> PMIX_ERR_NOT_SUPPORTED",
        "errors.no-partial" => "no rejection has an observable partial effect",
    }
    "Unconditional triggers" {
        "trigger.1" => "item 1: an owner (any in the set, or the scheduler) releases it",
        "trigger.2" => "item 2: the DVM tears down; all sessions end",
        "trigger.3" => "item 3: the scheduler terminates the allocation (timeout / reclaim)",
    }
    "Namespace-termination disposition" {
        "disp.none" => "NONE: released to the scheduler at owning-namespace termination, even with children running",
        "disp.child" => "CHILD: released to the scheduler only when all derived children have terminated",
        "disp.default" => "DEFAULT: unreserved in the session at owning-namespace termination",
        "disp.child-default" => "CHILD_DEFAULT: unreserved in the session when the last derived child terminates",
        "disp.returned-path" => "returned to the scheduler = release path: scheduler nodes leave, startup nodes revert",
        "disp.unreserved-path" => "unreserved in session: nodes stay in the DVM in the default session; never handed back by inheritance",
        "disp.default-absent" => "default disposition: absent attribute behaves as DEFAULT; NONE must be explicit",
    }
    "Ending a reservation while jobs are still mapped" {
        "end.nodes-stay" => "nodes stay in the DVM: no process is killed; running jobs continue",
        "end.nodes-leave" => "nodes leave the DVM: jobs on departing nodes are terminated",
    }
    "Allocation timeout warning" {
        "warn.relay" => "WARN_TIMEOUT on NEW/EXTEND is forwarded; the warning is relayed when the threshold is reached",
        "warn.directed" => "delivered only to the process that requested the allocation",
        "warn.payload" => "payload: PMIX_ALLOC_ID always, PMIX_ALLOC_REQ_ID when supplied, PMIX_TIME_REMAINING",
        "warn.advisory" => "the warning alters nothing about the reservation",
        "warn.expiry" => "an unextended allocation expires and is reclaimed through the shrink path",
        "warn.extend" => "the recipient may react with EXTEND (renewing WARN_TIMEOUT)",
    }
    "Backward compatibility" {
        "compat.target" => "without PMIX_ALLOC_TARGET a dynamic allocation reserves to the requester's namespace",
        "compat.share" => "without PMIX_ALLOC_SHARE nodes are never routed to the default pool",
        "compat.inherit" => "without PMIX_ALLOC_INHERITANCE: DEFAULT disposition; non-default values rejected",
        "compat.warn" => "without PMIX_ALLOC_WARN_TIMEOUT no warning, expiry still reclaims",
        "compat.spawn-target" => "without PMIX_SPAWN_TARGET spawns use the default session",
        "compat.none" => "without all five attributes resources are still partitioned sensibly",
    }
    "Conformance summary" {
        "summary.1" => "item 1: candidates are exactly the permitted sessions; never an unowned reserved node",
        "summary.2" => "item 2: reservations change only on requester attributes or scheduler actions",
        "summary.3" => "item 3: every rejection leaves no observable partial effect",
        "summary.4" => "item 4: a reservation ends only on a trigger or its recorded disposition (default DEFAULT)",
        "summary.5" => "item 5: nodes return to the scheduler only under NONE/CHILD, release, or teardown",
        "summary.6" => "item 6: the timeout warning goes only to the requester and is advisory",
        "summary.7" => "item 7: defaults and rejections hold without any of the five attributes",
    }
}

/// Look a clause up by id.
pub fn clause(id: &str) -> Option<&'static Clause> {
    CLAUSES.iter().find(|c| c.id == id)
}
