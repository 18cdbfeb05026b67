//! `vectors/LIVE.html` (issue 44): the page is what `pmix-vectors live` writes, and in a real
//! browser (headless Chromium, Debian's `chromium`) a click on a grid cell shows that pair's
//! operations, verdict and explanations, and a filter recomputes the grid as
//! [`Live::pair`] does with the same filter. The page's test hook (`#click=C|S&gds=...`)
//! calls the same function as the click listener. Without Chromium the browser tests are
//! skipped, except under `CI`, where they fail.

use pmix_live::compare::{Outcome, Row};
use pmix_live::html::{self, Word};
use pmix_live::observations::{ClientKind, LiveCell};
use pmix_live::report::Live;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../vectors")
        .canonicalize()
        .unwrap()
}

#[test]
fn live_html_is_what_pmix_vectors_live_writes() {
    let live = Live::load(&vectors()).unwrap();
    let want = pmix_live::publish::files(&live)
        .into_iter()
        .find(|(n, _)| *n == "LIVE.html")
        .expect("publish::files writes LIVE.html")
        .1;
    assert_eq!(want, html::render(&live));
    let have = std::fs::read_to_string(vectors().join("LIVE.html")).unwrap_or_default();
    assert!(
        have == want,
        "vectors/LIVE.html is stale; regenerate with `cargo run --release -p pmix-vectorgen --bin pmix-vectors -- live`"
    );
    // self-contained: nothing is fetched
    for bad in ["<script src", "<link ", "http://", "https://"] {
        assert!(!want.contains(bad), "LIVE.html loads something: {bad}");
    }
}

/// The Chromium binary, or None (skip) outside CI; under CI a missing one fails.
fn chromium() -> Option<PathBuf> {
    for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    if std::env::var_os("CI").is_some() {
        panic!("chromium missing: apt-get install chromium");
    }
    eprintln!("live_html: no /usr/bin/chromium, browser test skipped (apt-get install chromium)");
    None
}

/// The DOM headless Chromium ends with after loading LIVE.html with this hash (60 s at most).
fn dump_dom(chromium: &Path, hash: &str) -> String {
    let profile = std::env::temp_dir().join(format!(
        "pmix-live-html-{}-{}",
        std::process::id(),
        hash.len()
    ));
    let url = format!("file://{}#{hash}", vectors().join("LIVE.html").display());
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).map(|_| s)
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_dir_all(&profile);
            panic!("chromium did not finish within 60 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let dom = reader.join().unwrap().expect("read chromium's output");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(status.success(), "chromium failed ({status}) on {url}");
    assert!(
        dom.contains("data-check=\"ok\""),
        "the page's self-check (grid without filters = LIVE.md) failed or did not run on {url}:\n{}",
        &dom[..dom.len().min(2000)]
    );
    dom
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The grid's cells in a dumped DOM: (client, server) -> the word shown.
fn grid(dom: &str) -> Vec<((String, String), String)> {
    let attr = |td: &str, name: &str| -> String {
        let k = format!(" {name}=\"");
        let at = td.find(&k).unwrap_or_else(|| panic!("no {name} in {td}")) + k.len();
        td[at..at + td[at..].find('"').unwrap()].replace("&amp;", "&")
    };
    dom.split("<td class=\"pair")
        .skip(1)
        .map(|td| {
            let td = &td[..td.find('>').unwrap()];
            (
                (attr(td, "data-client"), attr(td, "data-server")),
                attr(td, "data-word"),
            )
        })
        .collect()
}

/// The filter values a cell has, as the page names them.
fn field(cell: &LiveCell, f: &str) -> String {
    match f {
        "kind" => match cell.client_kind {
            ClientKind::Client => "client",
            ClientKind::Tool => "tool",
        }
        .to_string(),
        "component" if cell.component.is_empty() => "?".into(),
        "component" => cell.component.clone(),
        "forced" if cell.component_forced => "forced".into(),
        "forced" => "negotiated".into(),
        "buffer" => cell.buffer.clone(),
        "gds" => cell.gds.clone(),
        "psec" => cell.psec.clone(),
        _ => unreachable!("{f}"),
    }
}

#[test]
fn a_click_shows_the_pairs_operations_verdict_and_explanations() {
    let Some(chromium) = chromium() else { return };
    let live = Live::load(&vectors()).unwrap();
    let rows = live.rows();
    let pairs = live.pairs(&rows);
    // a pair that fails in a default cell, with an explained disagreement if there is one
    let failing: Vec<_> = pairs
        .iter()
        .filter(|p| p.observed == Some(Outcome::Fails))
        .collect();
    assert!(!failing.is_empty(), "no failing pair observed");
    let mine = |p: &pmix_live::compare::PairVerdict| -> Vec<&Row<'_>> {
        rows.iter()
            .filter(|r| r.cell.client_release == p.client && r.cell.server == p.server)
            .collect()
    };
    let p = failing
        .iter()
        .find(|p| mine(p).iter().any(|r| r.explanation.is_some()))
        .unwrap_or(&failing[0]);
    let dom = dump_dom(&chromium, &format!("click={}|{}", p.client, p.server));
    let at = dom.find("id=\"detail\"").expect("a detail panel");
    // the panel, up to the data and the script (which hold every text)
    let panel = &dom[at..];
    let panel = &panel[..panel.find("<script").expect("the script follows the panel")];
    let short: String = panel.chars().take(3000).collect();
    let head = format!(
        "{} × {}: <span class=\"verdict\">{}</span>",
        p.client,
        p.server,
        Word::Fails.as_str()
    );
    assert!(panel.contains(&head), "no `{head}` in the panel:\n{short}");
    // the failing operation, in a row marked as counting against the pair
    let op = p
        .observed_failing
        .iter()
        .find(|l| !l.contains(" ("))
        .expect("a failing pair fails in a default cell");
    let row = format!("<tr class=\"fails\"><td class=\"op\">{op}</td>");
    assert!(panel.contains(&row), "no `{row}` in the panel:\n{short}");
    // every operation of the pair, with its status, and every explanation's why
    for r in mine(p) {
        let op = format!("<td class=\"op\">{}</td>", r.observed.op);
        assert!(panel.contains(&op), "no {op} in the panel");
        assert!(panel.contains(&r.observed.status_name));
        if let Some(e) = r.explanation {
            assert!(
                panel.contains(&escape(&e.why)),
                "explanation `{}` not shown",
                e.why
            );
        }
        assert!(panel.contains(&escape(&r.cell.key())));
    }
    assert!(panel.contains("no capture recorded") || panel.contains("conversations/"));
    // the clicked cell is marked in the grid
    assert!(dom.contains("selected"));
}

#[test]
fn a_filter_recomputes_the_grid_as_live_pair_does() {
    let Some(chromium) = chromium() else { return };
    let live = Live::load(&vectors()).unwrap();
    let rows = live.rows();
    let cells = &live.observations.as_ref().expect("observations").cells;
    let unfiltered = live.pairs(&rows);
    // The expected grid under (field = value): Live::pair over the rows that match.
    let expect = |f: &str, v: &str| -> Vec<((String, String), String)> {
        let keep = |c: &LiveCell| field(c, f) == v;
        unfiltered
            .iter()
            .map(|p| {
                let k = (p.client.clone(), p.server.clone());
                let word = if p.observed.is_none() {
                    format!(
                        "{} {}",
                        html::PREDICTED,
                        Word::of_verdict(p.predicted).as_str()
                    )
                } else {
                    let fp = live.pair(&rows, &p.client, &p.server, &keep);
                    match fp.observed {
                        Some(v) => Word::of(v).as_str().to_string(),
                        None => Word::NoCell.as_str().to_string(),
                    }
                };
                (k, word)
            })
            .collect()
    };
    let all: Vec<_> = unfiltered
        .iter()
        .map(|p| {
            let w = Word::of(p.shown()).as_str();
            let w = if p.observed.is_some() {
                w.to_string()
            } else {
                format!("{} {w}", html::PREDICTED)
            };
            ((p.client.clone(), p.server.clone()), w)
        })
        .collect();
    // the grid without filters
    assert_eq!(grid(&dump_dom(&chromium, "")), all);
    // a gds filter and a buffer filter, each of which changes at least one cell
    let mut tried = 0;
    for (f, v) in [
        ("gds", "hash"),
        ("buffer", "non-described"),
        ("kind", "client"),
    ] {
        assert!(
            cells.iter().any(|c| field(c, f) == v),
            "no cell with {f}={v}"
        );
        let want = expect(f, v);
        let changed = want.iter().zip(&all).filter(|(a, b)| a != b).count();
        if changed == 0 {
            continue;
        }
        tried += 1;
        let got = grid(&dump_dom(&chromium, &format!("{f}={v}")));
        assert_eq!(got, want, "the grid under {f}={v}");
        eprintln!("live_html: {f}={v} changes {changed} cells, as Live::pair does");
    }
    assert!(tried >= 2, "no filter changes a cell");
}

#[test]
fn a_cell_with_a_recorded_conversation_links_it() {
    let Some(chromium) = chromium() else { return };
    let live = Live::load(&vectors()).unwrap();
    let cells = &live.observations.as_ref().expect("observations").cells;
    // pmix-peer against PRRTE in v41: tools/prrte/conversations.sh recorded that conversation
    let rel = "conversations/prrte-5.0.0rc1/v41-non-described.json";
    assert!(vectors().join(rel).exists(), "{rel} is gone");
    assert!(cells.iter().any(|c| c.client_release == "pmix-peer"
        && c.server == "prrte-5.0.0rc1"
        && c.component == "v41"
        && c.buffer == "non-described"));
    let dom = dump_dom(&chromium, "click=pmix-peer|prrte-5.0.0rc1&component=v41");
    let panel = &dom[dom.find("id=\"detail\"").unwrap()..];
    let panel = &panel[..panel.find("<script").unwrap()];
    assert!(panel.contains(&format!("<a href=\"{rel}\">{rel}</a>")));
    assert!(panel.contains("sent register-events (tag 100)"));
    assert!(
        !panel.contains("no capture recorded"),
        "the v41 cells all have it"
    );
}
