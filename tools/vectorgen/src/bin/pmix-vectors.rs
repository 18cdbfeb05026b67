//! `pmix-vectors`: regenerate, check and lock the golden vectors in `vectors/`.
//!
//! ```sh
//! cargo run --release -p pmix-vectorgen --bin pmix-vectors -- regenerate           # rewrite vectors/
//! cargo run --release -p pmix-vectorgen --bin pmix-vectors -- regenerate --check   # CI: exit 1 on any difference
//! cargo run --release -p pmix-vectorgen --bin pmix-vectors -- lock                 # freeze the current vectors
//! cargo run --release -p pmix-vectorgen --bin pmix-vectors -- stats                # counts per file
//! cargo run --release -p pmix-vectorgen --bin pmix-vectors -- live [--check | --observations FILE [--baseline OLD] | --migrate FILE]  # vectors/LIVE.md and the heat maps
//! ```

use clap::{Parser, Subcommand};
use pmix_vectorgen::{self as vectorgen, Options};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "pmix-vectors",
    about = "Regenerate, check and lock the pmix-wire golden vectors",
    version
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Regenerate the vectors: each library release (4.2.2 ... 7.0.0rc1) through its oracle,
    /// master from the recordings in vectors/recordings.
    Regenerate {
        /// Do not write: compare with the checked-in files, show a diff and exit 1 if they differ.
        #[arg(long)]
        check: bool,
        /// The vectors directory (default: the workspace's vectors/). Ids are kept from the files in it.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// The raw recordings directory (default: the workspace's vectors/recordings).
        #[arg(long, alias = "shared", value_name = "DIR")]
        recordings: Option<PathBuf>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Only these library releases (repeatable; default: all of 4.2.2 5.0.7 6.0.0 6.1.0
        /// 7.0.0rc1, each made available by `bash tools/peers.sh make RELEASE`).
        #[arg(long = "release", value_name = "RELEASE", value_parser = clap::builder::PossibleValuesParser::new(pmix_oracle::oracle::LIBRARIES))]
        releases: Vec<String>,
    },
    /// Print the cross-release matrix (vectors/MATRIX.md) computed by the real libraries.
    Matrix {
        /// Write MATRIX.md and live/MATRIX.json into DIR instead of printing the Markdown.
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
        /// Only these library releases (repeatable; default: all).
        #[arg(long = "release", value_name = "RELEASE", value_parser = clap::builder::PossibleValuesParser::new(pmix_oracle::oracle::LIBRARIES))]
        releases: Vec<String>,
    },
    /// Write vectors/LIVE.md, LIVE.html, LIVE.svg and MATRIX.svg from live/MATRIX.json,
    /// live/observations.json and live/explanations.json (no library needed).
    Live {
        /// Do not write: exit 1 if a file is stale or a disagreement is unexplained.
        #[arg(long)]
        check: bool,
        /// The vectors directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Read these observations instead of live/observations.json and print the report
        /// (the matrix, agreement and disagreements) on stdout; write nothing. What
        /// `tools/live-matrix.sh` prints after a run.
        #[arg(long, value_name = "FILE", conflicts_with = "check")]
        observations: Option<PathBuf>,
        /// With --observations NEW: compare NEW with this earlier observations file cell by
        /// cell instead of printing the report; one line per cell that got worse (ran ->
        /// not run, works -> fails or crash, fewer operations succeeded), exit 1 if any.
        #[arg(long, value_name = "OLD", requires = "observations")]
        baseline: Option<PathBuf>,
        /// Rewrite FILE (an observations file of any format this tool reads) in the current
        /// format, deriving what an older format did not record (format 1: from the notes).
        #[arg(long, value_name = "FILE", conflicts_with_all = ["check", "observations"])]
        migrate: Option<PathBuf>,
    },
    /// Rewrite vectors/LOCK so that it freezes every vector now in the frozen files.
    Lock {
        /// The vectors directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Print valid/invalid/acceptable counts per file.
    Stats {
        /// The vectors directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pmix-vectors: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    let defaults = Options::defaults();
    match cli.cmd {
        Cmd::Regenerate {
            check,
            out,
            recordings,
            quiet,
            releases,
        } => {
            let opts = Options {
                vectors_dir: out.unwrap_or(defaults.vectors_dir),
                shared_dir: recordings.unwrap_or(defaults.shared_dir),
                quiet,
                libraries: if releases.is_empty() {
                    defaults.libraries
                } else {
                    releases
                },
            };
            let corpus = vectorgen::regenerate_with_library(&opts)?;
            let total: usize = corpus.values().map(|f| f.tests.len()).sum();
            // The matrix needs every release; a run limited to some leaves it alone.
            let all = opts.libraries.len() == pmix_oracle::oracle::LIBRARIES.len();
            let matrix = if all {
                let libs: Vec<&str> = opts.libraries.iter().map(String::as_str).collect();
                Some(compute_matrix(&libs, quiet)?)
            } else {
                None
            };
            if check {
                if let Some(m) = &matrix {
                    for (name, text) in m {
                        let have = std::fs::read_to_string(opts.vectors_dir.join(name))
                            .unwrap_or_default();
                        if &have != text {
                            println!("{}", vectorgen::line_diff(name, &have, text));
                            eprintln!("pmix-vectors: vectors/{name} no longer matches what the libraries do; regenerate with `pmix-vectors regenerate`");
                            return Ok(ExitCode::from(1));
                        }
                    }
                }
                match vectorgen::check_corpus(&corpus, &opts.vectors_dir) {
                    Ok(()) => {
                        eprintln!(
                            "pmix-vectors: {} files, {total} vectors: the checked-in vectors match",
                            corpus.len()
                        );
                        Ok(ExitCode::SUCCESS)
                    }
                    Err(diff) => {
                        println!("{diff}");
                        eprintln!("pmix-vectors: the checked-in vectors no longer match; regenerate with `pmix-vectors regenerate` and review the diff");
                        Ok(ExitCode::from(1))
                    }
                }
            } else {
                vectorgen::write_corpus(&corpus, &opts.vectors_dir)?;
                if let Some(m) = &matrix {
                    for (name, text) in m {
                        let path = opts.vectors_dir.join(name);
                        std::fs::write(&path, text)
                            .map_err(|e| format!("{}: {e}", path.display()))?;
                    }
                }
                eprintln!(
                    "pmix-vectors: wrote {} files, {total} vectors under {}",
                    corpus.len(),
                    opts.vectors_dir.display()
                );
                if !opts.vectors_dir.join(vectorgen::LOCK_FILE).exists() {
                    eprintln!(
                        "pmix-vectors: no {} yet: run `pmix-vectors lock` to freeze them",
                        vectorgen::LOCK_FILE
                    );
                }
                Ok(ExitCode::SUCCESS)
            }
        }
        Cmd::Matrix { releases, write } => {
            let libs: Vec<&str> = if releases.is_empty() {
                pmix_oracle::oracle::LIBRARIES.to_vec()
            } else {
                releases.iter().map(String::as_str).collect()
            };
            let files = compute_matrix(&libs, false)?;
            if let Some(dir) = write {
                for (name, text) in &files {
                    let path = dir.join(name);
                    if let Some(parent) = path.parent() {
                        std::fs::create_dir_all(parent)
                            .map_err(|e| format!("{}: {e}", parent.display()))?;
                    }
                    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
                    eprintln!("pmix-vectors: wrote {}", path.display());
                }
            } else {
                print!("{}", files[0].1);
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Live {
            check,
            dir,
            observations,
            baseline,
            migrate,
        } => {
            use pmix_live::report;
            let dir = dir.unwrap_or(defaults.vectors_dir);
            if let Some(file) = migrate {
                let o = pmix_live::Observations::load(&file)?;
                std::fs::write(&file, o.to_json())
                    .map_err(|e| format!("{}: {e}", file.display()))?;
                eprintln!(
                    "pmix-vectors: {} is now format {} ({} cells)",
                    file.display(),
                    pmix_live::FORMAT,
                    o.cells.len()
                );
                return Ok(ExitCode::SUCCESS);
            }
            if let (Some(file), Some(old)) = (&observations, baseline) {
                let mut new_live = report::Live::load(&dir)?;
                new_live.observations = Some(pmix_live::Observations::load(file)?);
                let mut old_live = report::Live::load(&dir)?;
                old_live.observations = Some(pmix_live::Observations::load(&old)?);
                let changes = pmix_live::gate::compare_runs(&new_live, &old_live);
                let worse: Vec<_> = changes.iter().filter(|c| c.worse()).collect();
                for c in &changes {
                    if c.worse() {
                        println!("{}", c.line());
                    }
                }
                eprintln!(
                    "pmix-vectors: {} cells of {} compared with {}: {} worse, {} not in the baseline",
                    changes.len(),
                    file.display(),
                    old.display(),
                    worse.len(),
                    changes.iter().filter(|c| c.was.is_none()).count()
                );
                let nothing = pmix_live::gate::tested_nothing(&changes);
                if nothing {
                    eprintln!(
                        "pmix-vectors: {} tested nothing (no cell ran): the gate fails",
                        file.display()
                    );
                }
                return Ok(if worse.is_empty() && !nothing {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                });
            }
            if let Some(file) = observations {
                let mut live = report::Live::load(&dir)?;
                live.observations = Some(pmix_live::Observations::load(&file)?);
                print!("{}", report::render(&live));
                let problems = live.problems();
                for p in &problems {
                    eprintln!("pmix-vectors: {p}");
                }
                return Ok(if problems.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                });
            }
            if check {
                return Ok(match pmix_live::publish::check(&dir) {
                    Ok(()) => {
                        eprintln!("pmix-vectors: LIVE.md, LIVE.html, LIVE.svg and MATRIX.svg are up to date; every disagreement has an entry in live/explanations.json (those of kind `open` are not yet traced to a cause: LIVE.md counts them)");
                        ExitCode::SUCCESS
                    }
                    Err(problems) => {
                        println!("{problems}");
                        ExitCode::from(1)
                    }
                });
            }
            let live = report::Live::load(&dir)?;
            for (name, text) in pmix_live::publish::files(&live) {
                let p = dir.join(name);
                std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
                eprintln!("pmix-vectors: wrote {}", p.display());
            }
            let problems = live.problems();
            if problems.is_empty() {
                Ok(ExitCode::SUCCESS)
            } else {
                for p in &problems {
                    eprintln!("pmix-vectors: {p}");
                }
                eprintln!("pmix-vectors: explain each in vectors/live/explanations.json (or fix the prediction)");
                Ok(ExitCode::from(1))
            }
        }
        Cmd::Lock { dir } => {
            let dir = dir.unwrap_or(defaults.vectors_dir);
            let text = vectorgen::lock_text(&dir)?;
            let p = dir.join(vectorgen::LOCK_FILE);
            std::fs::write(&p, &text).map_err(|e| format!("{}: {e}", p.display()))?;
            eprintln!(
                "pmix-vectors: wrote {} ({} frozen files)",
                p.display(),
                text.lines().filter(|l| !l.starts_with('#')).count()
            );
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Stats { dir } => {
            let dir = dir.unwrap_or(defaults.vectors_dir);
            let corpus = vectorgen::load_dir(&dir)?;
            let (mut tv, mut ti, mut ta, mut tc) = (0, 0, 0, 0);
            println!(
                "{:<52} {:>6} {:>8} {:>11} {:>16}",
                "file", "valid", "invalid", "acceptable", "computed"
            );
            let share = |c: usize, n: usize| 100.0 * c as f64 / n.max(1) as f64;
            let mut over = Vec::new();
            for (rel, f) in &corpus {
                let (v, i, a) = vectorgen::counts(f);
                let c = f.computed();
                let pct = share(c, f.tests.len());
                println!("{rel:<52} {v:>6} {i:>8} {a:>11} {c:>7} ({pct:>5.2}%)");
                if pct >= vectorgen::MAX_COMPUTED_PERCENT {
                    over.push(rel.clone());
                }
                (tv, ti, ta, tc) = (tv + v, ti + i, ta + a, tc + c);
            }
            let pct = share(tc, tv + ti + ta);
            println!(
                "{:<52} {tv:>6} {ti:>8} {ta:>11} {tc:>7} ({pct:>5.2}%)",
                "total"
            );
            if !over.is_empty() {
                eprintln!(
                    "pmix-vectors: computed share at or above {}% in: {}",
                    vectorgen::MAX_COMPUTED_PERCENT,
                    over.join(", ")
                );
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The matrix over `libs`: the files `MATRIX.md` and `live/MATRIX.json` (names and texts, the
/// Markdown first); progress on stderr.
fn compute_matrix(libs: &[&str], quiet: bool) -> Result<Vec<(&'static str, String)>, String> {
    let cells = pmix_oracle::matrix::compute(libs, &mut |lib| {
        if !quiet {
            eprintln!("pmix-vectors: matrix: asking OpenPMIx {lib}");
        }
    })?;
    Ok(vec![
        ("MATRIX.md", pmix_oracle::matrix::render(&cells)),
        ("live/MATRIX.json", pmix_oracle::matrix::to_json(&cells)),
    ])
}
