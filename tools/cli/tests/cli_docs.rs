//! The CLI tour must show real output: every `console` block in `tools/cli/CLI.md`, and every
//! command in the `console` blocks of the README and of the book (`docs/src/`) that runs
//! `pmix-wire`, is run with bash from the
//! repository root (where a new user stands after `git clone` and `cd`), with the freshly
//! built `pmix-wire` first on `PATH`, and its output (stdout and stderr) compared with the
//! page.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (command, expected output) pairs from the ```console blocks of a Markdown file. A command
/// line ending in `\` continues on the next line.
fn examples(md: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut in_block = false;
    let mut continued = false;
    for line in md.lines() {
        if line.starts_with("```console") {
            in_block = true;
        } else if in_block && line.starts_with("```") {
            in_block = false;
            continued = false;
        } else if in_block {
            if continued {
                let last = out.last_mut().expect("a continued command");
                last.0.push('\n');
                last.0.push_str(line);
                continued = line.ends_with('\\');
            } else if let Some(cmd) = line.strip_prefix("$ ") {
                out.push((cmd.to_string(), String::new()));
                continued = cmd.ends_with('\\');
            } else if let Some(last) = out.last_mut() {
                last.1.push_str(line);
                last.1.push('\n');
            }
        }
    }
    out
}

/// Whether `cmd` runs the `pmix-wire` binary: some simple command in it starts with it.
fn runs_pmix_wire(cmd: &str) -> bool {
    cmd.split(['|', ';', '&', '\n'])
        .any(|part| part.split_whitespace().next() == Some("pmix-wire"))
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf()
}

/// Run the examples of the page at `path` (all of them, or only those that run `pmix-wire`);
/// returns how many ran.
fn run_page(path: &Path, only_pmix_wire: bool) -> usize {
    let md = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_pmix-wire"));
    let dir = bin.parent().unwrap();
    let path_var = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut n = 0;
    for (cmd, want) in examples(&md) {
        if only_pmix_wire && !runs_pmix_wire(&cmd) {
            continue;
        }
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("{{ {cmd}\n}} 2>&1"))
            .env("PATH", &path_var)
            .current_dir(repo_root())
            .output()
            .expect("run bash");
        let got = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            got,
            want,
            "{}: `{cmd}` printed something else",
            path.display()
        );
        n += 1;
    }
    n
}

#[test]
fn the_example_parser_joins_continued_commands() {
    let md = "```console\n$ a \\\n    b\nout\n$ pmix-wire x | pmix-wire y\n```\n";
    let ex = examples(md);
    assert_eq!(
        ex,
        [
            ("a \\\n    b".to_string(), "out\n".to_string()),
            ("pmix-wire x | pmix-wire y".to_string(), String::new())
        ]
    );
    assert!(runs_pmix_wire("echo '{}' | pmix-wire encode"));
    assert!(!runs_pmix_wire(
        "cargo build --release -p pmix-oracle --bin pmix-libpmix-testee"
    ));
}

#[test]
fn cli_md_examples_show_real_output() {
    let n = run_page(&repo_root().join("tools/cli/CLI.md"), false);
    assert!(n >= 15, "only {n} examples found in tools/cli/CLI.md");
}

#[test]
fn readme_and_book_pmix_wire_examples_show_real_output() {
    let mut pages = vec![repo_root().join("README.md")];
    let mut book: Vec<PathBuf> = std::fs::read_dir(repo_root().join("docs/src"))
        .expect("docs/src")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    book.sort();
    pages.extend(book);
    let mut total = 0;
    for page in &pages {
        let n = run_page(page, true);
        // The CLI's tour of the old README lives in the dissector chapter now.
        if page.ends_with("docs/src/dissector.md") {
            assert!(
                n >= 6,
                "only {n} pmix-wire examples found in {}",
                page.display()
            );
        }
        total += n;
    }
    assert!(
        total >= 6,
        "only {total} pmix-wire examples in the README and the book"
    );
}
