//! The baseline gate (`live-matrix.sh --baseline FILE`, `--ci`): a run compared with an
//! earlier observations file, cell by cell (the same experiment: client release and kind,
//! server, variant, setting), each judged in its own file ([`Live::judge`]). A cell got
//! worse when it ran before and did not now, when its outcome went from works to fails or
//! crash (or from fails to crash), or when fewer of its operations succeeded. A planted
//! cell (`--plant`) is compared with the same experiment unplanted, or, when the baseline
//! has none, with a cell that works.

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

/// Every cell of `new` against `old` (cells of `old` the new run did not try are left out:
/// a subset run, such as `--ci`, is compared on its own cells).
pub fn compare_runs(new: &Live, old: &Live) -> Vec<CellChange> {
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
            CellChange {
                experiment: c.experiment(),
                was,
                now: (j.outcome, j.ok_ops),
                why: why(&j),
            }
        })
        .collect()
}
