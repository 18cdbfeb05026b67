//! Deliberately wrong variants of the reference model.
//!
//! Each mutant breaks exactly one rule of the specification. The scenario suite must
//! detect every one of them (at least one named scenario fails); `pmix-conformance
//! scenarios --mutants` and the test suite check this.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A deliberately wrong rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mutant {
    /// An absent `PMIX_ALLOC_INHERITANCE` behaves as `NONE` (the legacy release) instead of `DEFAULT`.
    DefaultNone,
    /// A child spawned into a reservation also becomes an owner of every other reservation its parent owns.
    TransitiveOwnership,
    /// A spawn naming an unowned reservation is silently narrowed to the permitted entries.
    SpawnNarrowed,
    /// `CHILD*` drain waits for the owner set instead of the spawn genealogy.
    ChildDrainByOwners,
    /// `CHILD` fires at the owning namespace's termination, like `NONE`.
    ChildNotDeferred,
    /// An application request carrying `PMIX_ALLOC_TARGET` is honored.
    AppTargetHonored,
    /// Reserved nodes stay visible to jobs targeting the default session.
    ReservedVisible,
    /// A rejected `EXTEND` (not owner) has already added the granted nodes to the DVM.
    PartialExtend,
    /// The timeout warning is broadcast to every owner instead of only the requester.
    WarningBroadcast,
    /// `PMIX_ALLOC_REQ_ID` is not echoed back.
    NoReqIdEcho,
    /// An unsupported `PMIX_ALLOC_INHERITANCE` value is silently treated as `DEFAULT`.
    UnsupportedInheritanceIgnored,
    /// Unreserving nodes (they stay in the DVM) kills the jobs running on them.
    UnreserveKills,
    /// A job the scheduler spawns into a reservation does not join its owner set.
    SchedulerSpawnNotOwner,
    /// A tool that requests a reservation for another namespace (`PMIX_ALLOC_TARGET`) becomes an owner too.
    TargetRequesterOwns,
    /// An `EXTEND` carrying `PMIX_ALLOC_INHERITANCE` replaces the disposition recorded at creation.
    ExtendReplacesDisposition,
    /// A rejected `EXTEND` has already replaced the named reservation's disposition.
    RejectedExtendSetsDisposition,
    /// `CHILD*` fires when the last derived child ends although the owning namespace still runs.
    ChildReleasesWhileOwnerRuns,
    /// Nodes a `NONE` reservation gave back by RELEASE or reclaim are returned again at its owner's exit.
    ReturnedTwice,
    /// The timeout warning carries the id of the requester's first allocation, not the one expiring.
    WarningWrongAlloc,
    /// A response to a request without `PMIX_ALLOC_REQ_ID` echoes the last request id seen.
    ReqIdFromPrevious,
    /// An `EXTEND` or `RELEASE` by `PMIX_ALLOC_ID` echoes the reservation's stored request id.
    StoredReqIdEchoed,
    // The strict-ownership set: ownership weakened as a server granting by uid would.
    /// Every tool passes every ownership check (spawn, EXTEND, RELEASE), as if tools owned by uid.
    ToolsOwnByUid,
    /// `RELEASE` skips the ownership check: any namespace may release any reservation.
    ReleaseByAnyone,
    /// `EXTEND` skips the ownership check: any namespace may extend any reservation.
    ExtendByAnyone,
}

impl Mutant {
    /// Every mutant.
    pub const ALL: [Mutant; 24] = [
        Mutant::DefaultNone,
        Mutant::TransitiveOwnership,
        Mutant::SpawnNarrowed,
        Mutant::ChildDrainByOwners,
        Mutant::ChildNotDeferred,
        Mutant::AppTargetHonored,
        Mutant::ReservedVisible,
        Mutant::PartialExtend,
        Mutant::WarningBroadcast,
        Mutant::NoReqIdEcho,
        Mutant::UnsupportedInheritanceIgnored,
        Mutant::UnreserveKills,
        Mutant::SchedulerSpawnNotOwner,
        Mutant::TargetRequesterOwns,
        Mutant::ExtendReplacesDisposition,
        Mutant::RejectedExtendSetsDisposition,
        Mutant::ChildReleasesWhileOwnerRuns,
        Mutant::ReturnedTwice,
        Mutant::WarningWrongAlloc,
        Mutant::ReqIdFromPrevious,
        Mutant::StoredReqIdEchoed,
        Mutant::ToolsOwnByUid,
        Mutant::ReleaseByAnyone,
        Mutant::ExtendByAnyone,
    ];

    /// The strict-ownership mutant set: each weakens "a non-owner is refused" in one way.
    pub const STRICT_OWNERSHIP: [Mutant; 3] = [
        Mutant::ToolsOwnByUid,
        Mutant::ReleaseByAnyone,
        Mutant::ExtendByAnyone,
    ];

    /// The kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Mutant::DefaultNone => "default-none",
            Mutant::TransitiveOwnership => "transitive-ownership",
            Mutant::SpawnNarrowed => "spawn-narrowed",
            Mutant::ChildDrainByOwners => "child-drain-by-owners",
            Mutant::ChildNotDeferred => "child-not-deferred",
            Mutant::AppTargetHonored => "app-target-honored",
            Mutant::ReservedVisible => "reserved-visible",
            Mutant::PartialExtend => "partial-extend",
            Mutant::WarningBroadcast => "warning-broadcast",
            Mutant::NoReqIdEcho => "no-req-id-echo",
            Mutant::UnsupportedInheritanceIgnored => "unsupported-inheritance-ignored",
            Mutant::UnreserveKills => "unreserve-kills",
            Mutant::SchedulerSpawnNotOwner => "scheduler-spawn-not-owner",
            Mutant::TargetRequesterOwns => "target-requester-owns",
            Mutant::ExtendReplacesDisposition => "extend-replaces-disposition",
            Mutant::RejectedExtendSetsDisposition => "rejected-extend-sets-disposition",
            Mutant::ChildReleasesWhileOwnerRuns => "child-releases-while-owner-runs",
            Mutant::ReturnedTwice => "returned-twice",
            Mutant::WarningWrongAlloc => "warning-wrong-alloc",
            Mutant::ReqIdFromPrevious => "req-id-from-previous",
            Mutant::StoredReqIdEchoed => "stored-req-id-echoed",
            Mutant::ToolsOwnByUid => "tools-own-by-uid",
            Mutant::ReleaseByAnyone => "release-by-anyone",
            Mutant::ExtendByAnyone => "extend-by-anyone",
        }
    }

    /// What the mutant gets wrong.
    pub fn description(self) -> &'static str {
        match self {
            Mutant::DefaultNone => {
                "absent PMIX_ALLOC_INHERITANCE behaves as NONE instead of DEFAULT"
            }
            Mutant::TransitiveOwnership => "a child inherits every reservation its parent owns",
            Mutant::SpawnNarrowed => "a spawn naming an unowned reservation is silently narrowed",
            Mutant::ChildDrainByOwners => {
                "CHILD* drain tracks the owner set instead of the genealogy"
            }
            Mutant::ChildNotDeferred => "CHILD releases at owning-namespace termination",
            Mutant::AppTargetHonored => "an application's PMIX_ALLOC_TARGET is honored",
            Mutant::ReservedVisible => "default-session jobs still see reserved nodes",
            Mutant::PartialExtend => "a rejected EXTEND leaves its granted nodes in the DVM",
            Mutant::WarningBroadcast => "the timeout warning goes to every owner",
            Mutant::NoReqIdEcho => "PMIX_ALLOC_REQ_ID is not echoed",
            Mutant::UnsupportedInheritanceIgnored => {
                "an unsupported inheritance value is silently accepted"
            }
            Mutant::UnreserveKills => "unreserving nodes kills the jobs on them",
            Mutant::SchedulerSpawnNotOwner => {
                "a job the scheduler spawns into a reservation does not join its owners"
            }
            Mutant::TargetRequesterOwns => {
                "a tool requesting for another namespace gains the right to spawn onto it"
            }
            Mutant::ExtendReplacesDisposition => {
                "EXTEND replaces the disposition recorded at creation"
            }
            Mutant::RejectedExtendSetsDisposition => {
                "a rejected EXTEND changes the reservation's disposition"
            }
            Mutant::ChildReleasesWhileOwnerRuns => {
                "CHILD fires at the last child's end while the owner still runs"
            }
            Mutant::ReturnedTwice => {
                "released nodes are returned again when the owner exits under NONE"
            }
            Mutant::WarningWrongAlloc => {
                "the timeout warning names the requester's other allocation"
            }
            Mutant::ReqIdFromPrevious => "a response echoes a request id the request did not carry",
            Mutant::StoredReqIdEchoed => {
                "EXTEND/RELEASE by id echo the reservation's stored request id"
            }
            Mutant::ToolsOwnByUid => "every tool passes every ownership check (ownership by uid)",
            Mutant::ReleaseByAnyone => "any namespace may release any reservation",
            Mutant::ExtendByAnyone => "any namespace may extend any reservation",
        }
    }
}

impl fmt::Display for Mutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mutant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Mutant::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Mutant::ALL.iter().map(|m| m.name()).collect();
                format!("unknown mutant {s:?} (known: {})", names.join(", "))
            })
    }
}
