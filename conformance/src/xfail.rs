//! Per-implementation expected-failure lists (in the spirit of protobuf's conformance
//! failure lists), which cannot go stale.
//!
//! A list is a text file, one case per line:
//!
//! ```text
//! # comments and blank lines are ignored
//! v20.non-described.VALUE.acceptable.180 runtime-error  # libpmix 4.2.2 crashes unpacking it
//! ```
//!
//! that is the case id, the failure's signature (see [`crate::vectors`]) and an optional
//! `# reason`. When a run is judged against a list:
//!
//! * a case that fails with the listed signature becomes an *expected failure* (the run can
//!   still pass);
//! * a listed case that passes, is unsupported, or fails with another signature **fails**;
//! * an entry naming no case of a file the run replayed in full fails as well.
//!
//! [`ExpectedFailures::fixed`] gives the list that makes the run pass (`--fix`).

use crate::report::{CaseResult, CaseRun, Outcome};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One entry of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The expected signature.
    pub signature: String,
    /// The reason (the text after `#`), possibly empty.
    pub reason: String,
    /// 1-based line number in the file.
    pub line: usize,
}

/// An expected-failure list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpectedFailures {
    /// The file it was read from (and `--fix` writes to).
    pub path: PathBuf,
    /// The leading comment block, kept by [`ExpectedFailures::fixed`].
    pub header: Vec<String>,
    /// Entries by case id.
    pub entries: BTreeMap<String, Entry>,
}

/// The header written into a new list.
const DEFAULT_HEADER: &[&str] = &[
    "# Expected failures for `pmix-conformance vectors` (one per line):",
    "#   <case id> <failure signature>  # reason",
    "# An entry that passes, or fails with another signature, fails the run.",
    "# `pmix-conformance vectors --expected-failures FILE --fix ...` rewrites this file.",
];

/// What [`ExpectedFailures::fixed`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixStats {
    /// Entries added.
    pub added: usize,
    /// Entries removed.
    pub removed: usize,
    /// Entries whose signature changed.
    pub changed: usize,
    /// Entries in the new list.
    pub total: usize,
}

impl ExpectedFailures {
    /// Read a list; a missing file is an empty list (so `--fix` can create it).
    pub fn load(path: &Path) -> Result<Self, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(path, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ExpectedFailures {
                path: path.to_path_buf(),
                ..Default::default()
            }),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Parse the text of a list read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Self, String> {
        let mut x = ExpectedFailures {
            path: path.to_path_buf(),
            ..Default::default()
        };
        let mut in_header = true;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                if in_header && line.starts_with('#') {
                    x.header.push(line.to_string());
                }
                continue;
            }
            in_header = false;
            let (main, reason) = match line.split_once('#') {
                Some((m, r)) => (m.trim(), r.trim()),
                None => (line, ""),
            };
            let mut words = main.split_whitespace();
            let (Some(id), Some(sig), None) = (words.next(), words.next(), words.next()) else {
                return Err(format!(
                    "{}:{}: expected `<case id> <signature>  # reason`, got {raw:?}",
                    path.display(),
                    i + 1
                ));
            };
            let entry = Entry {
                signature: sig.to_string(),
                reason: reason.to_string(),
                line: i + 1,
            };
            if let Some(prev) = x.entries.insert(id.to_string(), entry) {
                return Err(format!(
                    "{}:{}: {id} is already listed on line {}",
                    path.display(),
                    i + 1,
                    prev.line
                ));
            }
        }
        Ok(x)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn at(&self, e: &Entry) -> String {
        format!("{}:{}", self.path.display(), e.line)
    }

    /// Judge `runs` against the list (changing their outcomes), and return one extra failing
    /// case per entry that names no case although its file (case-id prefix in `complete`)
    /// was replayed in full.
    pub fn apply(&self, runs: &mut [CaseRun], complete: &BTreeSet<String>) -> Vec<CaseResult> {
        let mut seen = BTreeSet::new();
        for run in runs.iter_mut() {
            let Some(entry) = self.entries.get(&run.result.id) else {
                continue;
            };
            seen.insert(run.result.id.clone());
            let r = &mut run.result;
            match (&run.signature, &r.outcome) {
                (Some(sig), Outcome::Fail { .. } | Outcome::Error { .. })
                    if *sig == entry.signature =>
                {
                    r.outcome = Outcome::ExpectedFailure {
                        signature: sig.clone(),
                        reason: if entry.reason.is_empty() {
                            format!("listed in {}", self.at(entry))
                        } else {
                            entry.reason.clone()
                        },
                    };
                }
                (Some(sig), Outcome::Fail { .. }) => {
                    r.diff = Some(format!(
                        "{}(listed in {} as failing with {}, but it fails with {sig})",
                        r.diff
                            .as_deref()
                            .map(|d| format!("{d}\n"))
                            .unwrap_or_default(),
                        self.at(entry),
                        entry.signature
                    ));
                }
                (Some(sig), Outcome::Error { message }) => {
                    r.outcome = Outcome::Error {
                        message: format!(
                            "{message} (listed in {} as failing with {}, but it fails with {sig})",
                            self.at(entry),
                            entry.signature
                        ),
                    };
                }
                (_, outcome) => {
                    let now = match outcome {
                        Outcome::Unsupported { reason } => format!("it is unsupported ({reason})"),
                        _ => "it passes".to_string(),
                    };
                    r.outcome = Outcome::Fail {
                        expected: format!(
                            "fails with {} (listed in {})",
                            entry.signature,
                            self.at(entry)
                        ),
                        actual: format!("{now}: remove the entry, or run with --fix"),
                    };
                    r.detail = Some("stale expected failure".into());
                }
            }
        }
        let mut extra = Vec::new();
        for (id, entry) in &self.entries {
            if seen.contains(id) || !complete.contains(prefix_of(id)) {
                continue;
            }
            extra.push(CaseResult {
                id: id.clone(),
                requirement: "every expected-failure entry names a case of the corpus".into(),
                group: "expected-failures".into(),
                outcome: Outcome::Fail {
                    expected: format!("a case {id} (listed in {})", self.at(entry)),
                    actual: "no such case: remove the entry, or run with --fix".into(),
                },
                detail: Some("stale expected failure".into()),
                diff: None,
                duration: Duration::ZERO,
            });
        }
        extra
    }

    /// The list that makes `runs` pass: every failing case with its current signature
    /// (keeping reasons already written), entries for cases that no longer fail removed,
    /// entries for cases of files not replayed (prefix not in `complete`) kept as they are.
    pub fn fixed(&self, runs: &[CaseRun], complete: &BTreeSet<String>) -> (String, FixStats) {
        let mut new: BTreeMap<String, Entry> = BTreeMap::new();
        let mut stats = FixStats::default();
        let run_ids: BTreeSet<&str> = runs.iter().map(|r| r.result.id.as_str()).collect();
        for (id, e) in &self.entries {
            if !run_ids.contains(id.as_str()) && !complete.contains(prefix_of(id)) {
                new.insert(id.clone(), e.clone());
            }
        }
        for run in runs {
            let id = &run.result.id;
            let old = self.entries.get(id);
            match &run.signature {
                Some(sig) => {
                    let reason = match old {
                        Some(o) if !o.reason.is_empty() => o.reason.clone(),
                        _ => short_reason(&run.result),
                    };
                    match old {
                        None => stats.added += 1,
                        Some(o) if o.signature != *sig => stats.changed += 1,
                        Some(_) => {}
                    }
                    new.insert(
                        id.clone(),
                        Entry {
                            signature: sig.clone(),
                            reason,
                            line: 0,
                        },
                    );
                }
                None => {
                    if old.is_some() {
                        stats.removed += 1;
                    }
                }
            }
        }
        stats.removed += self
            .entries
            .keys()
            .filter(|id| !run_ids.contains(id.as_str()) && complete.contains(prefix_of(id)))
            .count();
        stats.total = new.len();
        let mut text = String::new();
        let header: Vec<String> = if self.header.is_empty() {
            DEFAULT_HEADER.iter().map(|s| s.to_string()).collect()
        } else {
            self.header.clone()
        };
        for h in header {
            text.push_str(&h);
            text.push('\n');
        }
        for (id, e) in &new {
            text.push_str(id);
            text.push(' ');
            text.push_str(&e.signature);
            if !e.reason.is_empty() {
                text.push_str("  # ");
                text.push_str(&e.reason.replace('\n', " "));
            }
            text.push('\n');
        }
        (text, stats)
    }
}

/// The case-id prefix (`<component>[@<release>].<buffer>`) of a case id.
pub fn prefix_of(id: &str) -> &str {
    let mut dots = id.match_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next()) {
        (Some(_), Some(second)) => &id[..second],
        _ => id,
    }
}

fn short_reason(r: &CaseResult) -> String {
    let s = match &r.outcome {
        Outcome::Fail { actual, .. } => actual.clone(),
        Outcome::Error { message } => message.clone(),
        Outcome::ExpectedFailure { reason, .. } => reason.clone(),
        _ => String::new(),
    };
    let s = s.lines().next().unwrap_or("").trim().to_string();
    if s.chars().count() > 100 {
        format!("{}…", s.chars().take(100).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, outcome: Outcome, sig: Option<&str>) -> CaseRun {
        CaseRun {
            result: CaseResult {
                id: id.into(),
                requirement: "r".into(),
                group: "g".into(),
                outcome,
                detail: sig.map(str::to_string),
                diff: None,
                duration: Duration::ZERO,
            },
            signature: sig.map(str::to_string),
            prefix: prefix_of(id).to_string(),
            lenient: None,
            explanation: None,
        }
    }

    fn fail() -> Outcome {
        Outcome::Fail {
            expected: "a".into(),
            actual: "b".into(),
        }
    }

    #[test]
    fn parse_refuses_malformed_and_duplicate_lines() {
        let p = Path::new("x.txt");
        let ok = ExpectedFailures::parse(p, "# head\n\nv41.nd.A.valid.1 crash  # why\n").unwrap();
        assert_eq!(ok.header, ["# head"]);
        assert_eq!(ok.entries["v41.nd.A.valid.1"].reason, "why");
        let e = ExpectedFailures::parse(p, "v41.nd.A.valid.1\n").unwrap_err();
        assert!(e.contains("x.txt:1"), "{e}");
        let e = ExpectedFailures::parse(p, "a.b.c crash\na.b.c crash\n").unwrap_err();
        assert!(e.contains("already listed on line 1"), "{e}");
    }

    #[test]
    fn entries_match_on_signature_and_go_stale() {
        let p = Path::new("x.txt");
        let x = ExpectedFailures::parse(
            p,
            "v4.nd.A.valid.1 crash # known\nv4.nd.B.valid.2 crash\nv4.nd.C.valid.3 crash\nv4.nd.D.valid.4 crash\nv9.nd.E.valid.5 crash\n",
        )
        .unwrap();
        let mut runs = vec![
            run(
                "v4.nd.A.valid.1",
                Outcome::Error {
                    message: "m".into(),
                },
                Some("crash"),
            ),
            run("v4.nd.B.valid.2", fail(), Some("encode-bytes@3")),
            run("v4.nd.C.valid.3", Outcome::Pass, None),
            run("v4.nd.F.valid.6", fail(), Some("no-error")),
        ];
        let complete: BTreeSet<String> = ["v4.nd".to_string()].into();
        let extra = x.apply(&mut runs, &complete);
        assert!(
            matches!(runs[0].result.outcome, Outcome::ExpectedFailure { ref reason, .. } if reason == "known")
        );
        assert!(matches!(runs[1].result.outcome, Outcome::Fail { .. }));
        assert!(runs[1]
            .result
            .diff
            .as_deref()
            .unwrap()
            .contains("fails with encode-bytes@3"));
        assert!(
            matches!(runs[2].result.outcome, Outcome::Fail { ref actual, .. } if actual.contains("passes"))
        );
        assert!(matches!(runs[3].result.outcome, Outcome::Fail { .. }));
        // D names no case of the complete file v4.nd; E's file was not replayed: kept.
        assert_eq!(extra.len(), 1);
        assert_eq!(extra[0].id, "v4.nd.D.valid.4");

        let (text, stats) = x.fixed(&runs, &complete);
        let y = ExpectedFailures::parse(p, &text).unwrap();
        let ids: Vec<&str> = y.entries.keys().map(String::as_str).collect();
        assert_eq!(
            ids,
            [
                "v4.nd.A.valid.1",
                "v4.nd.B.valid.2",
                "v4.nd.F.valid.6",
                "v9.nd.E.valid.5"
            ]
        );
        assert_eq!(y.entries["v4.nd.A.valid.1"].reason, "known");
        assert_eq!(y.entries["v4.nd.B.valid.2"].signature, "encode-bytes@3");
        assert_eq!(
            stats,
            FixStats {
                added: 1,
                removed: 2,
                changed: 1,
                total: 4
            }
        );
    }
}
