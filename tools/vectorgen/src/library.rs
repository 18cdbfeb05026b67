//! Per-release writing: one library release's files, generated from that library.

use super::families::{all_cases, gen_valid};
use super::files::{file_name, finish, load_dir, Corpus, Options};
use super::gaps::gen_gaps;
use super::generator::Gen;
use super::hostile::gen_hostile;
use super::judge::{Judge, LibraryJudge};
use super::master::generate_master;
use super::progress::Progress;
use super::recordings::read_recordings;
use pmix_codec::vectors::Source;
use pmix_codec::*;
use std::collections::BTreeMap;
use std::result::Result;

/// Where each library release comes from, for the files' provenance.
pub fn library_origin(library: &str) -> (&'static str, Option<&'static str>) {
    match library {
        "4.2.2" => ("Debian 12 (bookworm) package libpmix-dev 4.2.2-1+deb12u1, installed on the host", None),
        "5.0.7" => ("Debian trixie package libpmix-dev 5.0.7, in a debootstrap root (tools/peers.sh)", None),
        "6.0.0" => (
            "built from the OpenPMIx tag v6.0.0 source (tools/peers.sh make 6.0.0 --openpmix-src DIR)",
            Some("e87b2ee832d249fadd61938a578aaee407b976b9"),
        ),
        "6.1.0" => (
            "built from the OpenPMIx tag v6.1.0 source (tools/peers.sh make 6.1.0 --openpmix-src DIR)",
            Some("ad8d0b75757819175b8d864114bcc65048bce4c3"),
        ),
        "7.0.0rc1" => ("Debian sid package libpmix-dev 7.0.0~rc1, in a debootstrap root (tools/peers.sh)", None),
        _ => ("unknown", None),
    }
}

/// The vectors directory of a library release.
pub fn library_dir(library: &str) -> String {
    format!("openpmix-{library}")
}

fn source_library(library: &str, version: &str) -> Source {
    let (origin, commit) = library_origin(library);
    Source {
        implementation: "openpmix".into(),
        version: library.into(),
        commit: commit.map(String::from),
        method: format!(
            "libpmix {library} ({origin}; it reports itself as {version}) driven by pmix-oracle (tools/oracle/pmix_oracle.c): \
             each vector's pack calls go into one fresh buffer of this kind through this component's pack function; expected decodes and \
             statuses are the same component's unpack function on those bytes (hostile bytes: on the crafted bytes)"
        ),
    }
}

/// Generate one library release's files from the library (`judge`), in the release
/// profile that library judges.
pub fn generate_library(
    judge: &mut dyn Judge,
    library: &str,
    version: &str,
    previous: &Corpus,
    progress: &mut Progress,
) -> Corpus {
    let rel = Release::judged_by(library).unwrap_or_default();
    let dir = library_dir(library);
    let mut out = Corpus::new();
    for &comp in rel.components() {
        for kind in BufferKind::ALL {
            let path = file_name(&dir, comp, kind);
            progress.step(&path);
            let base = judge.requests();
            let mut g = Gen::new(judge, comp, kind, rel);
            g.progress = Some(progress);
            gen_valid(&mut g, &all_cases(comp, rel));
            gen_hostile(&mut g);
            // Every form the release's modules pack or read, in every context (REGEX,
            // compressed; pmix_oracle::forms), last and in a library process of their own: what
            // the library reads uninitialized elsewhere (quirks U14, C1) then stays what it
            // was before these cases existed.
            g.judge.fresh();
            gen_valid(&mut g, &pmix_oracle::forms::form_cases(comp, rel));
            if kind == BufferKind::FullyDescribed {
                // the forms no module claims: refused in a described buffer (quirk U4)
                gen_valid(
                    &mut g,
                    &pmix_oracle::forms::unclaimed_regex_cases(comp, rel),
                );
            }
            g.judge.fresh();
            // The inputs that close the mutation-testing gaps (vectors/COVERAGE.md), in a
            // library process of their own for the same reason.
            gen_gaps(&mut g);
            g.judge.fresh();
            let skipped = std::mem::take(&mut g.skipped);
            let drafts = std::mem::take(&mut g.out);
            let _ = base;
            let mut notes = BTreeMap::new();
            notes.insert(
                "provenance".into(),
                format!("Every expected byte and status was produced by libpmix {library} (see source.method), except vectors flagged UpstreamBug."),
            );
            notes.insert("not included".into(), skipped_note(&skipped));
            let f = finish(
                drafts,
                source_library(library, version),
                comp,
                kind,
                rel,
                notes,
                previous.get(&path),
            );
            out.insert(path, f);
            progress.finish_step();
        }
    }
    out
}

fn skipped_note(skipped: &BTreeMap<String, usize>) -> String {
    if skipped.is_empty() {
        return "nothing was skipped".into();
    }
    let parts: Vec<String> = skipped.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    format!(
        "inputs generated but not recorded as vectors: {}",
        parts.join("; ")
    )
}

/// Regenerate every library release in `opts.libraries` (each through its own oracle, made
/// available by `tools/peers.sh`) and the master recordings. A library that is not
/// available is an error naming the command that makes it so.
pub fn regenerate_with_library(opts: &Options) -> Result<Corpus, String> {
    let previous = load_dir(&opts.vectors_dir)?;
    let recordings = read_recordings(opts)?;
    let files: usize = opts
        .libraries
        .iter()
        .map(|l| 2 * Release::judged_by(l).map_or(0, |r| r.components().len()))
        .sum::<usize>()
        + 6;
    let mut progress = Progress::new(files, opts.quiet);
    let mut corpus = Corpus::new();
    for library in &opts.libraries {
        let mut judge = LibraryJudge::start_for(library)?;
        let version = judge.oracle.version.clone();
        corpus.extend(generate_library(
            &mut judge,
            library,
            &version,
            &previous,
            &mut progress,
        ));
    }
    corpus.extend(generate_master(&recordings, &previous, &mut progress));
    progress.done();
    Ok(corpus)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checked_in::check_corpus;

    /// The checked-in vectors still match every library release available here
    /// (`regenerate --check`); one that is not available is reported as not run, and is a
    /// failure under CI, which makes every release available.
    #[test]
    fn checked_in_vectors_match_the_library() {
        let mut opts = Options::defaults();
        opts.quiet = true;
        opts.libraries
            .retain(|lib| match pmix_oracle::oracle::ensure_built_for(lib) {
                Ok(_) => true,
                Err(e) => {
                    let msg = format!("vectors of OpenPMIx {lib}: NOT RUN: {e}");
                    eprintln!("{msg}");
                    assert!(std::env::var_os("CI").is_none(), "{msg}");
                    false
                }
            });
        let corpus = regenerate_with_library(&opts)
            .unwrap_or_else(|e| panic!("THE LIBPMIX ORACLE IS REQUIRED FOR THIS TEST: {e}"));
        if let Err(e) = check_corpus(&corpus, &opts.vectors_dir) {
            panic!("{e}\nregenerate with: cargo run --release -p pmix-vectorgen --bin pmix-vectors -- regenerate");
        }
    }
}
