//! The baseline gate (`live-matrix.sh --baseline FILE`, `--ci`): a run compared with an
//! earlier observations file, cell by cell (the same experiment: client release and kind,
//! server, variant, setting), each judged in its own file ([`Live::judge`]). A cell got
//! worse when it ran before and did not now, when its outcome went from works to fails or
//! crash (or from fails to crash), or when fewer of its operations succeeded. A planted
//! cell (`--plant`) is compared with the same experiment unplanted, or, when the baseline
//! has none, with a cell that works. Operations the baseline cell was never given (added to
//! the client since it was recorded) are left out of the comparison and named.

use crate::compare::{CellJudgement, Outcome};
use crate::observations::LiveCell;
use crate::report::Live;

/// One cell of the new run against the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct CellChange {
    /// The experiment ([`LiveCell::experiment`]).
    pub experiment: String,
    /// The baseline's outcome and operations succeeded (None: no such cell there).
    pub was: Option<(Outcome, usize)>,
    /// The new outcome and operations succeeded.
    pub now: (Outcome, usize),
    /// What failed now (crash, stop, operations) or why it did not run.
    pub why: String,
}

impl CellChange {
    /// True when the cell got worse.
    pub fn worse(&self) -> bool {
        let rank = |o: Outcome| match o {
            Outcome::NotRun | Outcome::Works | Outcome::Differs => 0,
            Outcome::Fails => 1,
            Outcome::Crash => 2,
        };
        let (now, now_ok) = self.now;
        match self.was {
            None => false,
            Some((was, was_ok)) => {
                let (ran_before, runs_now) = (was != Outcome::NotRun, now != Outcome::NotRun);
                if !runs_now {
                    return ran_before;
                }
                rank(now) > rank(was) || (ran_before && now_ok < was_ok)
            }
        }
    }

    /// One line: `worse: EXPERIMENT: works (15 ok) -> crash (1 ok): crash: SIGSEGV ...`.
    pub fn line(&self) -> String {
        let show = |(o, n): (Outcome, usize)| format!("{o} ({n} ok)");
        format!(
            "{}: {}: {} -> {}{}",
            if self.worse() {
                "worse"
            } else if self.was.is_none() {
                "new"
            } else {
                "same or better"
            },
            self.experiment,
            self.was.map_or_else(|| "absent".to_string(), show),
            show(self.now),
            if self.why.is_empty() {
                String::new()
            } else {
                format!(": {}", self.why)
            }
        )
    }
}

fn why(j: &CellJudgement) -> String {
    match &j.not_run {
        Some(w) => format!("not run: {w}"),
        None => j.failing.join("; "),
    }
}

/// The experiment of a cell with its plant left out (what a planted cell is compared with).
fn unplanted(c: &LiveCell) -> String {
    let mut c = c.clone();
    c.plant = None;
    c.experiment()
}

/// The operations a baseline cell was given: those it reported and those it did not reach.
fn given(c: &LiveCell) -> Vec<String> {
    c.ops
        .iter()
        .map(|o| o.op.as_str())
        .chain(c.unreported.iter().map(|o| o.as_str()))
        .collect()
}

/// `new` with, in each cell that has a baseline counterpart, the operations that counterpart
/// was never given left out (an operation added to the client since the baseline was
/// recorded cannot have got worse; it is named, not gated, until the baseline is recorded
/// again). Returns the gated run and, per experiment, the operations left out.
fn gated(new: &Live, old: &Live) -> (Live, Vec<(String, Vec<String>)>) {
    let mut left_out = Vec::new();
    let observations = new.observations.clone().map(|mut obs| {
        for c in &mut obs.cells {
            let key = unplanted(c);
            let Some(base) = old
                .observations
                .iter()
                .flat_map(|o| &o.cells)
                .find(|b| b.plant.is_none() && b.experiment() == key)
            else {
                continue;
            };
            let had = given(base);
            let new_ops: Vec<String> = given(c).into_iter().filter(|o| !had.contains(o)).collect();
            if new_ops.is_empty() {
                continue;
            }
            c.ops.retain(|o| had.contains(&o.op.as_str()));
            c.unreported.retain(|o| had.contains(&o.as_str()));
            left_out.push((c.experiment(), new_ops));
        }
        obs
    });
    let live = Live {
        matrix: new.matrix.clone(),
        observations,
        explanations: new.explanations.clone(),
    };
    (live, left_out)
}

/// Every cell of `new` against `old` (cells of `old` the new run did not try are left out:
/// a subset run, such as `--ci`, is compared on its own cells).
pub fn compare_runs(new: &Live, old: &Live) -> Vec<CellChange> {
    let (new, left_out) = gated(new, old);
    let new = &new;
    let (new_rows, old_rows) = (new.rows(), old.rows());
    let old_judged = old.judge_all(&old_rows);
    new.judge_all(&new_rows)
        .into_iter()
        .map(|(c, j)| {
            let key = unplanted(c);
            let was = old_judged
                .iter()
                .find(|(b, _)| b.plant.is_none() && b.experiment() == key)
                .map(|(_, bj)| (bj.outcome, bj.ok_ops))
                .or_else(|| {
                    // a planted cell the baseline has no counterpart of: it should work
                    c.plant.as_ref().map(|_| (Outcome::Works, j.ok_ops.max(1)))
                });
            let mut why = why(&j);
            if let Some((_, ops)) = left_out.iter().find(|(e, _)| *e == c.experiment()) {
                if !why.is_empty() {
                    why.push_str("; ");
                }
                why.push_str(&format!(
                    "not gated (new since the baseline): {}",
                    ops.join(", ")
                ));
            }
            CellChange {
                experiment: c.experiment(),
                was,
                now: (j.outcome, j.ok_ops),
                why,
            }
        })
        .collect()
}

/// True when the new run tested nothing: no cell, or no cell that ran. A gate over such a
/// run must fail (a run whose every cell was skipped proves nothing).
pub fn tested_nothing(changes: &[CellChange]) -> bool {
    changes.iter().all(|c| c.now.0 == Outcome::NotRun)
}
