//! The front door and the book stay honest (issue 44, items 1 and 2):
//! - README.md is at most 300 lines and still carries the two commands verbatim;
//! - every section of the old one-page README has a place (`docs/sections.tsv`: the file, the
//!   heading there, and a phrase of the old text that must still stand under it);
//! - every relative link of the README, the book (`docs/src/`), the changelog and the
//!   coverage report (`vectors/COVERAGE.md`, `vectors/coverage/`) points at a file that
//!   exists, and at a heading that exists when it names one;
//! - every path the README and the book name in backticks exists (as in
//!   `architecture_doc.rs`).

mod support;

use std::path::Path;
use support::{root, tree};

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The Markdown files of `dir` (relative to the root), sorted, as root-relative paths.
fn md_files(dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    out.sort();
    out
}

/// The pages whose links are checked.
fn linked_pages() -> Vec<String> {
    let mut pages = vec![
        "README.md".to_string(),
        "CHANGELOG.md".to_string(),
        "vectors/COVERAGE.md".to_string(),
    ];
    pages.extend(md_files("docs/src"));
    pages.extend(md_files("vectors/coverage"));
    pages
}

/// The lines of `md` outside fenced code blocks.
fn prose_lines(md: &str) -> Vec<&str> {
    let mut fence = false;
    let mut out = Vec::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        } else if !fence {
            out.push(line);
        }
    }
    out
}

/// The headings of `md` as (level, text), outside code blocks.
fn headings(md: &str) -> Vec<(usize, String)> {
    prose_lines(md)
        .into_iter()
        .filter_map(|l| {
            let level = l.chars().take_while(|&c| c == '#').count();
            let text = l[level..].strip_prefix(' ')?;
            (1..=6)
                .contains(&level)
                .then(|| (level, text.trim().to_string()))
        })
        .collect()
}

/// The anchor GitHub and mdBook give a heading: lower case, letters, digits, `-` and `_`
/// kept, spaces made `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The text under heading `text` of `md` (to the next heading of the same or a higher
/// level), whitespace collapsed; `None` when there is no such heading.
fn section(md: &str, text: &str) -> Option<String> {
    let mut fence = false;
    let mut start = None;
    let mut body = Vec::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        let is_heading = !fence && level >= 1 && line[level..].starts_with(' ');
        match start {
            None if is_heading && line[level..].trim() == text => start = Some(level),
            Some(l) if is_heading && level <= l => break,
            Some(_) => body.push(line),
            None => {}
        }
    }
    start.map(|_| {
        body.join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The targets of the inline links and images of `md` (outside code blocks and code spans).
fn links(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(md) {
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            let mut rest = part;
            while let Some(at) = rest.find("](") {
                rest = &rest[at + 2..];
                let end = rest.find(')').unwrap_or(rest.len());
                out.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

/// Backticked names that look like paths but are not this repository's: files of
/// OpenPMIx's and PRRTE's sources, and a ratio.
const NOT_OURS: &[&str] = &[
    "examples/client.c",
    "pmix_client.c",
    "pmix_server_fence.c",
    "plm_base_receive.c",
    "memcpy/wire",
];

/// The backticked names of `md` that look like repository paths (as `architecture_doc.rs`
/// reads them), outside code blocks.
fn named_paths(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(md) {
        for (i, span) in line.split('`').enumerate() {
            let looks_like_path = span.contains('/')
                || [".rs", ".md", ".sh", ".toml", ".c", ".json", ".tsv"]
                    .iter()
                    .any(|ext| span.ends_with(ext));
            // Not paths of this repository: absolute and home paths, placeholders, globs,
            // Rust paths, command lines, URLs, release@component names, ellipses.
            let elsewhere = span.starts_with(['/', '~', '$', '-'])
                || span.starts_with("./")
                || (span.starts_with('.') && !span.contains('/')) // an extension: `.json`
                || span.starts_with("docs/book") // rendered by mdbook, not checked in
                || span.starts_with("target/") // build output
                || NOT_OURS.contains(&span)
                || span.contains([' ', '<', ':', '*', '@', '=', '|', '(', '{'])
                || span.contains("...")
                || span.split('/').any(|p| {
                    ["DIR", "OUT", "FILE", "HOSTS", "NAME"].contains(&p) || p.starts_with("pmix.")
                });
            if i % 2 == 1 && looks_like_path && !elsewhere {
                out.push(span.to_string());
            }
        }
    }
    out
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = read("README.md");
    let n = readme.lines().count();
    assert!(
        n <= 300,
        "README.md has {n} lines; at most 300 (the rest goes to docs/)"
    );
    for cmd in [
        "bash tools/setup.sh && cargo run --release -p pmix-conformance -- all",
        "cargo test --workspace --release",
    ] {
        assert!(readme.contains(cmd), "README.md lost the command `{cmd}`");
    }
    // The five things people come for, one command each.
    for task in [
        "pmix-conformance -- vectors",
        "pmix-conformance -- scenarios --server",
        "pmix-wire compat ",
        "pmix-wire pcap ",
        "-p pmix-codec --example",
    ] {
        assert!(
            readme.contains(task),
            "README.md's task table lost `{task}`"
        );
    }
}

#[test]
fn every_old_readme_section_has_a_place() {
    let map = read("docs/sections.tsv");
    let mut olds = Vec::new();
    for line in map.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "docs/sections.tsv: not 4 columns: {line:?}");
        let (old, file, heading, phrase) = (cols[0], cols[1], cols[2], cols[3]);
        assert!(!olds.contains(&old), "docs/sections.tsv maps {old:?} twice");
        olds.push(old);
        let text = read(file);
        let body = section(&text, heading).unwrap_or_else(|| {
            panic!("{old:?} was moved to {file}, \"{heading}\", but {file} has no such heading")
        });
        let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            body.contains(&phrase),
            "{file}, \"{heading}\" no longer holds the old section's text {phrase:?}"
        );
    }
    // The one-page README had 15 `##`/`###` sections.
    assert_eq!(
        olds.len(),
        15,
        "docs/sections.tsv maps {} sections",
        olds.len()
    );
    // Every chapter of the book is in its table of contents, and every entry is a file.
    let summary = read("docs/src/SUMMARY.md");
    for page in md_files("docs/src") {
        let name = page.trim_start_matches("docs/src/");
        if name != "SUMMARY.md" {
            assert!(
                summary.contains(&format!("]({name})")),
                "docs/src/SUMMARY.md does not list {name}"
            );
        }
    }
}

#[test]
fn every_relative_link_resolves() {
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in linked_pages() {
        let text = read(&page);
        let dir = Path::new(&page).parent().unwrap().to_path_buf();
        for target in links(&text) {
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                root().join(&page)
            } else {
                root().join(&dir).join(path)
            };
            checked += 1;
            if !file.exists() {
                broken.push(format!("{page}: {target} (no such file)"));
                continue;
            }
            if let Some(anchor) = anchor {
                let md = std::fs::read_to_string(&file).unwrap_or_default();
                if !headings(&md).iter().any(|(_, h)| slug(h) == anchor) {
                    broken.push(format!("{page}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(checked >= 60, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_path_the_readme_and_the_book_name_exists() {
    let tree = tree();
    let mut named = 0;
    let mut missing = Vec::new();
    let mut pages = vec!["README.md".to_string()];
    // history.md keeps the old changelog's prose as written, with the paths of its day.
    pages.extend(
        md_files("docs/src")
            .into_iter()
            .filter(|p| !p.ends_with("/history.md")),
    );
    for page in pages {
        for name in named_paths(&read(&page)) {
            named += 1;
            let bare = name.trim_end_matches('/');
            let found =
                root().join(bare).exists() || tree.iter().any(|p| p.ends_with(&format!("/{bare}")));
            if !found {
                missing.push(format!("{page}: `{name}`"));
            }
        }
    }
    assert!(named >= 100, "only {named} named paths found");
    assert!(
        missing.is_empty(),
        "paths named that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_checks_catch_what_they_are_for() {
    // A heading's anchor as GitHub and mdBook make it.
    assert_eq!(
        slug("Dissecting real traffic: `pmix-wire pcap`"),
        "dissecting-real-traffic-pmix-wire-pcap"
    );
    assert_eq!(
        slug("Releases: verified against the real libraries"),
        "releases-verified-against-the-real-libraries"
    );
    // Links in code spans and blocks are not links; the others are found.
    let md = "see [a](x.md#y) and `[b](no.md)`\n```\n[c](no.md)\n```\n![p](i.svg)\n";
    assert_eq!(links(md), ["x.md#y", "i.svg"]);
    // A section ends at the next heading of its level, not at a deeper one.
    let md = "# A\n## B\none\n### C\ntwo\n## D\nthree\n";
    assert_eq!(section(md, "B").as_deref(), Some("one ### C two"));
    assert_eq!(section(md, "E"), None);
    // Placeholders and command lines are not paths; repository paths are.
    let md = "`codec/src/lib.rs`, `--dir DIR`, `/tmp/x`, `a/DIR/b`, `Codec::new`, `x.md`, `.json`";
    assert_eq!(named_paths(md), ["codec/src/lib.rs", "x.md"]);
}

/// Issue 44, item 6 moved with the text: the book states a view's bound per call as the codec
/// defines it (`codec/tests/heap_ratio.rs` holds the codec to it).
#[test]
fn the_book_states_the_views_bound_per_call_as_the_codec_has_it() {
    let perf = read("docs/src/performance.md");
    let stated = format!(
        "at most {} bytes per call (`VIEW_BYTES_PER_CALL`) plus 8 per top-level value",
        pmix_codec::VIEW_BYTES_PER_CALL
    );
    assert!(
        perf.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&stated),
        "docs/src/performance.md no longer says: {stated}"
    );
}

/// Issue 44, item 2: the coverage report's first screen (40 lines) holds its answer: one
/// table with the score, how it was measured and when; the CI threshold `tools/mutants.sh`
/// reads stays in it, and the equivalent mutants it reads are in the record.
#[test]
fn the_coverage_report_leads_with_its_answer() {
    let doc = read("vectors/COVERAGE.md");
    let first: Vec<&str> = doc.lines().take(40).collect();
    let row = |name: &str| {
        first
            .iter()
            .find(|l| l.starts_with(&format!("| **{name}** |")))
            .unwrap_or_else(|| panic!("vectors/COVERAGE.md's first 40 lines have no {name} row"))
            .to_string()
    };
    assert!(
        row("Score").contains(" %"),
        "the score row gives no percentage"
    );
    assert!(row("How measured").contains("cargo-mutants"));
    assert!(row("Date").contains("20"), "the date row gives no date");
    assert!(doc.contains("**CI threshold: 100 %**"), "no CI threshold");
    let survivors = read("vectors/coverage/survivors.md");
    assert!(
        survivors
            .lines()
            .filter(|l| l.starts_with("- equivalent: `"))
            .count()
            >= 5,
        "vectors/coverage/survivors.md lists fewer equivalent mutants than tools/mutants.sh had"
    );
    let samples = read("vectors/coverage/samples.md");
    for s in 'A'..='V' {
        assert!(
            samples.contains(&format!("\n## Sample {s}\n")),
            "vectors/coverage/samples.md lost sample {s}"
        );
    }
}

/// Issue 44, item 2: CHANGELOG.md is in the keep-a-changelog shape: `## [Unreleased]` first
/// (where new entries go), then dated sections, newest first, each with only Added, Changed,
/// Fixed (or the other keep-a-changelog kinds) and one-line entries.
#[test]
fn the_changelog_is_keep_a_changelog_newest_first() {
    let log = read("CHANGELOG.md");
    let sections: Vec<&str> = log.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(sections.first(), Some(&"## [Unreleased]"), "{sections:?}");
    let dates: Vec<&str> = sections[1..].iter().map(|s| &s[3..]).collect();
    assert!(!dates.is_empty());
    for d in &dates {
        let ok = d.len() == 10
            && d.char_indices().all(|(i, c)| {
                if i == 4 || i == 7 {
                    c == '-'
                } else {
                    c.is_ascii_digit()
                }
            });
        assert!(ok, "CHANGELOG.md: section {d:?} is not a date (YYYY-MM-DD)");
    }
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(
        dates, sorted,
        "CHANGELOG.md: dated sections not newest first"
    );
    let kinds = [
        "Added",
        "Changed",
        "Deprecated",
        "Removed",
        "Fixed",
        "Security",
    ];
    for l in log.lines().filter(|l| l.starts_with("### ")) {
        assert!(
            kinds.contains(&&l[4..]),
            "CHANGELOG.md: {l:?} is not a kind of change"
        );
    }
    // Terse: every entry is one line (the prose is in docs/src/history.md).
    let mut in_list = false;
    for l in log.lines() {
        assert!(
            !(in_list && l.starts_with("  ")),
            "CHANGELOG.md: an entry runs over more than one line: {l:?}"
        );
        in_list = l.starts_with("- ") || (in_list && l.starts_with("  "));
    }
    assert!(read("docs/src/history.md").lines().count() > 1000);
}
