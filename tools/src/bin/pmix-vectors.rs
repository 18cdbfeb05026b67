//! `pmix-vectors`: regenerate, check and lock the golden vectors in `vectors/`.
//!
//! ```sh
//! cargo run --release -p pmix-wire --bin pmix-vectors -- regenerate           # rewrite vectors/
//! cargo run --release -p pmix-wire --bin pmix-vectors -- regenerate --check   # CI: exit 1 on any difference
//! cargo run --release -p pmix-wire --bin pmix-vectors -- lock                 # freeze the current vectors
//! cargo run --release -p pmix-wire --bin pmix-vectors -- stats                # counts per file
//! ```

use clap::{Parser, Subcommand};
use pmix_wire::vectorgen::{self, Options};
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
    /// Regenerate the vectors: OpenPMIx 4.2.2 from the installed libpmix (through the oracle),
    /// master from the shared recordings.
    Regenerate {
        /// Do not write: compare with the checked-in files, show a diff and exit 1 if they differ.
        #[arg(long)]
        check: bool,
        /// The vectors directory (default: the workspace's vectors/). Ids are kept from the files in it.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// The shared recordings directory (default: ../shared/vectors beside the workspace).
        #[arg(long, value_name = "DIR")]
        shared: Option<PathBuf>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
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
            shared,
            quiet,
        } => {
            let opts = Options {
                vectors_dir: out.unwrap_or(defaults.vectors_dir),
                shared_dir: shared.unwrap_or(defaults.shared_dir),
                quiet,
            };
            let corpus = vectorgen::regenerate_with_library(&opts)?;
            let total: usize = corpus.values().map(|f| f.tests.len()).sum();
            if check {
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
            let (mut tv, mut ti, mut ta) = (0, 0, 0);
            println!(
                "{:<52} {:>6} {:>8} {:>11}",
                "file", "valid", "invalid", "acceptable"
            );
            for (rel, f) in &corpus {
                let (v, i, a) = vectorgen::counts(f);
                println!("{rel:<52} {v:>6} {i:>8} {a:>11}");
                (tv, ti, ta) = (tv + v, ti + i, ta + a);
            }
            println!("{:<52} {tv:>6} {ti:>8} {ta:>11}", "total");
            Ok(ExitCode::SUCCESS)
        }
    }
}
