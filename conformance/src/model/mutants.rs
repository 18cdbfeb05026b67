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
}

impl Mutant {
    /// Every mutant.
    pub const ALL: [Mutant; 12] = [
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
